// Tests of the folder source against real temporary folders: the path guards first, then reading and listing.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessDeniedError, ConfigurationError, LimitExceededError, NotFoundError } from '../errors.js';
import { createFolderSource } from './folder-source.js';

let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'pagewise-folder-'));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await fs.mkdir(path.join(root, 'sub', 'deep'), { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(root, 'alpha.md'), 'intro\n\n# Alpha guide\n\nHow to start.');
  await fs.writeFile(path.join(root, 'sub', 'beta.txt'), '\uFEFFBeta notes\nsecond line');
  await fs.writeFile(path.join(root, 'sub', 'deep', 'gamma.md'), '# Gamma');
  await fs.writeFile(
    path.join(root, 'page.html'),
    '<html><head><title>The Page</title><script>evil()</script></head><body><p>Hello page</p></body></html>',
  );
  await fs.writeFile(path.join(root, 'data.json'), '{"a": 1}');
  await fs.writeFile(path.join(root, 'picture.png'), 'not text');
  await fs.writeFile(path.join(root, '..dots.md'), 'a file whose name starts with two dots');
  await fs.writeFile(path.join(root, 'big.txt'), 'x'.repeat(1000));
  await fs.writeFile(path.join(outside, 'secret.txt'), 'top secret');
  await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'escape.txt'));
  await fs.symlink(outside, path.join(root, 'linked-out'));
  await fs.symlink(path.join(root, 'alpha.md'), path.join(root, 'inner-link.md'));
  await fs.symlink('sub', path.join(root, 'linked-sub'));
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

const refusal = async (promise: Promise<unknown>): Promise<Error> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AccessDeniedError);
  return error as Error;
};

describe('createFolderSource guards', () => {
  it('refuses ".." segments in every spelling', async () => {
    const source = createFolderSource({ root });
    for (const uri of ['../outside/secret.txt', 'file:../outside/secret.txt', 'sub/../../outside/secret.txt', './..']) {
      expect((await refusal(source.load(uri))).message).toMatch(/"\.\."/);
    }
  });

  it('refuses absolute paths', async () => {
    const source = createFolderSource({ root });
    for (const uri of ['/etc/passwd', 'file:/etc/passwd', 'file:///etc/passwd', path.join(root, 'alpha.md')]) {
      expect((await refusal(source.load(uri))).message).toMatch(/absolute path/);
    }
  });

  it('refuses NUL bytes', async () => {
    const source = createFolderSource({ root });
    expect((await refusal(source.load('alpha.md\0.txt'))).message).toMatch(/NUL/);
  });

  it('refuses symbolic links that lead outside the root, file or folder', async () => {
    const source = createFolderSource({ root });
    expect((await refusal(source.load('escape.txt'))).message).toMatch(/outside the folder source root/);
    await refusal(source.load('file:linked-out/secret.txt'));
  });

  it('refuses a root that is itself reached through a link only when the target leaves it', async () => {
    const linkedRoot = path.join(base, 'root-link');
    await fs.symlink(root, linkedRoot);
    const source = createFolderSource({ root: linkedRoot });
    expect((await source.load('alpha.md')).title).toBe('Alpha guide');
    await refusal(source.load('escape.txt'));
  });

  it('accepts symbolic links that stay inside the root', async () => {
    const source = createFolderSource({ root });
    expect((await source.load('inner-link.md')).body).toContain('How to start.');
    expect((await source.load('linked-sub/beta.txt')).title).toBe('Beta notes');
  });

  it('refuses any path with a ".." segment (property)', async () => {
    const source = createFolderSource({ root });
    const segment = fc.constantFrom('sub', 'deep', '.', '', 'alpha.md', 'outside', 'x');
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 4 }),
        fc.array(segment, { maxLength: 4 }),
        async (before, after) => {
          const uri = [...before, '..', ...after].join('/');
          const error = await source.load(uri).then(
            () => undefined,
            (caught: unknown) => caught,
          );
          return error instanceof AccessDeniedError;
        },
      ),
      { numRuns: 200 },
    );
  });

  it('enforces the allow list on the asked path and on the real path behind a link', async () => {
    const onlySub = createFolderSource({ root, allow: ['sub'] });
    expect((await onlySub.load('sub/beta.txt')).title).toBe('Beta notes');
    expect((await refusal(onlySub.load('alpha.md'))).message).toMatch(/allow/);

    const globbed = createFolderSource({ root, allow: ['**/*.md'] });
    expect((await globbed.load('sub/deep/gamma.md')).title).toBe('Gamma');
    expect((await globbed.load('alpha.md')).title).toBe('Alpha guide');
    await refusal(globbed.load('sub/beta.txt'));

    const linkOnly = createFolderSource({ root, allow: (relPath) => relPath === 'inner-link.md' });
    expect((await refusal(linkOnly.load('inner-link.md'))).message).toMatch(/alpha\.md/);
  });

  it('treats a prefix as whole path segments', async () => {
    const source = createFolderSource({ root, allow: ['su'] });
    await refusal(source.load('sub/beta.txt'));
  });
});

