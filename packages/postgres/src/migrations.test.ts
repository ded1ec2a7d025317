/**
 * The store-kit migration runner over the PostgreSQL dialect, each database a schema of its own, with the
 * store's own migrations (test/contracts/schema-migrations.contract.ts).
 */
import pg from 'pg';
import { runMigrations } from '../../pagewise/src/util/schema-migrations.js';
import { dropSchema, pgTestUrl, skipPg, uniqueSchema } from '../../../test/contracts/pg-test-database.js';
import { schemaMigrationsContract } from '../../../test/contracts/schema-migrations.contract.js';
import { PG_MIGRATIONS, pgMigrationDialect } from './migrations.js';

const url = pgTestUrl;
if (!url) {
  skipPg('PostgreSQL schema migrations');
} else {
  schemaMigrationsContract('PostgreSQL', PG_MIGRATIONS, async () => {
    const schema = uniqueSchema('migrations');
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
    const dialect = pgMigrationDialect(client, schema);
    /** Rows of `text`, a catalog query given the schema as $1, with the schema's name taken out of them. */
    const catalog = async (text: string): Promise<string[]> =>
      (await client.query<{ definition: string }>(text, [schema])).rows.map((row) =>
        row.definition.replaceAll(schema, '<schema>'),
      );
    return {
      run: async (migrations, upTo) => runMigrations(dialect, migrations, { upTo }),
      execute: async (sql) => {
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await client.query(sql);
      },
      recorded: async () =>
        (await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map(
          (row) => row.version,
        ),
      definitions: async () => [
        ...(await catalog(
          `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS definition
           FROM information_schema.columns WHERE table_schema = $1 AND table_name <> 'schema_migrations' ORDER BY table_name, ordinal_position`,
        )),
        ...(await catalog(
          `SELECT indexdef AS definition FROM pg_indexes WHERE schemaname = $1 AND tablename <> 'schema_migrations' ORDER BY indexname`,
        )),
        ...(await catalog(
          `SELECT viewname || ': ' || definition AS definition FROM pg_views WHERE schemaname = $1 ORDER BY viewname`,
        )),
      ],
      close: async () => {
        await client.end();
        await dropSchema(url, schema);
      },
    };
  });
}
