/**
 * The SQLite page store: page metadata per namespace and URI, bodies stored once per content hash.
 * Shares the database file of the session store.
 */
import type Database from 'better-sqlite3';
import { pageInfo, pageInfoFromRow, pageRowValues, putOutcome, toPage, type StoredPageRow } from 'pagewise/store-kit';
import { verifiedBody, type Page, type PageInfo, type PageInput, type PageStore } from 'pagewise/paging';
import { guarded } from './sqlite-errors.js';
import { openSqliteDatabase } from './sqlite-store.js';

/** A page row with, when the query joins it in, its body. */
type PageRow = StoredPageRow & { body?: string };

/** Options of {@link SqlitePageStore}. */
export interface SqlitePageStoreOptions {
  /** Database file; the default pagewise database when omitted. */
  path?: string;
  /** An open database to share with the session store. */
  database?: Database.Database;
  /** See `SqliteStoreOptions.busyTimeoutMs`. Ignored with `database`. */
  busyTimeoutMs?: number;
}

/** A PageStore in SQLite. */
export class SqlitePageStore implements PageStore {
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly stmts;

  constructor(options: SqlitePageStoreOptions = {}) {
    this.ownsDb = !options.database;
    this.db = options.database ?? openSqliteDatabase(options.path, options);
    const db = this.db;
    const cols =
      'p.namespace, p.uri, p.title, p.media_type, p.hash, p.fetched_at, p.meta, p.schema_version, b.bytes, b.tokens';
    this.stmts = guarded(db, () => ({
      putBody: db.prepare(
        'INSERT INTO page_bodies (hash, body, bytes, tokens) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING',
      ),
      putPage: db.prepare(
        `INSERT INTO pages (namespace, uri, title, media_type, hash, fetched_at, meta, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (namespace, uri) DO UPDATE SET title = excluded.title, media_type = excluded.media_type, hash = excluded.hash,
           fetched_at = excluded.fetched_at, meta = excluded.meta, schema_version = excluded.schema_version`,
      ),
      oldHash: db.prepare<[string, string], { hash: string }>('SELECT hash FROM pages WHERE namespace = ? AND uri = ?'),
      get: db.prepare<[string, string], PageRow>(
        `SELECT ${cols}, b.body FROM pages p JOIN page_bodies b ON b.hash = p.hash WHERE p.namespace = ? AND p.uri = ?`,
      ),
      info: db.prepare<[string, string], PageRow>(
        `SELECT ${cols} FROM pages p JOIN page_bodies b ON b.hash = p.hash WHERE p.namespace = ? AND p.uri = ?`,
      ),
      list: db.prepare<[string], PageRow>(
        `SELECT ${cols} FROM pages p JOIN page_bodies b ON b.hash = p.hash WHERE p.namespace = ? ORDER BY p.uri`,
      ),
      del: db.prepare('DELETE FROM pages WHERE namespace = ? AND uri = ?'),
      gc: db.prepare('DELETE FROM page_bodies WHERE hash = ? AND NOT EXISTS (SELECT 1 FROM pages WHERE hash = ?)'),
      bodies: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM page_bodies'),
    }));
  }

  private row(row: PageRow): PageInfo {
    return pageInfoFromRow(row);
  }

  async put(input: PageInput): Promise<PageInfo> {
    const page = toPage(input);
    // IMMEDIATE: the write lock is taken before the old hash is read (see SqliteSessionStore.createSession).
    const write = this.db.transaction((): PageInfo => {
      const old = this.stmts.oldHash.get(page.namespace, page.uri);
      if (old && putOutcome({ ...page, hash: old.hash }, page.hash) === 'unchanged')
        return this.row(this.stmts.info.get(page.namespace, page.uri)!);
      this.stmts.putBody.run(page.hash, page.body, page.bytes, page.tokens);
      this.stmts.putPage.run(...pageRowValues(page));
      if (old && old.hash !== page.hash) this.stmts.gc.run(old.hash, old.hash);
      return pageInfo(page);
    });
    return guarded(this.db, () => write.immediate());
  }

  async get(namespace: string, uri: string): Promise<Page | undefined> {
    const row = guarded(this.db, () => this.stmts.get.get(namespace, uri));
    if (!row) return undefined;
    const info = this.row(row);
    return { ...info, body: verifiedBody(info, row.body!) };
  }

  async info(namespace: string, uri: string): Promise<PageInfo | undefined> {
    const row = guarded(this.db, () => this.stmts.info.get(namespace, uri));
    return row ? this.row(row) : undefined;
  }

  async list(namespace: string): Promise<PageInfo[]> {
    return guarded(this.db, () => this.stmts.list.all(namespace)).map((r) => this.row(r));
  }

  async delete(namespace: string, uri: string): Promise<boolean> {
    const remove = this.db.transaction(() => {
      const old = this.stmts.oldHash.get(namespace, uri);
      if (!old) return false;
      this.stmts.del.run(namespace, uri);
      this.stmts.gc.run(old.hash, old.hash);
      return true;
    });
    return guarded(this.db, () => remove.immediate());
  }

  /** Distinct bodies held, for dedup checks. */
  get distinctBodies(): number {
    return guarded(this.db, () => this.stmts.bodies.get()!.n);
  }

  async close(): Promise<void> {
    if (this.ownsDb && this.db.open) this.db.close();
  }
}
