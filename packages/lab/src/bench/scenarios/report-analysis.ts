/**
 * The report-analysis benchmark scenario: questions that need every report of a generated corpus of N
 * reports, answered by the planner/analyst agents under `none` (bodies returned into history) or
 * `paging` (bodies paged into the instruction one batch at a time), scored against gold answers
 * computed from the generated data.
 */
import { AbortedError, createOfflineModel, resolveModel, Ledger } from 'pagewise';
import { seededFenceBoundary } from 'pagewise/internal';
import { viewPrompt } from 'pagewise/testing';
import {
  createRng,
  findReports,
  generateQuestions,
  generateReports,
  inMemoryCorpus,
  isCorrect,
  reportOfflinePolicy,
  runReportAnalysis,
  type GoldAnswer,
  type ReportCorpus,
} from '../../scenarios/report-analysis/index.js';
import { budgetWindow, captureModelCalls, episodeCacheRules, errorFaultOf, isWindowFailure } from '../harness.js';
import { PageTally } from '../page-tokens.js';
import type { BenchScenario, EpisodeContext, EpisodeOutcome, ScenarioParams, ScenarioTask } from '../scenario.js';
import { listStrategies, setupStrategy, strategyTask } from '../strategies.js';

/** Name of the scenario in the registry and on the command line. */
export const REPORT_SCENARIO = 'report-analysis';

/**
 * The naive analyst with its plan line in the system message, before the history (the layout before the step
 * block): a labelled variant of `none`, kept so both naive baselines can be shown side by side.
 */
export const NAIVE_VOLATILE_PREFIX = 'none-volatile-prefix';

/** Default corpus size: 164 reports, the corpus size of the instruction-paging pattern's example. */
export const REPORT_DEFAULT_N = 164;

/** A report-analysis task: one question over the corpus of `n` reports generated with `seed`. */
export interface ReportBenchTask extends ScenarioTask {
  n: number;
  seed: number;
  gold: GoldAnswer;
}

/** Creates the report-analysis scenario. */
export function createReportAnalysisScenario(): BenchScenario {
  const corpora = new Map<string, ReportCorpus>();
  const corpus = (reportCount: number, seed: number): ReportCorpus => {
    const key = `${reportCount}:${seed}`;
    let cached = corpora.get(key);
    if (!cached) {
      cached = inMemoryCorpus(generateReports(reportCount, seed));
      corpora.set(key, cached);
      if (corpora.size > 4) corpora.delete(corpora.keys().next().value!);
    }
    return cached;
  };
  return {
    name: REPORT_SCENARIO,
    description: 'questions over every report of a generated corpus of N business reports (instruction paging)',
    get strategies() {
      return listStrategies(REPORT_SCENARIO).map((e) => e.name);
    },
    defaultN: REPORT_DEFAULT_N,
    async prepare(params: ScenarioParams): Promise<ReportBenchTask[]> {
      const reportCount = params.n ?? REPORT_DEFAULT_N;
      const reports = generateReports(reportCount, params.seed);
      return generateQuestions(reports, params.seed, params.tasks).map((question) => ({
        id: question.id,
        prompt: question.text,
        n: reportCount,
        seed: params.seed,
        gold: question.gold,
      }));
    },
    async runEpisode(task: ScenarioTask, context: EpisodeContext): Promise<EpisodeOutcome> {
      const benchTask = task as ReportBenchTask;
      const started = performance.now();
      const ledger = new Ledger();
      // A seeded fence boundary keeps token counts identical from run to run.
      const rng = createRng(benchTask.seed);
      const boundary = seededFenceBoundary(rng.next);
      // paging is the analyst's own mode; other strategies (fifo, clearing) add processors to the naive one.
      const strategy = context.strategy === 'paging' ? 'paging' : 'none';
      const setup =
        strategy === 'paging'
          ? {}
          : await setupStrategy(context.strategy, {
              scenario: REPORT_SCENARIO,
              model: context.model,
              instruction: '',
              tools: [],
              services: {},
              task: strategyTask(task),
              ...(context.budget !== undefined ? { budget: context.budget } : {}),
            });
      // Every report a question depends on must have been in a prompt the model saw: an answer that
      // is right without them was guessed or padded, and does not count.
      const seen = new Set<string>();
      // The pages the prompts held, each once: what the cost floor pays at the uncached price.
      const pages = new PageTally();
      const base =
        context.model === 'offline' ? createOfflineModel({ policies: [reportOfflinePolicy] }) : context.model;
      const model = captureModelCalls(resolveModel(base), (call) => {
        const text = viewPrompt(call.params).fullText;
        for (const report of findReports(text)) seen.add(report.id);
        pages.add(text);
      });
      const needed = corpus(benchTask.n, benchTask.seed).uris.length;
      try {
        const result = await runReportAnalysis({
          corpus: corpus(benchTask.n, benchTask.seed),
          question: benchTask.prompt,
          strategy,
          model,
          contextWindow: budgetWindow(context.contextWindow ?? 128_000, context.budget) ?? 128_000,
          ...(setup.processors ? { processors: setup.processors } : {}),
          ...(context.strategy === NAIVE_VOLATILE_PREFIX ? { volatilePrefix: true } : {}),
          boundary,
          ledger,
          ...(context.recording
            ? {
                store: context.recording.store,
                callLog: context.recording.callLog,
                ...(context.recording.pageStore ? { pageStore: context.recording.pageStore } : {}),
              }
            : {}),
          ...(context.modelTimeoutMs !== undefined ? { modelTimeoutMs: context.modelTimeoutMs } : {}),
          ...(episodeCacheRules(context) ? { promptCache: episodeCacheRules(context)! } : {}),
          ...(context.signal ? { signal: context.signal } : {}),
        });
        return {
          taskId: benchTask.id,
          strategy: context.strategy,
          success: isCorrect(result.text, benchTask.gold) && seen.size >= needed,
          answer: result.text,
          ledger: [...ledger.entries],
          pageTokens: pages.tokens,
          windowFailure: false,
          wallMs: performance.now() - started,
        };
      } catch (error) {
        if (context.signal?.aborted) throw new AbortedError('The benchmark was aborted.');
        const message = error instanceof Error ? error.message : String(error);
        return {
          taskId: benchTask.id,
          strategy: context.strategy,
          success: false,
          answer: message,
          ledger: [...ledger.entries],
          pageTokens: pages.tokens,
          windowFailure: isWindowFailure(error),
          error: message,
          ...(errorFaultOf(error) ? { errorFault: errorFaultOf(error) } : {}),
          wallMs: performance.now() - started,
        };
      }
    },
  };
}
