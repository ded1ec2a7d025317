/**
 * The retail-tool-use benchmark scenario: tau-bench retail support tasks whose answers need values from
 * the first observations, run with the retail tools and instruction under each strategy, and scored
 * against the gold answer computed from the records.
 */
import { ConfigurationError } from 'pagewise';
import {
  checkAnswer,
  createRetailTools,
  defaultRetailDataDir,
  generateRetailTasks,
  loadRetailData,
  RETAIL_INSTRUCTION,
  RETAIL_TEMPLATES,
  retailOfflinePolicy,
  retailTaskValues,
  type RetailData,
  type RetailGold,
} from '../../scenarios/retail/index.js';
import { runAgentEpisode } from '../harness.js';
import type { BenchScenario, EpisodeContext, EpisodeOutcome, ScenarioParams, ScenarioTask } from '../scenario.js';
import { listStrategies } from '../strategies.js';

/** Name of the scenario in the registry and on the command line. */
export const RETAIL_SCENARIO = 'retail-tool-use';

/** Model calls allowed per episode: the longest reference plan needs about 31, a loop should still end. */
export const RETAIL_MAX_STEPS = 60;

/** A retail task as the harness carries it: JSON only (the generator's checker function is dropped). */
export interface RetailBenchTask extends ScenarioTask {
  template: string;
  gold: RetailGold;
  goldAnswer: string;
  /** Tool calls of the reference plan. */
  expectedCalls: number;
}

/** Options of {@link createRetailScenario}. */
export interface RetailScenarioOptions {
  /** Folder of the tau-bench retail data; `$PAGEWISE_TAU_RETAIL_DIR` or `../shared/data/tau-retail` by default. */
  dataDir?: string;
  /** Model calls per episode; {@link RETAIL_MAX_STEPS} by default. */
  maxSteps?: number;
}

function isRetailTask(task: ScenarioTask): task is RetailBenchTask {
  const gold = (task as { gold?: { template?: unknown } }).gold;
  return typeof gold === 'object' && gold !== null && (RETAIL_TEMPLATES as readonly unknown[]).includes(gold.template);
}

/**
 * The retail-tool-use scenario. Success: the final reply passes the task's checker (the amounts, order
 * ids and names of the gold answer, read after the last `Answer:`). It has no size parameter N; each task
 * names one to four customers so that its reference plan needs 8 to 30 tool calls.
 *
 * @example
 * const report = await runBench({ scenario: createRetailScenario(), tasks: 4, seed: 1 });
 */
export function createRetailScenario(options: RetailScenarioOptions = {}): BenchScenario {
  const dataDir = options.dataDir ?? defaultRetailDataDir();
  const maxSteps = options.maxSteps ?? RETAIL_MAX_STEPS;
  let data: Promise<RetailData> | undefined;
  // Loaded once and shared: the tools only read it.
  const load = () => (data ??= loadRetailData(dataDir));

  return {
    name: RETAIL_SCENARIO,
    description:
      'tau-bench retail support tasks: many look-ups, values from early observations needed in the final answer',
    taskValues: retailTaskValues,
    get strategies() {
      return listStrategies(RETAIL_SCENARIO).map((s) => s.name);
    },
    async prepare(params: ScenarioParams): Promise<RetailBenchTask[]> {
      const tasks = generateRetailTasks(await load(), { count: params.tasks, seed: params.seed });
      return tasks.map((task) => ({
        id: task.id,
        prompt: task.prompt,
        template: task.template,
        gold: task.gold,
        goldAnswer: task.goldAnswer,
        expectedCalls: task.expectedCalls,
      }));
    },
    async runEpisode(task: ScenarioTask, context: EpisodeContext): Promise<EpisodeOutcome> {
      if (!isRetailTask(task)) {
        throw new ConfigurationError(
          'invalid-task',
          `Task "${task.id}" is not a retail-tool-use task (it has no gold answer); create it with this scenario's prepare().`,
        );
      }
      const run = await runAgentEpisode({
        scenario: RETAIL_SCENARIO,
        context,
        task,
        agentName: 'retail_agent',
        instruction: RETAIL_INSTRUCTION,
        tools: createRetailTools(await load()),
        offlinePolicy: retailOfflinePolicy,
        maxSteps,
      });
      return {
        taskId: task.id,
        strategy: context.strategy,
        success: run.error === undefined && checkAnswer(task, run.text),
        answer: run.text,
        ledger: run.ledger,
        windowFailure: run.windowFailure,
        ...(run.error !== undefined ? { error: run.error } : {}),
        ...(run.errorFault !== undefined ? { errorFault: run.errorFault } : {}),
        wallMs: run.wallMs,
      };
    },
  };
}
