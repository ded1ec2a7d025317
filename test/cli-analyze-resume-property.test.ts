/**
 * `analyze` interrupted at every batch boundary and resumed as printed gives what an uninterrupted run gives: the
 * same answer, every chosen document read, exit 0. Loaded is not read (DESIGN invariant 18): the batch that was
 * loaded when the SIGINT came is read by the resumed run, never dropped or counted as read. The CLI runs as a child
 * process on the offline model over a small generated folder; a preloaded module sends the real SIGINT right after
 * the Nth progress line, so each case stops at a chosen boundary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_KEY, PLAN_READ_KEY, writeCorpus } from '../packages/lab/src/scenarios/report-analysis/index.js';
import { SqliteSessionStore, openSqliteDatabase } from '../packages/sqlite/src/index.js';
import { spawnCli } from './support/cli-child.js';

const DOCUMENTS = 16;
const BATCH = 4;
const BATCHES = Math.ceil(DOCUMENTS / BATCH);
const QUESTION = 'How many reports have a churn rate above 5%?';
const PRELOAD = pathToFileURL(path.join(import.meta.dirname, 'support/interrupt-at-progress.mjs')).href;
const PROGRESS_LINE = /^analyze: \d+\/\d+ documents (read|loaded)/gm;

let dir: string;
let folder: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-resume-property-'));
  folder = path.join(dir, 'reports');
  await writeCorpus(folder, DOCUMENTS, 5);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function analyze(argv: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
  const run = spawnCli(argv, { PAGEWISE_CACHE_DIR: path.join(dir, 'cache'), ...env });
  try {
    const { code } = await run.exited;
    return { code, stdout: run.stdout(), stderr: run.stderr() };
  } finally {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
  }
}

/** The answer: stdout up to the footer (the footer carries the session id, which differs between runs). */
function answerOf(stdout: string): string {
  return stdout.slice(0, stdout.indexOf('\nRead ')).trim();
}

function footerOf(stdout: string): string | undefined {
  return /^Read \d+ of \d+ documents/m.exec(stdout)?.[0];
}

/** The documents the stored session planned and read. */
async function readingOf(db: string, stdout: string): Promise<{ planned: string[]; read: string[] }> {
  const sessionId = /^session (\S+) /m.exec(stdout)?.[1];
  expect(sessionId, stdout).toBeDefined();
  const database = openSqliteDatabase(db);
  try {
    const store = new SqliteSessionStore({ database });
    const session = await store.getSession({ appName: 'pagewise', userId: 'analyst', sessionId: sessionId! });
    const list = (key: string) => [...((session?.state[key] as string[] | undefined) ?? [])].sort();
    return { planned: list(PLAN_KEY), read: list(PLAN_READ_KEY) };
  } finally {
    database.close();
  }
}

describe.each(['paging', 'none'] as const)('analyze --strategy %s interrupted at a batch boundary', (strategy) => {
  const args = (db: string) => [
    'analyze',
    folder,
    QUESTION,
    '--batch',
    String(BATCH),
    '--strategy',
    strategy,
    '--db',
    db,
  ];
  let baseline: Outcome & { reading: { planned: string[]; read: string[] } };

  beforeAll(async () => {
    const db = path.join(dir, `${strategy}-baseline.db`);
    const run = await analyze(args(db));
    expect(run.code, run.stderr).toBe(0);
    baseline = { ...run, reading: await readingOf(db, run.stdout) };
  }, 60_000);

  it('the uninterrupted run reads every document and shows its progress batch by batch', () => {
    expect(baseline.reading.planned).toHaveLength(DOCUMENTS);
    expect(baseline.reading.read).toEqual(baseline.reading.planned);
    expect(footerOf(baseline.stdout)).toBe(`Read ${DOCUMENTS} of ${DOCUMENTS} documents`);
    // Progress on stderr: at the first read, and again as batches go by (a line per tenth of the plan at most).
    const lines = baseline.stderr.match(PROGRESS_LINE) ?? [];
    expect(lines.length, baseline.stderr).toBeGreaterThanOrEqual(strategy === 'paging' ? BATCHES + 1 : 2);
    expect(baseline.stderr).toContain(`analyze: ${DOCUMENTS}/${DOCUMENTS} documents`);
  });

  it.each(Array.from({ length: BATCHES }, (_, index) => index + 1))(
    'stopped after progress line %i and resumed: the same answer, every document read',
    async (line) => {
      const db = path.join(dir, `${strategy}-at-${line}.db`);
      const interrupted = await analyze(args(db), {
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${PRELOAD}`,
        PAGEWISE_TEST_INTERRUPT_AT_PROGRESS: String(line),
      });
      expect(interrupted.code, interrupted.stderr).toBe(130);
      const printed = /Continue with: (?:npx )?pagewise (.*)$/m.exec(interrupted.stderr)?.[1];
      expect(printed, interrupted.stderr).toBeDefined();
      const resumed = await analyze(printed!.split(' '));
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(answerOf(resumed.stdout)).toBe(answerOf(baseline.stdout));
      expect(footerOf(resumed.stdout)).toBe(footerOf(baseline.stdout));
      expect(await readingOf(db, resumed.stdout)).toEqual(baseline.reading);
    },
    60_000,
  );
});
