/**
 * The replay report: per strategy, tokens saved against `none` and used-later recall (plain and weighted
 * by outcome), per tool and field, and the worst losses with what the strategy kept instead; as JSON
 * data and as markdown.
 */
import type { TraceAnalysis, TraceReplay } from './replay.js';
import type { ReplayStrategy, StrategyKind } from './strategies.js';
import { hasOutcome, outcomeWeight, toolResultCount } from './trace.js';

/** Recall of one tool's field under one strategy. */
export interface FieldRecall {
  tool: string;
  field: string;
  uses: number;
  lost: number;
  /** Share of uses still present (1 when there were none). */
  recall: number;
}

/** Tokens and recall of one tool under one strategy. */
export interface ToolSummary {
  tool: string;
  /** Tokens of the tool's results over all requests. */
  tokens: number;
  /** 1 − tokens / tokens under `none`. */
  tokensSaved: number;
  uses: number;
  recall: number;
}

/** One value a strategy lost. */
export interface ValueLoss {
  trace: string;
  /** Model call (1-based) that used the value. */
  step: number;
  /** Model call after which the observation arrived (0: before the first call). */
  observationStep: number;
  tool: string;
  field: string;
  value: string;
  usedIn: string;
  keptInstead: string;
  /** The trace's outcome weight. */
  weight: number;
}

/** One strategy over all traces. */
export interface StrategySummary {
  name: string;
  kind: StrategyKind;
  baseline: boolean;
  calls: number;
  /** Sum over traces of each trace's peak request. */
  peakTokens: number;
  cumulativeTokens: number;
  /** 1 − peakTokens / none's. */
  peakSaved: number;
  /** 1 − cumulativeTokens / none's. */
  tokensSaved: number;
  uses: number;
  lost: number;
  /** Share of used-later values still present at their use (1 when no value was used). */
  recall: number;
  /** The same, each use weighted by its trace's outcome; undefined when no trace recorded one. */
  weightedRecall?: number;
  tools: ToolSummary[];
  fields: FieldRecall[];
  /** The losses, by outcome weight, then by how often the field was lost. */
  worstLosses: ValueLoss[];
  /** Wall time of this strategy's replays in milliseconds. */
  elapsedMs: number;
}

/** The whole replay. */
export interface ReplayReport {
  traces: number;
  toolResults: number;
  modelCalls: number;
  /** Used-later values found (value × model call). */
  uses: number;
  /** Traces with an outcome field (the weighted recall uses them). */
  tracesWithOutcome: number;
  strategies: StrategySummary[];
  /** Wall time of the replay in milliseconds (import excluded). */
  elapsedMs: number;
}

const ratioOr = (num: number, den: number, fallback: number): number => (den === 0 ? fallback : num / den);

