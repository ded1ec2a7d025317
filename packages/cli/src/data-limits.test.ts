/**
 * Issue 31 items 7 and 8: `data fetch` against a hostile local server (127.0.0.1). Item 7: a server that
 * sends without end wrote 1 GiB for a 323 KB file before the checksum rejected it, and one that sent a
 * byte every 5 s held the command for 101 s. Item 8: an HTTP 416 without a partial file crashed the
 * command (ENOENT on the `.part` file, exit 70).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SystemError } from '../../pagewise/src/errors.js';
import { defaultFetchDeadlineMs, fetchDataSet, sizeCap, type DataSet, DATA_SETS } from './data.js';

const body = Buffer.from('pinned content\n'.repeat(1000));
const set = (name: string): Record<string, DataSet> => ({
  [name]: {
    repository: 'o/r',
    commit: 'abc1234',
    licence: 'MIT',
    files: [
      {
        upstream: `${name}.json`,
        target: `${name}/f.json`,
        sha256: createHash('sha256').update(body).digest('hex'),
        bytes: body.length,
      },
    ],
  },
});

/** What the server did per path: bytes it managed to send, and whether the client hung up first. */
const sent = new Map<string, { bytes: number; closedEarly: boolean }>();
let server: http.Server;
let base: string;
let dir: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const name = (req.url ?? '').split('/').pop()!.replace('.json', '');
    const record = { bytes: 0, closedEarly: false };
    sent.set(name, record);
    res.on('close', () => {
      if (!res.writableFinished) record.closedEarly = true;
    });
    if (name === 'endless') {
      // A body with no end and no length: 64 KiB chunks for as long as the client reads.
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = (): void => {
        while (!res.destroyed && record.bytes < 512 * 1024 * 1024) {
          record.bytes += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    if (name === 'trickle') {
      // One byte every 100 ms, the length announced honestly: 1.5 s per 15 bytes, 25 minutes for the file.
      res.writeHead(200, { 'content-length': body.length });
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        res.write(body.subarray(record.bytes, record.bytes + 1));
        record.bytes += 1;
      }, 100);
      return;
    }
    if (name === 'range416') {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const fresh = (): string => (dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-data-limits-')));

describe('issue 31 item 7: data fetch had no size cap and no overall deadline', () => {
  it('cuts off a server that sends past the pinned size, keeps no partial file, and says why', async () => {
    const target = fresh();
    const error = await fetchDataSet('endless', target, { baseUrl: base, sets: set('endless') }).catch(
      (e: unknown) => e,
    );
    expect(SystemError.isInstance(error)).toBe(true);
    expect((error as SystemError).code).toBe('download-too-large');
    expect((error as Error).message).toMatch(/more than \d+ bytes, past the pinned size/);
    expect(existsSync(path.join(target, 'endless', 'f.json.part'))).toBe(false);
    expect(existsSync(path.join(target, 'endless', 'f.json'))).toBe(false);
    // The client hung up long before the server's 512 MiB: a few socket buffers past the cap at most.
    await vi.waitFor(() => expect(sent.get('endless')!.closedEarly).toBe(true), { timeout: 5_000 });
    expect(sent.get('endless')!.bytes).toBeLessThan(sizeCap(body.length) + 32 * 1024 * 1024);
  });

  it('ends a trickling download at its deadline with a resumable error naming --deadline', async () => {
    const target = fresh();
    const error = await fetchDataSet('trickle', target, {
      baseUrl: base,
      sets: set('trickle'),
      timeoutMs: 1_500,
    }).catch((e: unknown) => e);
    expect(SystemError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('ran past its deadline (flag --deadline)');
    expect((error as Error).message).toContain('Run the same command again to resume');
    expect((error as SystemError).retryable).toBe(true);
    // What arrived is kept for the next run to resume from; nothing was promoted to the target name.
    expect(existsSync(path.join(target, 'trickle', 'f.json'))).toBe(false);
    await vi.waitFor(() => expect(sent.get('trickle')!.closedEarly).toBe(true), { timeout: 5_000 });
    expect(sent.get('trickle')!.bytes).toBeLessThan(body.length);
  });

  it('has a default deadline for every pinned data set, bounded by its size', () => {
    for (const dataSet of Object.values(DATA_SETS)) {
      const ms = defaultFetchDeadlineMs(dataSet);
      expect(ms).toBeGreaterThanOrEqual(30_000);
      // 30 s plus the bytes at 50 KB/s: the largest set (2.3 MB) gets under two minutes.
      expect(ms).toBeLessThan(120_000);
      for (const file of dataSet.files) expect(file.bytes).toBeGreaterThan(0);
    }
  });
});

describe('issue 31 item 8: an HTTP 416 crashed data fetch when no partial file existed', () => {
  it('turns a 416 without a partial file into a clear, retryable download error', async () => {
    const target = fresh();
    const error = await fetchDataSet('range416', target, { baseUrl: base, sets: set('range416') }).catch(
      (e: unknown) => e,
    );
    expect(SystemError.isInstance(error)).toBe(true);
    expect((error as SystemError).code).toBe('download');
    expect((error as Error).message).toContain('HTTP 416');
    expect((error as Error).message).not.toContain('ENOENT');
    expect(existsSync(path.join(target, 'range416', 'f.json'))).toBe(false);
  });
});
