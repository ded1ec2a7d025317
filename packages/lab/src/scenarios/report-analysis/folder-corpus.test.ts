/**
 * `folderCorpus` called from code shares the extraction cache: the same PDFs read twice in one process are parsed
 * once, counted by the files the call handed to a reader (never by timing; the time is bench/folder-corpus-cache.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { folderCorpus } from './run.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function filing(lines: readonly string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of lines) doc.addPage().drawText(text, { x: 50, y: 700, size: 12, font });
  return doc.save();
}

describe('folderCorpus and the extraction cache', () => {
  it('parses the PDFs of a folder read twice once, and serves the second corpus the same pages', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pagewise-folder-corpus-'));
    dirs.push(dir);
    // Content no other test reads: the default cache is shared by the whole process.
    const run = randomUUID();
    await writeFile(path.join(dir, 'acme-q3.pdf'), await filing([`Acme net sales ${run}`, 'Acme cash 12']));
    await writeFile(path.join(dir, 'bolt-q3.pdf'), await filing([`Bolt net sales ${run}`]));

    const first = await folderCorpus(dir);
    expect([first.extracted, first.reused]).toEqual([2, 0]);
    const second = await folderCorpus(dir);
    expect([second.extracted, second.reused]).toEqual([0, 2]);
    expect(second.uris).toEqual(first.uris);
    const page = await second.source.load('acme-q3.pdf#1');
    expect(page.body).toBe(`Acme net sales ${run}`);
    // The pages are the same, so the search index built over them is too.
    expect(second.index).toBe(first.index);

    await writeFile(path.join(dir, 'bolt-q3.pdf'), await filing([`Bolt net sales ${run} restated`]));
    const edited = await folderCorpus(dir);
    expect([edited.extracted, edited.reused]).toEqual([1, 1]);
    expect(edited.index).not.toBe(first.index);
    expect(edited.index.search('restated', 1)[0]?.uri).toBe('bolt-q3.pdf#1');
  });
});
