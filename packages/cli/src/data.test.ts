/**
 * `pagewise data fetch` against a local HTTP server (no network): checksum mismatch, a download cut off halfway and
 * resumed with a Range request, and the real data sets' pinned paths and hashes when the shared data is present.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_SETS, dataCommand, fetchDataSet, type DataSet } from './data.js';

const body = Buffer.from('x'.repeat(50_000) + 'the end\n');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const fixture: Record<string, DataSet> = {
  tiny: {
    repository: 'o/r',
    commit: 'abc1234',
    licence: 'MIT',
    files: [{ upstream: 'd/f.json', target: 'tiny/f.json', sha256: sha(body), bytes: body.length }],
  },
  wrong: {
    repository: 'o/r',
    commit: 'abc1234',
    licence: 'MIT',
    files: [{ upstream: 'd/f.json', target: 'wrong/f.json', sha256: '0'.repeat(64), bytes: body.length }],
  },
};

let server: http.Server;
let base: string;
/** Requests seen, with their Range header. */
const seen: { url: string; range?: string }[] = [];
/** When set, the next full response is cut off after this many bytes. */
let cutAfter: number | undefined;
/** Files the server holds, by request path. */
const files = new Map<string, Buffer>([['/o/r/abc1234/d/f.json', body]]);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', ...(req.headers.range ? { range: req.headers.range } : {}) });
    const file = files.get(req.url ?? '');
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range) {
      const from = Number(range[1]);
      res.writeHead(206, { 'content-length': file.length - from }).end(file.subarray(from));
      return;
    }
    if (cutAfter !== undefined) {
      const cutAt = cutAfter;
      cutAfter = undefined;
      res.writeHead(200, { 'content-length': file.length });
      res.write(file.subarray(0, cutAt), () => res.destroy());
      return;
    }
    res.writeHead(200, { 'content-length': file.length }).end(file);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('pagewise data fetch', () => {
  it('discards a file whose SHA-256 does not match and says which', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-data-'));
    await expect(fetchDataSet('wrong', dir, { baseUrl: base, sets: fixture })).rejects.toThrow(
      new RegExp(`wrong/f.json from .* has SHA-256 ${sha(body)}, expected 0{64}; the file was discarded`),
    );
    expect(existsSync(path.join(dir, 'wrong', 'f.json'))).toBe(false);
    expect(existsSync(path.join(dir, 'wrong', 'f.json.part'))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it('resumes a download cut off halfway with a Range request, and keeps a verified file on the next run', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-data-'));
    cutAfter = 20_000;
    await expect(fetchDataSet('tiny', dir, { baseUrl: base, sets: fixture })).rejects.toThrow(
      /Run the same command again to resume/,
    );
    const part = path.join(dir, 'tiny', 'f.json.part');
    expect(statSync(part).size).toBeGreaterThan(0);
    expect(statSync(part).size).toBeLessThan(body.length);
    const from = seen.length;
    await fetchDataSet('tiny', dir, { baseUrl: base, sets: fixture });
    expect(seen[from]?.range).toMatch(/^bytes=[1-9]\d*-$/);
    expect(readFileSync(path.join(dir, 'tiny', 'f.json')).equals(body)).toBe(true);
    const again = seen.length;
    expect(await fetchDataSet('tiny', dir, { baseUrl: base, sets: fixture })).toEqual([]);
    expect(seen.length).toBe(again);
    rmSync(dir, { recursive: true, force: true });
  });

  const shared = [
    '/work/shared/data',
    path.resolve('../shared/data'),
    path.resolve('../../shared/data'),
    process.env.PAGEWISE_SHARED_DATA,
  ]
    .filter((d): d is string => typeof d === 'string')
    .find((d) => existsSync(path.join(d, 'tatqa', 'dev.json')));
  if (!shared) console.log('skipping the pinned TAT-QA fetch test: the shared data folder is absent');
  it.skipIf(!shared)(
    'fetches the pinned TAT-QA files into PAGEWISE_DATA_DIR and verifies their published hashes',
    async () => {
      const set = DATA_SETS.tatqa!;
      for (const file of set.files)
        files.set(`/${set.repository}/${set.commit}/${file.upstream}`, readFileSync(path.join(shared!, file.target)));
      const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-data-'));
      const env = { dir: process.env.PAGEWISE_DATA_DIR, base: process.env.PAGEWISE_DATA_BASE_URL };
      process.env.PAGEWISE_DATA_DIR = dir;
      process.env.PAGEWISE_DATA_BASE_URL = base;
      try {
        const out: string[] = [];
        expect(
          await dataCommand(
            ['fetch', 'tatqa'],
            (s) => out.push(s),
            () => {},
          ),
        ).toBe(0);
        expect(out.join('\n')).toContain(`every file is in ${dir}`);
        expect(existsSync(path.join(dir, 'tatqa', 'dev.json'))).toBe(true);
      } finally {
        if (env.dir === undefined) delete process.env.PAGEWISE_DATA_DIR;
        else process.env.PAGEWISE_DATA_DIR = env.dir;
        if (env.base === undefined) delete process.env.PAGEWISE_DATA_BASE_URL;
        else process.env.PAGEWISE_DATA_BASE_URL = env.base;
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
