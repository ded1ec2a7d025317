/**
 * The rule-based reading of reports that the offline (non-LLM) model uses. Everything here works from
 * report text as it appears in a prompt, never from generated data, so a context strategy that drops a
 * report's KPI table makes these rules fail, as it would make a real model fail.
 *
 * Batched answering: {@link partialAnswer} reduces one batch of reports to a small mergeable aggregate,
 * {@link serializePartial} turns it into a compact string for agent state, and {@link combinePartials}
 * merges the aggregates of all batches into the final answer.
 */
import { z } from 'zod';
import { ConfigurationError } from 'pagewise';
import {
  KPI_LABELS,
  KPI_NAMES,
  REGIONS,
  formatInteger,
  formatKpi,
  kpiTableLabel,
  reportUri,
  type KpiName,
  type Kpis,
  type Region,
  type ReportFacts,
} from './corpus.js';
import {
  compareRanked,
  compareWinner,
  rankedItem,
  type GoldAnswer,
  type QuestionKind,
  type QuestionSpec,
  type RankedItem,
} from './questions.js';

// ---------------------------------------------------------------------------------------------------
// Reading reports back from text

/** What rules can read back from a report's text: its facts, where it lives, and its title when present. */
export interface ParsedReport extends ReportFacts {
  uri: string;
  title?: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// The metadata line under the title; the title line itself is optional so that a report whose title was
// cut off by truncation still parses.
const HEADER_RE =
  /(?:^#[ \t]+([^\n]+)\n\s*)?Report ID:[ \t]*(report-\d+)[ \t]*\|[ \t]*Company:[ \t]*([^|\n]+?)[ \t]*\|[ \t]*Region:[ \t]*([^|\n]+?)[ \t]*\|[ \t]*Quarter:[ \t]*(\d{4}-Q[1-4])[ \t]*\|[ \t]*Segment:[ \t]*([^|\n]+?)[ \t]*$/gm;

const KPI_ROW_RE: Readonly<Record<KpiName, RegExp>> = Object.fromEntries(
  KPI_NAMES.map((kpi) => [
    kpi,
    new RegExp(`\\|[ \\t]*${escapeRegExp(kpiTableLabel(kpi))}[ \\t]*\\|[ \\t]*(-?[\\d,]+(?:\\.\\d+)?)[ \\t]*\\|`, 'i'),
  ]),
) as Record<KpiName, RegExp>;

function parseBlock(header: RegExpMatchArray, block: string): ParsedReport | undefined {
  const [, title, id, company, regionName, quarter, segment] = header;
  const region = REGIONS.find((r) => r === regionName);
  if (
    id === undefined ||
    company === undefined ||
    region === undefined ||
    quarter === undefined ||
    segment === undefined
  )
    return undefined;
  const kpis: Partial<Kpis> = {};
  for (const kpi of KPI_NAMES) {
    // KPIs come from the table only: the prose restates them, but in words a rule cannot read reliably.
    const cell = KPI_ROW_RE[kpi].exec(block)?.[1];
    if (cell === undefined) return undefined;
    const value = Number(cell.replace(/,/g, ''));
    if (!Number.isFinite(value)) return undefined;
    kpis[kpi] = value;
  }
  const parsed: ParsedReport = { id, uri: reportUri(id), company, region, quarter, segment, kpis: kpis as Kpis };
  if (title !== undefined) parsed.title = title.trim();
  return parsed;
}

/**
 * Finds every report in `text` (a prompt may hold several) and reads each one's id, company, region,
 * quarter, segment and KPIs. A report whose header or any KPI table row is missing is skipped: a rule
 * must not guess a number it cannot see.
 */
export function findReports(text: string): ParsedReport[] {
  const headers = [...text.matchAll(HEADER_RE)];
  const reports: ParsedReport[] = [];
  headers.forEach((header, column) => {
    // A report's table lies between its header and the next report's header, never beyond.
    const block = text.slice(header.index, headers[column + 1]?.index ?? text.length);
    const parsed = parseBlock(header, block);
    if (parsed) reports.push(parsed);
  });
  return reports;
}

/**
 * Reads one report back from its markdown: the header line for id, company, region, quarter and segment,
 * the KPI table for the numbers. Returns undefined when any of them cannot be read.
 *
 * @example
 * const parsed = parseReportText(report.body);
 * parsed?.kpis.revenue === report.kpis.revenue; // true
 */
export function parseReportText(text: string): ParsedReport | undefined {
  const header = [...text.matchAll(HEADER_RE)][0];
  return header === undefined ? undefined : parseBlock(header, text.slice(header.index));
}

// ---------------------------------------------------------------------------------------------------
// Partial answers of one batch

/**
 * The aggregate of one batch of reports for one question: small (it is saved in agent state) and
 * mergeable (any split of the corpus into batches combines to the same answer). `read` counts the
 * reports of the batch, so the agent can check it covered the whole corpus.
 */
export type PartialAnswer =
  | { kind: 'sum'; read: number; matched: number; sum: number }
  | { kind: 'max'; read: number; best: RankedItem | null }
  | { kind: 'top-k'; read: number; top: RankedItem[] }
  /** Totals of the question's two regions, in the question's order. */
  | { kind: 'compare'; read: number; totals: [number, number] }
  | { kind: 'count'; read: number; count: number };

/** The final answer merged from partials: the gold-answer shape plus how many reports were read. */
export type FinalAnswer = GoldAnswer & { read: number };

/**
 * Reduces one batch of reports to its {@link PartialAnswer} for `spec`.
 *
 * @example
 * const spec = parseQuestion(questionText)!;
 * const partial = partialAnswer(spec, findReports(promptText));
 * state.set('partial:3', serializePartial(partial));
 */
export function partialAnswer(spec: QuestionSpec, reports: readonly ReportFacts[]): PartialAnswer {
  const read = reports.length;
  switch (spec.kind) {
    case 'sum': {
      const matching = reports.filter((r) => spec.region === undefined || r.region === spec.region);
      return { kind: 'sum', read, matched: matching.length, sum: matching.reduce((n, r) => n + r.kpis[spec.kpi], 0) };
    }
    case 'max':
      return {
        kind: 'max',
        read,
        best:
          topItems(
            reports.map((r) => rankedItem(r, spec.kpi)),
            1,
          )[0] ?? null,
      };
    case 'top-k':
      return {
        kind: 'top-k',
        read,
        top: topItems(
          reports.map((r) => rankedItem(r, spec.kpi)),
          spec.k,
        ),
      };
    case 'compare': {
      const total = (region: Region): number =>
        reports.filter((r) => r.region === region).reduce((n, r) => n + r.kpis[spec.kpi], 0);
      return { kind: 'compare', read, totals: [total(spec.regions[0]), total(spec.regions[1])] };
    }
    case 'count':
      return { kind: 'count', read, count: reports.filter((r) => r.kpis.churnRatePct > spec.thresholdPct).length };
  }
}

// A report read twice (overlapping batches) must not take two places in a ranking.
function topItems(items: readonly RankedItem[], count: number): RankedItem[] {
  const seen = new Set<string>();
  return [...items]
    .sort(compareRanked)
    .filter((item) => !seen.has(item.id) && seen.add(item.id) !== undefined)
    .slice(0, count);
}

const rankedItemSchema = z.object({
  id: z.string().regex(/^report-\d+$/),
  company: z.string().min(1).max(200),
  value: z.number(),
});
const countSchema = z.number().int().nonnegative();

const partialSchema: z.ZodType<PartialAnswer> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sum'), read: countSchema, matched: countSchema, sum: z.number() }),
  z.object({ kind: z.literal('max'), read: countSchema, best: rankedItemSchema.nullable() }),
  z.object({ kind: z.literal('top-k'), read: countSchema, top: z.array(rankedItemSchema).max(100) }),
  z.object({ kind: z.literal('compare'), read: countSchema, totals: z.tuple([z.number(), z.number()]) }),
  z.object({ kind: z.literal('count'), read: countSchema, count: countSchema }),
]);