/** Builds the report from every trace's analysis and its replays (one per strategy, in strategy order). */
export function buildReport(
  analyses: readonly TraceAnalysis[],
  replays: readonly (readonly TraceReplay[])[],
  strategies: readonly ReplayStrategy[],
  elapsedMs: number,
  maxLosses = 20,
  strategyMs: readonly number[] = [],
): ReplayReport {
  const none = strategies.findIndex((s) => s.kind === 'none');
  const summaries = strategies.map((strategy, si) => {
    let peak = 0;
    let cumulative = 0;
    let calls = 0;
    let uses = 0;
    let lost = 0;
    let weighted = 0;
    let weightedPresent = 0;
    const toolTokens = new Map<string, number>();
    const baseTokens = new Map<string, number>();
    const toolUses = new Map<string, { uses: number; lost: number }>();
    const fields = new Map<string, FieldRecall>();
    const losses: ValueLoss[] = [];
    analyses.forEach((analysis, ti) => {
      const replay = replays[ti]![si]!;
      const weight = outcomeWeight(analysis.trace);
      peak += replay.peakTokens;
      cumulative += replay.cumulativeTokens;
      calls += replay.calls;
      for (const [tool, tokens] of Object.entries(replay.toolTokens))
        toolTokens.set(tool, (toolTokens.get(tool) ?? 0) + tokens);
      if (none >= 0)
        for (const [tool, tokens] of Object.entries(replays[ti]![none]!.toolTokens))
          baseTokens.set(tool, (baseTokens.get(tool) ?? 0) + tokens);
      for (const outcome of replay.outcomes) {
        const use = analysis.uses[outcome.use]!;
        uses += 1;
        weighted += weight;
        if (outcome.present) weightedPresent += weight;
        else lost += 1;
        const perTool = toolUses.get(use.toolName) ?? { uses: 0, lost: 0 };
        perTool.uses += 1;
        if (!outcome.present) perTool.lost += 1;
        toolUses.set(use.toolName, perTool);
        const key = `${use.toolName}\0${use.value.field}`;
        const perField = fields.get(key) ?? { tool: use.toolName, field: use.value.field, uses: 0, lost: 0, recall: 1 };
        perField.uses += 1;
        if (!outcome.present) perField.lost += 1;
        fields.set(key, perField);
        if (!outcome.present)
          losses.push({
            trace: analysis.trace.id,
            step: analysis.callNumber.get(use.useIndex) ?? 0,
            observationStep: callsBefore(analysis, use.observationIndex),
            tool: use.toolName,
            field: use.value.field,
            value: use.value.raw,
            usedIn: use.usedIn,
            keptInstead: outcome.keptInstead ?? '',
            weight,
          });
      }
    });
    for (const perField of fields.values()) perField.recall = ratioOr(perField.uses - perField.lost, perField.uses, 1);
    const fieldList = [...fields.values()].sort(
      (a, b) => b.lost - a.lost || b.uses - a.uses || a.field.localeCompare(b.field),
    );
    const fieldLost = new Map(fieldList.map((f) => [`${f.tool}\0${f.field}`, f.lost]));
    losses.sort(
      (left, right) =>
        right.weight - left.weight ||
        (fieldLost.get(`${right.tool}\0${right.field}`) ?? 0) - (fieldLost.get(`${left.tool}\0${left.field}`) ?? 0) ||
        left.trace.localeCompare(right.trace) ||
        left.step - right.step,
    );
    const tools = [...new Set([...baseTokens.keys(), ...toolTokens.keys(), ...toolUses.keys()])].map((tool) => {
      const tokens = toolTokens.get(tool) ?? 0;
      const perTool = toolUses.get(tool) ?? { uses: 0, lost: 0 };
      return {
        tool,
        tokens,
        tokensSaved: 1 - ratioOr(tokens, baseTokens.get(tool) ?? 0, 1),
        uses: perTool.uses,
        recall: ratioOr(perTool.uses - perTool.lost, perTool.uses, 1),
      };
    });
    tools.sort((a, b) => b.tokens - a.tokens || a.tool.localeCompare(b.tool));
    return {
      name: strategy.name,
      kind: strategy.kind,
      baseline: strategy.baseline,
      calls,
      peakTokens: peak,
      cumulativeTokens: cumulative,
      peakSaved: 0,
      tokensSaved: 0,
      uses,
      lost,
      recall: ratioOr(uses - lost, uses, 1),
      ...(analyses.some((a) => hasOutcome(a.trace)) ? { weightedRecall: ratioOr(weightedPresent, weighted, 1) } : {}),
      tools,
      fields: fieldList,
      worstLosses: losses.slice(0, maxLosses),
      elapsedMs: strategyMs[si] ?? 0,
    } satisfies StrategySummary;
  });
  const baseline = none >= 0 ? summaries[none] : undefined;
  for (const summary of summaries) {
    summary.peakSaved = baseline ? 1 - ratioOr(summary.peakTokens, baseline.peakTokens, 1) : 0;
    summary.tokensSaved = baseline ? 1 - ratioOr(summary.cumulativeTokens, baseline.cumulativeTokens, 1) : 0;
  }
  return {
    traces: analyses.length,
    toolResults: analyses.reduce((n, a) => n + toolResultCount(a.trace), 0),
    modelCalls: baseline?.calls ?? summaries[0]?.calls ?? 0,
    uses: baseline?.uses ?? summaries[0]?.uses ?? 0,
    tracesWithOutcome: analyses.filter((a) => hasOutcome(a.trace)).length,
    strategies: summaries,
    elapsedMs,
  };
}

