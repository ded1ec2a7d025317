/**
 * Paths given on the command line: a typo in `--db` or `--out` must not quietly build a tree of folders (even at
 * the filesystem root), so at most the last folder of a path is created, and only inside one that exists.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigurationError } from 'pagewise';

/**
 * Makes sure `folder` exists, creating it only when its parent exists. Throws a ConfigurationError naming `flag`
 * otherwise, or when the path is a file.
 */
export function ensureFolder(flag: string, folder: string): void {
  const resolved = path.resolve(folder);
  if (existsSync(resolved)) {
    if (!statSync(resolved).isDirectory())
      throw new ConfigurationError('bad-arguments', `${flag} ${folder}: ${resolved} is a file, not a folder.`);
    return;
  }
  const parent = path.dirname(resolved);
  if (!existsSync(parent))
    throw new ConfigurationError(
      'bad-arguments',
      `${flag} ${folder}: the folder ${parent} does not exist. Check the path for a typo, or create it first (mkdir -p ${JSON.stringify(parent)}).`,
    );
  mkdirSync(resolved);
}

/** Makes sure the folder a file given by `flag` goes into exists (creating only its last folder, see {@link ensureFolder}). */
export function ensureParentOf(flag: string, file: string): void {
  if (file === ':memory:') return;
  ensureFolder(flag, path.dirname(path.resolve(file)));
}
