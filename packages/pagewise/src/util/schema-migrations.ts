/**
 * The schema migration runner the SQLite and PostgreSQL stores share: which numbered migrations a database
 * still lacks, the order they are applied in, the version it ends at, and the rollback when a step fails. A
 * store supplies a {@link MigrationDialect}, the few statements its database needs; better-sqlite3 answers
 * synchronously and pg with promises, so the run is written once as a sequence of dialect calls that one
 * executor steps through, waiting only where a call returned a promise.
 */

/** One numbered schema change: the SQL that brings a database from the previous version to this one. */
export interface SchemaMigration {
  /** A positive integer, greater than the version of the migration before it. */
  readonly version: number;
  /** The statements, run together in one transaction. */
  readonly sql: string;
}

/** A result, or with an asynchronous dialect a promise of it. */
type DialectOutcome<T, Async extends boolean> = Async extends true ? Promise<T> : T;

/**
 * What the runner asks of a database. `Async` is `false` for a driver that answers synchronously
 * (better-sqlite3, run with {@link runMigrationsSync}) and `true` for one that returns promises (pg, run with
 * {@link runMigrations}).
 *
 * A run calls `begin`, then `recordedVersions`, then `apply` for each missing migration in order, then `commit`;
 * when any of them fails, `rollback`, and the failure propagates. A dialect either runs the whole run in one
 * transaction (open it in `begin`, end it in `commit` and `rollback`) or each `apply` in a transaction of its own.
 */
export interface MigrationDialect<Async extends boolean> {
  /**
   * Makes the migration record ready: creates its table (and whatever holds it) when absent. A dialect that
   * runs the whole run in one transaction opens it here, with a lock that keeps concurrent migrators waiting.
   */
  begin(): DialectOutcome<void, Async>;
  /** The versions the migration record holds, in any order. */
  recordedVersions(): DialectOutcome<readonly number[], Async>;
  /**
   * Runs `migration.sql` and records `migration.version`, both or neither. Returns `false`, without running
   * it, when the version is recorded by the time it runs (another process migrated in the meantime).
   */
  apply(migration: SchemaMigration): DialectOutcome<boolean, Async>;
  /** Ends a run whose every step succeeded. */
  commit?(): DialectOutcome<void, Async>;
  /** Ends a run that failed. A failure here is ignored: the run's own error is the one reported. */
  rollback?(): DialectOutcome<void, Async>;
}

/** What a migration run did. */
export interface MigrationResult {
  /** The versions this run applied, in order. */
  applied: number[];
  /** The highest version recorded after the run, 0 for a database never migrated. */
  version: number;
}

/** Options of {@link runMigrations} and {@link runMigrationsSync}. */
export interface MigrationRunOptions {
  /**
   * Apply only the migrations up to this version, leaving the database as a build of that version left it
   * (for tests that read older databases). Default: all of them.
   */
  upTo?: number;
}

/**
 * The migrations of `migrations` whose version `recorded` lacks, in order, up to `upTo`: what a run applies, and
 * what a reader that must not migrate reports as missing. Versions recorded that `migrations` does not know (a
 * newer build migrated the database further) are no concern of it.
 *
 * @throws TypeError when the versions of `migrations` are not positive integers in increasing order.
 * @example
 * ```ts
 * import { pendingMigrations } from 'pagewise/store-kit';
 *
 * const migrations = [
 *   { version: 1, sql: 'CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL)' },
 *   { version: 2, sql: 'ALTER TABLE notes ADD COLUMN created_at integer' },
 * ];
 * console.log(pendingMigrations(migrations, [1]).map((migration) => migration.version)); // [2]
 * ```
 */
export function pendingMigrations(
  migrations: readonly SchemaMigration[],
  recorded: Iterable<number>,
  upTo = Number.POSITIVE_INFINITY,
): SchemaMigration[] {
  checkOrder(migrations);
  const done = new Set(recorded);
  return migrations.filter((migration) => !done.has(migration.version) && migration.version <= upTo);
}