/** A compact JSON string of a partial answer, for agent state. */
export function serializePartial(partial: PartialAnswer): string {
  return JSON.stringify(partial);
}

/**
 * Reads a partial answer back from {@link serializePartial}'s output. Returns undefined for anything
 * else (state written by another tool, a model's own JSON, truncated text), so a caller can treat the
 * batch as not yet done.
 */
export function parsePartial(text: string): PartialAnswer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const result = partialSchema.safeParse(value);
  return result.success ? result.data : undefined;
}

function ofKind<K extends QuestionKind>(
  kind: K,
  partials: readonly PartialAnswer[],
): Extract<PartialAnswer, { kind: K }>[] {
  const wrong = partials.find((p) => p.kind !== kind);
  if (wrong) {
    throw new ConfigurationError(
      'partial-kind-mismatch',
      `A "${wrong.kind}" partial answer cannot be combined into a "${kind}" question: clear the partial results saved for an earlier question.`,
    );
  }
  return partials as Extract<PartialAnswer, { kind: K }>[];
}

/**
 * Merges the partial answers of all batches into the final answer. Any split of the reports into
 * batches gives the same result as answering over all of them at once.
 *
 * @throws ConfigurationError when a partial belongs to a different kind of question.
 */
export function combinePartials(spec: QuestionSpec, partials: readonly PartialAnswer[]): FinalAnswer {
  const read = partials.reduce((n, p) => n + p.read, 0);
  switch (spec.kind) {
    case 'sum': {
      const ps = ofKind('sum', partials);
      return {
        kind: 'sum',
        value: ps.reduce((n, p) => n + p.sum, 0),
        matched: ps.reduce((n, p) => n + p.matched, 0),
        read,
      };
    }
    case 'max': {
      const best = topItems(
        ofKind('max', partials).flatMap((p) => (p.best ? [p.best] : [])),
        1,
      );
      return { kind: 'max', best: best[0] ?? null, read };
    }
    case 'top-k':
      return {
        kind: 'top-k',
        items: topItems(
          ofKind('top-k', partials).flatMap((p) => p.top),
          spec.k,
        ),
        read,
      };
    case 'compare': {
      const ps = ofKind('compare', partials);
      const totals: [number, number] = [
        ps.reduce((n, p) => n + p.totals[0], 0),
        ps.reduce((n, p) => n + p.totals[1], 0),
      ];
      return { kind: 'compare', regions: spec.regions, totals, winner: compareWinner(spec.regions, totals), read };
    }
    case 'count':
      return { kind: 'count', count: ofKind('count', partials).reduce((n, p) => n + p.count, 0), read };
  }
}

