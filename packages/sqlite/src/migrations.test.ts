/**
 * The store-kit migration runner over the SQLite dialect, on database files in a temporary folder, with
 * the store's own migrations (test/contracts/schema-migrations.contract.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import { runMigrationsSync } from '../../pagewise/src/util/schema-migrations.js';
import { schemaMigrationsContract } from '../../../test/contracts/schema-migrations.contract.js';
import { SQLITE_MIGRATIONS, sqliteMigrationDialect } from './migrations.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-sqlite-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

schemaMigrationsContract('SQLite', SQLITE_MIGRATIONS, async () => {
  files += 1;
  const db = new Database(path.join(dir, `database-${files}.db`));
  const dialect = sqliteMigrationDialect(db);
  return {
    run: async (migrations, upTo) => runMigrationsSync(dialect, migrations, { upTo }),
    execute: async (sql) => {
      db.exec(sql);
    },
    recorded: async () => [...dialect.recordedVersions()].sort((a, b) => a - b),
    definitions: async () =>
      db
        .prepare<[], { type: string; name: string; sql: string | null }>(
          "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY type, name",
        )
        .all()
        .map((row) => `${row.type} ${row.name}: ${row.sql ?? ''}`),
    close: async () => {
      db.close();
    },
  };
});
