import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntegrityError } from '../errors.js';
import { pageStoreContract } from '../../../../test/contracts/page-store.contract.js';
import { SqlitePageStore } from '../../../sqlite/src/sqlite-page-store.js';
import { InMemoryPageStore, pageInfo, pageInfoFromRow, pageRowValues, toPage } from './page-store.js';

pageStoreContract('memory', async () => new InMemoryPageStore());
const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-pages-'));
pageStoreContract('sqlite', async () => new SqlitePageStore({ path: path.join(dir, 'pages.db') }));

describe('integrity is not checked on read (finding): the memory store', () => {
  it('refuses a body that no longer matches its hash with an IntegrityError naming the page', async () => {
    const store = new InMemoryPageStore();
    const info = await store.put({ namespace: 'n', uri: 'report-3', body: 'Revenue 1,192,884.' });
    // The held body changed after it was put (a caller mutating shared state, or memory damage).
    const held = (store as unknown as { bodies: Map<string, { body: string }> }).bodies.get(info.hash)!;
    held.body = 'Revenue 1,631,190.';
    const err = await store.get('n', 'report-3').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntegrityError);
    expect((err as Error).message).toContain('report-3');
    expect((err as IntegrityError).namespace).toBe('n');
  });
});

describe('pageRowValues', () => {
  it('gives the values pageInfoFromRow reads back as the page it was given', () => {
    const page = toPage({ namespace: 'ns', uri: 'doc://a', title: 'A', body: 'Body.', fetchedAt: 5, meta: { k: [1] } });
    const [namespace, uri, title, mediaType, hash, fetchedAt, meta, schemaVersion] = pageRowValues(page);
    const row = {
      namespace,
      uri,
      title,
      media_type: mediaType,
      hash,
      fetched_at: String(fetchedAt),
      meta,
      schema_version: schemaVersion,
      bytes: page.bytes,
      tokens: page.tokens,
    };
    expect(pageInfoFromRow(row)).toEqual(pageInfo(page));
  });
});
