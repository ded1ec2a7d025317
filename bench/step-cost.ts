/**
 * Per-step cost as a user waits for it: the gap between two calls of a scripted model, measured from
 * outside the framework the same way for every variant (tool validation, state tracking, storing,
 * request building and counting included). Sessions are pre-filled to 10, 100 and 500 events, 20 tool
 * steps each; variants: pagewise with the memory and the SQLite store, and an AI SDK 6 `generateText`
 * loop over the same history (no persistence), each with a scripted model object (a `LanguageModelV3` of
 * the bench's own, which records its calls) and, in the `-openai` rows, with the AI SDK's OpenAI provider
 * object as users pass it (`createOpenAI({ baseURL })('gpt-4.1')`, answered by a scripted local Responses
 * API), all at default runner settings. The SQLite runs read a history another store instance wrote, as a
 * process resuming a session does. Every size runs once untimed first (warm-up). Each variant runs in a fresh process per round, in an
 * order rotated per round; reported: medians and ratios to the AI SDK loop, and the share of the timed
 * region spent in garbage collection.
 *
 * `--baseline <dir>` adds the same pagewise variants from another source tree (a checkout of an older
 * commit's `src/`), so a change can be measured before/after in one run.
 *
 * `--reuse-prompt` adds the pagewise variants run with the runner's `reusePrompt` option (one prompt array
 * handed over for every step, changed in place), beside the default ones.
 *
 * `--pg <url>` also reports the PostgreSQL store's bytes per event at the largest size (in a fresh schema
 * of that database, dropped afterwards).
 *
 *   npx tsx bench/step-cost.ts [--rounds 7] [--baseline /path/to/old/src] [--pg postgres://...]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Session, SessionEvent } from 'pagewise';
import { startResponsesStub, type ResponsesStub } from './openai-stub.js';
import { fmt, quantile } from './stats.js';

/** History sizes in events (`--sizes 500,5000,20000`); the ratio columns compare the largest to the smallest. */
const SIZES: readonly number[] = sizesOf(process.argv);
/**
 * Every size twice, the first pass untimed: the first steps at a new history size run code V8 has not
 * optimized for it yet (measured: 0.52 ms per step at 500 events on the first pass, 0.16 ms on the second,
 * in one process), so every variant gets the same warm-up and the steady state is compared.
 */
const PASSES = [...SIZES, ...SIZES];
const STEPS = 20;

function sizesOf(argv: readonly string[]): number[] {
  const at = argv.indexOf('--sizes');
  const raw = at >= 0 ? argv[at + 1] : undefined;
  const sizes = (raw ?? '500,5000,20000').split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 2))
    throw new RangeError(`--sizes takes event counts ≥ 2 separated by commas, got "${raw}".`);
  return sizes;
}
const REPEATS = 3;
const HERE = path.dirname(fileURLToPath(import.meta.url));
/**
 * The parent's `--conditions` flags, passed on to every child: run with `--conditions=@pagewise/source`,
 * the packages' imports of each other (the SQLite store's of `pagewise/internal`, say) resolve to the
 * source of the tree measured instead of whatever build its `dist/` holds, or lacks.
 */
const CONDITIONS = process.execArgv.flatMap((arg, index, all) =>
  arg === '--conditions' || arg === '-C' ? [arg, all[index + 1]!] : arg.startsWith('--conditions=') ? [arg] : [],
);
const OWN_SRC = path.join(HERE, '..', 'packages', 'pagewise', 'src');

interface ChildRow {
  events: number;
  gaps: number[];
  gcMs: number;
  /** Garbage collections in the steady part: proportional to what the steps allocate, robust to load. */
  gcCount: number;
  wallMs: number;
}

