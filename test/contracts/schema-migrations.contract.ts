/**
 * The schema migration contract: the store-kit runner over a store's dialect, on a real database, with the
 * store's own migrations. Every database a store migrates runs these same tests.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { MigrationResult, SchemaMigration } from '../../packages/pagewise/src/util/schema-migrations.js';

/** A fresh, empty database the runner migrates through the store's dialect. */
export interface MigrationTarget {
  /** Runs the runner with `migrations`, up to `upTo` when given. */
  run(migrations: readonly SchemaMigration[], upTo?: number): Promise<MigrationResult>;
  /** Runs `sql` as it is, without the runner and its record. */
  execute(sql: string): Promise<void>;
  /** The versions the migration record holds, ascending. */
  recorded(): Promise<number[]>;
  /** The definitions of every table, view and index but the migration record's, in a stable order. */
  definitions(): Promise<string[]>;
  close(): Promise<void>;
}

/** Runs the contract for a store whose migrations are `migrations`; `open` makes an empty database. */
export function schemaMigrationsContract(
  name: string,
  migrations: readonly SchemaMigration[],
  open: () => Promise<MigrationTarget>,
): void {
  describe(`schema migrations: ${name}`, () => {
    const opened: MigrationTarget[] = [];
    const fresh = async (): Promise<MigrationTarget> => {
      const target = await open();
      opened.push(target);
      return target;
    };
    afterAll(async () => {
      for (const target of opened) await target.close();
    });

    const versions = migrations.map((migration) => migration.version);
    const latest = versions[versions.length - 1]!;
    let expected: string[] | undefined;
    /** The schema every migration's SQL makes, run in order by hand, to compare the runner's databases with. */
    const definitionsOfEverySql = async (): Promise<string[]> => {
      if (!expected) {
        const target = await fresh();
        for (const migration of migrations) await target.execute(migration.sql);
        expected = await target.definitions();
        expect(expected.length).toBeGreaterThan(versions.length);
      }
      return expected;
    };

    for (const start of [0, ...versions.slice(0, -1)]) {
      it(`brings a database at version ${start} to version ${latest}, the schema its migrations' SQL makes, and then has nothing to do`, async () => {
        const target = await fresh();
        if (start > 0) {
          await target.run(migrations, start);
          expect(await target.recorded(), 'the database before').toEqual(versions.filter((v) => v <= start));
        }
        const result = await target.run(migrations);
        expect(result.applied).toEqual(versions.filter((v) => v > start));
        expect(result.version).toBe(latest);
        expect(await target.recorded()).toEqual(versions);
        expect(await target.definitions()).toEqual(await definitionsOfEverySql());
        expect(await target.run(migrations)).toEqual({ applied: [], version: latest });
      });
    }

    it('leaves a database a newer build migrated further as it is, reporting its version', async () => {
      const target = await fresh();
      await target.run(migrations);
      const before = await target.definitions();
      const older = migrations.slice(0, -1);
      expect(await target.run(older)).toEqual({ applied: [], version: latest });
      expect(await target.recorded()).toEqual(versions);
      expect(await target.definitions()).toEqual(before);
    });

    it("a failing step leaves the version where it was and none of the step's changes", async () => {
      const target = await fresh();
      await target.run(migrations);
      const before = await target.definitions();
      const failing: SchemaMigration = {
        version: latest + 1,
        sql: 'CREATE TABLE probe_half_done (id integer); SELECT * FROM probe_absent_table;',
      };
      await expect(target.run([...migrations, failing])).rejects.toThrow(/probe_absent_table/);
      expect(await target.recorded()).toEqual(versions);
      expect(await target.definitions()).toEqual(before);
      expect(before.join('\n')).not.toMatch(/probe_half_done/);
    });
  });
}
