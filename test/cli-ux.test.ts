/**
 * The command line as a new user meets it: a mistyped flag gets a "did you mean"; flags and the model are checked
 * before a folder is read or a corpus written; `demo` takes --model; printed follow-up commands run as printed
 * (`npx pagewise …` when no `pagewise` is on PATH).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

let dir: string;
let folder: string;
const saved = { ...process.env };

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-ux-'));
  folder = path.join(dir, 'docs');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'a.md'), '# A\n\nRevenue rose to 12 million.\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

describe('flags', () => {
  it('suggests the flag meant', async () => {
    const run = await cli('analyze', folder, 'revenue?', '--modle', 'offline');
    expect(run.code).toBe(2);
    expect(run.err).toContain('Unknown option --modle. Did you mean --model?');
    expect(run.err).toContain('pagewise analyze --help');
    expect((await cli('bench', 'report-analysis', '--task', '2')).err).toContain('Did you mean --tasks?');
  });

  it('checks every flag and the model before reading the folder', async () => {
    const db = path.join(dir, 'pw.db');
    const badBudget = await cli('analyze', folder, 'revenue?', '--budget', 'lots', '--db', db);
    expect(badBudget.code).toBe(2);
    expect(badBudget.err).toContain('--budget must be an integer');
    expect(badBudget.err).not.toMatch(/^Read \d+ files/m);

    delete process.env.OPENAI_API_KEY;
    const noKey = await cli('analyze', folder, 'revenue?', '--model', 'openai:gpt-4.1-mini', '--db', db);
    expect(noKey.code).toBe(2);
    expect(noKey.err).toContain('OPENAI_API_KEY');
    expect(noKey.err).not.toMatch(/^Read \d+ files/m);

    const badStrategy = await cli('analyze', folder, 'revenue?', '--strategy', 'pagin', '--db', db);
    expect(badStrategy.code).toBe(2);
    expect(badStrategy.err).not.toMatch(/^Read \d+ files/m);
  });
});

describe('demo', () => {
  it('takes --model, and checks it before writing the corpus', async () => {
    delete process.env.OPENAI_API_KEY;
    const run = await cli('demo', '--n', '3', '--questions', '1', '--model', 'openai:gpt-4.1-mini');
    expect(run.code).toBe(2);
    expect(run.err).toContain('OPENAI_API_KEY');
    expect(run.out).not.toContain('generated reports');
  });

  it('prints follow-up commands that run where no pagewise is on PATH', async () => {
    for (const key of Object.keys(process.env)) if (key.startsWith('npm_')) delete process.env[key];
    process.env.PATH = path.join(dir, 'no-bin');
    const run = await cli('demo', '--n', '3', '--questions', '1');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^ {2}npx pagewise sessions list --db \S+$/m);
    expect(run.out).toMatch(/^ {2}npx pagewise inspect --store sqlite:\S+/m);
    expect(run.out).not.toMatch(/^ {2}pagewise /m);
    rmSync(/--db (\S+)/.exec(run.out)![1]!.replace(/pagewise\.db$/, ''), { recursive: true, force: true });
  });
});
