/**
 * The prompt cache of every session in a store's call log, for reports outside the inspector (`pagewise replay` on a
 * session database): per session, the calls, prompt tokens, cache hit rate and cost with caching, worked out as the
 * inspector works them out (see `SessionCacheReplay`). Loads no web server: `@pagewise/inspect/cache`.
 */
import type { SessionKey } from 'pagewise';
import { SessionCacheReplay, type SessionCacheOptions, type SessionCacheTotals } from './cache.js';
import { cacheInputOf, type CallRow } from './data.js';
import { openStore, type InspectDb } from './db.js';

export {
  SessionCacheReplay,
  cacheRulesForModel,
  describeFirstChange,
  priceFor,
  type CacheCallInput,
  type CallCache,
  type FirstChange,
  type SessionCacheOptions,
  type SessionCacheTotals,
} from './cache.js';

/** One session's prompt cache over its whole call log. */
export interface SessionCacheRow extends SessionKey {
  /** Calls logged. */
  logged: number;
  totals: SessionCacheTotals;
}

/** Call rows read per query. */
const CHUNK = 50;

/**
 * The prompt cache of each session with a call log in `db` (of one app with `appName`), in call order, oldest
 * session first. Empty when the store keeps no call log.
 *
 * @example
 * const rows = await callLogCache(openStore('sqlite:.pagewise/pagewise.db'), { priceAs: 'openai:gpt-4.1' });
 */
export async function callLogCache(
  db: InspectDb,
  options: SessionCacheOptions & { appName?: string } = {},
): Promise<SessionCacheRow[]> {
  const table =
    db.dialect === 'sqlite'
      ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'model_calls'"
      : "SELECT to_regclass('model_calls')::text AS name";
  const present = await db.all<{ name: string | null }>(table);
  if (present.length === 0 || present[0]!.name === null) return [];
  const app = options.appName !== undefined ? ' WHERE app_name = ?' : '';
  const sessions = await db.all<{ app_name: string; user_id: string; session_id: string; n: number | string }>(
    `SELECT app_name, user_id, session_id, COUNT(*) AS n, MIN(id) AS first_id FROM model_calls${app} GROUP BY app_name, user_id, session_id ORDER BY first_id`,
    options.appName !== undefined ? [options.appName] : [],
  );
  const out: SessionCacheRow[] = [];
  for (const session of sessions) {
    const key = { appName: session.app_name, userId: session.user_id, sessionId: session.session_id };
    const replay = new SessionCacheReplay(key, options.priceAs !== undefined ? { priceAs: options.priceAs } : {});
    let last: number | undefined;
    for (;;) {
      const rows = await db.all<CallRow>(
        `SELECT * FROM model_calls WHERE app_name = ? AND user_id = ? AND session_id = ?${last === undefined ? '' : ' AND id > ?'} ORDER BY id LIMIT ?`,
        [key.appName, key.userId, key.sessionId, ...(last === undefined ? [] : [last]), CHUNK],
      );
      for (const row of rows) replay.next(cacheInputOf(row));
      if (rows.length < CHUNK) break;
      last = Number(rows.at(-1)!.id);
    }
    out.push({ ...key, logged: Number(session.n), totals: replay.totals });
  }
  return out;
}

/** {@link callLogCache} of the store at `spec` (`sqlite:<file>`, a file path, a `postgres://` URL), closed after. */
export async function storeCallLogCache(
  spec: string,
  options: SessionCacheOptions & { appName?: string } = {},
): Promise<SessionCacheRow[]> {
  const db = openStore(spec);
  try {
    return await callLogCache(db, options);
  } finally {
    await db.close();
  }
}
