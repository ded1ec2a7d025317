/**
 * Compression on real data: each evaluation set run through the compressor and its baselines at the
 * same achieved ratio, returning the figures the benchmark prints and the tests check. Tuning happened on
 * the first contexts/questions of TAT-QA and HotpotQA ({@link TUNING_SPLIT}); the figures here use the
 * rest only.
 */
import type { ModelMessage } from 'ai';
import { Ledger, countTokens } from 'pagewise';
import { compressMessages, observationCompressor, DEFAULT_EXTRACTIVE_RULES } from 'pagewise/compression';
import { randomUnits, truncateHead, truncateTail, compressExtractive, type ExtractiveRules } from 'pagewise/extractive';
import { seededRandom } from 'pagewise/internal';
import { seededShuffle } from '../../packages/lab/src/util/seeded-shuffle.js';
import { quantile } from '../stats.js';
import { generateChat } from './chats.js';
import {
  hotpotEvidence,
  hotpotObservation,
  loadHotpot,
  loadTatQa,
  sharedFile,
  TUNING_SPLIT,
  type TatContext,
} from './data.js';
import { cutSentences, keepsEvidence, loadReportPages } from './report-pages.js';
import { evidenceOf, questionRecall, renderTatPage, type TableForm } from './tatqa.js';

/** The ratio every set is compressed to. */
export const TAU = 0.5;

/** A compressor at a ratio, as the baselines and the previous compressor are called. */
export type TextCompressor = (text: string, query: string, ratio: number) => string;

/** Recall and achieved ratio of one method on one set. */
export interface MethodFigure {
  method: string;
  recall: number;
  meanRatio: number;
  maxRatio: number;
}

/**
 * Milliseconds per 1,000 input tokens of the compressor's calls on one set, timed around each public call:
 * wall-clock time, and the process's CPU time (user + system), which a busy shared machine inflates less.
 */
export interface Timing {
  medianMsPer1k: number;
  p90MsPer1k: number;
  cpuMedianMsPer1k: number;
  cpuP90MsPer1k: number;
  calls: number;
}

/** One timed call: wall-clock and CPU milliseconds per 1,000 input tokens. */
interface Sample {
  wall: number;
  cpu: number;
}

/** Starts timing a call; the returned function ends it and gives the sample for `tokens` input tokens. */
function startTimer(): (tokens: number) => Sample {
  const start = performance.now();
  const cpu = process.cpuUsage();
  return (tokens) => {
    const used = process.cpuUsage(cpu);
    return {
      wall: (performance.now() - start) / (tokens / 1000),
      cpu: (used.user + used.system) / 1000 / (tokens / 1000),
    };
  };
}

