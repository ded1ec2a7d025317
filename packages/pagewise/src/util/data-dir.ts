/**
 * The user's data and cache folders: `pagewise data fetch` stores third-party data in the user data folder
 * (`PAGEWISE_DATA_DIR`, by default under the user's cache folder), where the lab's benchmarks look first; the
 * document readers cache extracted text under the cache folder.
 */
import os from 'node:os';
import path from 'node:path';

/** The environment variable that names the user data folder. */
export const DATA_DIR_ENV = 'PAGEWISE_DATA_DIR';

/** The platform's cache folder for the user: `XDG_CACHE_HOME` or `~/.cache`, `~/Library/Caches`, `%LOCALAPPDATA%`. */
export function userCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const home = os.homedir();
  return process.platform === 'win32'
    ? (env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'))
    : process.platform === 'darwin'
      ? path.join(home, 'Library', 'Caches')
      : (env.XDG_CACHE_HOME ?? path.join(home, '.cache'));
}

/** The user data folder: `$PAGEWISE_DATA_DIR`, else `pagewise/data` in the platform's cache folder. */
export function userDataDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env[DATA_DIR_ENV]) return path.resolve(env[DATA_DIR_ENV]);
  return path.join(userCacheDir(env), 'pagewise', 'data');
}
