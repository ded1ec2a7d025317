/**
 * The document cache: extracted text is reused by content, never by name; an edited file, another reader or another
 * reader version is extracted again; a damaged entry is never served.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { PagingService } from 'pagewise/paging';
import { createFolderSource } from 'pagewise/sources';
import { randomUUID } from 'node:crypto';
import { DocumentCache, defaultDocumentCacheDir, sha256Hex } from './document-cache.js';
import { readDocumentFolder } from './documents.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-document-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function pdf(pages: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) doc.addPage().drawText(text, { x: 50, y: 700, size: 12, font });
  return doc.save();
}

function entries(cacheDir: string): string[] {
  return readdirSync(cacheDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
}

describe('DocumentCache with readDocumentFolder', () => {
  it('reuses a PDF extracted before, and names its pages by the file that holds the bytes now', async () => {
    const cacheDir = path.join(dir, 'pdf-cache');
    const bytes = await pdf(['Revenue was 12 million.', 'Headcount was 300.']);
    const first = path.join(dir, 'first');
    mkdirSync(first);
    writeFileSync(path.join(first, 'q3.pdf'), bytes);
    const cold = new DocumentCache({ dir: cacheDir });
    const read1 = await readDocumentFolder(first, { cache: cold });
    expect([cold.hits, cold.misses]).toEqual([0, 1]);

    // The same bytes under another name in another folder: reused, but cited by their own name.
    const second = path.join(dir, 'second');
    mkdirSync(second);
    writeFileSync(path.join(second, 'copy.pdf'), bytes);
    const warm = new DocumentCache({ dir: cacheDir });
    const read2 = await readDocumentFolder(second, { cache: warm });
    expect([warm.hits, warm.misses]).toEqual([1, 0]);
    expect(read2.documents.map((d) => [d.uri, d.title])).toEqual([
      ['copy.pdf#1', 'copy.pdf page 1'],
      ['copy.pdf#2', 'copy.pdf page 2'],
    ]);
    expect(read2.documents.map((d) => d.body)).toEqual(read1.documents.map((d) => d.body));
  });

  it('extracts an edited file again', async () => {
    const cacheDir = path.join(dir, 'edit-cache');
    const folder = path.join(dir, 'edit');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'a.txt'), 'Stock: 10 crates.');
    await readDocumentFolder(folder, { cache: new DocumentCache({ dir: cacheDir }) });
    writeFileSync(path.join(folder, 'a.txt'), 'Stock: 11 crates.');
    const cache = new DocumentCache({ dir: cacheDir });
    const read = await readDocumentFolder(folder, { cache });
    expect(read.documents[0]!.body).toBe('Stock: 11 crates.');
    expect([cache.hits, cache.misses]).toEqual([0, 1]);
  });

  it('keys entries by reader: the same bytes as CSV and as text are two entries', async () => {
    const cacheDir = path.join(dir, 'kind-cache');
    const folder = path.join(dir, 'kind');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 't.csv'), 'name,stock\nbolts,40\n');
    writeFileSync(path.join(folder, 't.txt'), 'name,stock\nbolts,40\n');
    const cache = new DocumentCache({ dir: cacheDir });
    const read = await readDocumentFolder(folder, { cache });
    expect(read.documents.map((d) => d.body)).toEqual(['name | stock\nbolts | 40', 'name,stock\nbolts,40\n']);
    expect(entries(cacheDir)).toHaveLength(2);
  });

  it('never serves a damaged entry: the file is read again and the entry rewritten', async () => {
    const cacheDir = path.join(dir, 'damaged-cache');
    const folder = path.join(dir, 'damaged');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'a.md'), '# A\n\nMargin: 7%.\n');
    await readDocumentFolder(folder, { cache: new DocumentCache({ dir: cacheDir }) });
    const [entry] = entries(cacheDir);
    const file = path.join(cacheDir, entry!);
    await writeFile(file, (await readFile(file, 'utf8')).replace('Margin: 7%', 'Margin: 9%'));
    const warnings: string[] = [];
    const cache = new DocumentCache({ dir: cacheDir, onWarning: (m) => warnings.push(m) });
    const read = await readDocumentFolder(folder, { cache });
    expect(read.documents[0]!.body).toContain('Margin: 7%');
    expect(warnings.join('\n')).toMatch(/damaged/);
    const again = new DocumentCache({ dir: cacheDir });
    await readDocumentFolder(folder, { cache: again });
    expect(again.hits).toBe(1);
  });

  it('caches a content-dependent refusal (a damaged PDF) and still skips it with its reason', async () => {
    const cacheDir = path.join(dir, 'skip-cache');
    const folder = path.join(dir, 'skip');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'broken.pdf'), '%PDF-1.7 this is not a pdf');
    const first = await readDocumentFolder(folder, { cache: new DocumentCache({ dir: cacheDir }) });
    const cache = new DocumentCache({ dir: cacheDir });
    const second = await readDocumentFolder(folder, { cache });
    expect(cache.hits).toBe(1);
    expect(second.skipped).toEqual(first.skipped);
    expect(second.skipped[0]!.reason).toMatch(/damaged or encrypted PDF/);
  });

  it('lives under PAGEWISE_CACHE_DIR when set, else in the user cache folder', () => {
    expect(defaultDocumentCacheDir({ PAGEWISE_CACHE_DIR: '/srv/cache' })).toBe(path.resolve('/srv/cache/documents'));
    if (process.platform === 'linux')
      expect(defaultDocumentCacheDir({ XDG_CACHE_HOME: '/home/u/.cache' })).toBe('/home/u/.cache/pagewise/documents');
  });
});

describe('the cache in memory', () => {
  it('extracts a folder read twice from code once, with no cache given, and an edited file again', async () => {
    const folder = path.join(dir, 'twice');
    mkdirSync(folder);
    // Content no other test reads: the default cache is shared by the whole process.
    const figure = `Revenue was ${randomUUID()}.`;
    writeFileSync(path.join(folder, 'q3.pdf'), await pdf([figure, 'Headcount was 300.']));
    writeFileSync(path.join(folder, 'notes.txt'), `Notes ${randomUUID()}`);
    const first = await readDocumentFolder(folder);
    expect([first.extracted, first.reused]).toEqual([2, 0]);
    const second = await readDocumentFolder(folder);
    expect([second.extracted, second.reused]).toEqual([0, 2]);
    expect(second.documents).toEqual(first.documents);
    expect(second.documents[1]!.body).toBe(figure);

    writeFileSync(path.join(folder, 'notes.txt'), `Notes ${randomUUID()}`);
    const edited = await readDocumentFolder(folder);
    expect([edited.extracted, edited.reused]).toEqual([1, 1]);
  });

  it('does not serve an extraction made under wider limits: the file meets the limits of this read', async () => {
    const folder = path.join(dir, 'limits');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'long.pdf'), await pdf([`One ${randomUUID()}`, 'Two', 'Three']));
    expect((await readDocumentFolder(folder)).documents).toHaveLength(3);
    const narrow = await readDocumentFolder(folder, { limits: { maxPages: 2 } });
    expect(narrow.documents).toEqual([]);
    expect(narrow.skipped[0]!.reason).toMatch(/3 pages, over the 2-page limit/);
    const fewChars = await readDocumentFolder(folder, { limits: { maxChars: 10 } });
    expect(fewChars.skipped[0]!.reason).toMatch(/character limit/);
    expect((await readDocumentFolder(folder)).reused).toBe(1);
  });

  it('reads every file again with cache: false', async () => {
    const folder = path.join(dir, 'uncached');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'a.pdf'), await pdf([`Stock ${randomUUID()}`]));
    await readDocumentFolder(folder, { cache: false });
    const again = await readDocumentFolder(folder, { cache: false });
    expect([again.extracted, again.reused]).toEqual([1, 0]);
  });

  it('serves a second read through one cache from memory, and a memory-only cache writes nothing', async () => {
    const folder = path.join(dir, 'layers');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'a.md'), `# A\n\n${randomUUID()}\n`);
    const cacheDir = path.join(dir, 'layers-cache');
    const cache = new DocumentCache({ dir: cacheDir });
    await readDocumentFolder(folder, { cache });
    await readDocumentFolder(folder, { cache });
    expect([cache.hits, cache.memoryHits, cache.misses]).toEqual([1, 1, 1]);
    expect(entries(cacheDir)).toHaveLength(1);

    const memoryOnly = new DocumentCache({ memoryOnly: true, dir: path.join(dir, 'never-written') });
    expect(memoryOnly.dir).toBeUndefined();
    await readDocumentFolder(folder, { cache: memoryOnly });
    const read = await readDocumentFolder(folder, { cache: memoryOnly });
    expect(read.reused).toBe(1);
    expect(readdirSync(dir)).not.toContain('never-written');
  });

  it('keeps at most memoryChars characters in memory, dropping the least recently used entry first', async () => {
    const cache = new DocumentCache({ memoryOnly: true, memoryChars: 25 });
    const unit = (body: string) => ({ units: [{ body, mediaType: 'text/plain' }] });
    await cache.set(sha256Hex('a'), 'text', unit('a'.repeat(10)));
    await cache.set(sha256Hex('b'), 'text', unit('b'.repeat(10)));
    // A hit makes "a" the most recent, so the third entry pushes out "b".
    expect(await cache.get(sha256Hex('a'), 'text')).toEqual(unit('a'.repeat(10)));
    await cache.set(sha256Hex('c'), 'text', unit('c'.repeat(10)));
    expect(await cache.get(sha256Hex('b'), 'text')).toBeUndefined();
    expect(await cache.get(sha256Hex('a'), 'text')).toBeDefined();
    expect(await cache.get(sha256Hex('c'), 'text')).toBeDefined();
    // An entry larger than the whole bound is not kept.
    await cache.set(sha256Hex('d'), 'text', unit('d'.repeat(30)));
    expect(await cache.get(sha256Hex('d'), 'text')).toBeUndefined();
  });

  it('refuses a negative memory bound with the option named', () => {
    expect(() => new DocumentCache({ memoryOnly: true, memoryChars: -1 })).toThrow(/memoryChars/);
  });
});

describe('a folder source in the page cache', () => {
  it('pages an edited file in again, however recent the stored copy', async () => {
    const root = path.join(dir, 'paged');
    mkdirSync(root);
    writeFileSync(path.join(root, 'a.md'), '# A\n\nOld figure: 5.\n');
    const paging = new PagingService({ source: createFolderSource({ root }) });
    const first = await paging.load('file:a.md', { invocationId: 'i1', sessionId: 's' });
    const same = await paging.load('file:a.md', { invocationId: 'i2', sessionId: 's' });
    expect(same.hash).toBe(first.hash);
    expect(paging.fetchCount).toBe(1);
    writeFileSync(path.join(root, 'a.md'), '# A\n\nNew figure: 6.\n');
    await paging.load('file:a.md', { invocationId: 'i3', sessionId: 's' });
    expect(await paging.body('file:a.md', 's')).toContain('New figure: 6.');
  });
});
