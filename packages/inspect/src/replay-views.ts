/**
 * Replay reports (`pagewise replay --out`) in the inspector: the strategies side by side (tokens saved and
 * used-later recall, baselines beside the compressors), the fields each lost, and its worst losses, each lost
 * value marked beside what the compressed request held instead. A report file is read as untrusted input:
 * validated on load, and every string of it rendered as escaped text.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ReplayReport } from '@pagewise/lab/replay';
import { z } from 'zod';
import { escapeHtml, html, num, SafeHtml, showInvisible } from './html.js';
import { indexPage, listTable, type Column } from './list-table.js';

/** A replay report as loaded. */
export interface LoadedReplay {
  /** The file it was read from. */
  file: string;
  report: ReplayReport;
}

// Only what the views read is checked; other fields pass through untouched.
const ReportSchema = z.looseObject({
  traces: z.number(),
  toolResults: z.number(),
  modelCalls: z.number(),
  uses: z.number(),
  tracesWithOutcome: z.number(),
  strategies: z.array(
    z.looseObject({
      name: z.string(),
      kind: z.string(),
      baseline: z.boolean(),
      peakTokens: z.number(),
      cumulativeTokens: z.number(),
      peakSaved: z.number(),
      tokensSaved: z.number(),
      uses: z.number(),
      lost: z.number(),
      recall: z.number(),
      weightedRecall: z.number().optional(),
      fields: z.array(
        z.looseObject({ tool: z.string(), field: z.string(), uses: z.number(), lost: z.number(), recall: z.number() }),
      ),
      worstLosses: z.array(
        z.looseObject({
          trace: z.string(),
          step: z.number(),
          tool: z.string(),
          field: z.string(),
          value: z.string(),
          keptInstead: z.string(),
        }),
      ),
    }),
  ),
});

/** The report file of `where`: the file itself, or `replay.json` in a folder. */
async function reportFile(where: string): Promise<string> {
  const info = await stat(where);
  return info.isDirectory() ? path.join(where, 'replay.json') : where;
}

