// Tests of the source contract helpers: loader functions and routing between sources by URI.
import { describe, expect, it } from 'vitest';
import { ConfigurationError, NotFoundError } from '../errors.js';
import { combineSources, loaderSource } from './source.js';
import type { DocumentSource } from './source.js';

const prefixed = (name: string, prefix: string, listing?: string[]): DocumentSource => {
  const source = loaderSource(
    name,
    (uri) => uri.startsWith(prefix),
    (uri) => ({ body: `from ${name}: ${uri}`, title: name }),
  );
  return listing === undefined ? source : { ...source, list: async () => listing };
};

describe('loaderSource', () => {
  it('fills title, media type and time when the function returns only a body', async () => {
    const before = Date.now();
    const source = loaderSource(
      'notes',
      () => true,
      () => '# Meeting notes\nWe agreed.',
    );
    const doc = await source.load('note:1');
    expect(doc).toMatchObject({
      uri: 'note:1',
      title: 'Meeting notes',
      body: '# Meeting notes\nWe agreed.',
      mediaType: 'text/plain',
    });
    expect(doc.fetchedAt).toBeGreaterThanOrEqual(before);
  });

  it('keeps the fields the function gives and passes the signal on', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const source = loaderSource(
      'db',
      () => true,
      async (_uri, options) => {
        seen = options.signal;
        return { body: '{}', title: 'Row 7', mediaType: 'application/json' };
      },
    );
    const doc = await source.load('db:7', { signal: controller.signal });
    expect(doc).toMatchObject({ title: 'Row 7', mediaType: 'application/json' });
    expect(seen).toBe(controller.signal);
  });

  it('refuses a result without a string body, naming the source', async () => {
    const source = loaderSource(
      'broken',
      () => true,
      () => ({ text: 'x' }) as unknown as string,
    );
    await expect(source.load('x')).rejects.toThrow(/broken/);
    await expect(source.load('x')).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe('combineSources', () => {
  const combined = combineSources([
    prefixed('first', 'a:', ['a:1', 'a:2']),
    prefixed('second', 'a:'),
    prefixed('third', 'b:', ['b:1', 'a:1']),
  ]);

  it('routes a URI to the first source that can load it', async () => {
    expect((await combined.load('a:9')).title).toBe('first');
    expect((await combined.load('b:9')).title).toBe('third');
    expect(combined.canLoad('c:1')).toBe(false);
  });

  it('names the URI and every source tried when none can load it', async () => {
    const error = await combined.load('c:1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toMatch(/"c:1"/);
    expect((error as Error).message).toMatch(/first, second, third/);
  });

  it('lists the listable sources without duplicates', async () => {
    expect(await combined.list?.()).toEqual(['a:1', 'a:2', 'b:1']);
    expect(combineSources([prefixed('plain', 'x:')]).list).toBeUndefined();
  });

  it('refuses an empty list of sources', () => {
    expect(() => combineSources([])).toThrow(ConfigurationError);
  });
});
