/**
 * The default-store guard of `test/global-setup.ts` watches the document cache `analyze` uses by default; it
 * computes that folder itself (it runs before packages resolve to their sources), so it must agree with the
 * documents package on every environment.
 */
import { describe, expect, it } from 'vitest';
import { defaultDocumentCacheDir } from '../packages/documents/src/document-cache.js';
import { guardedDocumentCacheDir } from './global-setup.js';

describe('the default-store guard', () => {
  it('watches the same document cache folder the documents package uses by default', () => {
    const envs = [
      {},
      { PAGEWISE_CACHE_DIR: '/tmp/somewhere' },
      { PAGEWISE_CACHE_DIR: 'relative/cache' },
      { XDG_CACHE_HOME: '/tmp/xdg' },
      { XDG_CACHE_HOME: '/tmp/xdg', PAGEWISE_CACHE_DIR: '/tmp/own' },
    ];
    for (const env of envs) expect(guardedDocumentCacheDir(env)).toBe(defaultDocumentCacheDir(env));
  });
});
