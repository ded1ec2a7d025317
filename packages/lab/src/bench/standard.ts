/**
 * The standard benchmark: the three scenarios and the strategies they compare, registered by one explicit
 * call instead of as a side effect of importing a module, so importing the library registers nothing.
 */
import { clearToolResults, fifoHistory } from 'pagewise/context';
import { clearToBudget, fifoToBudget } from './budget-fit.js';
import { aconHistoryStrategy, aconObservationStrategy, aconStrategy, promptingStrategy } from './acon-strategies.js';
import { listScenarios, registerScenario } from './registry.js';
import type { Guideline } from 'pagewise/compression';
import type { BenchScenario } from './scenario.js';
import { createMultiQaScenario, MULTI_QA_SCENARIO } from './scenarios/multi-qa.js';
import { createReportAnalysisScenario, NAIVE_VOLATILE_PREFIX, REPORT_SCENARIO } from './scenarios/report-analysis.js';
import { createRetailScenario, RETAIL_SCENARIO } from './scenarios/retail.js';
import { listStrategies, registerStrategy, type RegisterStrategyOptions, type StrategyFactory } from './strategies.js';

const TOOL_USE = [RETAIL_SCENARIO, MULTI_QA_SCENARIO];

interface StandardStrategy {
  name: string;
  factory: StrategyFactory;
  options: RegisterStrategyOptions;
}

// Without a budget, sizes follow the defaults of the processors: FIFO keeps the last 5 turns (plus the
// task message), clearing keeps the last 3 tool results verbatim. With one, both fit to it.
const STANDARD_STRATEGIES: readonly StandardStrategy[] = [
  { name: 'none', factory: () => ({}), options: { description: 'the full history, nothing removed (the baseline)' } },
  {
    name: NAIVE_VOLATILE_PREFIX,
    factory: () => ({}),
    options: {
      description:
        'the naive agent with its per-step reading plan in the system message, before the history (the layout before the step block): no prompt cache serves what follows it; a labelled variant, run only when named',
      scenarios: [REPORT_SCENARIO],
      variant: true,
    },
  },
  {
    name: 'fifo',
    factory: ({ budget }) => ({
      processors: [budget === undefined ? fifoHistory({ lastTurns: 5 }) : fifoToBudget(budget)],
    }),
    options: { description: 'keeps the task and the last 5 turns, or as many recent turns as fit the budget' },
  },
  {
    name: 'clear-tool-results',
    factory: ({ budget }) => ({
      processors: [budget === undefined ? clearToolResults({ keepLast: 3 }) : clearToBudget(budget)],
    }),
    options: {
      description: 'replaces all but the last 3 tool results with a placeholder, or the oldest until the budget fits',
    },
  },
  {
    name: 'summarize',
    factory: (ctx) => promptingStrategy(ctx),
    options: {
      description:
        'one generic "summarize the conversation" prompt when history exceeds T_hist or the request the budget (the prompting baseline)',
      scenarios: TOOL_USE,
    },
  },
  {
    name: 'acon-obs',
    factory: (ctx) => aconObservationStrategy(ctx),
    options: {
      description: 'ACON observation compression above T_obs, guided by the observation guideline; raw kept as a page',
      scenarios: TOOL_USE,
    },
  },
  {
    name: 'acon-hist',
    factory: (ctx) => aconHistoryStrategy(ctx),
    options: {
      description: 'ACON history compression above T_hist into a structured summary behind a compaction event',
      scenarios: TOOL_USE,
    },
  },
  {
    name: 'acon',
    factory: (ctx) => aconStrategy(ctx),
    options: { description: 'ACON observation and history compression together', scenarios: TOOL_USE },
  },
  {
    name: 'paging',
    factory: () => ({}),
    options: {
      description: 'instruction paging: bodies live in the page store, only the current batch is in the instruction',
      scenarios: [REPORT_SCENARIO],
    },
  },
  {
    name: 'paging+acon',
    factory: (ctx) => aconStrategy(ctx, { pageIn: true }),
    options: {
      description: 'ACON with paging: raw observations are pages the model can page back in by their handles',
      scenarios: TOOL_USE,
    },
  },
];

const STANDARD_SCENARIOS: readonly { name: string; create: () => BenchScenario }[] = [
  { name: REPORT_SCENARIO, create: createReportAnalysisScenario },
  { name: RETAIL_SCENARIO, create: createRetailScenario },
  { name: MULTI_QA_SCENARIO, create: createMultiQaScenario },
];

/** Guidelines learned for a scenario by `pagewise optimize`, for the `acon-learned` strategy. */
export interface LearnedGuidelines {
  observation?: Guideline;
  history?: Guideline;
}

/** Options of {@link registerStandardBench}. */
export interface StandardBenchOptions {
  /**
   * Learned guidelines by scenario name: `acon-learned` is registered for these scenarios only, as
   * `acon` with the learned guidelines (the default one where a target has none).
   */
  learned?: Readonly<Record<string, LearnedGuidelines>>;
}

function learnedStrategy(learned: Readonly<Record<string, LearnedGuidelines>>): StandardStrategy {
  return {
    name: 'acon-learned',
    factory: (ctx) => {
      const learnedGuidelines = learned[ctx.scenario] ?? {};
      return aconStrategy(ctx, {
        ...(learnedGuidelines.observation ? { observationGuideline: learnedGuidelines.observation } : {}),
        ...(learnedGuidelines.history ? { historyGuideline: learnedGuidelines.history } : {}),
      });
    },
    options: {
      description: 'ACON with the guidelines pagewise optimize learned on training tasks of another seed',
      scenarios: Object.keys(learned),
    },
  };
}

/**
 * Registers the standard scenarios (report-analysis, retail-tool-use, multi-objective-qa) and strategies
 * (none, fifo, clear-tool-results, summarize, acon-obs, acon-hist, acon, paging, paging+acon), and the variant
 * none-volatile-prefix (report-analysis, run only when named). Safe to call
 * more than once: a name already registered (by an earlier call or by the user) is left as it is. With
 * `learned`, also `acon-learned` for the scenarios it names.
 *
 * @example
 * import { getScenario, registerStandardBench, runBench } from 'pagewise/bench';
 * registerStandardBench();
 * const report = await runBench({ scenario: getScenario('report-analysis'), strategies: ['none', 'paging'] });
 */
export function registerStandardBench(options: StandardBenchOptions = {}): void {
  const strategies = new Set(listStrategies().map((s) => s.name));
  const learned = options.learned && Object.keys(options.learned).length > 0 ? [learnedStrategy(options.learned)] : [];
  for (const { name, factory, options } of [...STANDARD_STRATEGIES, ...learned]) {
    if (!strategies.has(name)) registerStrategy(name, factory, options);
  }
  const scenarios = new Set(listScenarios().map((s) => s.name));
  for (const { name, create } of STANDARD_SCENARIOS) {
    if (!scenarios.has(name)) registerScenario(create());
  }
}
