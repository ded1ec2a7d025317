/**
 * What an event the runner writes costs in a SQLite file: a `Runner` with a scripted model runs
 * invocations on one session of a SQLite store until it holds 20,000 events (`--events`), each invocation
 * a user message, 20 steps of one tool call each and a final answer, so every row is written as a user's
 * run writes it: UUIDs, token counts, the model's usage and finish reason, the tool's state delta. The
 * steps record what the seeded events of `bench/step-cost.ts` record (the model's line of text and call,
 * the tool's JSON record as its output), so the two figures differ by what the runner adds; the tool
 * also sets one session key per call.
 *
 * Reported at that size, per event: the file's bytes (checkpointed, the empty database's size
 * subtracted), the same after `VACUUM`, each table's and index's pages by `dbstat` with the cell payload
 * and unused space in them, and the stored body by event kind; all against the content the events
 * record, defined as for the seeded figure of `bench/step-cost.ts`: a result's output, call id and tool
 * name; a model event's text and its tool calls as JSON; a user event's text. Everything else a row
 * holds (ids, invocation id, author, timestamp, token count, usage, finish reason, error flag, state
 * delta) is overhead against that content. Each round runs in a fresh temporary folder; with
 * `--rounds`, medians over rounds.
 *
 *   node --conditions=@pagewise/source --import tsx bench/sqlite-event-bytes.ts [--events 20000] [--rounds 1]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { Agent, Runner, tool, type SessionEvent } from 'pagewise';
import { scriptedModel } from 'pagewise/testing';
import { SqliteSessionStore } from '@pagewise/sqlite';
import { fmt, quantile } from './stats.js';

/** Tool steps per invocation, as in the step-cost benches. */
const STEPS = 20;

/** The figures of one round, per event. */
export interface EventBytesRound {
  events: number;
  /** Checkpointed file size less the empty database's, per event. */
  file: number;
  /** The same after `VACUUM`. */
  vacuumed: number;
  content: number;
  /** Per table or index (`dbstat` name): pages, cell payload and unused space, per event. */
  tables: Record<string, { pages: number; payload: number; unused: number }>;
  /** Per event kind: how many, and the mean stored body and content in bytes. */
  kinds: Record<string, { count: number; body: number; content: number }>;
}

/** The bytes of content an event records (see the module's comment); 0 for the kinds this bench does not write. */
export function contentBytes(event: SessionEvent): number {
  if (event.kind === 'tool-result') return Buffer.byteLength(event.output + event.toolCallId + event.toolName);
  if (event.kind === 'model') return Buffer.byteLength(event.text + JSON.stringify(event.toolCalls));
  if (event.kind === 'user') return Buffer.byteLength(event.text);
  return 0;
}

const record = tool({
  name: 'record',
  description: 'Records a delivery and returns its record.',
  inputSchema: z.object({ id: z.string() }),
  execute: ({ id }: { id: string }, ctx) => {
    ctx.state.set('last_record', id);
    // The seeded result's output, as the step-cost bench writes it.
    return JSON.stringify({ id, status: 'delivered', total: 100 + Number(id.slice(1)), note: 'x'.repeat(120) });
  },
});

/** One invocation's script: 20 tool calls with a line of text, then an answer, with provider usage on each call. */
function script(invocation: number): Parameters<typeof scriptedModel>[0] {
  const steps: Parameters<typeof scriptedModel>[0] = [];
  for (let step = 0; step < STEPS; step++) {
    const id = `r${invocation * STEPS + step}`;
    steps.push({
      text: `Recording ${id}.`,
      toolCalls: [{ toolName: 'record', input: { id } }],
      usage: { inputTokens: 1200 + 60 * step, outputTokens: 14 + (step % 9) },
    });
  }
  steps.push({ text: `Recorded ${STEPS} deliveries.`, usage: { inputTokens: 2500, outputTokens: 8 } });
  return steps;
}

/** Size of the file at `file` once its WAL is checkpointed into it. */
function checkpointedSize(file: string): number {
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return statSync(file).size;
}