/** Reads replay reports; a file that is missing or not a replay report is an error line, not a crash. */
export async function loadReplays(paths: readonly string[]): Promise<{ loaded: LoadedReplay[]; errors: string[] }> {
  const loaded: LoadedReplay[] = [];
  const errors: string[] = [];
  for (const where of paths) {
    try {
      const file = await reportFile(where);
      const parsed = ReportSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        errors.push(`${file}: not a replay report (${issue?.path.join('.') || 'top level'}: ${issue?.message}).`);
        continue;
      }
      loaded.push({ file, report: parsed.data as unknown as ReplayReport });
    } catch (error) {
      errors.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { loaded, errors };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/**
 * `text` escaped, with every occurrence of `value` (case ignored) in a `<mark>`: both are escaped before
 * the match, so nothing in either can become markup.
 */
export function markValue(text: string, value: string): SafeHtml {
  const escaped = showInvisible(escapeHtml(text));
  const needle = showInvisible(escapeHtml(value));
  if (!needle) return new SafeHtml(escaped);
  const lower = escaped.toLowerCase();
  const target = needle.toLowerCase();
  let out = '';
  let at = 0;
  for (
    let position = lower.indexOf(target);
    position >= 0;
    position = lower.indexOf(target, position + target.length)
  ) {
    out += `${escaped.slice(at, position)}<mark>${escaped.slice(position, position + target.length)}</mark>`;
    at = position + target.length;
  }
  return new SafeHtml(out + escaped.slice(at));
}

const REPLAY_COLUMNS: readonly Column<LoadedReplay>[] = [
  { head: 'report', cell: (r, i) => html`<a class="replay" href="/replays/${i}">${r.file}</a>` },
  { head: 'traces', numeric: true, cell: (r) => num(r.report.traces) },
  { head: 'tool results', numeric: true, cell: (r) => num(r.report.toolResults) },
  { head: 'used-later values', numeric: true, cell: (r) => num(r.report.uses) },
  { head: 'strategies', cell: (r) => r.report.strategies.map((s) => s.name).join(', ') },
];

/** The list of opened replay reports. */
export function replaysIndexPage(all: readonly LoadedReplay[], errors: readonly string[]): SafeHtml {
  return indexPage('Replay reports', errors, all, REPLAY_COLUMNS, {
    what: 'replay report',
    open: '--replay ./replay-report',
    takes: html`a <code>pagewise replay --out</code> folder or its <code>replay.json</code>`,
  });
}

type Strategy = ReplayReport['strategies'][number];

const STRATEGY_COLUMNS: readonly Column<Strategy>[] = [
  { head: 'strategy', cell: (s) => html`<a href="#s-${s.name}">${s.name}</a>` },
  { head: '', cell: (s) => (s.baseline ? 'baseline' : s.kind) },
  { head: 'peak tokens', numeric: true, cell: (s) => num(s.peakTokens) },
  { head: 'peak saved', numeric: true, cell: (s) => pct(s.peakSaved) },
  { head: 'cumulative tokens', numeric: true, cell: (s) => num(s.cumulativeTokens) },
  { head: 'tokens saved', numeric: true, cell: (s) => pct(s.tokensSaved) },
  { head: 'used-later recall', numeric: true, cell: (s) => pct(s.recall) },
  {
    head: 'weighted recall',
    numeric: true,
    cell: (s) => (s.weightedRecall === undefined ? '–' : pct(s.weightedRecall)),
  },
  { head: 'lost', numeric: true, cell: (s) => s.lost },
];

/** One replay report: the strategies side by side, then per strategy what it lost. */
export function replayPage(index: number, replay: LoadedReplay): SafeHtml {
  const { report } = replay;
  return html`<h1>Replay of ${report.traces} trace(s)</h1>
    <p class="sub">
      ${replay.file} · ${report.toolResults} tool results · ${report.modelCalls} model calls · ${report.uses} used-later
      values · ${report.tracesWithOutcome} trace(s) with an outcome
    </p>
    <p><img src="/replays/${index}/chart.svg" alt="Tokens saved against used-later recall, per strategy" /></p>
    ${listTable(report.strategies, STRATEGY_COLUMNS, {
      id: 'strategies',
      rowClass: (s) => (s.lost > 0 ? 'lossy' : ''),
    })}
    ${report.strategies.filter((s) => s.lost > 0).map((s) => strategyLosses(s))}`;
}

type FieldRecall = Strategy['fields'][number];
type Loss = Strategy['worstLosses'][number];

const FIELD_COLUMNS: readonly Column<FieldRecall>[] = [
  { head: 'tool', cell: (f) => f.tool },
  { head: 'field', cell: (f) => f.field },
  { head: 'uses', numeric: true, cell: (f) => f.uses },
  { head: 'lost', numeric: true, cell: (f) => f.lost },
  { head: 'recall', numeric: true, cell: (f) => pct(f.recall) },
];

const LOSS_COLUMNS: readonly Column<Loss>[] = [
  { head: 'trace', cell: (l) => l.trace },
  { head: 'step', numeric: true, cell: (l) => l.step },
  { head: 'tool · field', cell: (l) => `${l.tool} · ${l.field}` },
  { head: 'the value the model used', cellClass: 'lost', cell: (l) => html`<mark>${l.value}</mark>` },
  {
    head: 'what its request held instead',
    cellClass: 'kept',
    cell: (l) => html`<pre>${markValue(l.keptInstead, l.value)}</pre>`,
  },
];

function strategyLosses(strategy: Strategy): SafeHtml {
  return html`<h2 id="s-${strategy.name}">${strategy.name}: ${strategy.lost} lost of ${strategy.uses}</h2>
    ${listTable(strategy.fields.filter((f) => f.lost > 0).slice(0, 20), FIELD_COLUMNS, { className: 'fields' })}
    ${listTable(strategy.worstLosses, LOSS_COLUMNS, { className: 'losses' })}`;
}
