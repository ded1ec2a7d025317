/**
 * CLI runs for the inspector's browser tests: a command run to its end (it must exit 0), and `pagewise inspect`
 * kept running on a store while a test uses its address.
 */
import { expect } from 'vitest';
import { spawnCli, type CliChild } from './cli-child.js';

/** Runs `pagewise <argv…>` to its end and expects exit code 0 (its stderr is the message when it is not). */
export async function finishedCli(argv: readonly string[], env: Record<string, string>): Promise<CliChild> {
  const run = spawnCli(argv, env);
  const { code } = await run.exited;
  expect(code, run.stderr()).toBe(0);
  return run;
}

/** Runs `pagewise inspect` on `store` until `use` is done with its address (`http://127.0.0.1:<port>`). */
export async function withInspector(store: string, use: (origin: string) => Promise<void>): Promise<void> {
  const inspector = spawnCli(['inspect', '--store', store, '--port', '0']);
  try {
    await inspector.waitFor(/read-only inspector at http:\/\/127\.0\.0\.1:\d+\//);
    await use(/read-only inspector at (http:\/\/127\.0\.0\.1:\d+)\//.exec(inspector.stdout())![1]!);
  } finally {
    inspector.child.kill('SIGINT');
    await inspector.exited;
  }
}
