/**
 * The PostgreSQL SessionStore, for many workers sharing one database. An append is one transaction:
 * it locks the session row and checks its version, locks the shared (`user:`/`app:`) keys the batch
 * reads or writes and checks their versions, then writes the events, the session state and the shared
 * keys. Locks are always taken in one order (session row, user keys sorted, app keys sorted), so
 * concurrent appends queue up instead of deadlocking or overwriting each other.
 */
import type { PoolClient, QueryResult, QueryResultRow } from 'pg';
import { z } from 'zod';
import { VersionConflictError, scopeOf } from 'pagewise';
import {
  SESSION_SCHEMA_VERSION,
  type CreateSessionOptions,
  type ListSessionsOptions,
  type LockingSessionStore,
  commitToSession,
  planAppend,
  refreshSession,
  sharedKeys,
  sharedKeysOf,
  type SharedKeys,
  type SharedValue,
  type SharedWrite,
  decodeEvent,
  encodeEvent,
  parseStoredState,
  parseStoredValue,
  firstSharedWrites,
  newSession,
  sessionFromRow,
  sessionSummaryFromRow,
  type StoredSessionListRow,
  type StoredSessionRow,
} from 'pagewise/store-kit';
import type { JsonValue, Session, SessionEvent, SessionKey, SessionSummary } from 'pagewise';
import { openPgDatabase, type PgDatabase, type PgStoreOptions } from './pg-database.js';

interface SharedRow {
  key: string;
  value: string | null;
  version: number;
}

/** The shape of the aggregates `getSession` selects, checked before anything in them is trusted. */
const loadedSchema = z.object({
  events: z.array(z.string()),
  shared: z.array(z.tuple([z.string(), z.string().nullable(), z.number().int()])),
});

/**
 * Locks the rows of `keys` and returns their stored values and versions. Absent keys get a version-0
 * placeholder row first, so a key that was read while absent is locked too. One statement per scope:
 * the upsert both creates missing rows and locks existing ones, in key order.
 */
async function lockShared(
  client: PoolClient,
  appName: string,
  userId: string,
  keys: SharedKeys,
): Promise<Map<string, SharedValue>> {
  const out = new Map<string, SharedValue>();
  const take = (rows: SharedRow[]): void => {
    for (const row of rows)
      out.set(row.key, { value: row.value === null ? undefined : parseStoredValue(row.value), version: row.version });
  };
  if (keys.user.length) {
    const result = await client.query<SharedRow>(
      `INSERT INTO user_state (app_name, user_id, key, value, version) SELECT $1, $2, k, NULL, 0 FROM unnest($3::text[]) AS k ORDER BY k
       ON CONFLICT (app_name, user_id, key) DO UPDATE SET version = user_state.version RETURNING key, value, version`,
      [appName, userId, keys.user],
    );
    take(result.rows);
  }
  if (keys.app.length) {
    const result = await client.query<SharedRow>(
      `INSERT INTO app_state (app_name, key, value, version) SELECT $1, k, NULL, 0 FROM unnest($2::text[]) AS k ORDER BY k
       ON CONFLICT (app_name, key) DO UPDATE SET version = app_state.version RETURNING key, value, version`,
      [appName, keys.app],
    );
    take(result.rows);
  }
  return out;
}

/**
 * Everything an append writes, in one statement (one round trip): the events, the shared keys (rows
 * already locked) and the session row. A deleted shared key keeps its row with a NULL value, so its
 * version is never reused.
 */
const WRITE = `
  WITH ev AS (
    INSERT INTO event_rows (sid, seq, body)
    SELECT (SELECT sid FROM sessions WHERE app_name = $1 AND user_id = $2 AND session_id = $3), seq, body
    FROM unnest($5::int[], $6::text[]) AS e(seq, body)
  ), us AS (
    UPDATE user_state AS s SET value = v.value, version = v.version
    FROM unnest($7::text[], $8::text[], $9::int[]) AS v(key, value, version)
    WHERE s.app_name = $1 AND s.user_id = $2 AND s.key = v.key
  ), ap AS (
    UPDATE app_state AS s SET value = v.value, version = v.version
    FROM unnest($10::text[], $11::text[], $12::int[]) AS v(key, value, version)
    WHERE s.app_name = $1 AND s.key = v.key
  )
  UPDATE sessions SET state = $13, version = $14, updated_at = $15, schema_version = $4
  WHERE app_name = $1 AND user_id = $2 AND session_id = $3`;