/** Runs the runner until one session holds `events` events, in a fresh folder, and measures the file. */
export async function eventBytesRound(events: number): Promise<EventBytesRound> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-event-bytes-'));
  try {
    const file = path.join(dir, 'events.db');
    const store = new SqliteSessionStore({ path: file });
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const empty = statSync(file).size;
    const agent = new Agent({ name: 'recorder', instruction: 'You record deliveries.', tools: [record] });
    const key = { appName: 'bench', userId: 'u1', sessionId: 'deliveries' };
    let written = 0;
    for (let invocation = 0; written < events; invocation++) {
      const model = scriptedModel(script(invocation));
      // A 20,000-event history exceeds any real window; what is stored is measured, not the model.
      const runner = new Runner({ agent, model, store, appName: key.appName, contextWindow: 0 });
      const result = await runner.run({
        userId: key.userId,
        sessionId: key.sessionId,
        message: `Record deliveries ${invocation * STEPS} to ${invocation * STEPS + STEPS - 1}.`,
      });
      model.assertComplete();
      written = result.session.events.length;
    }
    const session = await store.getSession(key);
    if (!session) throw new Error('The session the runner wrote is missing.');
    const bodies = store.db
      .prepare<[], { body: string | Buffer }>('SELECT body FROM event_rows ORDER BY k')
      .all()
      .map((row) => Buffer.byteLength(row.body));
    await store.close();
    const count = session.events.length;
    if (bodies.length !== count) throw new Error(`${bodies.length} rows for ${count} events.`);
    const kinds: EventBytesRound['kinds'] = {};
    let content = 0;
    session.events.forEach((event, index) => {
      const kind = (kinds[event.kind] ??= { count: 0, body: 0, content: 0 });
      const bytes = contentBytes(event);
      kind.count += 1;
      kind.body += bodies[index]!;
      kind.content += bytes;
      content += bytes;
    });
    for (const kind of Object.values(kinds)) {
      kind.body /= kind.count;
      kind.content /= kind.count;
    }
    const file1 = checkpointedSize(file);
    const db = new Database(file);
    const tables: EventBytesRound['tables'] = {};
    try {
      db.exec('VACUUM');
      const stats = db
        .prepare<[], { name: string; pages: number; payload: number; unused: number }>(
          'SELECT name, sum(pgsize) AS pages, sum(payload) AS payload, sum(unused) AS unused FROM dbstat GROUP BY name',
        )
        .all();
      for (const row of stats)
        tables[row.name] = { pages: row.pages / count, payload: row.payload / count, unused: row.unused / count };
    } finally {
      db.close();
    }
    const vacuumed = checkpointedSize(file);
    return {
      events: count,
      file: (file1 - empty) / count,
      vacuumed: (vacuumed - empty) / count,
      content: content / count,
      tables,
      kinds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function option(argv: readonly string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(argv[at + 1]);
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${name} takes a positive integer, got "${argv[at + 1]}".`);
  return value;
}

/** Runs the rounds and prints the figures as markdown tables. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const events = option(argv, '--events', 20_000);
  const rounds: EventBytesRound[] = [];
  for (let round = 0, total = option(argv, '--rounds', 1); round < total; round++)
    rounds.push(await eventBytesRound(events));
  const median = (pick: (round: EventBytesRound) => number | undefined) =>
    quantile(
      rounds.map(pick).filter((value): value is number => value !== undefined),
      0.5,
    );
  const first = rounds[0]!;
  const file = median((round) => round.file);
  const content = median((round) => round.content);
  console.log(
    `\n## sqlite-event-bytes: runner-written events in SQLite at ${first.events} events (median of ${rounds.length} round${rounds.length === 1 ? '' : 's'})\n`,
  );
  console.log('| file, checkpointed | after VACUUM | content | file ÷ content | VACUUM ÷ content |');
  console.log('|---:|---:|---:|---:|---:|');
  const vacuumed = median((round) => round.vacuumed);
  console.log(
    `| ${fmt(file, 1)} | ${fmt(vacuumed, 1)} | ${fmt(content, 1)} | ${fmt(file / content, 2)} | ${fmt(vacuumed / content, 2)} |`,
  );
  console.log('\nPer table or index (`dbstat`, after VACUUM), bytes per event:\n');
  console.log('| name | pages | cell payload | unused |');
  console.log('|---|---:|---:|---:|');
  // Tables and indexes of one page: the schema's, whatever the events.
  const empty = Object.keys(first.tables).filter((name) => first.tables[name]!.pages * first.events <= 4096);
  for (const name of Object.keys(first.tables).sort()) {
    if (empty.includes(name)) continue;
    const pick = (field: 'pages' | 'payload' | 'unused') =>
      fmt(
        median((round) => round.tables[name]?.[field]),
        1,
      );
    console.log(`| ${name} | ${pick('pages')} | ${pick('payload')} | ${pick('unused')} |`);
  }
  const emptyPages = median((round) => empty.reduce((sum, name) => sum + (round.tables[name]?.pages ?? 0), 0));
  console.log(`| ${empty.length} tables and indexes of one page each, together | ${fmt(emptyPages, 1)} | | |`);
  console.log('\nStored body by event kind (mean bytes):\n');
  console.log('| kind | events | body | content | body ÷ content |');
  console.log('|---|---:|---:|---:|---:|');
  for (const kind of Object.keys(first.kinds).sort()) {
    const body = median((round) => round.kinds[kind]?.body);
    const kindContent = median((round) => round.kinds[kind]?.content);
    console.log(
      `| ${kind} | ${first.kinds[kind]!.count} | ${fmt(body, 1)} | ${fmt(kindContent, 1)} | ${fmt(body / kindContent, 2)} |`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
