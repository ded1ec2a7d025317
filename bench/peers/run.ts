/**
 * The peer benchmark: per-step and whole-invocation time of every framework (a fresh process per
 * framework per round, order rotated each round, medians over rounds), then the paging experiment
 * (the instruction-paging pattern on ADK JS against pagewise paging, same scripted reader). Writes one
 * table of ratios to stdout and to bench/peers/results.md.
 *
 * Usage: npm run bench:peers [-- --rounds 7] [-- --sizes 500,5000,20000] [-- --only paging]
 *        [-- --frameworks pagewise-memory,pagewise-sqlite,ai-sdk,ai-sdk-middleware,adk,openai-agents,mastra]
 *
 * `pagewise-memory-reuse` and `pagewise-sqlite-reuse` are the same two with the runner's `reusePrompt`
 * option set (one prompt array handed over for every step), reported beside the defaults.
 *
 * Ratios are taken within each round (both figures from the same round, so load that changes between
 * rounds cancels out) and reported as the median over rounds with the min–max.
 *
 * `--only paging` runs only the paging experiment (token counts, deterministic, ~20 s) and prints its
 * table and ratios without rewriting results.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { HISTORY_SIZES, median, type StepResult } from './common.js';
import { FRAMEWORKS } from './frameworks.js';
import { pagingExperiment, type PagingRow } from './paging.js';

const args = process.argv.slice(2);
const roundsArg = args.indexOf('--rounds');
const rounds = roundsArg >= 0 ? Number(args[roundsArg + 1]) : 7;
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${args[roundsArg + 1]}`);
const onlyArg = args.indexOf('--only');
const only = onlyArg >= 0 ? args[onlyArg + 1] : undefined;
if (only !== undefined && only !== 'paging') throw new Error(`--only takes "paging", got ${only}`);
const frameworksArg = args.indexOf('--frameworks');
/** The frameworks timed (`--frameworks pagewise-memory,ai-sdk,...`; default all; pagewise and the AI SDK always). */
const selected = frameworksArg >= 0 ? (args[frameworksArg + 1] ?? '').split(',') : Object.keys(FRAMEWORKS);
for (const key of selected)
  if (!(key in FRAMEWORKS))
    throw new Error(`--frameworks takes names among ${Object.keys(FRAMEWORKS).join(', ')}, got "${key}"`);
for (const key of ['pagewise-memory', 'pagewise-sqlite', 'ai-sdk'])
  if (!selected.includes(key)) throw new Error(`--frameworks must include ${key}: the ratios are taken against it`);

const here = fileURLToPath(new URL('.', import.meta.url));
const worker = fileURLToPath(new URL('worker.ts', import.meta.url));
const load = (): string => execFileSync('uptime', { encoding: 'utf8' }).trim();
const fmt = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

const lines: string[] = [];
const out = (s = '') => lines.push(s);
const ratio = (label: string, v: number, target: string) => out(`| ${label} | ${fmt(v, 3)} | — | ${target} |`);
/** A ratio from per-round values: median, then min–max over rounds. */
const ratioRounds = (label: string, values: readonly number[], target: string) =>
  out(
    `| ${label} | ${fmt(median(values), 3)} | ${fmt(Math.min(...values), 3)}–${fmt(Math.max(...values), 3)} | ${target} |`,
  );