// ---------------------------------------------------------------------------------------------------
// Answer sentences

function displayValue(kpi: KpiName, value: number): string {
  return kpi === 'churnRatePct' ? `${formatKpi(kpi, value)}%` : formatKpi(kpi, value);
}

/**
 * Writes a final (or gold) answer as a sentence with the numbers and names a reader needs; `isCorrect`
 * accepts it for the matching gold answer.
 *
 * @example
 * formatAnswer({ kind: 'count', thresholdPct: 5 }, { kind: 'count', count: 12 });
 * // '12 reports have a churn rate above 5%.'
 * @throws ConfigurationError when `final` answers a different kind of question than `spec`.
 */
export function formatAnswer(spec: QuestionSpec, final: GoldAnswer): string {
  if (spec.kind !== final.kind) {
    throw new ConfigurationError(
      'answer-kind-mismatch',
      `A "${final.kind}" answer cannot answer a "${spec.kind}" question: format the answer of this question.`,
    );
  }
  // Count questions are about churn, the one KPI their spec does not name.
  const kpi: KpiName = 'kpi' in spec ? spec.kpi : 'churnRatePct';
  const label = KPI_LABELS[kpi];
  switch (final.kind) {
    case 'sum': {
      const scope = 'region' in spec && spec.region !== undefined ? ` in the ${spec.region} region` : '';
      const from = `${formatInteger(final.matched)} report${final.matched === 1 ? '' : 's'}`;
      return `The total ${label} across all reports${scope} is ${formatInteger(final.value)} (from ${from}).`;
    }
    case 'max':
      if (final.best === null) return `No report was read, so no report has a highest ${label}.`;
      return `The highest ${label} is in ${final.best.id} (${final.best.company}), at ${displayValue(kpi, final.best.value)}.`;
    case 'top-k': {
      if (final.items.length === 0) return `No report was read, so there is no ranking by ${label}.`;
      const list = final.items
        .map((item, i) => `${i + 1}) ${item.id} (${item.company}) with ${displayValue(kpi, item.value)}`)
        .join('; ');
      return `The top ${final.items.length} reports by ${label}, highest first: ${list}.`;
    }
    case 'compare': {
      const [first, second] = final.regions;
      const [ta, tb] = final.totals;
      if (final.winner === null)
        return `It is a tie: ${first} and ${second} both have a total ${label} of ${formatInteger(ta)}.`;
      const [winner, wTotal, loser, lTotal] =
        final.winner === first ? [first, ta, second, tb] : [second, tb, first, ta];
      return `${winner} has the higher total ${label}: ${formatInteger(wTotal)}, against ${formatInteger(lTotal)} for ${loser}.`;
    }
    case 'count': {
      const threshold = 'thresholdPct' in spec ? spec.thresholdPct : 0;
      return final.count === 1
        ? `1 report has a churn rate above ${threshold}%.`
        : `${formatInteger(final.count)} reports have a churn rate above ${threshold}%.`;
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Extractive answers to free-form questions

const STOPWORDS = new Set(
  (
    'a about above across after all also an and any are as at be been by can could did do does each for from give had has have how ' +
    'i if in into is it its many me much of on or our over per please report reports show tell than that the their them there these ' +
    'they this to under was were what when where which who why will with would you your'
  ).split(' '),
);

// A crude stemmer: enough to let "costs" meet "cost" and "companies" meet "company".
function terms(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (STOPWORDS.has(word)) continue;
    out.add(
      word.length > 4 && word.endsWith('ies')
        ? `${word.slice(0, -3)}y`
        : word.length > 3 && word.endsWith('s')
          ? word.slice(0, -1)
          : word,
    );
  }
  return out;
}

// Sentences and table rows a reader could quote; headings, the header line and table rules are not.
function candidateSentences(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('Report ID:') || /^\|[\s|:-]*$/.test(line)) continue;
    if (line.startsWith('|')) {
      const cells = line
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean);
      if (cells.length >= 2 && cells[0] !== 'KPI') out.push(`${cells[0]}: ${cells.slice(1).join(', ')}.`);
      continue;
    }
    out.push(...line.split(/(?<=[.!?])\s+(?=[A-Z0-9"(])/));
  }
  return out;
}

function sourceOf(text: string, index: number): string {
  const uri = /reports\/report-\d+\.md/.exec(text)?.[0];
  if (uri) return uri;
  const id = /report-\d+/.exec(text)?.[0];
  return id ? reportUri(id) : `report text ${index + 1}`;
}

/** Options of {@link extractiveAnswer}. */
export interface ExtractiveOptions {
  /** How many sentences to quote from each report at most; 2 by default. */
  sentencesPerReport?: number;
}

/**
 * Answers a free-form question by quoting, from each report, the sentences that share the most words
 * with the question (ties go to the earlier sentence), in document order, one line per report prefixed
 * with its uri. Reports with no matching sentence are left out.
 *
 * @example
 * extractiveAnswer('What are the main supply chain risks?', texts);
 * // 'reports/report-0001.md: Supply chain disruption remains the main operational risk for 2024-Q2.\n...'
 */
export function extractiveAnswer(
  questionText: string,
  reportTexts: readonly string[],
  options: ExtractiveOptions = {},
): string {
  const perReport = options.sentencesPerReport ?? 2;
  const wanted = terms(questionText);
  const lines: string[] = [];
  reportTexts.forEach((text, index) => {
    const scored = candidateSentences(text)
      .map((sentence, position) => {
        let score = 0;
        for (const term of terms(sentence)) if (wanted.has(term)) score += 1;
        return { sentence, position, score };
      })
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.position - b.position)
      .slice(0, perReport)
      .sort((a, b) => a.position - b.position);
    if (scored.length > 0) lines.push(`${sourceOf(text, index)}: ${scored.map((s) => s.sentence).join(' ')}`);
  });
  return lines.length > 0
    ? lines.join('\n')
    : `No sentence in the ${reportTexts.length} report texts matches the question.`;
}
