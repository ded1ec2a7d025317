/**
 * Questions of the report-analysis scenario: aggregate questions that need every report of the corpus,
 * their gold answers computed from the generated data, a parser that recovers a question from its text
 * (the offline model sees nothing else), and a robust checker of free-text answers.
 */
import { ConfigurationError } from 'pagewise';
import {
  ADDITIVE_KPIS,
  KPI_LABELS,
  KPI_NAMES,
  REGIONS,
  createRng,
  isAdditiveKpi,
  type AdditiveKpi,
  type KpiName,
  type Region,
  type ReportFacts,
  type Rng,
} from './corpus.js';

/** The kinds of question, each an aggregate over the whole corpus. */
export const QUESTION_KINDS = ['sum', 'max', 'top-k', 'compare', 'count'] as const;

/** One of {@link QUESTION_KINDS}. */
export type QuestionKind = (typeof QUESTION_KINDS)[number];

/** What a question asks, in structured form; {@link questionText} and {@link parseQuestion} convert both ways. */
export type QuestionSpec =
  /** Total of `kpi` over all reports, or over the reports of `region`. */
  | { kind: 'sum'; kpi: AdditiveKpi; region?: Region }
  /** The report with the highest `kpi` (ties go to the lower id). */
  | { kind: 'max'; kpi: KpiName }
  /** The `k` reports with the highest `kpi`, highest first (ties go to the lower id). */
  | { kind: 'top-k'; kpi: KpiName; k: number }
  /** Which of two regions has the higher total `kpi`, and both totals. */
  | { kind: 'compare'; kpi: AdditiveKpi; regions: [Region, Region] }
  /** How many reports have a churn rate strictly above `thresholdPct`. */
  | { kind: 'count'; thresholdPct: number };

/** A report named in an answer, with the KPI value that ranked it. */
export interface RankedItem {
  id: string;
  company: string;
  value: number;
}

/** The correct answer of a question, as data. */
export type GoldAnswer =
  | { kind: 'sum'; value: number; matched: number }
  /** `best` is null only when there are no reports at all. */
  | { kind: 'max'; best: RankedItem | null }
  | { kind: 'top-k'; items: RankedItem[] }
  /** `totals` follow the order of `regions`; `winner` is null on a tie. */
  | { kind: 'compare'; regions: [Region, Region]; totals: [number, number]; winner: Region | null }
  | { kind: 'count'; count: number };