/** Times every framework over the rounds, writes the timing table, and returns a writer of its ratio rows. */
function timing(): () => void {
  const keys = Object.keys(FRAMEWORKS).filter((k) => selected.includes(k));
  const loadBefore = load();
  const samples = new Map<string, StepResult[][]>(keys.map((k) => [k, []]));
  for (let round = 0; round < rounds; round++) {
    const order = keys.map((_, i) => keys[(i + round) % keys.length]!);
    for (const key of order) {
      // A fresh process per framework per round: no framework warms another's caches or heap.
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', worker, key, '--sizes', HISTORY_SIZES.join(',')],
        { encoding: 'utf8', cwd: here, timeout: 1_800_000, maxBuffer: 16 * 1024 * 1024 },
      );
      if (child.status !== 0) throw new Error(`${key} failed in round ${round + 1}:\n${child.stderr}`);
      const line = child.stdout.trim().split('\n').at(-1)!;
      samples.get(key)!.push((JSON.parse(line) as { results: StepResult[] }).results);
    }
    process.stderr.write(`round ${round + 1}/${rounds} done\n`);
  }
  const loadAfter = load();
  const med = (key: string, events: number, field: 'stepMs' | 'invocationMs') =>
    median(samples.get(key)!.map((rs) => rs.find((r) => r.events === events)![field]));

  out();
  out(
    `Node ${process.version}, ${os.cpus().length} cores. Median of ${rounds} rounds, order rotated, a fresh process per framework per round; frameworks: ${keys.join(', ')}.`,
  );
  out(`Load before: \`${loadBefore}\``);
  out(`Load after: \`${loadAfter}\``);
  out();
  out(
    'Per step: the gap between two calls of the scripted model (framework time: request building, tool, persistence), median over 20 steps, then over rounds.',
  );
  out('Whole invocation: wall time of one invocation of 20 tool steps and an answer on the pre-filled session.');
  out();
  out(
    `| ms per step | ${HISTORY_SIZES.map((n) => `${n} events`).join(' | ')} | invocation ms at ${HISTORY_SIZES.map(String).join(' / ')} |`,
  );
  out(`|---|${HISTORY_SIZES.map(() => '---:').join('|')}|---:|`);
  for (const key of keys)
    out(
      `| ${FRAMEWORKS[key]!.name} | ${HISTORY_SIZES.map((n) => fmt(med(key, n, 'stepMs'))).join(' | ')} | ${HISTORY_SIZES.map((n) => fmt(med(key, n, 'invocationMs'), 1)).join(' / ')} |`,
    );

  // The AI SDK loop with pagewise's middleware is pagewise's, not a peer: its rows are against the plain loop.
  const withMiddleware = keys.includes('ai-sdk-middleware');
  const peers = keys.filter((k) => !k.startsWith('pagewise') && k !== 'ai-sdk-middleware');
  const pagewiseKeys = keys.filter((k) => k.startsWith('pagewise'));
  /** The value of `key` in round `round` at `events`. */
  const at = (key: string, round: number, events: number, field: 'stepMs' | 'invocationMs') =>
    samples.get(key)![round]!.find((x) => x.events === events)![field];
  const perRound = (f: (r: number) => number) => Array.from({ length: rounds }, (_, r) => f(r));
  const small = HISTORY_SIZES[0]!;
  const large = HISTORY_SIZES[HISTORY_SIZES.length - 1]!;
  return () => {
    for (const events of HISTORY_SIZES) {
      const first = events === small;
      const step = (a: string, b: string) => perRound((r) => at(a, r, events, 'stepMs') / at(b, r, events, 'stepMs'));
      for (const key of pagewiseKeys)
        ratioRounds(
          `step at ${events} events: ${FRAMEWORKS[key]!.name} ÷ AI SDK`,
          step(key, 'ai-sdk'),
          first ? (key.includes('sqlite') ? '≤ 0.8' : '≤ 0.5') : '≤ 0.1',
        );
      if (keys.includes('adk')) {
        ratioRounds(`step at ${events} events: pagewise memory ÷ ADK JS`, step('pagewise-memory', 'adk'), '—');
        ratioRounds(`step at ${events} events: pagewise SQLite ÷ ADK JS`, step('pagewise-sqlite', 'adk'), '—');
      }
      for (const key of ['openai-agents', 'mastra'].filter((x) => keys.includes(x)))
        ratioRounds(
          `step at ${events} events: pagewise SQLite ÷ ${FRAMEWORKS[key]!.name}`,
          step('pagewise-sqlite', key),
          '—',
        );
      if (withMiddleware) {
        ratioRounds(
          `step at ${events} events: AI SDK + compressionMiddleware() ÷ AI SDK`,
          step('ai-sdk-middleware', 'ai-sdk'),
          '≤ 1.3',
        );
        ratioRounds(
          `invocation at ${events} events: AI SDK + compressionMiddleware() ÷ AI SDK`,
          perRound((r) => at('ai-sdk-middleware', r, events, 'invocationMs') / at('ai-sdk', r, events, 'invocationMs')),
          '—',
        );
      }
      // The best peer of each round, by whole-invocation time.
      const bestInv = (r: number) => Math.min(...peers.map((k) => at(k, r, events, 'invocationMs')));
      const bestPeers = new Set(
        perRound((r) => FRAMEWORKS[peers.find((k) => at(k, r, events, 'invocationMs') === bestInv(r))!]!.name),
      );
      for (const key of pagewiseKeys)
        ratioRounds(
          `invocation at ${events} events: ${FRAMEWORKS[key]!.name} ÷ best peer of the round (${[...bestPeers].join(', ')})`,
          perRound((r) => at(key, r, events, 'invocationMs') / bestInv(r)),
          first ? '≤ 0.5' : '—',
        );
    }
    for (const key of [...pagewiseKeys, ...(withMiddleware ? ['ai-sdk-middleware', 'ai-sdk'] : [])])
      ratioRounds(
        `step at ${large} ÷ step at ${small} events: ${FRAMEWORKS[key]!.name}`,
        perRound((r) => at(key, r, large, 'stepMs') / at(key, r, small, 'stepMs')),
        key === 'ai-sdk' ? 'reference' : '≤ 1.5',
      );
  };
}

