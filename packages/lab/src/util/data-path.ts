/**
 * Where third-party benchmark data lives on a user's machine: `pagewise data fetch` stores it in the user data
 * folder (`PAGEWISE_DATA_DIR`, by default under the user's cache folder, both named by the core), and the
 * benchmarks look there first, then in a `shared/data` folder beside the project (how a development checkout gets
 * it).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATA_DIR_ENV, userDataDir } from 'pagewise/internal';

/** The environment variable that names a shared data folder (a development checkout's `../shared/data` elsewhere). */
export const SHARED_DATA_ENV = 'PAGEWISE_SHARED_DATA';

// From packages/lab/src/util/ (or dist/util/ once built) four levels up is the repository root.
const projectRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * The path of a data file or folder (`tatqa/dev.json`, `tau-retail`) where it is usable: the user data folder first,
 * then `$PAGEWISE_SHARED_DATA`, then `../shared/data` beside the project (also the answer when it is in none, as
 * before the user data folder existed). A folder counts only when it holds every file of `expected` (an empty or
 * half-fetched folder must not shadow a complete one further down); a file only when it is a file.
 */
export function findDataPath(
  relative: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  expected: readonly string[] = [],
): string {
  const shared = path.resolve(projectRoot, '../shared/data', relative);
  return dataCandidates(relative, env).find((candidate) => holds(candidate, expected)) ?? shared;
}

/** The places {@link findDataPath} looks, in order. */
export function dataCandidates(
  relative: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  return [
    path.join(userDataDir(env), relative),
    ...(env[SHARED_DATA_ENV] ? [path.resolve(env[SHARED_DATA_ENV], relative)] : []),
    path.resolve(projectRoot, '../shared/data', relative),
  ];
}

function holds(candidate: string, expected: readonly string[]): boolean {
  try {
    const info = statSync(candidate);
    if (expected.length === 0) return info.isFile() || info.isDirectory();
    return info.isDirectory() && expected.every((file) => statSync(path.join(candidate, file)).isFile());
  } catch {
    return false;
  }
}

/**
 * What to do when a data set is missing, said the same way everywhere: the fetch command and the variables that
 * point at a folder holding it.
 */
export function missingDataHint(set: string, variable?: string): string {
  return `Run \`pagewise data fetch ${set}\`${variable ? `, or point ${variable} at it` : ''}, or set ${DATA_DIR_ENV} or ${SHARED_DATA_ENV} to a folder that holds ${set}/.`;
}
