/**
 * The SQL that reads one session's events, written for the layout the store keeps them in, so every query
 * on a session's events is a range scan of the key it is stored by.
 *
 * - `keyed`: SQLite schema 7 and later keep a row in `event_rows` under one integer, `sid * 2^32 + seq`,
 *   its rowid. A session's rows are the rowid range of its `sid`, ordered by the rowid: the queries read
 *   that range and compare against it. The `events` view of that schema computes `seq` from the rowid, an
 *   expression SQLite can neither order nor range-scan by, so the inspector does not read through it.
 * - `view`: every other database (a SQLite file of an older schema, opened read-only and so not migrated,
 *   and PostgreSQL), where the `events` table or view orders and filters by `seq` from its own key.
 */
import type { SessionKey } from 'pagewise';
import type { InspectDb } from './db.js';

/** How a database keeps its event rows (see the module comment). */
export type EventLayout = 'keyed' | 'view';

/** How many event numbers a session's key range holds under the `keyed` layout, as a SQL literal. */
const SPAN = '4294967296';

/** Finds the layout of `db`'s event rows: `keyed` when its `event_rows` table has the integer key `k`. */
export async function eventLayoutOf(db: InspectDb): Promise<EventLayout> {
  if (db.dialect !== 'sqlite') return 'view';
  const rows = await db.all<{ name: string }>("SELECT name FROM pragma_table_info('event_rows') WHERE name = 'k'");
  return rows.length > 0 ? 'keyed' : 'view';
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
}

/** The events of the session `key` (see {@link EventScope}). */
export function sessionEvents(layout: EventLayout, key: SessionKey): EventScope {
  const params = [key.appName, key.userId, key.sessionId];
  if (layout === 'keyed')
    return {
      // The session's sid is looked up once by its unique key; `b.lo` is the first key of its range.
      from: `(SELECT sid * ${SPAN} AS lo FROM session_ids WHERE app_name = ? AND user_id = ? AND session_id = ?) b, event_rows e`,
      where: `e.k BETWEEN b.lo AND b.lo + ${SPAN} - 1`,
      params,
      seq: 'e.k - b.lo',
      order: 'e.k',
      seqIs: (op) => `e.k ${op} b.lo + ?`,
    };
  return {
    from: 'events e',
    where: 'e.app_name = ? AND e.user_id = ? AND e.session_id = ?',
    params,
    seq: 'e.seq',
    order: 'e.seq',
    seqIs: (op) => `e.seq ${op} ?`,
  };
}

/**
 * The events of the session of the row `s` of `sessions` in a correlated subquery: `SELECT … FROM ${from}
 * WHERE ${where} …`. Under the `keyed` layout the outer query must join `session_ids` as `k`, with
 * {@link sessionIdsJoin}.
 */
export function rowEvents(layout: EventLayout): Omit<EventScope, 'params' | 'seqIs'> {
  if (layout === 'keyed')
    return {
      from: 'event_rows e',
      where: `e.k BETWEEN k.sid * ${SPAN} AND k.sid * ${SPAN} + ${SPAN} - 1`,
      seq: `e.k - k.sid * ${SPAN}`,
      order: 'e.k',
    };
  return {
    from: 'events e',
    where: 'e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.session_id',
    seq: 'e.seq',
    order: 'e.seq',
  };
}

/** The join that gives each row `s` of `sessions` its `sid` as `k.sid` under the `keyed` layout (NULL without events). */
export function sessionIdsJoin(layout: EventLayout): string {
  return layout === 'keyed'
    ? 'LEFT JOIN session_ids k ON k.app_name = s.app_name AND k.user_id = s.user_id AND k.session_id = s.session_id'
    : '';
}