/** Wraps a model so the gap between the end of one call and the start of the next is recorded. */
function timed(inner: LanguageModelV3): { model: LanguageModelV3; gaps: number[]; ends: number[] } {
  const gaps: number[] = [];
  const ends: number[] = [];
  let lastEnd: number | undefined;
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    async doGenerate(options) {
      const start = performance.now();
      if (lastEnd !== undefined) gaps.push(start - lastEnd);
      const result = await inner.doGenerate(options);
      lastEnd = performance.now();
      ends.push(lastEnd);
      return result;
    },
    doStream: (options) => inner.doStream(options),
  };
  return { model, gaps, ends };
}

/** Where the calls of a provider object are recorded: the current run's gaps and call ends. */
let recorder: { gaps: number[]; ends: number[]; lastEnd?: number } | undefined;
const patched = new WeakSet<object>();

/**
 * Records the gap between the calls of an AI SDK provider model as {@link timed} does, by wrapping its
 * class's `doGenerate` in this child process: the object itself stays as users pass it (a wrapper object
 * would be a different kind of model to the runner), and the gap still excludes the provider's own work
 * (converting the prompt, the HTTP round trip, parsing the answer). Starts a new recording.
 */
function timedClass(model: LanguageModelV3): { gaps: number[]; ends: number[] } {
  const proto = Object.getPrototypeOf(model) as LanguageModelV3;
  if (!patched.has(proto)) {
    const inner = proto.doGenerate;
    proto.doGenerate = async function (this: LanguageModelV3, options) {
      const rec = recorder;
      const start = performance.now();
      if (rec?.lastEnd !== undefined) rec.gaps.push(start - rec.lastEnd);
      const result = await inner.call(this, options);
      if (rec) {
        rec.lastEnd = performance.now();
        rec.ends.push(rec.lastEnd);
      }
      return result;
    };
    patched.add(proto);
  }
  recorder = { gaps: [], ends: [] };
  return recorder;
}

/** The model of one run and its recording: the scripted object in a timing wrapper, or the OpenAI provider object against the stub. */
async function modelFor(
  stub: ResponsesStub | undefined,
  scriptedModel: (responses: ReturnType<typeof script>) => LanguageModelV3,
): Promise<{ model: LanguageModelV3; gaps: number[]; ends: number[] }> {
  if (!stub) return timed(scriptedModel(script()));
  const { createOpenAI } = await import('@ai-sdk/openai');
  const model = createOpenAI({ baseURL: stub.baseURL, apiKey: 'unused' })('gpt-4.1');
  stub.enqueue(script());
  return { model, ...timedClass(model) };
}

const recordOutput = (call: number) =>
  JSON.stringify({ id: `r${call}`, status: 'delivered', total: 100 + call, note: 'x'.repeat(120) });
const script = () => [
  ...Array.from({ length: STEPS }, (_, i) => ({ toolCalls: [{ toolName: 'record', input: { id: `n${i}` } }] })),
  'done',
];

/**
 * Runs `fn` and measures the garbage-collection time within the steady part of it: from the end of the
 * first model call (which warms caches for the seeded history) to the end of the last. GC entries are
 * delivered late, so they are collected after a pause and filtered by time.
 */
async function withGc<T>(
  fn: () => Promise<T>,
  ends: number[],
): Promise<{ value: T; gcMs: number; gcCount: number; wallMs: number }> {
  const entries: { startTime: number; duration: number }[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) entries.push({ startTime: entry.startTime, duration: entry.duration });
  });
  obs.observe({ entryTypes: ['gc'] });
  const value = await fn();
  await new Promise((resolve) => setTimeout(resolve, 100));
  obs.disconnect();
  const start = ends[0] ?? 0;
  const end = ends[ends.length - 1] ?? 0;
  const steady = entries.filter((e) => e.startTime >= start && e.startTime < end);
  const gcMs = steady.reduce((a, e) => a + e.duration, 0);
  return { value, gcMs, gcCount: steady.length, wallMs: end - start };
}

