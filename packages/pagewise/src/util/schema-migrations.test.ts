/**
 * The runner's own rules, on an in-memory record: what is pending, the order it refuses, and the failures it
 * reports. Real databases run it in test/contracts/schema-migrations.contract.ts (SQLite and PostgreSQL).
 */
import { describe, expect, it } from 'vitest';
import {
  pendingMigrations,
  runMigrations,
  runMigrationsSync,
  type MigrationDialect,
  type SchemaMigration,
} from './schema-migrations.js';

const MIGRATIONS: readonly SchemaMigration[] = [1, 2, 3, 4].map((version) => ({ version, sql: `step ${version}` }));

/** A record kept in an array; `failOn` makes that version's step throw after it half ran. */
function memoryRecord(recorded: number[], failOn?: number) {
  const calls: string[] = [];
  let open: number[] | undefined;
  const dialect: MigrationDialect<false> = {
    begin: () => {
      calls.push('begin');
      open = [...recorded];
    },
    recordedVersions: () => [...open!],
    apply: (migration) => {
      calls.push(migration.sql);
      open!.push(migration.version);
      if (migration.version === failOn) throw new Error(`step ${migration.version} failed`);
      return true;
    },
    commit: () => {
      calls.push('commit');
      recorded.splice(0, recorded.length, ...open!);
    },
    rollback: () => {
      calls.push('rollback');
      throw new Error('the connection is gone');
    },
  };
  const asynchronous: MigrationDialect<true> = {
    begin: async () => dialect.begin(),
    recordedVersions: async () => dialect.recordedVersions(),
    apply: async (migration) => dialect.apply(migration),
    commit: async () => dialect.commit!(),
    rollback: async () => dialect.rollback!(),
  };
  return { dialect, asynchronous, calls, recorded };
}

describe('pendingMigrations', () => {
  it('lists the versions a record lacks, in order, up to a version, ignoring versions it does not know', () => {
    const pending = (recorded: number[], upTo?: number) =>
      pendingMigrations(MIGRATIONS, recorded, upTo).map((migration) => migration.version);
    expect(pending([])).toEqual([1, 2, 3, 4]);
    expect(pending([3, 1, 9])).toEqual([2, 4]);
    expect(pending([1], 3)).toEqual([2, 3]);
  });

  it('refuses versions out of order, repeated or not positive integers', () => {
    for (const versions of [
      [1, 3, 2],
      [1, 1],
      [0, 1],
      [1, 1.5],
    ]) {
      const list = versions.map((version) => ({ version, sql: '' }));
      expect(() => pendingMigrations(list, []), versions.join()).toThrow(/increasing order/);
    }
  });
});

for (const mode of ['sync', 'async'] as const) {
  const run = (record: ReturnType<typeof memoryRecord>, upTo?: number) =>
    mode === 'sync'
      ? Promise.resolve().then(() => runMigrationsSync(record.dialect, MIGRATIONS, { upTo }))
      : runMigrations(record.asynchronous, MIGRATIONS, { upTo });

  describe(`${mode === 'sync' ? 'a synchronous' : 'an asynchronous'} run`, () => {
    it('applies what the record lacks in order, once, and reports the version reached', async () => {
      const record = memoryRecord([2]);
      const first = await run(record, 3);
      expect(first).toEqual({ applied: [1, 3], version: 3 });
      const second = await run(record);
      expect(second).toEqual({ applied: [4], version: 4 });
      expect(await run(record)).toEqual({ applied: [], version: 4 });
      expect(record.calls.filter((call) => call.startsWith('step'))).toEqual(['step 1', 'step 3', 'step 4']);
    });

    it('reports the version of a record a newer build migrated further, and applies nothing', async () => {
      const record = memoryRecord([1, 2, 3, 4, 5, 6]);
      expect(await run(record)).toEqual({ applied: [], version: 6 });
    });

    it("rolls back when a step fails and reports the step's error, not the rollback's", async () => {
      const record = memoryRecord([1], 3);
      await expect(run(record)).rejects.toThrow('step 3 failed');
      expect(record.recorded).toEqual([1]);
      expect(record.calls.slice(-2)).toEqual(['step 3', 'rollback']);
    });

    it('refuses a list out of order before touching the database', async () => {
      const record = memoryRecord([]);
      const reversed = [...MIGRATIONS].reverse();
      const attempt =
        mode === 'sync'
          ? Promise.resolve().then(() => runMigrationsSync(record.dialect, reversed))
          : runMigrations(record.asynchronous, reversed);
      await expect(attempt).rejects.toThrow(TypeError);
      expect(record.calls).toEqual([]);
    });
  });
}

it('a synchronous run refuses a dialect that returns promises', () => {
  const record = memoryRecord([]);
  const misused = record.asynchronous as unknown as MigrationDialect<false>;
  expect(() => runMigrationsSync(misused, MIGRATIONS)).toThrow(/runMigrations/);
});