function callsBefore(analysis: TraceAnalysis, index: number): number {
  let latest = 0;
  for (const [position, call] of analysis.callNumber) if (position < index) latest = Math.max(latest, call);
  return latest;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const cell = (s: string): string => s.replace(/\|/gu, '\\|').replace(/\n/gu, ' ');

/** The report as markdown: the strategy table, then per strategy its fields with losses and worst losses. */
export function replayMarkdown(report: ReplayReport, options: { losses?: number; fields?: number } = {}): string {
  const lines: string[] = [];
  lines.push(
    `# Replay of ${report.traces} trace(s)`,
    '',
    `${report.toolResults} tool results, ${report.modelCalls} model calls, ${report.uses} used-later values ` +
      `(value × call); ${report.tracesWithOutcome} trace(s) with an outcome. Replayed in ${(report.elapsedMs / 1000).toFixed(2)} s.`,
    '',
    '| strategy | | peak tokens | saved | cumulative tokens | saved | used-later recall | weighted recall | lost |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const strategy of report.strategies)
    lines.push(
      `| ${strategy.name} | ${strategy.baseline ? 'baseline' : strategy.kind} | ${strategy.peakTokens} | ${pct(strategy.peakSaved)} | ${strategy.cumulativeTokens} | ${pct(strategy.tokensSaved)} | ${pct(strategy.recall)} | ${strategy.weightedRecall === undefined ? '–' : pct(strategy.weightedRecall)} | ${strategy.lost} |`,
    );
  for (const strategy of report.strategies) {
    if (strategy.kind === 'none') continue;
    lines.push(
      '',
      `## ${strategy.name}`,
      '',
      '| tool | tokens | saved | uses | recall |',
      '| --- | ---: | ---: | ---: | ---: |',
    );
    for (const tool of strategy.tools)
      lines.push(
        `| ${cell(tool.tool)} | ${tool.tokens} | ${pct(tool.tokensSaved)} | ${tool.uses} | ${pct(tool.recall)} |`,
      );
    const lostFields = strategy.fields.filter((f) => f.lost > 0).slice(0, options.fields ?? 10);
    if (lostFields.length > 0) {
      lines.push('', '| tool | field | uses | lost | recall |', '| --- | --- | ---: | ---: | ---: |');
      for (const field of lostFields)
        lines.push(
          `| ${cell(field.tool)} | ${cell(field.field)} | ${field.uses} | ${field.lost} | ${pct(field.recall)} |`,
        );
    }
    const losses = strategy.worstLosses.slice(0, options.losses ?? 5);
    if (losses.length > 0) {
      lines.push(
        '',
        'Worst losses:',
        '',
        '| trace | step | tool | field | value | kept instead |',
        '| --- | ---: | --- | --- | --- | --- |',
      );
      for (const loss of losses)
        lines.push(
          `| ${cell(loss.trace)} | ${loss.step} | ${cell(loss.tool)} | ${cell(loss.field)} | ${cell(loss.value)} | ${cell(loss.keptInstead.slice(0, 120))} |`,
        );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The strategy table alone, as aligned plain text for a terminal. */
export function replaySummaryTable(report: ReplayReport): string {
  const rows = [
    ['strategy', 'peak saved', 'tokens saved', 'recall', 'weighted', 'lost'],
    ...report.strategies.map((strategy) => [
      `${strategy.name}${strategy.baseline ? ' (baseline)' : ''}`,
      pct(strategy.peakSaved),
      pct(strategy.tokensSaved),
      pct(strategy.recall),
      strategy.weightedRecall === undefined ? '–' : pct(strategy.weightedRecall),
      String(strategy.lost),
    ]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) => r.map((v, c) => (c === 0 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join('  '))
    .join('\n');
}
