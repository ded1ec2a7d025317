/**
 * `analyze` never answers from another file's text: pages stored by an earlier run (the same --db) are served only
 * while the file's content is the same, and two folders with a file of the same name never share a page. The
 * document cache is reused across runs and re-reads an edited file.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support/cli.js';

let dir: string;
let db: string;
let cacheDir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-analyze-cache-'));
  db = path.join(dir, 'pw.db');
  cacheDir = path.join(dir, 'cache');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const analyze = (folder: string, question: string) =>
  cli('analyze', folder, question, '--db', db, '--cache-dir', cacheDir);

function folderWith(name: string, files: Record<string, string>): string {
  const folder = path.join(dir, name);
  mkdirSync(folder, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(folder, file), text);
  return folder;
}

describe('analyze reads the text the file holds now', () => {
  it('answers from the edited text when a file changed between two runs on the same database', async () => {
    const folder = folderWith('fleet', { 'a.txt': 'Fleet report.\n\nThe Havørn vessel carries 1,200 containers.\n' });
    const first = await analyze(folder, 'How many containers does the Havørn vessel carry?');
    expect(first.code).toBe(0);
    expect(first.out).toContain('1,200 containers');

    writeFileSync(path.join(folder, 'a.txt'), 'Fleet report.\n\nThe Havørn vessel carries 1,450 containers.\n');
    const second = await analyze(folder, 'How many containers does the Havørn vessel carry?');
    expect(second.code).toBe(0);
    expect(second.out).toContain('1,450 containers');
    expect(second.out).not.toContain('1,200');
    expect(second.err).toMatch(/document cache: 0 of 1 files reused/);
  });

  it('reads each folder its own a.txt', async () => {
    const north = folderWith('north', { 'a.txt': 'North depot.\n\nThe depot stores 310 pallets of grain.\n' });
    const south = folderWith('south', { 'a.txt': 'South depot.\n\nThe depot stores 975 pallets of grain.\n' });
    const question = 'How many pallets of grain does the depot store?';
    const fromNorth = await analyze(north, question);
    const fromSouth = await analyze(south, question);
    expect(fromNorth.out).toContain('310 pallets');
    expect(fromSouth.out).toContain('975 pallets');
    expect(fromSouth.out).not.toContain('310');
    // And back: the north folder's page was not replaced by the south's.
    expect((await analyze(north, question)).out).toContain('310 pallets');
  });

  it('reuses the extracted text of unchanged files on the next run', async () => {
    const folder = folderWith('reuse', {
      'one.md': '# One\n\nThe plant produced 42 turbines in 2024.\n',
      'two.md': '# Two\n\nThe plant employed 77 welders in 2024.\n',
    });
    const first = await analyze(folder, 'How many turbines did the plant produce?');
    expect(first.err).toMatch(/document cache: 0 of 2 files reused/);
    const second = await analyze(folder, 'How many turbines did the plant produce?');
    expect(second.err).toMatch(/document cache: 2 of 2 files reused/);
    expect(second.out).toContain('42 turbines');
  });
});