/** Runs {@link WRITE}: `firstSeq` is the sequence number of the first event. */
async function write(
  client: PoolClient,
  key: SessionKey,
  change: {
    events: readonly SessionEvent[];
    firstSeq: number;
    shared: Iterable<[string, SharedWrite]>;
    state: Record<string, JsonValue>;
    version: number;
    updatedAt: number;
  },
): Promise<void> {
  const user: [string[], (string | null)[], number[]] = [[], [], []];
  const app: [string[], (string | null)[], number[]] = [[], [], []];
  for (const [stateKey, sharedWrite] of change.shared) {
    const into = scopeOf(stateKey) === 'user' ? user : app;
    into[0].push(stateKey);
    into[1].push(sharedWrite.value === null ? null : JSON.stringify(sharedWrite.value));
    into[2].push(sharedWrite.version);
  }
  await client.query(WRITE, [
    key.appName,
    key.userId,
    key.sessionId,
    SESSION_SCHEMA_VERSION,
    change.events.map((_, i) => change.firstSeq + i),
    change.events.map((e) => encodeEvent(e)),
    ...user,
    ...app,
    JSON.stringify(change.state),
    change.version,
    change.updatedAt,
  ]);
}

/** Anything that runs a statement: the pool, or a client inside a transaction. */
interface Queryable {
  query<R extends QueryResultRow>(text: string, params: unknown[]): Promise<QueryResult<R>>;
}

/**
 * Loads a session with its events and merged shared state. One statement, so the row, its events and
 * the shared state come from one snapshot, in one round trip; the aggregates are cast to text and
 * validated here rather than parsed by the driver.
 */
