/**
 * The reader's worker starts with its own flags, whatever the parent process was started with. Checked from outside:
 * a child `node --input-type=module -e …` reads a small PDF through the reader, once as a user runs it (the package
 * compiled to JavaScript, the worker started from its file) and once from the sources.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const SOURCES = path.join(ROOT, 'packages/documents/src');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

let work: string;
let folder: string;

/** A one-page PDF whose page says `text`, made with a real PDF writer. */
async function onePagePdf(text: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage().drawText(text, { x: 50, y: 700, font, size: 12 });
  return doc.save();
}

/** The package's sources compiled file by file to JavaScript under `out`, resolving its imports from the workspace. */
async function compiledPackage(out: string): Promise<string> {
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'package.json'), JSON.stringify({ type: 'module' }));
  for (const name of await readdir(SOURCES)) {
    if (!name.endsWith('.ts') || /\.(test|contract)\.ts$/.test(name)) continue;
    const source = await readFile(path.join(SOURCES, name), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: name,
    });
    await writeFile(path.join(out, name.replace(/\.ts$/, '.js')), outputText);
  }
  return path.join(out, 'index.js');
}

/** What `readDocumentFolder` of the module at `entry` made of the folder, from `node <flags> --input-type=module -e`. */
async function readUnderEval(entry: string, flags: string[], env: NodeJS.ProcessEnv): Promise<unknown> {
  const code = [
    `import { readDocumentFolder } from ${JSON.stringify(pathToFileURL(entry).href)};`,
    `const read = await readDocumentFolder(${JSON.stringify(folder)});`,
    'console.log(JSON.stringify({ pages: read.documents.map((doc) => doc.body), skipped: read.skipped }));',
  ].join('\n');
  const { stdout } = await run(process.execPath, [...flags, '--input-type=module', '-e', code], { cwd: work, env });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'pagewise-worker-flags-'));
  folder = path.join(work, 'folder');
  await mkdir(folder);
  await writeFile(path.join(folder, 'note.pdf'), await onePagePdf('Net sales were 82,959 million'));
  // The compiled copy finds `pagewise` and the PDF library where an installed package would: in node_modules.
  await symlink(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the document reader under node --input-type=module -e', () => {
  it('reads a PDF as a user runs the package (compiled), whatever flags the parent has', async () => {
    const entry = await compiledPackage(path.join(work, 'documents'));
    // No source condition, no loader: the parent is plain Node, as a user's script is.
    const read = await readUnderEval(entry, [], { ...process.env, NODE_OPTIONS: '' });
    expect(read).toEqual({ pages: ['Net sales were 82,959 million'], skipped: [] });
  }, 60_000);

  it('reads a PDF from the sources, with the loader and condition only in the parent', async () => {
    const read = await readUnderEval(
      path.join(SOURCES, 'index.ts'),
      ['--conditions=@pagewise/source', '--import', TSX],
      { ...process.env, NODE_OPTIONS: '' },
    );
    expect(read).toEqual({ pages: ['Net sales were 82,959 million'], skipped: [] });
  }, 60_000);
});
