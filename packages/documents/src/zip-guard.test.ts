import { describe, expect, it } from 'vitest';
import { zipArchive } from '../../../test/support/hostile-files.js';
import { checkZipArchive, ZipRefused } from './zip-guard.js';

const LIMITS = { maxEntries: 10, maxUnpackedBytes: 1024 * 1024 };

async function refusal(bytes: Uint8Array, limits = LIMITS): Promise<ZipRefused> {
  const error = await checkZipArchive(bytes, limits).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ZipRefused)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

describe('checkZipArchive', () => {
  it('measures what an ordinary archive unpacks to', async () => {
    const zip = await zipArchive([
      { name: 'a.xml', data: '<a>hello</a>' },
      { name: 'b.xml', chunk: 'row ', repeat: 1000 },
    ]);
    expect(await checkZipArchive(zip, LIMITS)).toBe(12 + 4000);
  });

  it('refuses an archive that declares more than the limit, before inflating anything', async () => {
    const zip = await zipArchive([{ name: 'a.xml', data: 'x', declaredSize: 2 * 1024 * 1024 }]);
    const error = await refusal(zip);
    expect(error.limit).toBe('unpacked');
    expect(error.message).toBe(
      'declares it unpacks to more than the 1 MB limit on unpacked size (raise it with --max-unpacked-mb)',
    );
  });

  it('counts what an entry really inflates to when its declared size lies', async () => {
    const zip = await zipArchive([{ name: 'a.xml', chunk: 'aaaaaaaa', repeat: 1024 * 1024, declaredSize: 100 }]);
    expect(zip.length).toBeLessThan(64 * 1024);
    const error = await refusal(zip);
    expect(error.limit).toBe('unpacked');
    expect(error.message).toMatch(/^unpacks to more than the 1 MB limit/);
  });

  it('refuses more entries than the limit, whether the end record tells or the directory does', async () => {
    const entries = Array.from({ length: 11 }, (_, i) => ({ name: `e${i}`, data: '' }));
    expect((await refusal(await zipArchive(entries))).message).toBe('an archive of 11 entries, over the limit of 10');
    // The end record says 1; the directory walked holds 11.
    const lying = await zipArchive(entries);
    const end = lying.length - 22;
    lying.writeUInt16LE(1, end + 8);
    lying.writeUInt16LE(1, end + 10);
    expect((await refusal(lying)).limit).toBe('entries');
  });

  it('refuses what is not a ZIP archive or is cut short, naming the damage', async () => {
    expect((await refusal(Buffer.from('not a zip at all, just text'))).message).toBe(
      'not a ZIP archive (no end record)',
    );
    const zip = await zipArchive([{ name: 'a.xml', chunk: 'abc', repeat: 5000 }]);
    const cut = Buffer.concat([zip.subarray(0, 40), zip.subarray(zip.length - 22)]);
    expect((await refusal(cut)).limit).toBe('damaged');
    const corrupt = Buffer.from(zip);
    corrupt.fill(0xff, 30 + 'a.xml'.length, 30 + 'a.xml'.length + 8);
    expect((await refusal(corrupt)).message).toMatch(/^a damaged archive \(entry a\.xml: /);
  });
});