async function loadSession(db: Queryable, key: SessionKey): Promise<Session | undefined> {
  const result = await db.query<Omit<StoredSessionRow, 'app_name' | 'user_id' | 'session_id'> & { loaded: string }>(
    `SELECT s.state, s.version, s.created_at, s.updated_at, s.schema_version, json_build_object(
       'events', (SELECT coalesce(json_agg(e.body ORDER BY e.seq), '[]'::json) FROM event_rows e WHERE e.sid = s.sid),
       'shared', (SELECT coalesce(json_agg(json_build_array(x.key, x.value, x.version)), '[]'::json) FROM (
                    SELECT key, value, version FROM user_state u WHERE u.app_name = s.app_name AND u.user_id = s.user_id AND u.version > 0
                    UNION ALL
                    SELECT key, value, version FROM app_state a WHERE a.app_name = s.app_name AND a.version > 0) x)
     )::text AS loaded
     FROM sessions s WHERE s.app_name = $1 AND s.user_id = $2 AND s.session_id = $3`,
    [key.appName, key.userId, key.sessionId],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  let loaded: z.infer<typeof loadedSchema> | undefined;
  const parsed = (): z.infer<typeof loadedSchema> => (loaded ??= loadedSchema.parse(JSON.parse(row.loaded)));
  return sessionFromRow(key, row, {
    shared: () => parsed().shared.map(([stateKey, value, version]) => ({ key: stateKey, value, version })),
    events: () => parsed().events.map((body) => decodeEvent(body)),
  });
}

/** How long a locked build may keep its transaction idle before the server ends it and frees the locks. */
const LOCKED_BUILD_TIMEOUT_MS = 60_000;

interface LockedRow {
  state: string;
  version: number;
  updated_at: string;
}

/** Locks the session row; a missing row is a conflict (the session was deleted). */
async function lockSession(client: PoolClient, session: Session): Promise<LockedRow> {
  const result = await client.query<LockedRow>(
    'SELECT state, version, updated_at FROM sessions WHERE app_name = $1 AND user_id = $2 AND session_id = $3 FOR UPDATE',
    [session.appName, session.userId, session.sessionId],
  );
  const row = result.rows[0];
  if (!row) throw new VersionConflictError(session.sessionId, session.version, -1);
  return row;
}

/** Plans and writes `events` on a locked session row and locked shared keys. */
async function appendLocked(
  client: PoolClient,
  session: Session,
  row: LockedRow,
  events: readonly SessionEvent[],
  shared: Map<string, SharedValue>,
): Promise<{ plan: ReturnType<typeof planAppend> }> {
  const plan = planAppend(session, events, {
    sessionState: parseStoredState(row.state),
    shared: (k) => shared.get(k) ?? { value: undefined, version: 0 },
  });
  await write(client, session, {
    events: plan.events,
    firstSeq: row.version,
    shared: plan.shared,
    state: plan.sessionState,
    version: row.version + events.length,
    updatedAt: events.length ? events[events.length - 1]!.timestamp : Number(row.updated_at),
  });
  return { plan };
}

/**
 * A SessionStore in PostgreSQL, safe for any number of processes sharing the database.
 *
 * @example
 * const store = new PgSessionStore({ url: process.env.PAGEWISE_DATABASE_URL });
 * const runner = new Runner({ agent, store, model: 'offline' });
 */
export class PgSessionStore implements LockingSessionStore {
  readonly database: PgDatabase;
  private readonly ownsDatabase: boolean;

  constructor(options: PgStoreOptions = {}) {
    this.ownsDatabase = !options.database;
    this.database = options.database ?? openPgDatabase(options);
  }

  async createSession(options: CreateSessionOptions): Promise<Session> {
    const { key, state, shared, now } = newSession(options);
    await this.database.transaction(async (client) => {
      const inserted = await client.query(
        `INSERT INTO sessions (app_name, user_id, session_id, state, version, created_at, updated_at, schema_version)
         VALUES ($1, $2, $3, $4, 0, $5, $5, $6) ON CONFLICT DO NOTHING`,
        [key.appName, key.userId, key.sessionId, JSON.stringify(state), now, SESSION_SCHEMA_VERSION],
      );
      if (inserted.rowCount === 0)
        throw new TypeError(`Session "${key.sessionId}" already exists; pick another id or omit it.`);
      if (shared.length === 0) return;
      const current = await lockShared(client, key.appName, key.userId, sharedKeys(shared.map(([k]) => k)));
      const writes = firstSharedWrites(shared, (stateKey) => current.get(stateKey)?.version ?? 0);
      await write(client, key, { events: [], firstSeq: 0, shared: writes, state, version: 0, updatedAt: now });
    });
    return (await this.getSession(key))!;
  }

  async getSession(key: SessionKey): Promise<Session | undefined> {
    return loadSession(this.database, key);
  }

  async listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    const params: string[] = [options.appName];
    if (options.userId !== undefined) params.push(options.userId);
    const result = await this.database.query<StoredSessionListRow>(
      `SELECT s.*, (SELECT count(*) FROM event_rows e WHERE e.sid = s.sid) AS event_count
       FROM sessions s WHERE s.app_name = $1 ${options.userId !== undefined ? 'AND s.user_id = $2' : ''} ORDER BY s.created_at, s.session_id`,
      params,
    );
    return result.rows.map(sessionSummaryFromRow);
  }

  async deleteSession(key: SessionKey): Promise<boolean> {
    return this.database.transaction(async (client) => {
      // The session row first: it waits for an append in flight, whose events are then deleted too.
      const result = await client.query<{ sid: string }>(
        'DELETE FROM sessions WHERE app_name = $1 AND user_id = $2 AND session_id = $3 RETURNING sid',
        [key.appName, key.userId, key.sessionId],
      );
      const sid = result.rows[0]?.sid;
      if (sid !== undefined) await client.query('DELETE FROM event_rows WHERE sid = $1', [sid]);
      return sid !== undefined;
    });
  }

  async appendEvent(session: Session, event: SessionEvent): Promise<SessionEvent> {
    return (await this.appendEvents(session, [event]))[0]!;
  }

  async appendEvents(session: Session, events: readonly SessionEvent[]): Promise<SessionEvent[]> {
    const plan = await this.database.transaction(async (client) => {
      const row = await lockSession(client, session);
      if (row.version !== session.version)
        throw new VersionConflictError(session.sessionId, session.version, row.version);
      return appendLocked(
        client,
        session,
        row,
        events,
        await lockShared(client, session.appName, session.userId, sharedKeysOf(events)),
      );
    });
    commitToSession(session, events, plan.plan);
    return plan.plan.events;
  }

  async appendEventsLocked(
    session: Session,
    lockKeys: readonly string[],
    build: () => Promise<readonly SessionEvent[]>,
  ): Promise<SessionEvent[]> {
    const done = await this.database.transaction(async (client) => {
      // A build that hangs must not hold the locks forever: the server ends an idle transaction.
      await client.query(`SET LOCAL idle_in_transaction_session_timeout = ${LOCKED_BUILD_TIMEOUT_MS}`);
      const row = await lockSession(client, session);
      const locked = await lockShared(client, session.appName, session.userId, sharedKeys(lockKeys));
      const stored = await loadSession(client, session);
      if (!stored) throw new VersionConflictError(session.sessionId, session.version, -1);
      refreshSession(session, stored);
      const events = await build();
      // Keys the rebuilt events touch beyond those locked are locked now (and checked as usual).
      const extra = sharedKeysOf(events);
      const more = await lockShared(client, session.appName, session.userId, {
        user: extra.user.filter((k) => !locked.has(k)),
        app: extra.app.filter((k) => !locked.has(k)),
      });
      return { events, ...(await appendLocked(client, session, row, events, new Map([...locked, ...more]))) };
    });
    commitToSession(session, done.events, done.plan);
    return done.plan.events;
  }

  /** Closes the connection pool, unless it was passed in as `database`. */
  async close(): Promise<void> {
    if (this.ownsDatabase) await this.database.close();
  }
}
