/**
 * How to print a command the user can run next: `pagewise …` only when a `pagewise` executable is on the user's
 * PATH, `npx pagewise …` otherwise (after `npx pagewise demo`, or `npm run`, the bare name is not a command the shell
 * knows), with every argument quoted for the shell where it needs it.
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** `pagewise` when it is on PATH and the CLI was not started through npm or npx, else `npx pagewise`. */
export function cliName(env: Readonly<Record<string, string | undefined>> = process.env): string {
  // npm and npx put the package's bin folder on PATH for the process they start, not for the user's shell.
  if (env.npm_command || env.npm_lifecycle_event || env.npm_execpath) return 'npx pagewise';
  const names = process.platform === 'win32' ? ['pagewise.cmd', 'pagewise.exe', 'pagewise'] : ['pagewise'];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    for (const name of names) {
      try {
        accessSync(path.join(dir, name), constants.X_OK);
        return 'pagewise';
      } catch {
        // not here
      }
    }
  }
  return 'npx pagewise';
}

/** An argument as a POSIX shell reads it back unchanged: bare when it is plain, single-quoted otherwise. */
export function shellArg(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A runnable command line: `npx pagewise sessions show <id>` or `pagewise …`, arguments quoted. */
export function commandLine(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  return [cliName(env), ...args.map(shellArg)].join(' ');
}
