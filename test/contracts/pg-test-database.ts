/**
 * PostgreSQL for tests: the URL from PAGEWISE_TEST_DATABASE_URL, a fresh schema per test file so
 * parallel runs never see each other's rows, and the clean-up that drops it. Without the variable,
 * PostgreSQL tests skip and say why.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';

/** The variable that points tests at a PostgreSQL database. */
export const TEST_DATABASE_URL_ENV = 'PAGEWISE_TEST_DATABASE_URL';

/** The test database URL, or undefined when PostgreSQL tests should skip. */
export const pgTestUrl: string | undefined = process.env[TEST_DATABASE_URL_ENV] || undefined;

/** Why PostgreSQL tests are skipped, printed once per file that skips them. */
export const PG_SKIP_REASON = `PostgreSQL tests skipped: set ${TEST_DATABASE_URL_ENV} (e.g. postgres://postgres@127.0.0.1:5432/test) to run them.`;

/** A schema name no other test run uses. */
export function uniqueSchema(label: string): string {
  return `pw_${label}_${process.pid}_${randomUUID().replace(/-/g, '').slice(0, 10)}`.toLowerCase();
}

/** Drops `schema` and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** Registers one skipped test that carries the reason, and prints it. */
export function skipPg(suite: string): void {
  console.warn(`${suite}: ${PG_SKIP_REASON}`);
  describe.skip(suite, () => {
    it(PG_SKIP_REASON, () => undefined);
  });
}
