import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { userDataDir } from 'pagewise/internal';
import { findDataPath, missingDataHint } from './data-path.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'pagewise-data-path-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function folderWith(name: string, relative: string): string {
  const dir = path.join(root, name);
  mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
  writeFileSync(path.join(dir, relative), '{}');
  return dir;
}

describe('findDataPath', () => {
  const relative = 'tatqa/dev-test-only.json';

  it('finds a file in the folder PAGEWISE_SHARED_DATA names', () => {
    const shared = folderWith('shared', relative);
    const env = { PAGEWISE_DATA_DIR: path.join(root, 'empty-user'), PAGEWISE_SHARED_DATA: shared };
    expect(findDataPath(relative, env)).toBe(path.join(shared, relative));
  });

  it('prefers the user data folder over the shared one', () => {
    const user = folderWith('user', relative);
    const shared = folderWith('shared2', relative);
    const env = { PAGEWISE_DATA_DIR: user, PAGEWISE_SHARED_DATA: shared };
    expect(findDataPath(relative, env)).toBe(path.join(userDataDir(env), relative));
  });

  it('answers the path beside the project when the file is nowhere', () => {
    const env = { PAGEWISE_DATA_DIR: path.join(root, 'none'), PAGEWISE_SHARED_DATA: path.join(root, 'none2') };
    const found = findDataPath('no-such-set/file.json', env);
    expect(found.endsWith(path.join('shared', 'data', 'no-such-set', 'file.json'))).toBe(true);
    expect(found.startsWith(root)).toBe(false);
  });
});

describe('a data folder counts only when it holds the expected files', () => {
  it('an empty tau-retail folder in the user data folder does not shadow a complete shared one', () => {
    const user = path.join(root, 'user-empty-retail');
    mkdirSync(path.join(user, 'tau-retail'), { recursive: true });
    const shared = path.join(root, 'shared-retail');
    for (const file of ['users.json', 'orders.json', 'products.json'])
      folderWith('shared-retail', `tau-retail/${file}`);
    const env = { PAGEWISE_DATA_DIR: user, PAGEWISE_SHARED_DATA: shared };
    expect(findDataPath('tau-retail', env, ['users.json', 'orders.json', 'products.json'])).toBe(
      path.join(shared, 'tau-retail'),
    );
  });

  it('a half-fetched folder does not count either', () => {
    const user = path.join(root, 'user-half-retail');
    folderWith('user-half-retail', 'tau-retail/users.json');
    const shared = path.join(root, 'shared-retail-2');
    for (const file of ['users.json', 'orders.json', 'products.json'])
      folderWith('shared-retail-2', `tau-retail/${file}`);
    const env = { PAGEWISE_DATA_DIR: user, PAGEWISE_SHARED_DATA: shared };
    expect(findDataPath('tau-retail', env, ['users.json', 'orders.json', 'products.json'])).toBe(
      path.join(shared, 'tau-retail'),
    );
  });

  it('every missing-data message names the fetch command and the same variables', () => {
    const hint = missingDataHint('tau-retail', 'PAGEWISE_TAU_RETAIL_DIR');
    expect(hint).toContain('`pagewise data fetch tau-retail`');
    expect(hint).toContain('PAGEWISE_TAU_RETAIL_DIR');
    expect(hint).toContain('PAGEWISE_DATA_DIR');
    expect(hint).toContain('PAGEWISE_SHARED_DATA');
  });
});
