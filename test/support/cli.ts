/**
 * Runs the CLI in process, as the `pagewise` command would, capturing what it prints.
 */
import { main } from '../../src/cli/main.js';

/** Runs `pagewise <argv…>` in this process and returns its exit code and its stdout and stderr text. */
export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}
