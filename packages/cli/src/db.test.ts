import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../pagewise/src/errors.js';
import { dropSchema, pgTestUrl, skipPg, uniqueSchema } from '../../../test/contracts/pg-test-database.js';
import { LATEST_PG_SCHEMA, PG_MIGRATIONS } from '../../postgres/src/index.js';
import { DB_HELP, dbCommand } from './db.js';

describe('pagewise db (no server needed)', () => {
  it('prints help, and refuses an unknown subcommand', async () => {
    const lines: string[] = [];
    expect(await dbCommand(['--help'], (s) => lines.push(s))).toBe(0);
    expect(lines.join('\n')).toBe(DB_HELP);
    expect(await dbCommand(['upgrade'], (s) => lines.push(s))).toBe(1);
    expect(lines.at(-1)).toMatch(/Unknown subcommand "upgrade"/);
  });

  it('names PAGEWISE_DATABASE_URL when the URL is wrong', async () => {
    const err = await dbCommand(['migrate', '--url', 'mysql://x@y/z'], () => undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    expect((err as Error).message).toMatch(/PAGEWISE_DATABASE_URL/);
  });
});

const url = pgTestUrl;
if (!url) {
  skipPg('pagewise db migrate');
} else {
  const schema = uniqueSchema('cli');
  afterAll(() => dropSchema(url, schema));

  describe('pagewise db migrate', () => {
    it('applies the migrations once and reports the version', async () => {
      const lines: string[] = [];
      expect(await dbCommand(['migrate', '--url', url, '--schema', schema], (s) => lines.push(s))).toBe(0);
      expect(lines[0]).toContain(`Applied migrations ${PG_MIGRATIONS.map((m) => m.version).join(', ')} to postgres://`);
      expect(lines[0]).toContain(`the schema is at version ${LATEST_PG_SCHEMA}.`);
      expect(await dbCommand(['migrate', '--url', url, '--schema', schema, '--json'], (s) => lines.push(s))).toBe(0);
      expect(JSON.parse(lines[1]!)).toMatchObject({ schema, applied: [], version: LATEST_PG_SCHEMA });
    });
  });
}
