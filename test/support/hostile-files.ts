/**
 * Builds the hostile documents of the reliability probes at test time (never committed as binaries): a sparse
 * workbook that describes a million rows, archives that unpack to hundreds of megabytes or hold thousands of
 * entries, a PDF whose one stream inflates to a gigabyte, a PDF of deeply nested graphics states, a PDF of
 * 20,000 pages. Each is a few kilobytes to a few megabytes.
 */
import { crc32, createDeflateRaw } from 'node:zlib';
import ExcelJS from 'exceljs';

/** A workbook with one value at A1 and one at the given cell (XFD1048576, the last cell a sheet has, by default). */
export async function sparseXlsx(lastRow = 1_048_576, lastColumn = 16_384): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Sheet1');
  sheet.getCell(1, 1).value = 'first';
  sheet.getCell(lastRow, lastColumn).value = 'last';
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** One entry of {@link zipArchive}: its bytes, or a chunk repeated `repeat` times (deflated as a stream). */
export interface ZipEntrySpec {
  name: string;
  data?: string | Buffer;
  chunk?: string;
  repeat?: number;
  /** The uncompressed size the archive declares; by default the true one. */
  declaredSize?: number;
}

/** A ZIP archive (deflated entries), written by hand so an entry can unpack to far more than it holds. */
export async function zipArchive(entries: readonly ZipEntrySpec[]): Promise<Buffer> {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const { packed, size, crc } = await deflateEntry(entry);
    const name = Buffer.from(entry.name, 'utf8');
    const declared = entry.declaredSize ?? size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xfffe), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xfffe), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

async function deflateEntry(entry: ZipEntrySpec): Promise<{ packed: Buffer; size: number; crc: number }> {
  const deflate = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  let size = 0;
  let crc = 0;
  const write = async (piece: Buffer) => {
    size += piece.length;
    crc = crc32(piece, crc);
    if (!deflate.write(piece)) await new Promise((resolve) => deflate.once('drain', resolve));
  };
  if (entry.data !== undefined) await write(Buffer.from(entry.data));
  if (entry.chunk !== undefined) {
    // Written in blocks of about 1 MiB: the whole text is never in memory.
    const unit = Buffer.from(entry.chunk);
    const perBlock = Math.max(1, Math.floor((1 << 20) / unit.length));
    const block = Buffer.concat(Array.from({ length: perBlock }, () => unit));
    let left = entry.repeat ?? 1;
    while (left > 0) {
      const units = Math.min(left, perBlock);
      await write(units === perBlock ? block : block.subarray(0, units * unit.length));
      left -= units;
    }
  }
  deflate.end();
  await done;
  return { packed: Buffer.concat(out), size, crc: crc >>> 0 };
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const PARAGRAPH = '<w:p><w:r><w:t>The plant employed more engineers after the expansion.</w:t></w:r></w:p>';

/**
 * A DOCX whose document.xml unpacks to about `unpackedMiB` MiB of paragraphs; with `declaredSize`, the archive
 * declares that size instead of the true one.
 */
export function docxBomb(unpackedMiB: number, declaredSize?: number): Promise<Buffer> {
  const head =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  return zipArchive([
    { name: '[Content_Types].xml', data: CONTENT_TYPES },
    { name: '_rels/.rels', data: RELS },
    {
      name: 'word/document.xml',
      data: head,
      chunk: PARAGRAPH,
      repeat: Math.ceil((unpackedMiB * 1024 * 1024) / PARAGRAPH.length),
      ...(declaredSize !== undefined ? { declaredSize } : {}),
    },
  ]);
}

/** A DOCX-named archive of `count` empty entries. */
export function manyEntriesDocx(count: number): Promise<Buffer> {
  return zipArchive([
    { name: '[Content_Types].xml', data: CONTENT_TYPES },
    { name: '_rels/.rels', data: RELS },
    ...Array.from({ length: count }, (_, i) => ({ name: `word/media/e${i}.xml`, data: '' })),
  ]);
}

/** A PDF written by hand from object bodies (object i + 1 is `objects[i]`), with a correct cross-reference table. */
export function pdfFile(objects: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, index) => {
    offsets.push(length);
    const piece = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n'),
    ]);
    parts.push(piece);
    length += piece.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    'startxref',
    String(length),
    '%%EOF',
    '',
  ].join('\n');
  parts.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(parts);
}

function stream(dict: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
const TEXT = 'BT /F1 12 Tf 20 100 Td (Freight revenue 8,215) Tj ET\n';

/** A PDF of `pages` pages that share one small content stream (about 90 bytes a page). */
export function manyPagesPdf(pages: number): Buffer {
  const first = 4;
  const kids = Array.from({ length: pages }, (_, i) => `${first + i} 0 R`).join(' ');
  return pdfFile([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    stream('', Buffer.from(TEXT, 'latin1')),
    ...Array.from(
      { length: pages },
      () =>
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /Font << /F1 ${first + pages} 0 R >> >> /Contents 3 0 R >>`,
    ),
    FONT,
  ]);
}

function onePagePdf(content: Buffer, filter: string): Buffer {
  return pdfFile([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    stream(filter, content),
    FONT,
  ]);
}

/** Deflates `repeat` copies of `unit` with zlib framing (FlateDecode), a block at a time. */
async function flate(unit: string, repeat: number, tail = ''): Promise<Buffer> {
  const { createDeflate } = await import('node:zlib');
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  const piece = Buffer.from(unit, 'latin1');
  const perBlock = Math.max(1, Math.floor((1 << 20) / piece.length));
  const block = Buffer.concat(Array.from({ length: perBlock }, () => piece));
  let left = repeat;
  while (left > 0) {
    const pieces = Math.min(left, perBlock);
    if (!deflate.write(pieces === perBlock ? block : block.subarray(0, pieces * piece.length)))
      await new Promise((resolve) => deflate.once('drain', resolve));
    left -= pieces;
  }
  deflate.end(Buffer.from(tail, 'latin1'));
  await done;
  return Buffer.concat(out);
}

/** A one-page PDF whose content stream (some text, then blanks) inflates to about `unpackedMiB` MiB. */
export async function pdfStreamBomb(unpackedMiB: number): Promise<Buffer> {
  const blanks = ' '.repeat(1024);
  const content = await flate(blanks, unpackedMiB * 1024, TEXT);
  return onePagePdf(content, '/Filter /FlateDecode');
}

/** A one-page PDF whose content stream nests `depth` graphics states (`q` … `Q`) around a line of text. */
export async function nestedStatesPdf(depth: number): Promise<Buffer> {
  const content = await flate('q ', depth, `${TEXT}${'Q '.repeat(depth)}`);
  return onePagePdf(content, '/Filter /FlateDecode');
}
