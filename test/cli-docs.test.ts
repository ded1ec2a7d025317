/**
 * docs/cli.md keeps up with `--help` (issue 40, item 7): every command `pagewise --help` lists has its section, and
 * every flag a command's `--help` prints is in that section. Each help is read from a child process, as a user's
 * shell prints it.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const DOC = readFileSync(path.join(ROOT, 'docs/cli.md'), 'utf8');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const run = promisify(execFile);

/** What `pagewise <argv…>` prints on stdout, from a child process. */
async function help(...argv: string[]): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ['--import', TSX, path.join(ROOT, 'packages/cli/src/main.ts'), ...argv],
    {
      cwd: ROOT,
      timeout: 60_000,
    },
  );
  return stdout;
}

/** The text of the `## <name>` section of docs/cli.md, up to the next section. */
function section(name: string): string | undefined {
  const start = DOC.search(new RegExp(`^## ${name}$`, 'm'));
  if (start < 0) return undefined;
  const next = DOC.slice(start + 1).search(/^## /m);
  return next < 0 ? DOC.slice(start) : DOC.slice(start, start + 1 + next);
}

/** The long flags a help text names, `--help` aside (docs/cli.md documents it once for all). */
function flagsOf(text: string): string[] {
  return [...new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((match) => match[0]))].filter(
    (flag) => flag !== '--help',
  );
}

const mentions = (text: string, flag: string): boolean => new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(text);

describe('docs/cli.md against --help', () => {
  it('documents every command and every flag of its --help', async () => {
    const top = await help('--help');
    const commands = [...top.slice(top.indexOf('Commands:')).matchAll(/^ {2}([a-z]+) {2,}/gm)].map(
      (match) => match[1]!,
    );
    expect(commands.length).toBeGreaterThan(5);
    // Two children at a time: each loads its command's modules, and the machine may be shared.
    const helps = new Map<string, string>();
    for (let index = 0; index < commands.length; index += 2)
      await Promise.all(
        commands.slice(index, index + 2).map(async (command) => helps.set(command, await help(command, '--help'))),
      );
    const missing: string[] = [];
    for (const command of commands) {
      const text = section(command);
      if (text === undefined) {
        missing.push(`command ${command}: no "## ${command}" section`);
        continue;
      }
      if (!DOC.includes(`[\`${command}\`](#${command})`))
        missing.push(`command ${command}: not in the table of commands`);
      for (const flag of flagsOf(helps.get(command)!)) if (!mentions(text, flag)) missing.push(`${command} ${flag}`);
    }
    expect(missing).toEqual([]);
  }, 300_000);
});