/** A generated question with its gold answer. */
export interface Question {
  /** e.g. `question-003`. */
  id: string;
  /** The question as the agent receives it; {@link parseQuestion} recovers {@link spec} from it. */
  text: string;
  kind: QuestionKind;
  spec: QuestionSpec;
  gold: GoldAnswer;
  /** True when no answer is possible without reading every report (true of every aggregate kind). */
  needsAllReports: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Gold answers

/** Orders reports for max and top-k: higher value first, then the lower id, so every ranking is total. */
export function compareRanked(left: RankedItem, right: RankedItem): number {
  if (left.value !== right.value) return right.value - left.value;
  return left.id < right.id ? -1 : left.id > right.id ? 1 : 0;
}

/** The ranking item of a report for `kpi`. */
export function rankedItem(report: ReportFacts, kpi: KpiName): RankedItem {
  return { id: report.id, company: report.company, value: report.kpis[kpi] };
}

/**
 * Computes the answer of `spec` directly from report facts: the reference every other way of answering
 * (batched partial answers, a model's text) is checked against.
 */
export function computeGold(spec: QuestionSpec, reports: readonly ReportFacts[]): GoldAnswer {
  switch (spec.kind) {
    case 'sum': {
      const matching = reports.filter((r) => spec.region === undefined || r.region === spec.region);
      return { kind: 'sum', value: matching.reduce((n, r) => n + r.kpis[spec.kpi], 0), matched: matching.length };
    }
    case 'max': {
      const ranked = reports.map((r) => rankedItem(r, spec.kpi)).sort(compareRanked);
      return { kind: 'max', best: ranked[0] ?? null };
    }
    case 'top-k':
      return {
        kind: 'top-k',
        items: reports
          .map((r) => rankedItem(r, spec.kpi))
          .sort(compareRanked)
          .slice(0, spec.k),
      };
    case 'compare': {
      const total = (region: Region): number =>
        reports.filter((r) => r.region === region).reduce((n, r) => n + r.kpis[spec.kpi], 0);
      const totals: [number, number] = [total(spec.regions[0]), total(spec.regions[1])];
      return { kind: 'compare', regions: spec.regions, totals, winner: compareWinner(spec.regions, totals) };
    }
    case 'count':
      return { kind: 'count', count: reports.filter((r) => r.kpis.churnRatePct > spec.thresholdPct).length };
  }
}

/** The region with the higher total, or null on a tie. */
export function compareWinner(regions: readonly [Region, Region], totals: readonly [number, number]): Region | null {
  if (totals[0] === totals[1]) return null;
  return totals[0] > totals[1] ? regions[0] : regions[1];
}

// ---------------------------------------------------------------------------------------------------
// Question text

/**
 * Renders a question. The templates are fixed so that {@link parseQuestion} can read them back:
 *
 * - sum: `What is the total {kpi} across all reports?` or `... across all reports in the {region} region?`
 * - max: `Which report has the highest {kpi}? Break ties by the lower report id. Give the report id and the company.`
 * - top-k: `Which are the top {k} reports by {kpi}, highest first? Break ties by the lower report id. Give the report ids and the companies.`
 * - compare: `Which region has the higher total {kpi} across all reports, {A} or {B}? Give both totals.`
 * - count: `How many reports have a churn rate above {P}%?`
 */
export function questionText(spec: QuestionSpec): string {
  switch (spec.kind) {
    case 'sum':
      return spec.region === undefined
        ? `What is the total ${KPI_LABELS[spec.kpi]} across all reports?`
        : `What is the total ${KPI_LABELS[spec.kpi]} across all reports in the ${spec.region} region?`;
    case 'max':
      return `Which report has the highest ${KPI_LABELS[spec.kpi]}? Break ties by the lower report id. Give the report id and the company.`;
    case 'top-k':
      return `Which are the top ${spec.k} reports by ${KPI_LABELS[spec.kpi]}, highest first? Break ties by the lower report id. Give the report ids and the companies.`;
    case 'compare':
      return `Which region has the higher total ${KPI_LABELS[spec.kpi]} across all reports, ${spec.regions[0]} or ${spec.regions[1]}? Give both totals.`;
    case 'count':
      return `How many reports have a churn rate above ${spec.thresholdPct}%?`;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Longest labels first, so that a label that is a prefix of another cannot win the alternation.
const KPI_PATTERN = [...KPI_NAMES]
  .map((k) => KPI_LABELS[k])
  .sort((a, b) => b.length - a.length)
  .map(escapeRegExp)
  .join('|');
const REGION_PATTERN = REGIONS.map(escapeRegExp).join('|');

const SUM_RE = new RegExp(
  `What is the total (${KPI_PATTERN}) across all reports(?: in the (${REGION_PATTERN}) region)?\\?`,
  'i',
);
const MAX_RE = new RegExp(`Which report has the highest (${KPI_PATTERN})\\?`, 'i');
const TOP_K_RE = new RegExp(`Which are the top (\\d+) reports by (${KPI_PATTERN}), highest first\\?`, 'i');
const COMPARE_RE = new RegExp(
  `Which region has the higher total (${KPI_PATTERN}) across all reports, (${REGION_PATTERN}) or (${REGION_PATTERN})\\?`,
  'i',
);
const COUNT_RE = /How many reports have a churn rate above (\d+(?:\.\d+)?)\s?%/i;

function kpiOf(label: string | undefined): KpiName | undefined {
  const wanted = label?.toLowerCase();
  return KPI_NAMES.find((k) => KPI_LABELS[k].toLowerCase() === wanted);
}

function regionOf(name: string | undefined): Region | undefined {
  const wanted = name?.toLowerCase();
  return REGIONS.find((r) => r.toLowerCase() === wanted);
}

/**
 * Recovers the spec of a question from its text, which may sit inside a longer prompt. Returns
 * undefined when no template matches, or when a template matches with values that make no sense
 * (a total of churn rates, a top-0, the same region twice).
 */
export function parseQuestion(text: string): QuestionSpec | undefined {
  const sum = SUM_RE.exec(text);
  if (sum) {
    const kpi = kpiOf(sum[1]);
    if (kpi === undefined || !isAdditiveKpi(kpi)) return undefined;
    const region = regionOf(sum[2]);
    return region === undefined ? { kind: 'sum', kpi } : { kind: 'sum', kpi, region };
  }
  const max = MAX_RE.exec(text);
  if (max) {
    const kpi = kpiOf(max[1]);
    return kpi === undefined ? undefined : { kind: 'max', kpi };
  }
  const top = TOP_K_RE.exec(text);
  if (top) {
    const topCount = Number(top[1]);
    const kpi = kpiOf(top[2]);
    return kpi === undefined || !(topCount >= 1) ? undefined : { kind: 'top-k', kpi, k: topCount };
  }
  const compare = COMPARE_RE.exec(text);
  if (compare) {
    const kpi = kpiOf(compare[1]);
    const first = regionOf(compare[2]);
    const second = regionOf(compare[3]);
    if (kpi === undefined || !isAdditiveKpi(kpi) || first === undefined || second === undefined || first === second)
      return undefined;
    return { kind: 'compare', kpi, regions: [first, second] };
  }
  const count = COUNT_RE.exec(text);
  if (count) return { kind: 'count', thresholdPct: Number(count[1]) };
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// Generation

function randomSpec(kind: QuestionKind, rng: Rng, reports: readonly ReportFacts[]): QuestionSpec {
  // Regions that have reports make more interesting questions than ones whose answer is 0.
  const present = REGIONS.filter((r) => reports.some((x) => x.region === r));
  const regionPool = present.length > 0 ? present : REGIONS;
  switch (kind) {
    case 'sum':
      return rng.next() < 0.4
        ? { kind, kpi: rng.pick(ADDITIVE_KPIS) }
        : { kind, kpi: rng.pick(ADDITIVE_KPIS), region: rng.pick(regionPool) };
    case 'max':
      return { kind, kpi: rng.pick(KPI_NAMES) };
    case 'top-k':
      return { kind, kpi: rng.pick(KPI_NAMES), k: 3 };
    case 'compare': {
      const pool = present.length >= 2 ? present : REGIONS;
      const [first, second] = rng.shuffle(pool) as [Region, Region];
      return { kind, kpi: rng.pick(ADDITIVE_KPIS), regions: [first, second] };
    }
    case 'count':
      return { kind, thresholdPct: rng.int(2, 12) };
  }
}

/**
 * Generates `count` distinct questions about `reports` (10 by default), cycling through every kind, with
 * gold answers computed from the reports' data. Deterministic for a given seed and corpus.
 *
 * @example
 * const questions = generateQuestions(generateReports(200, 1), 1);
 * questions[0].text; // 'What is the total headcount across all reports in the Asia Pacific region?' (for example)
 */
export function generateQuestions(reports: readonly ReportFacts[], seed: number, count = 10): Question[] {
  if (reports.length === 0) {
    throw new ConfigurationError(
      'empty-corpus',
      'Cannot generate questions about an empty corpus: generate at least one report first.',
    );
  }
  const rng = createRng(seed);
  const questions: Question[] = [];
  const seen = new Set<string>();
  // Kinds rotate by attempt, not by question, so that a kind with no fresh question left (a small
  // corpus has few) does not stall the others; the search is bounded for the same reason.
  for (let attempt = 0; questions.length < count && attempt < count * 50; attempt++) {
    const kind = QUESTION_KINDS[attempt % QUESTION_KINDS.length] as QuestionKind;
    const spec = randomSpec(kind, rng, reports);
    const text = questionText(spec);
    if (seen.has(text)) continue;
    const gold = computeGold(spec, reports);
    // A tied comparison has no single right region; such questions are legal but make poor tasks.
    if (gold.kind === 'compare' && gold.winner === null && attempt < count * 25) continue;
    seen.add(text);
    questions.push({
      id: `question-${String(questions.length + 1).padStart(3, '0')}`,
      text,
      kind,
      spec,
      gold,
      needsAllReports: true,
    });
  }
  return questions;
}

// ---------------------------------------------------------------------------------------------------
// Checking answers

/** A number found in an answer, with whether it was written as a percentage. */
interface FoundNumber {
  value: number;
  percent: boolean;
}

const REPORT_ID_RE = /report-\d+/gi;

// Thousands separators accepted: comma, apostrophe, underscore, no-break and narrow no-break spaces.
// Plain spaces are not, since "3 1,200" would otherwise read as one number.
const NUMBER_RE = /(?<![\w.])(-)?(\d{1,3}(?:[,'_\u00a0\u202f]\d{3})+|\d+)(\.\d+)?(\s?%)?/g;

function numbersIn(text: string): FoundNumber[] {
  // Report ids carry digits ("report-0042") that are not quantities.
  const cleaned = text.replace(REPORT_ID_RE, ' ');
  const found: FoundNumber[] = [];
  for (const match of cleaned.matchAll(NUMBER_RE)) {
    const digits = (match[2] ?? '').replace(/[^\d]/g, '');
    const value = Number(`${match[1] ?? ''}${digits}${match[3] ?? ''}`);
    if (Number.isFinite(value)) found.push({ value, percent: match[4] !== undefined });
  }
  return found;
}

function mentionsQuantity(text: string, value: number): boolean {
  // Percentages in the answer restate thresholds or rates, not totals or counts.
  return numbersIn(text).some((n) => !n.percent && Math.abs(n.value - value) < 1e-9);
}

function normalize(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()} `;
}

function idsIn(text: string): string[] {
  return [...text.matchAll(REPORT_ID_RE)].map((m) => m[0].toLowerCase());
}

/** True when `names` occur in `text` in this order (each after the previous one). */
function inOrder(text: string, names: readonly string[]): boolean {
  const haystack = normalize(text);
  let from = 0;
  for (const name of names) {
    const at = haystack.indexOf(normalize(name), from);
    if (at < 0) return false;
    from = at + 1;
  }
  return true;
}

/** The ranked reports an answer names: by id when it gives ids, else by company name. */
function namesRankedItems(text: string, items: readonly RankedItem[]): boolean {
  const ids = [...new Set(idsIn(text))];
  if (ids.length > 0) return items.every((item, i) => ids[i] === item.id.toLowerCase());
  return inOrder(
    text,
    items.map((item) => item.company),
  );
}

/**
 * Checks a free-text answer against a gold answer, tolerant of wording and of number formatting
 * (`1234567`, `1,234,567`, `1 234 567` with no-break spaces):
 *
 * - sum and count: the exact number appears (percentages are ignored, since they restate the threshold);
 * - max: the first report id named is the gold id, or, with no id at all, the company is named;
 * - top-k: the report ids named are the gold ids in order (or, with no ids, the companies in order);
 * - compare: both totals appear and the winner is the first of the two regions named (on a tie, the
 *   answer says "tie" or "equal").
 */
export function isCorrect(answerText: string, gold: GoldAnswer): boolean {
  switch (gold.kind) {
    case 'sum':
      return mentionsQuantity(answerText, gold.value);
    case 'count':
      return mentionsQuantity(answerText, gold.count);
    case 'max':
      return gold.best !== null && namesRankedItems(answerText, [gold.best]);
    case 'top-k':
      return gold.items.length > 0 && namesRankedItems(answerText, gold.items);
    case 'compare': {
      if (!gold.totals.every((t) => mentionsQuantity(answerText, t))) return false;
      const text = normalize(answerText);
      if (gold.winner === null) return /\b(tie|tied|equal)\b/.test(text);
      const positions = gold.regions.map((r) => text.indexOf(normalize(r))).filter((p) => p >= 0);
      return positions.length > 0 && Math.min(...positions) === text.indexOf(normalize(gold.winner));
    }
  }
}
