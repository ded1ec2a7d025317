/**
 * The peer benchmark: per-step and whole-invocation time of every framework (a fresh process per
 * framework per round, order rotated each round, medians over rounds), then the paging experiment
 * (the instruction-paging pattern on ADK JS against pagewise paging, same scripted reader). Writes one
 * table of ratios to stdout and to bench/peers/results.md.
 *
 * Usage: npm run bench:peers [-- --rounds 7] [-- --only paging]
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

const here = fileURLToPath(new URL('.', import.meta.url));
const worker = fileURLToPath(new URL('worker.ts', import.meta.url));
const load = (): string => execFileSync('uptime', { encoding: 'utf8' }).trim();
const fmt = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

const lines: string[] = [];
const out = (s = '') => lines.push(s);
const ratio = (label: string, v: number, target: string) => out(`| ${label} | ${fmt(v, 3)} | ${target} |`);

/** Times every framework over the rounds, writes the timing table, and returns a writer of its ratio rows. */
function timing(): () => void {
  const keys = Object.keys(FRAMEWORKS);
  const loadBefore = load();
  const samples = new Map<string, StepResult[][]>(keys.map((k) => [k, []]));
  for (let round = 0; round < rounds; round++) {
    const order = keys.map((_, i) => keys[(i + round) % keys.length]!);
    for (const key of order) {
      // A fresh process per framework per round: no framework warms another's caches or heap.
      const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', worker, key], {
        encoding: 'utf8',
        cwd: here,
        timeout: 600_000,
      });
      if (r.status !== 0) throw new Error(`${key} failed in round ${round + 1}:\n${r.stderr}`);
      const line = r.stdout.trim().split('\n').at(-1)!;
      samples.get(key)!.push((JSON.parse(line) as { results: StepResult[] }).results);
    }
    process.stderr.write(`round ${round + 1}/${rounds} done\n`);
  }
  const loadAfter = load();
  const med = (key: string, events: number, field: 'stepMs' | 'invocationMs') =>
    median(samples.get(key)!.map((rs) => rs.find((r) => r.events === events)![field]));

  out();
  out(
    `Node ${process.version}, ${os.cpus().length} cores. Median of ${rounds} rounds, order rotated, a fresh process per framework per round.`,
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

  const peers = keys.filter((k) => !k.startsWith('pagewise'));
  const at = HISTORY_SIZES[HISTORY_SIZES.length - 1]!;
  const step = (k: string) => med(k, at, 'stepMs');
  const inv = (k: string) => med(k, at, 'invocationMs');
  const bestPeerInv = Math.min(...peers.map(inv));
  const bestPeer = peers.find((k) => inv(k) === bestPeerInv)!;
  return () => {
    ratio(`step at ${at} events: pagewise memory ÷ AI SDK`, step('pagewise-memory') / step('ai-sdk'), '≤ 0.5');
    ratio(`step at ${at} events: pagewise SQLite ÷ AI SDK`, step('pagewise-sqlite') / step('ai-sdk'), '≤ 1.0');
    ratio(`step at ${at} events: pagewise memory ÷ ADK JS`, step('pagewise-memory') / step('adk'), '≤ 0.2');
    ratio(`step at ${at} events: pagewise SQLite ÷ ADK JS`, step('pagewise-sqlite') / step('adk'), '≤ 0.2');
    for (const k of ['openai-agents', 'mastra'])
      ratio(`step at ${at} events: pagewise SQLite ÷ ${FRAMEWORKS[k]!.name}`, step('pagewise-sqlite') / step(k), '—');
    ratio(
      `invocation at ${at} events: pagewise SQLite ÷ best peer (${FRAMEWORKS[bestPeer]!.name})`,
      inv('pagewise-sqlite') / bestPeerInv,
      '≤ 0.2',
    );
  };
}

out(`# Peer benchmark (${new Date().toISOString()})`);
const timingRatios = only === 'paging' ? undefined : timing();

const paging: PagingRow[] = await pagingExperiment();
const adkRow = paging.find((r) => r.setup.startsWith('ADK'))!;
const pwRow = paging.find((r) => r.setup === 'pagewise paging + compactPagingTurns')!;

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
for (const r of paging)
  out(
    `| ${r.setup} | ${r.peak} | ${r.cumulative} | ${r.calls} | ${r.exact}/${r.questions} | ${r.fenceOverhead ?? '—'} | ${r.finalPages} |`,
  );

out();
out('## Ratios (pagewise ÷ peer; < 1 means pagewise is ahead)');
out();
out('| ratio | value | target |');
out('|---|---:|---|');
timingRatios?.();
ratio('paging peak tokens: pagewise ÷ ADK pattern', pwRow.peak / adkRow.peak, '≤ 0.95');
ratio('paging cumulative tokens: pagewise ÷ ADK pattern', pwRow.cumulative / adkRow.cumulative, '≤ 0.90');
out();
out(`Fence overhead target: ≤ 150 tokens per paged call for a batch of 10 pages; measured max ${pwRow.fenceOverhead}.`);

const text = lines.join('\n');
if (!only) writeFileSync(new URL('results.md', import.meta.url), `${text}\n`);
console.log(text);
