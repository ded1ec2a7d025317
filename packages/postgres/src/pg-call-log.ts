/**
 * The PostgreSQL call log: every agent model call as sent (request, ledger entry, response), one row a
 * call, for `pagewise inspect`.
 */
import { callLogRow, type CallLog, type CallTags, type ModelCallRecord } from 'pagewise/store-kit';
import { openPgDatabase, type PgDatabase, type PgStoreOptions } from './pg-database.js';

/** Options of {@link PgCallLog}. */
export interface PgCallLogOptions extends PgStoreOptions {
  /** Labels stored with every call (e.g. `{ strategy: 'paging' }`), shown and filtered by the inspector. */
  tags?: CallTags;
}

/**
 * A {@link CallLog} in PostgreSQL.
 *
 * @example
 * const store = new PgSessionStore({ url });
 * const runner = new Runner({ agent, store, callLog: new PgCallLog({ database: store.database }) });
 */
export class PgCallLog implements CallLog {
  readonly database: PgDatabase;
  private readonly ownsDatabase: boolean;
  private readonly tags: CallTags;

  constructor(options: PgCallLogOptions = {}) {
    this.ownsDatabase = !options.database;
    this.database = options.database ?? openPgDatabase(options);
    this.tags = { ...options.tags };
  }

  async recordCall(call: ModelCallRecord): Promise<void> {
    const row = callLogRow(call, this.tags);
    await this.database.query(
      'INSERT INTO model_calls (app_name, user_id, session_id, invocation_id, event_id, agent, model, prompt_tokens, completion_tokens, tags, body, created_at, schema_version) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)',
      [
        row.appName,
        row.userId,
        row.sessionId,
        row.invocationId,
        row.eventId,
        row.agent,
        row.model,
        row.promptTokens,
        row.completionTokens,
        row.tags,
        row.body,
        row.createdAt,
        row.schemaVersion,
      ],
    );
  }

  /** Closes the pool when this log opened it. */
  async close(): Promise<void> {
    if (this.ownsDatabase) await this.database.close();
  }
}
