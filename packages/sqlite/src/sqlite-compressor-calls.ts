/**
 * The SQLite store of recorded compressor calls (see `CompressorCallStore`): one row a call, the
 * guideline and the score as columns so exports can filter in SQL, the rest as a versioned JSON body
 * validated when read back. Shares the database file of the session store.
 */
import type Database from 'better-sqlite3';
import { StorageError } from 'pagewise';
import {
  checkSuccess,
  COMPRESSOR_CALL_SCHEMA,
  CompressorCallBodySchema,
  type CompressorCallFilter,
  type CompressorCallRecord,
  type CompressorCallStore,
} from 'pagewise/store-kit';
import { guarded } from './sqlite-errors.js';
import { openSqliteDatabase } from './sqlite-store.js';

interface CallRow {
  id: string;
  episode_id: string;
  task_id: string;
  target: string;
  guideline_id: string;
  guideline_version: number;
  guideline_hash: string;
  backend: string;
  body: string;
  success: number | null;
  created_at: number;
  schema_version: number;
}

/** Options of {@link SqliteCompressorCallStore}. */
export interface SqliteCompressorCallStoreOptions {
  /** Database file; the default pagewise database when omitted. */
  path?: string;
  /** An open database to share with the other stores. */
  database?: Database.Database;
  /** See `SqliteStoreOptions.busyTimeoutMs`. Ignored with `database`. */
  busyTimeoutMs?: number;
}

/**
 * A CompressorCallStore in SQLite.
 *
 * @example
 * const store = new SqliteCompressorCallStore({ path: '.pagewise/pagewise.db' });
 * const calls = await store.list({ target: 'observation', minSuccess: 1 });
 */
export class SqliteCompressorCallStore implements CompressorCallStore {
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly stmts;

  constructor(options: SqliteCompressorCallStoreOptions = {}) {
    this.ownsDb = !options.database;
    this.db = options.database ?? openSqliteDatabase(options.path, options);
    this.stmts = guarded(this.db, () => ({
      add: this.db.prepare(
        `INSERT INTO compressor_calls (id, episode_id, task_id, target, guideline_id, guideline_version, guideline_hash, backend, body, success, created_at, schema_version)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      score: this.db.prepare('UPDATE compressor_calls SET success = ? WHERE episode_id = ?'),
    }));
  }

  async add(record: CompressorCallRecord): Promise<void> {
    if (record.success !== null) checkSuccess(record.success);
    const body = JSON.stringify({
      schema: COMPRESSOR_CALL_SCHEMA,
      input: record.input,
      prompt: record.prompt,
      output: record.output,
    });
    // One statement in autocommit: SQLite takes the write lock with the busy timeout, no upgrade.
    const add = () =>
      this.stmts.add.run(
        record.id,
        record.episodeId,
        record.taskId,
        record.target,
        record.guideline.id,
        record.guideline.version,
        record.guideline.hash,
        record.backend,
        body,
        record.success,
        record.at,
        COMPRESSOR_CALL_SCHEMA,
      );
    guarded(this.db, add);
  }

  async setEpisodeSuccess(episodeId: string, success: number): Promise<number> {
    checkSuccess(success);
    return guarded(this.db, () => this.stmts.score.run(success, episodeId).changes);
  }

  async list(filter: CompressorCallFilter = {}): Promise<CompressorCallRecord[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    const add = (sql: string, value: string | number) => {
      where.push(sql);
      params.push(value);
    };
    if (filter.target !== undefined) add('target = ?', filter.target);
    if (filter.episodeId !== undefined) add('episode_id = ?', filter.episodeId);
    if (filter.guidelineId !== undefined) add('guideline_id = ?', filter.guidelineId);
    if (filter.guidelineVersion !== undefined) add('guideline_version = ?', filter.guidelineVersion);
    // NULL (unscored) never compares as >= anything, which is the point.
    if (filter.minSuccess !== undefined) add('success >= ?', filter.minSuccess);
    const sql = `SELECT * FROM compressor_calls${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, rowid`;
    return guarded(this.db, () => this.db.prepare<(string | number)[], CallRow>(sql).all(...params)).map((row) =>
      this.record(row),
    );
  }

  private record(row: CallRow): CompressorCallRecord {
    if (row.schema_version !== COMPRESSOR_CALL_SCHEMA) {
      throw new StorageError(
        `Compressor call ${row.id} was written with schema version ${row.schema_version}; this pagewise reads ${COMPRESSOR_CALL_SCHEMA}. Upgrade pagewise.`,
      );
    }
    if (row.target !== 'history' && row.target !== 'observation') {
      throw new StorageError(
        `Compressor call ${row.id} has an unknown target "${row.target}"; the database may be corrupt.`,
      );
    }
    let body;
    try {
      body = CompressorCallBodySchema.parse(JSON.parse(row.body));
    } catch (error) {
      throw new StorageError(`Compressor call ${row.id} has an unreadable body: ${(error as Error).message}`, error);
    }
    return {
      id: row.id,
      episodeId: row.episode_id,
      taskId: row.task_id,
      target: row.target,
      guideline: { id: row.guideline_id, version: row.guideline_version, hash: row.guideline_hash },
      backend: row.backend,
      input: body.input,
      prompt: body.prompt,
      output: body.output,
      at: row.created_at,
      success: row.success,
    };
  }

  async close(): Promise<void> {
    if (this.ownsDb && this.db.open) this.db.close();
  }
}