/** Figures of one set. */
export interface SetFigures {
  set: string;
  items: number;
  methods: MethodFigure[];
  timing: Timing;
  notes?: string;
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

function timingOf(samples: readonly Sample[]): Timing {
  const wall = samples.map((s) => s.wall);
  const cpu = samples.map((s) => s.cpu);
  return {
    medianMsPer1k: quantile(wall, 0.5),
    p90MsPer1k: quantile(wall, 0.9),
    cpuMedianMsPer1k: quantile(cpu, 0.5),
    cpuP90MsPer1k: quantile(cpu, 0.9),
    calls: samples.length,
  };
}

function ours(text: string, query: string): { text: string; ratio: number; time: Sample } {
  const stop = startTimer();
  const result = compressExtractive(text, { query, rules: DEFAULT_EXTRACTIVE_RULES });
  const time = stop(result.inputTokens);
  return { text: result.text, ratio: result.outputTokens / result.inputTokens, time };
}

/** Options of {@link evaluateTatQa}. */
export interface TatQaOptions {
  form: TableForm;
  /** Use every `stride`-th reported context (1: all). */
  stride?: number;
  /** The compressor before this work, if it could be loaded, compared at the same ratio. */
  previous?: TextCompressor;
}

/** TAT-QA dev: answer-evidence recall at τ = 0.5 against baselines at the same achieved ratio. */
export function evaluateTatQa(contexts: readonly TatContext[], options: TatQaOptions): SetFigures {
  const reported = contexts.slice(TUNING_SPLIT.tatqaContexts).filter((_, i) => i % (options.stride ?? 1) === 0);
  const baselines: [string, TextCompressor][] = [
    ['truncate-head', (t, _q, r) => truncateHead(t, r)],
    ['truncate-tail', (t, _q, r) => truncateTail(t, r)],
  ];
  if (options.previous) baselines.push(['previous compressor', options.previous]);
  const recalls = new Map<string, number[]>([
    ['pagewise extractive', []],
    ['random units', []],
  ]);
  for (const [name] of baselines) recalls.set(name, []);
  const ratios: number[] = [];
  const times: Sample[] = [];
  let randomSeed = 0;
  for (const context of reported) {
    const page = renderTatPage(context, options.form);
    for (const question of context.questions) {
      const evidence = evidenceOf(context, question);
      const compressed = ours(page.text, question.question);
      times.push(compressed.time);
      ratios.push(compressed.ratio);
      const recall = questionRecall(page, compressed.text, evidence);
      if (recall === undefined) continue;
      recalls.get('pagewise extractive')?.push(recall);
      for (const [name, baseline] of baselines)
        recalls
          .get(name)
          ?.push(questionRecall(page, baseline(page.text, question.question, compressed.ratio), evidence) ?? 0);
      recalls
        .get('random units')
        ?.push(questionRecall(page, randomUnits(page.text, compressed.ratio, (randomSeed += 1)), evidence) ?? 0);
    }
  }
  const ratio = { meanRatio: mean(ratios), maxRatio: Math.max(...ratios) };
  return {
    set: `TAT-QA dev, table as ${options.form === 'markdown' ? 'markdown' : 'one cell per line'} (questions)`,
    items: recalls.get('pagewise extractive')?.length ?? 0,
    methods: [...recalls].map(([method, values]) => ({ method, recall: mean(values), ...ratio })),
    timing: timingOf(times),
    notes: `contexts ${TUNING_SPLIT.tatqaContexts + 1}–${contexts.length}${options.stride && options.stride > 1 ? `, every ${options.stride}th` : ''}; baselines at each page's achieved ratio`,
  };
}

/** HotpotQA dev through the real observation processor (fence and handle counted), τ = 0.5. */
export async function evaluateHotpot(file: string, targetRatio = TAU): Promise<SetFigures> {
  const questions = loadHotpot(file).slice(TUNING_SPLIT.hotpotQuestions);
  const processor = observationCompressor({ targetRatio, boundary: () => 'evalboundary01' });
  const ratios: number[] = [];
  const times: Sample[] = [];
  let kept = 0;
  let total = 0;
  const keptBy = new Map<string, number>([
    ['truncate-head', 0],
    ['random units', 0],
  ]);
  for (const [index, question] of questions.entries()) {
    const observation = hotpotObservation(question);
    const tokens = countTokens(observation);
    const stop = startTimer();
    const result = await processor.process(
      {
        toolCallId: `call-${index}`,
        toolName: 'retrieve',
        input: { query: question.question },
        output: observation,
        isError: false,
      },
      {
        invocationId: 'eval',
        agentName: 'eval',
        sessionId: 'eval',
        task: question.question,
        recentItems: [],
        services: new Map(),
        ledger: new Ledger(),
        signal: new AbortController().signal,
      },
    );
    times.push(stop(tokens));
    const ratio = countTokens(result.output) / tokens;
    ratios.push(ratio);
    for (const sentence of hotpotEvidence(question)) {
      total += 1;
      if (result.output.includes(sentence)) kept += 1;
      if (truncateHead(observation, ratio).includes(sentence))
        keptBy.set('truncate-head', (keptBy.get('truncate-head') ?? 0) + 1);
      if (randomUnits(observation, ratio, index + 1).includes(sentence))
        keptBy.set('random units', (keptBy.get('random units') ?? 0) + 1);
    }
  }
  const ratio = { meanRatio: mean(ratios), maxRatio: Math.max(...ratios) };
  return {
    set: 'HotpotQA dev through observationCompressor',
    items: total,
    methods: [
      { method: `observationCompressor (targetRatio ${targetRatio})`, recall: kept / total, ...ratio },
      ...[...keptBy].map(([method, k]) => ({ method, recall: k / total, ...ratio })),
    ],
    timing: timingOf(times),
    notes: `questions ${TUNING_SPLIT.hotpotQuestions + 1}–${TUNING_SPLIT.hotpotQuestions + questions.length}; ratio counts the fence and the handle line`,
  };
}

function messageText(message: ModelMessage): string {
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
}

/** Generated multi-session chats: evidence-turn recall of compressMessages at 0.5 against baselines. */
export async function evaluateChats(seeds: readonly number[]): Promise<SetFigures> {
  const task = 'Answer the user from what they told you in earlier sessions.';
  const kept = new Map<string, number>([
    ['compressMessages', 0],
    ['last turns', 0],
    ['random turns', 0],
  ]);
  let total = 0;
  const ratios: number[] = [];
  const times: Sample[] = [];
  let turns = 0;
  let sessions = 0;
  for (const seed of seeds) {
    const chat = generateChat(seed);
    turns += chat.messages.length;
    sessions += chat.sessions;
    for (const [qi, question] of chat.questions.entries()) {
      const messages: ModelMessage[] = [...chat.messages, { role: 'user', content: question.question }];
      const stop = startTimer();
      const result = await compressMessages(messages, { task, targetRatio: TAU, boundary: () => 'evalboundary01' });
      times.push(stop(result.inputTokens));
      ratios.push(result.ratio);
      const budget = result.outputTokens;
      const output = result.messages.map(messageText).join('\n');
      // The last messages that fit the same budget.
      const last: string[] = [];
      let used = 0;
      for (let index = messages.length - 1; index >= 0; index -= 1) {
        const text = messageText(messages[index] as ModelMessage);
        const cost = countTokens(text);
        if (used + cost > budget) break;
        used += cost;
        last.unshift(text);
      }
      // Random messages that fit the same budget, in order.
      const order = seededShuffle(
        messages.map((_, i) => i),
        seededRandom(seed * 1000 + qi),
      );
      const chosen: number[] = [];
      used = 0;
      for (const index of order) {
        const cost = countTokens(messageText(messages[index] as ModelMessage));
        if (used + cost <= budget) {
          used += cost;
          chosen.push(index);
        }
      }
      const random = chosen
        .sort((a, b) => a - b)
        .map((i) => messageText(messages[i] as ModelMessage))
        .join('\n');
      for (const sentence of question.evidence) {
        total += 1;
        if (output.includes(sentence)) kept.set('compressMessages', (kept.get('compressMessages') ?? 0) + 1);
        if (last.join('\n').includes(sentence)) kept.set('last turns', (kept.get('last turns') ?? 0) + 1);
        if (random.includes(sentence)) kept.set('random turns', (kept.get('random turns') ?? 0) + 1);
      }
    }
  }
  const ratio = { meanRatio: mean(ratios), maxRatio: Math.max(...ratios) };
  return {
    set: 'Generated multi-session chats',
    items: total,
    methods: [...kept].map(([method, k]) => ({ method, recall: k / total, ...ratio })),
    timing: timingOf(times),
    notes: `${seeds.length} chats, ${Math.round(turns / seeds.length)} messages and ${Math.round(sessions / seeds.length)} sessions each; baselines at the same output tokens`,
  };
}

/** The project's report pages, English and Japanese: recall at τ = 0.5 and sentences cut (must be 0). */
export function evaluateReportPages(): { figures: SetFigures[]; cut: Record<'en' | 'ja', string[]> } {
  const pages = loadReportPages();
  const cut: Record<'en' | 'ja', string[]> = { en: [], ja: [] };
  const figures = (['en', 'ja'] as const).map((lang) => {
    let kept = 0;
    let total = 0;
    let headKept = 0;
    const ratios: number[] = [];
    const times: Sample[] = [];
    for (const page of pages.map((p) => p[lang])) {
      for (const question of page.questions) {
        const result = ours(page.text, question.question);
        times.push(result.time);
        ratios.push(result.ratio);
        cut[lang].push(...cutSentences(page.text, result.text));
        const head = truncateHead(page.text, result.ratio);
        for (const evidence of question.evidence) {
          total += 1;
          if (keepsEvidence(result.text, evidence)) kept += 1;
          if (keepsEvidence(head, evidence)) headKept += 1;
        }
      }
    }
    const ratio = { meanRatio: mean(ratios), maxRatio: Math.max(...ratios) };
    return {
      set: `Report pages (${lang === 'en' ? 'English' : 'Japanese'})`,
      items: total,
      methods: [
        { method: 'pagewise extractive', recall: kept / total, ...ratio },
        { method: 'truncate-head', recall: headKept / total, ...ratio },
      ],
      timing: timingOf(times),
      notes: `${pages.length} pages written for the project; sentences cut mid-way: ${cut[lang].length}`,
    };
  });
  return { figures, cut };
}

/** Token sizes of TAT-QA pages (all contexts) and the share each T_obs would compress. */
export function pageSizes(
  contexts: readonly TatContext[],
): { form: TableForm; p25: number; p50: number; p75: number; above: Record<number, number> }[] {
  return (['markdown', 'cells'] as const).map((form) => {
    const sizes = contexts.map((c) => countTokens(renderTatPage(c, form).text));
    const above = Object.fromEntries(
      [256, 512, 1024].map((t) => [t, sizes.filter((s) => s > t).length / sizes.length]),
    );
    return { form, p25: quantile(sizes, 0.25), p50: quantile(sizes, 0.5), p75: quantile(sizes, 0.75), above };
  });
}

/** Loads TAT-QA and HotpotQA when present; a reason to skip each otherwise. */
export function realData(): { tatqa: TatContext[] | string; hotpot: string | { file: string } } {
  const tat = sharedFile('tatqa/dev.json');
  const hot = sharedFile('hotpotqa/dev.jsonl');
  return {
    tatqa: 'path' in tat ? loadTatQa(tat.path) : tat.skip,
    hotpot: 'path' in hot ? { file: hot.path } : hot.skip,
  };
}

/** Rules as the previous compressor takes them: the defaults at another ratio. */
export function rulesAt(ratio: number): ExtractiveRules {
  return { ...DEFAULT_EXTRACTIVE_RULES, ratio: Math.min(1, Math.max(0.01, ratio)) };
}