/**
 * Brings a database whose driver answers synchronously (better-sqlite3) to the latest of `migrations`, or to
 * `options.upTo`. See {@link MigrationDialect} for the calls it makes.
 *
 * @throws TypeError when the versions of `migrations` are out of order, or the dialect returned a promise (use
 *   {@link runMigrations}); otherwise whatever a step threw, after the dialect's rollback.
 */
export function runMigrationsSync(
  dialect: MigrationDialect<false>,
  migrations: readonly SchemaMigration[],
  options: MigrationRunOptions = {},
): MigrationResult {
  return execute(migrationRun(migrations, options.upTo), dialect, true) as MigrationResult;
}

/**
 * Brings a database whose driver returns promises (pg) to the latest of `migrations`, or to `options.upTo`. See
 * {@link MigrationDialect} for the calls it makes.
 *
 * @throws TypeError when the versions of `migrations` are out of order; otherwise whatever a step threw, after the
 *   dialect's rollback.
 */
export async function runMigrations(
  dialect: MigrationDialect<true>,
  migrations: readonly SchemaMigration[],
  options: MigrationRunOptions = {},
): Promise<MigrationResult> {
  return execute(migrationRun(migrations, options.upTo), dialect, false);
}

/** One call of a run on the dialect; what it returns (or the promise's value) is what the run continues with. */
type DialectCall = (dialect: MigrationDialect<boolean>) => unknown;

/**
 * The run, as the dialect calls it makes in order. Written once for both kinds of driver: {@link execute} feeds
 * each call's result back in, and throws a call's failure in at the point of the call.
 */
function* migrationRun(
  migrations: readonly SchemaMigration[],
  upTo: number | undefined,
): Generator<DialectCall, MigrationResult, unknown> {
  checkOrder(migrations);
  try {
    yield (dialect) => dialect.begin();
    const recorded = (yield (dialect) => dialect.recordedVersions()) as readonly number[];
    const applied: number[] = [];
    let version = Math.max(0, ...recorded);
    for (const migration of pendingMigrations(migrations, recorded, upTo)) {
      if ((yield (dialect) => dialect.apply(migration)) === true) applied.push(migration.version);
      // Applied now or, when `apply` found it recorded, by another process: recorded either way.
      version = Math.max(version, migration.version);
    }
    yield (dialect) => dialect.commit?.();
    return { applied, version };
  } catch (error) {
    try {
      yield (dialect) => dialect.rollback?.();
    } catch {
      // The step's failure says what went wrong; a rollback failing after it (a broken connection) would hide it.
    }
    throw error;
  }
}

/**
 * Steps through `run`, calling the dialect synchronously while it answers synchronously and continuing after
 * a promise once it settles, so a synchronous dialect gets a result and an asynchronous one a promise. With
 * `synchronous`, a promise is a misused dialect: the run is failed there rather than left going on unawaited.
 */
function execute(
  run: Generator<DialectCall, MigrationResult, unknown>,
  dialect: MigrationDialect<boolean>,
  synchronous: boolean,
  first?: IteratorResult<DialectCall, MigrationResult>,
): MigrationResult | Promise<MigrationResult> {
  let step = first ?? run.next();
  while (!step.done) {
    let outcome: unknown;
    try {
      outcome = step.value(dialect);
    } catch (error) {
      step = run.throw(error);
      continue;
    }
    if (isPromiseLike(outcome)) {
      if (synchronous) {
        outcome.then(undefined, () => undefined);
        step = run.throw(
          new TypeError('The migration dialect returned a promise; run an asynchronous dialect with runMigrations.'),
        );
        continue;
      }
      return Promise.resolve(outcome).then(
        (value) => execute(run, dialect, false, run.next(value)),
        (error: unknown) => execute(run, dialect, false, run.throw(error)),
      );
    }
    step = run.next(outcome);
  }
  return step.value;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** Refuses a list the runner would apply in the wrong order or twice. */
function checkOrder(migrations: readonly SchemaMigration[]): void {
  let previous = 0;
  for (const migration of migrations) {
    if (!Number.isInteger(migration.version) || migration.version <= previous) {
      throw new TypeError(
        `Migration versions must be positive integers in increasing order; ${migration.version} follows ${previous}.`,
      );
    }
    previous = migration.version;
  }
}
