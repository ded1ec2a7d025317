import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../../pagewise/src/errors.js';
import { DATA_DIR_ENV } from 'pagewise/internal';
import { SHARED_DATA_ENV } from '../../util/data-path.js';
import {
  defaultRetailDataDir,
  retailDataMissing,
  loadRetailData,
  retailDataAvailable,
  TAU_RETAIL_DIR_ENV,
} from './data.js';

const available = retailDataAvailable();
if (!available) console.log(`retail data tests skipped: ${retailDataMissing()}`);

describe('loadRetailData', () => {
  const names = [TAU_RETAIL_DIR_ENV, SHARED_DATA_ENV, DATA_DIR_ENV];
  const saved = names.map((name) => process.env[name]);
  afterEach(() => {
    names.forEach((name, index) => {
      if (saved[index] === undefined) delete process.env[name];
      else process.env[name] = saved[index];
    });
  });

  it('defaults to ../shared/data/tau-retail beside the project, or the folder the environment names', () => {
    // The default, whatever data folders the shell running the tests names: none set, an empty user folder.
    delete process.env[TAU_RETAIL_DIR_ENV];
    delete process.env[SHARED_DATA_ENV];
    process.env[DATA_DIR_ENV] = mkdtempSync(path.join(tmpdir(), 'retail-user-data-'));
    expect(defaultRetailDataDir()).toBe(path.resolve(import.meta.dirname, '../../../../../../shared/data/tau-retail'));
    process.env[TAU_RETAIL_DIR_ENV] = '/somewhere/else';
    expect(defaultRetailDataDir()).toBe('/somewhere/else');
  });

  it('names the folder and the environment variable when the data is absent', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'retail-empty-'));
    expect(retailDataAvailable(dir)).toBe(false);
    const error = await loadRetailData(dir).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(dir);
    expect((error as Error).message).toContain(TAU_RETAIL_DIR_ENV);
  });

  it('names the file when a record has the wrong shape', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'retail-bad-'));
    writeFileSync(path.join(dir, 'users.json'), '{}');
    writeFileSync(path.join(dir, 'orders.json'), JSON.stringify({ '#W1': { order_id: '#W1', status: 'pending' } }));
    writeFileSync(path.join(dir, 'products.json'), '{}');
    const error = await loadRetailData(dir).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(path.join(dir, 'orders.json'));
  });

  it.skipIf(!available)('reads and validates the tau-bench retail database', async () => {
    const data = await loadRetailData();
    expect([data.users.size, data.orders.size, data.products.size]).toEqual([500, 1000, 50]);
    // Plain-object keys such as `constructor` must not resolve to anything.
    expect(data.users.get('constructor')).toBeUndefined();
    const order = data.orders.get('#W2611340');
    expect(order?.user_id).toBe('james_li_5688');
    // Fields the code does not read are kept, so tools can return whole records.
    expect(order?.fulfillments).toHaveLength(1);
  });
});
