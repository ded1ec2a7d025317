/**
 * The PostgreSQL page store: page metadata per namespace and URI, bodies stored once per content hash
 * (as UTF-8 bytes, since PostgreSQL text cannot hold NUL characters). Shares the database, and usually
 * the pool, of the session store.
 */
import type { PoolClient } from 'pg';
import { pageInfo, pageInfoFromRow, pageRowValues, putOutcome, toPage, type StoredPageRow } from 'pagewise/store-kit';
import { isHandleUri, verifiedBody, type Page, type PageInfo, type PageInput, type PageStore } from 'pagewise/paging';
import { openPgDatabase, type PgDatabase, type PgStoreOptions } from './pg-database.js';

/** A page row with, when the query joins it in, its body (bytea, as pg gives it). */
type PageRow = StoredPageRow & { body?: Buffer };

const COLUMNS =
  'p.namespace, p.uri, p.title, p.media_type, p.hash, p.fetched_at, p.meta, p.schema_version, b.bytes, b.tokens';
// A body being deleted by one writer's clean-up while another writer links a page to it makes the
// second fail its foreign key check; running that transaction again then finds or re-inserts the body.
const RETRY_ON = ['23503'];

/** Deletes the body `hash` when no page refers to it any more. */
async function collect(client: PoolClient, hash: string): Promise<void> {
  await client.query('DELETE FROM page_bodies WHERE hash = $1 AND NOT EXISTS (SELECT 1 FROM pages WHERE hash = $1)', [
    hash,
  ]);
}

/** A PageStore in PostgreSQL. */
export class PgPageStore implements PageStore {
  readonly database: PgDatabase;
  private readonly ownsDatabase: boolean;

  constructor(options: PgStoreOptions = {}) {
    this.ownsDatabase = !options.database;
    this.database = options.database ?? openPgDatabase(options);
  }

  private row(row: PageRow): PageInfo {
    return pageInfoFromRow(row);
  }

  async put(input: PageInput): Promise<PageInfo> {
    const page = toPage(input);
    const handle = isHandleUri(page.uri);
    return this.database.transaction(
      async (client) => {
        const old = await client.query<{ hash: string }>(
          'SELECT hash FROM pages WHERE namespace = $1 AND uri = $2 FOR UPDATE',
          [page.namespace, page.uri],
        );
        const previous = old.rows[0]?.hash;
        if (previous && putOutcome({ ...page, hash: previous }, page.hash) === 'unchanged')
          return this.storedInfo(client, page.namespace, page.uri);
        // DO UPDATE rather than DO NOTHING: it locks an existing body, so no clean-up can delete it before our page points to it.
        await client.query(
          'INSERT INTO page_bodies (hash, body, bytes, tokens) VALUES ($1, $2, $3, $4) ON CONFLICT (hash) DO UPDATE SET bytes = excluded.bytes',
          [page.hash, Buffer.from(page.body, 'utf8'), page.bytes, page.tokens],
        );
        // A handle is written once: a writer that raced us to it (no row to lock above) has its page kept,
        // and ours is checked against it.
        const inserted = await client.query(
          `INSERT INTO pages (namespace, uri, title, media_type, hash, fetched_at, meta, schema_version) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (namespace, uri) DO ${
             handle
               ? 'NOTHING'
               : `UPDATE SET title = excluded.title, media_type = excluded.media_type, hash = excluded.hash,
             fetched_at = excluded.fetched_at, meta = excluded.meta, schema_version = excluded.schema_version`
           }`,
          pageRowValues(page),
        );
        if (inserted.rowCount === 0) {
          const raced = await this.storedInfo(client, page.namespace, page.uri);
          putOutcome(raced, page.hash);
          return raced;
        }
        if (previous && previous !== page.hash) await collect(client, previous);
        return pageInfo(page);
      },
      { retryOn: RETRY_ON },
    );
  }

  /** The info of a stored page, read in the transaction of `client`. */
  private async storedInfo(client: PoolClient, namespace: string, uri: string): Promise<PageInfo> {
    const result = await client.query<PageRow>(
      `SELECT ${COLUMNS} FROM pages p JOIN page_bodies b ON b.hash = p.hash WHERE p.namespace = $1 AND p.uri = $2`,
      [namespace, uri],
    );
    return this.row(result.rows[0]!);
  }

  async get(namespace: string, uri: string): Promise<Page | undefined> {
    const result = await this.database.query<PageRow>(
      `SELECT ${COLUMNS}, b.body FROM pages p JOIN page_bodies b ON b.hash = p.hash WHERE p.namespace = $1 AND p.uri = $2`,
      [namespace, uri],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    const info = this.row(row);
    return { ...info, body: verifiedBody(info, row.body!.toString('utf8')) };
  }

  async info(namespace: string, uri: string): Promise<PageInfo | undefined> {
    const result = await this.database.query<PageRow>(
      `SELECT ${COLUMNS} FROM pages p JOIN page_bodies b ON b.hash = p.hash WHERE p.namespace = $1 AND p.uri = $2`,
      [namespace, uri],
    );
    const row = result.rows[0];
    return row ? this.row(row) : undefined;
  }

  async list(namespace: string): Promise<PageInfo[]> {
    // COLLATE "C": byte order, the order of the other stores, whatever the database's locale.
    const result = await this.database.query<PageRow>(
      `SELECT ${COLUMNS} FROM pages p JOIN page_bodies b ON b.hash = p.hash WHERE p.namespace = $1 ORDER BY p.uri COLLATE "C"`,
      [namespace],
    );
    return result.rows.map((row) => this.row(row));
  }

  async delete(namespace: string, uri: string): Promise<boolean> {
    return this.database.transaction(
      async (client) => {
        const result = await client.query<{ hash: string }>(
          'DELETE FROM pages WHERE namespace = $1 AND uri = $2 RETURNING hash',
          [namespace, uri],
        );
        const hash = result.rows[0]?.hash;
        if (!hash) return false;
        await collect(client, hash);
        return true;
      },
      { retryOn: RETRY_ON },
    );
  }

  /** Distinct bodies held, for dedup checks. */
  get distinctBodies(): Promise<number> {
    return this.database
      .query<{ n: string }>('SELECT count(*) AS n FROM page_bodies')
      .then((r) => Number(r.rows[0]!.n));
  }

  /** Closes the connection pool, unless it was passed in as `database`. */
  async close(): Promise<void> {
    if (this.ownsDatabase) await this.database.close();
  }
}
