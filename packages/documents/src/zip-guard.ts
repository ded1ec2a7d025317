/**
 * Checks a ZIP archive (a DOCX or XLSX) before a parser unpacks it: the number of entries and what they unpack to,
 * measured by inflating each entry and counting, never by trusting the sizes the archive declares. A few kilobytes
 * can declare small sizes and unpack to gigabytes; the parsers would hold it all in memory before failing.
 */
import { createInflateRaw } from 'node:zlib';

/** Limits of {@link checkZipArchive}. */
export interface ZipLimits {
  /** Most entries the archive may hold. */
  maxEntries: number;
  /** Most bytes all entries together may unpack to. */
  maxUnpackedBytes: number;
}

/** Why an archive was refused: `what` is the limit or the damage, worded for a one-line skip notice. */
export class ZipRefused extends Error {
  constructor(
    readonly limit: 'entries' | 'unpacked' | 'damaged',
    message: string,
  ) {
    super(message);
  }
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** The end record is 22 bytes plus a comment of at most 65,535. */
const EOCD_SEARCH = 22 + 0xffff;

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  declaredSize: number;
  localOffset: number;
}

/**
 * Resolves with the unpacked size when the archive is within `limits`; rejects with a {@link ZipRefused} otherwise.
 * The inflated bytes are counted and dropped as they come, so checking holds at most one chunk in memory.
 */
export async function checkZipArchive(bytes: Uint8Array, limits: ZipLimits): Promise<number> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(buf, limits);
  let declared = 0;
  for (const entry of entries) declared += entry.declaredSize;
  if (declared > limits.maxUnpackedBytes) throw unpackedRefusal(limits, 'declares it unpacks to');
  let total = 0;
  for (const entry of entries) {
    const data = entryData(buf, entry);
    const budget = limits.maxUnpackedBytes - total;
    const size = entry.method === 0 ? data.length : await inflatedSize(data, budget, entry.name);
    total += size;
    if (total > limits.maxUnpackedBytes) throw unpackedRefusal(limits, 'unpacks to');
  }
  return total;
}

function unpackedRefusal(limits: ZipLimits, verb: string): ZipRefused {
  return new ZipRefused(
    'unpacked',
    `${verb} more than the ${megabytes(limits.maxUnpackedBytes)} limit on unpacked size (raise it with --max-unpacked-mb)`,
  );
}

function centralDirectory(buf: Buffer, limits: ZipLimits): Entry[] {
  const end = findEndRecord(buf);
  const count = buf.readUInt16LE(end + 10);
  const size = buf.readUInt32LE(end + 12);
  const offset = buf.readUInt32LE(end + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff)
    throw new ZipRefused(
      'damaged',
      'a ZIP64 archive, which the reader does not open (a document this large is over its limits)',
    );
  if (count > limits.maxEntries) throw entriesRefusal(count, limits);
  if (offset + size > buf.length)
    throw new ZipRefused('damaged', 'a damaged archive (its directory lies past its end)');
  const entries: Entry[] = [];
  let at = offset;
  while (at + 46 <= offset + size) {
    if (buf.readUInt32LE(at) !== CENTRAL) throw new ZipRefused('damaged', 'a damaged archive (a bad directory entry)');
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    entries.push({
      name: buf.toString('utf8', at + 46, Math.min(at + 46 + nameLength, buf.length)),
      method: buf.readUInt16LE(at + 10),
      compressedSize: buf.readUInt32LE(at + 20),
      declaredSize: buf.readUInt32LE(at + 24),
      localOffset: buf.readUInt32LE(at + 42),
    });
    // The count in the end record can lie; the directory itself is what a parser walks.
    if (entries.length > limits.maxEntries) throw entriesRefusal(entries.length, limits, false);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** `count` is exact when the end record gave it, a lower bound (`exact` false) when the walk stopped at the limit. */
function entriesRefusal(count: number, limits: ZipLimits, exact = true): ZipRefused {
  const max = limits.maxEntries.toLocaleString('en-US');
  return new ZipRefused(
    'entries',
    `an archive of ${exact ? count.toLocaleString('en-US') : `more than ${max}`} entries, over the limit of ${max}`,
  );
}

function findEndRecord(buf: Buffer): number {
  for (let at = buf.length - 22; at >= Math.max(0, buf.length - EOCD_SEARCH); at -= 1)
    if (buf.readUInt32LE(at) === EOCD) return at;
  throw new ZipRefused('damaged', 'not a ZIP archive (no end record)');
}

function entryData(buf: Buffer, entry: Entry): Buffer {
  const at = entry.localOffset;
  if (at + 30 > buf.length || buf.readUInt32LE(at) !== LOCAL)
    throw new ZipRefused('damaged', `a damaged archive (entry ${entry.name} has no local header)`);
  const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  if (start + entry.compressedSize > buf.length)
    throw new ZipRefused('damaged', `a damaged archive (entry ${entry.name} runs past its end)`);
  if (entry.method !== 0 && entry.method !== 8)
    throw new ZipRefused(
      'damaged',
      `an archive entry packed with method ${entry.method}, which the reader does not open`,
    );
  return buf.subarray(start, start + entry.compressedSize);
}

/** Inflates `data` and counts; stops as soon as the count passes `budget` (returning a count over it). */
function inflatedSize(data: Buffer, budget: number, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflate = createInflateRaw();
    let total = 0;
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > budget) {
        inflate.destroy();
        resolve(total);
      }
    });
    inflate.on('end', () => resolve(total));
    inflate.on('error', (error) =>
      reject(new ZipRefused('damaged', `a damaged archive (entry ${name}: ${error.message.split('\n')[0]})`)),
    );
    inflate.end(data);
  });
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024)).toLocaleString('en-US')} MB`;
}
