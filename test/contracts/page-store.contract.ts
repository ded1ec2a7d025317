/**
 * The PageStore contract suite: every page store implementation runs these same tests.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImmutablePageError } from '../../packages/pagewise/src/errors.js';
import { hashBody, type PageStore } from '../../packages/pagewise/src/paging/page-store.js';
import { countTokens } from '../../packages/pagewise/src/tokens/tokenizer.js';

/** Runs the contract; `distinctBodies` reports how many bodies the store holds (for dedup checks). */
export function pageStoreContract(
  name: string,
  make: () => Promise<PageStore & { distinctBodies?: number | Promise<number> }>,
): void {
  describe(`PageStore contract: ${name}`, () => {
    let store: PageStore & { distinctBodies?: number | Promise<number> };
    const ns = `ns-${randomUUID().slice(0, 8)}`;
    beforeAll(async () => {
      store = await make();
    });
    afterAll(async () => {
      await store.close();
    });

    it('stores a page with computed sizes and hash, and reads it back', async () => {
      const body = 'Revenue grew 12% to $4,200k in 2025-Q3. Ünïcödé ✓';
      const info = await store.put({
        namespace: ns,
        uri: 'reports/a.md',
        title: 'A',
        body,
        mediaType: 'text/markdown',
        fetchedAt: 1234,
        meta: { source: 'folder' },
      });
      expect(info).toMatchObject({
        uri: 'reports/a.md',
        title: 'A',
        mediaType: 'text/markdown',
        fetchedAt: 1234,
        bytes: Buffer.byteLength(body),
        tokens: countTokens(body),
        hash: hashBody(body),
      });
      expect(info).not.toHaveProperty('body');
      const page = await store.get(ns, 'reports/a.md');
      expect(page?.body).toBe(body);
      expect(page?.meta).toEqual({ source: 'folder' });
      expect(await store.info(ns, 'reports/a.md')).toEqual(info);
      expect(await store.get(ns, 'missing')).toBeUndefined();
      expect(await store.get(`${ns}-other`, 'reports/a.md')).toBeUndefined();
    });

    it('stores identical bodies once and replaces pages in place', async () => {
      const namespace = `${ns}-dedup`;
      const before = store.distinctBodies === undefined ? undefined : await store.distinctBodies;
      const body = `same body ${randomUUID()}`;
      await store.put({ namespace: namespace, uri: 'x', body });
      await store.put({ namespace: namespace, uri: 'y', body });
      if (before !== undefined) expect(await store.distinctBodies).toBe(before + 1);
      await store.put({ namespace: namespace, uri: 'x', body: 'replaced' });
      expect((await store.get(namespace, 'x'))?.body).toBe('replaced');
      expect((await store.get(namespace, 'y'))?.body).toBe(body);
      expect((await store.list(namespace)).map((p) => p.uri)).toEqual(['x', 'y']);
      expect(await store.delete(namespace, 'y')).toBe(true);
      expect(await store.delete(namespace, 'y')).toBe(false);
      if (before !== undefined) expect(await store.distinctBodies).toBe(before + 1); // 'replaced' remains, the shared body is gone
    });

    it('writes a handle once: the same bytes again change nothing, different bytes are refused', async () => {
      const namespace = `${ns}-handle`;
      const uri = 'tool://fetch_catalogue/call-1';
      const raw = `catalogue ${randomUUID()}: E-4711 in bin 3`;
      const first = await store.put({
        namespace: namespace,
        uri,
        body: raw,
        fetchedAt: 1000,
        meta: { compressedBy: 'a' },
      });
      // Same bytes: a no-op that answers with the page as first written, its metadata included.
      const again = await store.put({
        namespace: namespace,
        uri,
        body: raw,
        fetchedAt: 2000,
        meta: { compressedBy: 'b' },
      });
      expect(again).toEqual(first);
      expect(await store.info(namespace, uri)).toEqual(first);
      const rewrite = store.put({ namespace: namespace, uri, body: `[pagewise] compressed: ${raw.slice(0, 9)}` });
      await expect(rewrite).rejects.toBeInstanceOf(ImmutablePageError);
      await expect(rewrite).rejects.toMatchObject({ code: 'immutable-page', uri, namespace: namespace });
      expect((await store.get(namespace, uri))?.body).toBe(raw);
      // The same URI in another namespace is another handle; a document URI may still be replaced.
      await store.put({ namespace: `${namespace}-other`, uri, body: 'another session' });
      expect((await store.get(namespace, uri))?.body).toBe(raw);
      // Deleting the page frees the handle.
      expect(await store.delete(namespace, uri)).toBe(true);
      await store.put({ namespace: namespace, uri, body: 'written after delete' });
      expect((await store.get(namespace, uri))?.body).toBe('written after delete');
    });

    it('lets one of two writers racing to a handle win, and refuses the other', async () => {
      const namespace = `${ns}-race-${randomUUID().slice(0, 8)}`;
      const uri = 'tool://search/call-race';
      const bodies = ['first writer', 'second writer'];
      const outcomes = await Promise.allSettled(bodies.map((body) => store.put({ namespace: namespace, uri, body })));
      const won = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [bodies[index]] : []));
      expect(won).toHaveLength(1);
      const lost = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(ImmutablePageError);
      expect((await store.get(namespace, uri))?.body).toBe(won[0]);
    });

    it('keeps a large body byte for byte', async () => {
      const body = Array.from({ length: 2000 }, (_, i) => `line ${i}: ${'αβγ'.repeat(i % 7)} \t end`).join('\n');
      await store.put({ namespace: ns, uri: 'big', body });
      expect((await store.get(ns, 'big'))?.body).toBe(body);
    });
  });
}
