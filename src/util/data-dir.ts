/**
 * Where third-party benchmark data lives on a user's machine: `pagewise data fetch` stores it in the user data
 * folder (`PAGEWISE_DATA_DIR`, by default under the user's cache folder), and the benchmarks look there first,
 * then in a `shared/data` folder beside the project (how a development checkout gets it).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The environment variable that names a shared data folder (a development checkout's `../shared/data` elsewhere). */
export const SHARED_DATA_ENV = 'PAGEWISE_SHARED_DATA';

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

// From src/util/ (or dist/util/ once built) two levels up is the project root.
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The path of a data file or folder (`tatqa/dev.json`, `tau-retail`) where it exists: the user data folder first,
 * then `$PAGEWISE_SHARED_DATA`, then `../shared/data` beside the project (also the answer when it exists in none,
 * as before the user data folder existed).
 */
export function findDataPath(
  relative: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const shared = path.resolve(projectRoot, '../shared/data', relative);
  const candidates = [
    path.join(userDataDir(env), relative),
    ...(env[SHARED_DATA_ENV] ? [path.resolve(env[SHARED_DATA_ENV], relative)] : []),
    shared,
  ];
  return candidates.find((candidate) => existsSync(candidate)) ?? shared;
}
