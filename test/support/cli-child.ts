/**
 * Runs `pagewise` as a child process (Node with tsx on the sources), as a user's shell would, so that signals are
 * real: the test sends SIGINT to the process and reads what it printed and how it exited.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '../..');

/** A running CLI process, with what it printed so far. */
export interface CliChild {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once stderr or stdout matches `pattern`; rejects after `timeoutMs` or when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `pagewise <argv…>` in a child process (in folder `cwd`) with `env` added to this process's environment. */
export function spawnCli(argv: readonly string[], env: Record<string, string> = {}, cwd = root): CliChild {
  // tsx by file URL: a child in another working folder cannot resolve the bare name.
  const tsx = pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', tsx, path.join(root, 'packages/cli/src/main.ts'), ...argv], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const check = () => {
          if (pattern.test(err) || pattern.test(out)) return resolve();
          if (done) return reject(new Error(`the CLI exited before printing ${pattern}:\n${out}\n${err}`));
          if (Date.now() - started > timeoutMs)
            return reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${out}\n${err}`));
          setTimeout(check, 50);
        };
        check();
      }),
  };
}
