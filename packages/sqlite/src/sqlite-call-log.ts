/**
 * The SQLite call log: every agent model call as sent (request, ledger entry, response), one row a
 * call in the database file of the session store, for `pagewise inspect`.
 */
import type Database from 'better-sqlite3';
import { callLogRow, type CallLog, type CallTags, type ModelCallRecord } from 'pagewise/store-kit';
import { openSqliteDatabase } from './sqlite-store.js';

/** Options of {@link SqliteCallLog}. */
export interface SqliteCallLogOptions {
  /** Database file; the default pagewise database when omitted. */
  path?: string;
  /** An open database to share with the session and page stores (recommended). */
  database?: Database.Database;
  /** Labels stored with every call (e.g. `{ strategy: 'paging' }`), shown and filtered by the inspector. */
  tags?: CallTags;
}

/**
 * A {@link CallLog} in SQLite.
 *
 * @example
 * const store = new SqliteSessionStore({ path: 'run.db' });
 * const runner = new Runner({ agent, store, callLog: new SqliteCallLog({ database: store.db }) });
 */
export class SqliteCallLog implements CallLog {
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly tags: CallTags;
  private readonly insert;

  constructor(options: SqliteCallLogOptions = {}) {
    this.ownsDb = !options.database;
    this.db = options.database ?? openSqliteDatabase(options.path);
    this.tags = { ...options.tags };
    this.insert = this.db.prepare(
      'INSERT INTO model_calls (app_name, user_id, session_id, invocation_id, event_id, agent, model, prompt_tokens, completion_tokens, tags, body, created_at, schema_version) VALUES (@appName, @userId, @sessionId, @invocationId, @eventId, @agent, @model, @promptTokens, @completionTokens, @tags, @body, @createdAt, @schemaVersion)',
    );
  }

  recordCall(call: ModelCallRecord): void {
    this.insert.run(callLogRow(call, this.tags));
  }

  /** Closes the database when this log opened it. */
  close(): void {
    if (this.ownsDb) this.db.close();
  }
}
