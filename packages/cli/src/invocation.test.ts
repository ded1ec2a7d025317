import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliName, commandLine, shellArg } from './invocation.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-invocation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('printed follow-up commands', () => {
  it('say `npx pagewise` when no pagewise executable is on PATH', () => {
    expect(cliName({ PATH: path.join(dir, 'empty') })).toBe('npx pagewise');
  });

  it('say `pagewise` when one is on PATH', () => {
    if (process.platform === 'win32') return;
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'pagewise'), '#!/bin/sh\n');
    chmodSync(path.join(bin, 'pagewise'), 0o755);
    expect(cliName({ PATH: bin })).toBe('pagewise');
  });

  it('say `npx pagewise` when started through npx or npm, whose bin folder is on PATH for this process only', () => {
    expect(cliName({ PATH: process.env.PATH, npm_command: 'exec' })).toBe('npx pagewise');
    expect(cliName({ PATH: process.env.PATH, npm_lifecycle_event: 'demo' })).toBe('npx pagewise');
  });

  it('quote what the shell would split or expand', () => {
    expect(shellArg('/tmp/a b/c.db')).toBe(`'/tmp/a b/c.db'`);
    expect(shellArg(`it's`)).toBe(`'it'\\''s'`);
    expect(shellArg('--db')).toBe('--db');
    expect(commandLine(['sessions', 'show', 'x y'], { PATH: '' })).toBe(`npx pagewise sessions show 'x y'`);
  });
});
