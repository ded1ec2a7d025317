import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR_ENV, userCacheDir, userDataDir } from './data-dir.js';

describe('userDataDir', () => {
  it(`is the folder ${DATA_DIR_ENV} names, made absolute`, () => {
    expect(userDataDir({ [DATA_DIR_ENV]: 'relative/data' })).toBe(path.resolve('relative/data'));
  });

  it('is pagewise/data in the cache folder when the variable is unset or empty', () => {
    const env = { XDG_CACHE_HOME: '/cache-home', LOCALAPPDATA: 'C:\\local', [DATA_DIR_ENV]: '' };
    expect(userDataDir(env)).toBe(path.join(userCacheDir(env), 'pagewise', 'data'));
  });
});