async function childPagewise(
  src: string,
  storeKind: 'memory' | 'sqlite',
  reusePrompt: boolean,
  stub: ResponsesStub | undefined,
): Promise<ChildRow[]> {
  const load = (p: string) => import(pathToFileURL(path.join(src, p)).href);
  const { Runner } = await load('agents/runner.ts');
  const { Agent } = await load('agents/agent.ts');
  const { tool } = await load('agents/tool.ts');
  const { scriptedModel } = await load('models/scripted.ts');
  const { InMemorySessionStore } = await load('session/memory-store.ts');
  // A checkout from before the workspace split keeps the SQLite store under src/stores/sqlite/.
  const { SqliteSessionStore } = await load(
    existsSync(path.join(src, 'stores/sqlite/sqlite-store.ts'))
      ? 'stores/sqlite/sqlite-store.ts'
      : '../../sqlite/src/sqlite-store.ts',
  );
  const { z: zod } = await import('zod');
  const record = tool({
    name: 'record',
    description: 'Records an id and returns the record.',
    inputSchema: zod.object({ id: zod.string() }),
    execute: ({ id }: { id: string }) => ({ id, status: 'recorded' }),
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-step-cost-'));
  const rows: ChildRow[] = [];
  try {
    for (const [pass, events] of PASSES.entries()) {
      const file = path.join(dir, `h${pass}.db`);
      const open = () => (storeKind === 'memory' ? new InMemorySessionStore() : new SqliteSessionStore({ path: file }));
      // SQLite: the history is written by one store instance and read by another, as when a process
      // resumes a session; the memory store has only the one instance.
      const seeder = open();
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const session = await seeder.createSession({ appName: 'bench', userId: 'u', sessionId: `s-${pass}-${repeat}` });
        for (let pair = 0; session.events.length < events; pair++) {
          await seeder.appendEvents(session, seedPair(pair));
        }
      }
      if (storeKind === 'sqlite') await seeder.close?.();
      const store = storeKind === 'sqlite' ? open() : seeder;
      const row: ChildRow = { events, gaps: [], gcMs: 0, gcCount: 0, wallMs: 0 };
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const sessionId = `s-${pass}-${repeat}`;
        const timing = await modelFor(stub, scriptedModel);
        const runner = new Runner({
          agent: new Agent({ name: 'a', instruction: 'You record things.', tools: [record] }),
          model: timing.model,
          store,
          appName: 'bench',
          // Histories of 20,000 events exceed any real window; the step is measured, not the model.
          contextWindow: 0,
          // Default settings, unless the variant sets `reusePrompt` (nothing here reads a prompt back after its call).
          ...(reusePrompt ? { reusePrompt } : {}),
        });
        const measured = await withGc(
          () => runner.run({ userId: 'u', sessionId, message: 'Record the ids.' }),
          timing.ends,
        );
        // The first gap of a run warms caches for the seeded history; the rest are steady state.
        row.gaps.push(...timing.gaps.slice(1));
        row.gcMs += measured.gcMs;
        row.gcCount += measured.gcCount;
        row.wallMs += measured.wallMs;
      }
      if (pass >= SIZES.length) rows.push(row);
      await store.close?.();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** The seeded events of the bench: model event `m{pair}` with one call, and its result `t{pair}`. */
function seedPair(pair: number): SessionEvent[] {
  return [
    {
      kind: 'model',
      id: `m${pair}`,
      invocationId: 'seed',
      author: 'a',
      timestamp: Date.now(),
      text: `Recording ${pair}.`,
      toolCalls: [{ toolCallId: `seed-${pair}`, toolName: 'record', input: { id: `r${pair}` } }],
    },
    {
      kind: 'tool-result',
      id: `t${pair}`,
      invocationId: 'seed',
      author: 'a',
      timestamp: Date.now(),
      toolCallId: `seed-${pair}`,
      toolName: 'record',
      output: recordOutput(pair),
      isError: false,
    },
  ];
}

/**
 * Bytes per event of a SQLite file holding `events` seeded events (checkpointed, minus the empty file),
 * and the content they record: a result's output, call id and tool name; a model event's text and its
 * tool calls as JSON.
 */
function bytesPerEvent(events: number): { file: number; content: number } {
  const script = `
    import { statSync } from 'node:fs';
    const { SqliteSessionStore } = await import(${JSON.stringify(pathToFileURL(path.join(OWN_SRC, '..', '..', 'sqlite', 'src', 'sqlite-store.ts')).href)});
    const { seedContent } = await import(${JSON.stringify(pathToFileURL(fileURLToPath(import.meta.url)).href)});
    const file = process.argv[1];
    const store = new SqliteSessionStore({ path: file });
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const empty = statSync(file).size;
    const s = await store.createSession({ appName: 'bench', userId: 'u', sessionId: 's' });
    const content = await seedContent(store, s, ${events});
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    await store.close();
    process.stdout.write(JSON.stringify({ file: (statSync(file).size - empty) / s.events.length, content: content / s.events.length }));
  `;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-step-bytes-'));
  try {
    const out = execFileSync(
      process.execPath,
      [...CONDITIONS, '--import', 'tsx', '--input-type=module', '-e', script, path.join(dir, 'bytes.db')],
      { encoding: 'utf8', env: { ...process.env, STEP_COST_NO_MAIN: '1' } },
    );
    return JSON.parse(out) as { file: number; content: number };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
/**
 * Appends seeded pairs to `session` in `store` until it holds `events` events; returns the bytes of content they
 * record: a result's output, call id and tool name; a model event's text and its tool calls as JSON.
 */
export async function seedContent(
  store: { appendEvents(session: Session, events: readonly SessionEvent[]): Promise<unknown> },
  session: Session,
  events: number,
): Promise<number> {
  let content = 0;
  for (let pairIndex = 0; session.events.length < events; pairIndex++) {
    const pair = seedPair(pairIndex);
    for (const event of pair) {
      if (event.kind === 'tool-result') content += Buffer.byteLength(event.output + event.toolCallId + event.toolName);
      else if (event.kind === 'model') content += Buffer.byteLength(event.text + JSON.stringify(event.toolCalls));
    }
    await store.appendEvents(session, pair);
  }
  return content;
}

/**
 * Bytes per event of the PostgreSQL store's event table and its indexes (vacuumed) after `events` seeded
 * events in a fresh schema of the database at `url`, against the same content as {@link bytesPerEvent}.
 */
function pgBytesPerEvent(events: number, url: string): { table: number; content: number } {
  const schema = `step_cost_${process.pid}`;
  const script = `
    import pg from 'pg';
    const { PgSessionStore } = await import(${JSON.stringify(pathToFileURL(path.join(OWN_SRC, '..', '..', 'postgres', 'src', 'pg-session-store.ts')).href)});
    const { seedContent } = await import(${JSON.stringify(pathToFileURL(fileURLToPath(import.meta.url)).href)});
    const [url, schema] = process.argv.slice(1);
    const store = new PgSessionStore({ url, schema });
    const s = await store.createSession({ appName: 'bench', userId: 'u', sessionId: 's' });
    const content = await seedContent(store, s, ${events});
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // Schema 4 keeps events in event_rows; before it, in events.
      const { rows } = await client.query("SELECT coalesce(to_regclass($1 || '.event_rows'), to_regclass($1 || '.events'))::text AS name", [schema]);
      await client.query('VACUUM ' + rows[0].name);
      const size = await client.query('SELECT pg_total_relation_size($1::regclass) AS n', [rows[0].name]);
      process.stdout.write(JSON.stringify({ table: Number(size.rows[0].n) / s.events.length, content: content / s.events.length }));
    } finally {
      await client.query('DROP SCHEMA ' + schema + ' CASCADE');
      await client.end();
    }
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, url, schema], {
    encoding: 'utf8',
    env: { ...process.env, STEP_COST_NO_MAIN: '1' },
  });
  return JSON.parse(out) as { table: number; content: number };
}

async function childAiSdk(stub: ResponsesStub | undefined): Promise<ChildRow[]> {
  const { generateText, stepCountIs, tool } = await import('ai');
  const { z: zod } = await import('zod');
  const { scriptedModel } = await import('pagewise/testing');
  const rows: ChildRow[] = [];
  for (const [pass, events] of PASSES.entries()) {
    const row: ChildRow = { events, gaps: [], gcMs: 0, gcCount: 0, wallMs: 0 };
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const messages: any[] = [{ role: 'user', content: 'Record the ids.' }];
      for (let pair = 0; messages.length < events; pair++) {
        messages.push({
          role: 'assistant',
          content: [
            { type: 'text', text: `Recording ${pair}.` },
            { type: 'tool-call', toolCallId: `seed-${pair}`, toolName: 'record', input: { id: `r${pair}` } },
          ],
        });
        messages.push({
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: `seed-${pair}`,
              toolName: 'record',
              output: { type: 'text', value: recordOutput(pair) },
            },
          ],
        });
      }
      const timing = await modelFor(stub, scriptedModel);
      const measured = await withGc(
        () =>
          generateText({
            model: timing.model,
            system: 'You record things.',
            messages,
            tools: {
              record: tool({
                description: 'Records an id and returns the record.',
                inputSchema: zod.object({ id: zod.string() }),
                execute: async ({ id }) => ({ id, status: 'recorded' }),
              }),
            },
            stopWhen: stepCountIs(STEPS + 1),
          }),
        timing.ends,
      );
      row.gaps.push(...timing.gaps.slice(1));
      row.gcMs += measured.gcMs;
      row.gcCount += measured.gcCount;
      row.wallMs += measured.wallMs;
    }
    if (pass >= SIZES.length) rows.push(row);
  }
  return rows;
}

async function child(variant: string, src: string): Promise<void> {
  const stub = variant.endsWith('-openai') ? await startResponsesStub() : undefined;
  try {
    const rows = variant.startsWith('ai-sdk')
      ? await childAiSdk(stub)
      : await childPagewise(src, variant.includes('sqlite') ? 'sqlite' : 'memory', variant.endsWith('-reuse'), stub);
    process.stdout.write(JSON.stringify(rows));
  } finally {
    await stub?.close();
  }
}

/** Runs every variant in a fresh process per round and prints medians, ratios and GC shares. */
export async function main(argv = process.argv.slice(2)): Promise<void> {
  const rounds = Number(argv[argv.indexOf('--rounds') + 1] || 7) || 7;
  const baseline = argv.includes('--baseline') ? argv[argv.indexOf('--baseline') + 1] : undefined;
  const pgUrl = argv.includes('--pg') ? argv[argv.indexOf('--pg') + 1] : undefined;
  const reuse = argv.includes('--reuse-prompt');
  const variants: { name: string; src: string }[] = [
    { name: 'ai-sdk', src: OWN_SRC },
    { name: 'pagewise-memory', src: OWN_SRC },
    { name: 'pagewise-sqlite', src: OWN_SRC },
    { name: 'ai-sdk-openai', src: OWN_SRC },
    { name: 'pagewise-memory-openai', src: OWN_SRC },
    { name: 'pagewise-sqlite-openai', src: OWN_SRC },
    ...(reuse
      ? [
          { name: 'pagewise-memory-reuse', src: OWN_SRC },
          { name: 'pagewise-sqlite-reuse', src: OWN_SRC },
        ]
      : []),
    ...(baseline
      ? [
          { name: 'baseline-memory', src: baseline },
          { name: 'baseline-sqlite', src: baseline },
        ]
      : []),
  ];
  const samples = new Map<string, { gaps: number[]; gcMs: number; gcCount: number; wallMs: number }>();
  /** Per variant and size, the median step of each round, in round order. */
  const byRound = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (let slot = 0; slot < variants.length; slot++) {
      const variant = variants[(slot + round) % variants.length]!;
      const out = execFileSync(
        process.execPath,
        [
          ...CONDITIONS,
          '--import',
          'tsx',
          fileURLToPath(import.meta.url),
          '--child',
          variant.name,
          variant.src,
          '--sizes',
          SIZES.join(','),
        ],
        {
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      for (const row of JSON.parse(out) as ChildRow[]) {
        const key = `${variant.name}@${row.events}`;
        byRound.set(key, [...(byRound.get(key) ?? []), quantile(row.gaps, 0.5)]);
        const acc = samples.get(key) ?? { gaps: [], gcMs: 0, gcCount: 0, wallMs: 0 };
        acc.gaps.push(...row.gaps);
        acc.gcMs += row.gcMs;
        acc.gcCount += row.gcCount;
        acc.wallMs += row.wallMs;
        samples.set(key, acc);
      }
    }
  }
  const median = (name: string, events: number) => quantile(samples.get(`${name}@${events}`)?.gaps ?? [], 0.5);
  /** numerator ÷ denominator within each round (both medians from the same round), as median [min–max] over rounds. */
  const withinRounds = (numerator: string, sizeA: number, denominator: string, sizeB: number): string => {
    const xs = byRound.get(`${numerator}@${sizeA}`) ?? [];
    const ys = byRound.get(`${denominator}@${sizeB}`) ?? [];
    const ratios = xs.map((x, i) => x / ys[i]!);
    return `${fmt(quantile(ratios, 0.5), 2)} [${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}]`;
  };
  const small = SIZES[0]!;
  const large = SIZES[SIZES.length - 1]!;
  console.log(`\n## step-cost: ms per step from outside (gap between model calls), ${rounds} rounds\n`);
  console.log('Steps pooled over rounds for the ms columns; ratios within rounds, median [min–max] over rounds.\n');
  console.log(
    `| variant | ${SIZES.map((n) => `${n} events`).join(' | ')} | ${SIZES.map((n) => `÷ AI SDK (same model) at ${n}`).join(' | ')} | ${large} ÷ ${small} | GC share of steps at ${large} | GCs per 100 steps at ${large} |`,
  );
  console.log(`|---|${SIZES.map(() => '---:').join('|')}|${SIZES.map(() => '---:').join('|')}|---:|---:|---:|`);
  for (const variant of variants) {
    const at = samples.get(`${variant.name}@${large}`)!;
    // Each variant against the AI SDK loop calling the same kind of model object.
    const aiSdk = variant.name.endsWith('-openai') ? 'ai-sdk-openai' : 'ai-sdk';
    console.log(
      `| ${variant.name} | ${SIZES.map((n) => fmt(median(variant.name, n))).join(' | ')} | ${SIZES.map((n) => withinRounds(variant.name, n, aiSdk, n)).join(' | ')} | ${withinRounds(variant.name, large, variant.name, small)} | ${fmt((100 * at.gcMs) / at.wallMs, 1)}% | ${fmt((100 * at.gcCount) / at.gaps.length, 1)} |`,
    );
  }
  // SQLite bytes per event against the content the events record, at the largest size.
  const bytes = bytesPerEvent(large);
  console.log(
    `\nSQLite file at ${large} seeded events: ${fmt(bytes.file, 0)} bytes per event; content recorded ${fmt(bytes.content, 0)} bytes per event; ratio ${fmt(bytes.file / bytes.content, 2)}.`,
  );
  if (pgUrl) {
    const pgBytes = pgBytesPerEvent(large, pgUrl);
    console.log(
      `\nPostgreSQL event table with its indexes at ${large} seeded events: ${fmt(pgBytes.table, 0)} bytes per event; content recorded ${fmt(pgBytes.content, 0)} bytes per event; ratio ${fmt(pgBytes.table / pgBytes.content, 2)}.`,
    );
  }
  console.log(
    `\nLoad average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.cpus().length} cores.`,
  );
}

if (process.argv[2] === '--child') await child(process.argv[3]!, process.argv[4]!);
else if (import.meta.url === `file://${process.argv[1]}` && !process.env.STEP_COST_NO_MAIN) await main();
