/**
 * Runs the CLI, or one of its commands, in process, as the `pagewise` command would, capturing what it prints.
 */
import { main } from '../../packages/cli/src/main.js';

/** What a CLI command function takes: its arguments and where to print. */
export type CliCommand = (argv: string[], out: (s: string) => void, err: (s: string) => void) => Promise<number>;

/** Runs `command` on `argv` in this process and returns its exit code and its stdout and stderr text. */
export async function runCommand(
  command: CliCommand,
  argv: string[],
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await command(
    argv,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Runs `pagewise <argv…>` in this process and returns its exit code and its stdout and stderr text. */
export function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  return runCommand(main, argv);
}