out(`# Peer benchmark (${new Date().toISOString()})`);
const timingRatios = only === 'paging' ? undefined : timing();

const paging: PagingRow[] = await pagingExperiment();
const adkRow = paging.find((r) => r.setup.startsWith('ADK'))!;
const pwRow = paging.find((r) => r.setup === 'pagewise paging + compactPagingTurns')!;
const fullRow = paging.find((r) => r.setup === 'pagewise paging, full history')!;

out();
out('## Paging: 164 generated reports, batches of 10, the same scripted reader');
out();
out(
  'Prompt tokens counted with o200k on one serialization of every request (system, messages, tool declarations), the same for both.',
);
out();
out(
  '| setup | peak prompt tokens | cumulative prompt tokens | model calls | answers exact | fence tokens per paged call (max) | pages in the final call |',
);
out('|---|---:|---:|---:|---:|---:|---:|');
for (const row of paging)
  out(
    `| ${row.setup} | ${row.peak} | ${row.cumulative} | ${row.calls} | ${row.exact}/${row.questions} | ${row.fenceOverhead ?? '—'} | ${row.finalPages} |`,
  );

out();
out('## Ratios (pagewise ÷ peer; < 1 means pagewise is ahead)');
out();
out('| ratio | median | min–max over rounds | target |');
out('|---|---:|---:|---|');
timingRatios?.();
ratio('paging peak tokens: pagewise ÷ ADK pattern', pwRow.peak / adkRow.peak, '≤ 0.95');
ratio('paging cumulative tokens: pagewise ÷ ADK pattern', pwRow.cumulative / adkRow.cumulative, '≤ 0.90');
// Like for like: the full history kept, as the ADK pattern keeps it; the lead above comes from
// compactPagingTurns (release-on-save and compaction of paging turns).
ratio('paging peak tokens, full history kept: pagewise ÷ ADK pattern', fullRow.peak / adkRow.peak, '—');
ratio(
  'paging cumulative tokens, full history kept: pagewise ÷ ADK pattern',
  fullRow.cumulative / adkRow.cumulative,
  '—',
);
out();
out(`Fence overhead target: ≤ 150 tokens per paged call for a batch of 10 pages; measured max ${pwRow.fenceOverhead}.`);

const text = lines.join('\n');
if (!only) writeFileSync(new URL('results.md', import.meta.url), `${text}\n`);
console.log(text);
