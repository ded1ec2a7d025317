/**
 * `pagewise/postgres`: sessions and pages in one shared PostgreSQL database, for many workers at once.
 * Importing it loads `pg`; the root entry does not.
 *
 * @example
 * import { openPgDatabase, PgSessionStore } from 'pagewise/postgres';
 * const db = await openPgDatabase({ url: process.env.PAGEWISE_DATABASE_URL });
 * const store = new PgSessionStore({ db });
 */
export * from './stores/postgres/index.js';
