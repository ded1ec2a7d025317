/**
 * Driver errors of SQLite turned into pagewise's typed errors, so a caller never has to know
 * better-sqlite3's error codes: a lock held past the busy timeout is a retryable StorageBusyError, a
 * damaged file a DatabaseCorruptError naming the file and how to recover.
 */
import type Database from 'better-sqlite3';
import { DatabaseCorruptError, StorageBusyError } from 'pagewise';

/** Default milliseconds a write waits for another process's write lock before it gives up. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

const BUSY = /^SQLITE_(?:BUSY|LOCKED)/;
const CORRUPT = /^SQLITE_(?:CORRUPT|NOTADB)/;

function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/** The typed error for a SQLite driver error of the database at `file`; any other error unchanged. */
export function translateSqliteError(error: unknown, file: string, busyTimeoutMs?: number): unknown {
  const code = sqliteCode(error);
  if (!code) return error;
  if (BUSY.test(code)) {
    const waited = busyTimeoutMs === undefined ? '' : ` for more than ${busyTimeoutMs} ms`;
    return new StorageBusyError(
      file,
      `The SQLite database ${file} stayed locked by another writer${waited} (${code}); nothing was written. Repeat the call, or raise \`busyTimeoutMs\` when many processes write at once.`,
      error,
    );
  }
  if (CORRUPT.test(code)) return new DatabaseCorruptError(file, `${code}: ${(error as Error).message}`, error);
  return error;
}

/** Runs `work` (synchronous database calls) and rethrows driver errors as typed ones. */
export function guarded<T>(db: Database.Database, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw translateSqliteError(error, db.name, busyTimeout(db));
  }
}

function busyTimeout(db: Database.Database): number | undefined {
  try {
    return db.open ? (db.pragma('busy_timeout', { simple: true }) as number) : undefined;
  } catch {
    return undefined;
  }
}