describe('createFolderSource reading', () => {
  it('reads Markdown with the first heading as title and a canonical file: URI', async () => {
    const doc = await createFolderSource({ root }).load('./alpha.md');
    expect(doc).toMatchObject({ uri: 'file:alpha.md', title: 'Alpha guide', mediaType: 'text/markdown' });
  });

  it('reads text without its byte order mark, titled by its first line', async () => {
    const doc = await createFolderSource({ root }).load('file:sub/beta.txt');
    expect(doc).toMatchObject({
      uri: 'file:sub/beta.txt',
      title: 'Beta notes',
      body: 'Beta notes\nsecond line',
      mediaType: 'text/plain',
    });
  });

  it('turns HTML into text with the <title> as title', async () => {
    const doc = await createFolderSource({ root }).load('page.html');
    expect(doc).toMatchObject({ title: 'The Page', body: 'Hello page', mediaType: 'text/plain' });
  });

  it('titles JSON by file name', async () => {
    expect(await createFolderSource({ root }).load('data.json')).toMatchObject({
      title: 'data.json',
      mediaType: 'application/json',
    });
  });

  it('reads a file whose name merely starts with two dots', async () => {
    expect((await createFolderSource({ root }).load('..dots.md')).body).toContain('two dots');
  });

  it('enforces the byte cap, naming the setting', async () => {
    const source = createFolderSource({ root, maxBytes: 100 });
    const error = await source.load('big.txt').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LimitExceededError);
    expect((error as LimitExceededError).limit).toBe('maxBytes');
    expect((error as Error).message).toMatch(/maxBytes/);
    expect((await createFolderSource({ root, maxBytes: 1000 }).load('big.txt')).body).toHaveLength(1000);
  });

  it('refuses extensions it does not read and says which setting adds them', async () => {
    const error = await createFolderSource({ root })
      .load('picture.png')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/extensions/);
    expect((await createFolderSource({ root, extensions: ['.png'] }).load('picture.png')).body).toBe('not text');
  });

  it('reports missing files and folders as such', async () => {
    const source = createFolderSource({ root });
    await expect(source.load('missing.md')).rejects.toBeInstanceOf(NotFoundError);
    await expect(source.load('sub')).rejects.toThrow(/extension|not a regular file/);
    await expect(source.load('.')).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('fails at creation on bad settings', () => {
    expect(() => createFolderSource({ root: '' })).toThrow(ConfigurationError);
    expect(() => createFolderSource({ root, maxBytes: 0 })).toThrow(/maxBytes/);
  });

  it('accepts file: URIs and plain paths, not other schemes', () => {
    const source = createFolderSource({ root });
    expect(source.canLoad('file:a.md')).toBe(true);
    expect(source.canLoad('docs/a.md')).toBe(true);
    expect(source.canLoad('https://example.com/a.md')).toBe(false);
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createFolderSource({ root }).load('alpha.md', { signal: controller.signal })).rejects.toThrow(
      /aborted/,
    );
  });
});

describe('createFolderSource list', () => {
  it('lists readable files recursively and sorted, skipping links out, other types and oversized files', async () => {
    expect(await createFolderSource({ root, maxBytes: 500 }).list()).toEqual([
      'file:..dots.md',
      'file:alpha.md',
      'file:data.json',
      'file:inner-link.md',
      'file:page.html',
      'file:sub/beta.txt',
      'file:sub/deep/gamma.md',
    ]);
  });

  it('lists only what the allow list allows, and everything listed loads', async () => {
    const source = createFolderSource({ root, allow: ['sub/**'] });
    const uris = await source.list();
    expect(uris).toEqual(['file:sub/beta.txt', 'file:sub/deep/gamma.md']);
    for (const uri of uris) await expect(source.load(uri)).resolves.toMatchObject({ uri });
  });
});

describe('finding 2b (issue 18): special files in a folder source', () => {
  it('refuses a FIFO before opening it, so loading never waits for a writer, and does not list it', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pagewise-fifo-'));
    try {
      execFileSync('mkfifo', [path.join(dir, 'pipe.txt')]);
      await fs.writeFile(path.join(dir, 'plain.txt'), 'text');
      const source = createFolderSource({ root: dir });
      const started = Date.now();
      await expect(source.load('pipe.txt')).rejects.toThrow(/not a regular file \(a named pipe\)/);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(await source.list()).toEqual(['file:plain.txt']);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 10_000);

  it('refuses a character device such as /dev/zero reached through a link inside the root', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pagewise-dev-'));
    try {
      await fs.symlink('/dev/zero', path.join(dir, 'zero.txt'));
      const source = createFolderSource({ root: dir });
      // The link leads outside the root, which is refused before the type matters; either refusal is immediate.
      await expect(source.load('zero.txt')).rejects.toThrow(/outside the folder source root|not a regular file/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
