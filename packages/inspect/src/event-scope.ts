/**
 * The SQL that reads one session's events, written for the layout the store keeps them in, so every query
 * on a session's events is a range scan of the key it is stored by.
 *
 * - `keyed`: SQLite schema 7 and later keep a row in `event_rows` under one integer, `sid * 2^32 + seq`,
 *   its rowid. A session's rows are the rowid range of its `sid`, ordered by the rowid: the queries read
 *   that range and compare against it. The `events` view of that schema computes `seq` from the rowid, an
 *   expression SQLite can neither order nor range-scan by, so the inspector does not read through it.
 * - `columns`: SQLite schema 8 and later, keyed as above, keep an event's identity (id, invocation, author,
 *   timestamp) in columns beside the body; rows written before that schema keep NULL there and their whole
 *   event in the body.
 * - `view`: every other database (a SQLite file of an older schema, opened read-only and so not migrated,
 *   and PostgreSQL), where the `events` table or view orders and filters by `seq` from its own key.
 */
import type { SessionKey } from 'pagewise';
import { uuidFromBytes, uuidToBytes, type EventIdentity } from 'pagewise/store-kit';
import type { InspectDb } from './db.js';

/** How a database keeps its event rows (see the module comment). */
export type EventLayout = 'columns' | 'keyed' | 'view';

/** How many event numbers a session's key range holds under the `keyed` layout, as a SQL literal. */
const SPAN = '4294967296';

/**
 * Finds the layout of `db`'s event rows: `columns` when its `event_rows` table has the identity column `ts`,
 * `keyed` when it has the integer key `k` only.
 */
export async function eventLayoutOf(db: InspectDb): Promise<EventLayout> {
  if (db.dialect !== 'sqlite') return 'view';
  const rows = await db.all<{ name: string }>(
    "SELECT name FROM pragma_table_info('event_rows') WHERE name IN ('k', 'ts')",
  );
  const names = new Set(rows.map((row) => row.name));
  return names.has('ts') ? 'columns' : names.has('k') ? 'keyed' : 'view';
}

/**
 * Under the `columns` layout, a row's identity as one JSON text (NULL for a row that keeps it in its body):
 * `[typeof id, id (its bytes in hex when a blob), invocation id, author, timestamp]`, read by
 * {@link identityOf}. A text, so a scalar subquery can return it beside the body.
 */
const IDENTITY_SQL =
  "CASE WHEN e.ts IS NULL THEN NULL ELSE json_array(typeof(e.id), CASE WHEN typeof(e.id) = 'blob' THEN hex(e.id) ELSE e.id END, (SELECT invocation_id FROM invocations WHERE iid = e.iid), (SELECT author FROM authors WHERE aid = e.aid), e.ts) END";

/** The identity of a row from the text {@link IDENTITY_SQL} gave, or undefined for a row without one. */
export function identityOf(text: unknown): EventIdentity | undefined {
  if (typeof text !== 'string') return undefined;
  const [type, id, invocationId, author, timestamp] = JSON.parse(text) as [string, string, string, string, number];
  return { id: type === 'blob' ? uuidFromBytes(Buffer.from(id, 'hex')) : id, invocationId, author, timestamp };
}

/**
 * A condition that a row's id column is one of `ids`, with its parameters (a UUID as the bytes the store
 * writes), under the `columns` layout; undefined under the others, whose ids are only in the body.
 */
export function idColumnIn(
  layout: EventLayout,
  ids: readonly string[],
): { sql: string; params: unknown[] } | undefined {
  if (layout !== 'columns' || ids.length === 0) return undefined;
  return { sql: `e.id IN (${ids.map(() => '?').join(', ')})`, params: ids.map((id) => uuidToBytes(id) ?? id) };
}

/**
 * One session's events as SQL: `SELECT … FROM ${from} WHERE ${where} …` reads them, with `params` first
 * (they belong to `from` and `where`). The stored text is `e.body`.
 */
export interface EventScope {
  from: string;
  where: string;
  params: unknown[];
  /** The event's number in the session. */
  seq: string;
  /** What to `ORDER BY` (append `DESC` for newest first): the stored key. */
  order: string;
  /** A condition comparing the event's number with one `?` parameter, as a range of the stored key. */
  seqIs(op: '<' | '<=' | '>' | '>='): string;
  /** The row's identity as a JSON text or NULL, to select beside `e.body` and read with {@link identityOf}. */
  identity: string;
}

/** The events of the session `key` (see {@link EventScope}). */
export function sessionEvents(layout: EventLayout, key: SessionKey): EventScope {
  const params = [key.appName, key.userId, key.sessionId];
  if (layout !== 'view')
    return {
      // The session's sid is looked up once by its unique key; `b.lo` is the first key of its range.
      from: `(SELECT sid * ${SPAN} AS lo FROM session_ids WHERE app_name = ? AND user_id = ? AND session_id = ?) b, event_rows e`,
      where: `e.k BETWEEN b.lo AND b.lo + ${SPAN} - 1`,
      params,
      seq: 'e.k - b.lo',
      order: 'e.k',
      seqIs: (op) => `e.k ${op} b.lo + ?`,
      identity: layout === 'columns' ? IDENTITY_SQL : 'NULL',
    };
  return {
    from: 'events e',
    where: 'e.app_name = ? AND e.user_id = ? AND e.session_id = ?',
    params,
    seq: 'e.seq',
    order: 'e.seq',
    seqIs: (op) => `e.seq ${op} ?`,
    identity: 'NULL',
  };
}

/**
 * The events of the session of the row `s` of `sessions` in a correlated subquery: `SELECT … FROM ${from}
 * WHERE ${where} …`. Under the `keyed` layout the outer query must join `session_ids` as `k`, with
 * {@link sessionIdsJoin}.
 */
export function rowEvents(layout: EventLayout): Omit<EventScope, 'params' | 'seqIs'> {
  if (layout !== 'view')
    return {
      from: 'event_rows e',
      where: `e.k BETWEEN k.sid * ${SPAN} AND k.sid * ${SPAN} + ${SPAN} - 1`,
      seq: `e.k - k.sid * ${SPAN}`,
      order: 'e.k',
      identity: layout === 'columns' ? IDENTITY_SQL : 'NULL',
    };
  return {
    from: 'events e',
    where: 'e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.session_id',
    seq: 'e.seq',
    order: 'e.seq',
    identity: 'NULL',
  };
}

/** The join that gives each row `s` of `sessions` its `sid` as `k.sid` under the `keyed` layout (NULL without events). */
export function sessionIdsJoin(layout: EventLayout): string {
  return layout !== 'view'
    ? 'LEFT JOIN session_ids k ON k.app_name = s.app_name AND k.user_id = s.user_id AND k.session_id = s.session_id'
    : '';
}
