/**
 * Context strategies the benchmark compares, by name. A strategy is a factory of context processors,
 * observation processors, services and extra tools. Nothing is registered when this module loads: the
 * standard strategies are registered by `registerStandardBench()` (./standard.ts).
 */
import type { InstructionProvider, AnyTool, ModelSpec } from 'pagewise';
import type { ObservationProcessor, ContextProcessor } from 'pagewise/context';
import { ConfigurationError } from 'pagewise';
import type { ScenarioTask } from './scenario.js';

/** The standard strategies in display order; registered strategies not in this list follow by name. */
export const STRATEGY_ORDER = [
  'none',
  'fifo',
  'clear-tool-results',
  'summarize',
  'acon-obs',
  'acon-hist',
  'acon',
  'acon-learned',
  'paging',
  'paging+acon',
  'none-volatile-prefix',
] as const;

/** What a strategy factory is told about the episode it sets up. */
export interface StrategyContext {
  /** The scenario name, e.g. `retail-tool-use`. */
  scenario: string;
  /** The agent's model (spec string or instance); compressors may reuse it. */
  model: ModelSpec;
  /** The agent's own instruction, before the strategy changes it. */
  instruction: string;
  /** The scenario's tools, before the strategy adds any. */
  tools: readonly AnyTool[];
  /** Services the scenario provides (a page store of its corpus, ...), before the strategy adds any. */
  services: Readonly<Record<string, unknown>>;
  /** The task of the episode as the agent is given it (no gold answer), e.g. for a task-aware compressor. */
  task: StrategyTask;
  /**
   * The prompt-token budget of every request of the episode, when the run sets one: a strategy that can
   * fit its context to a size uses it (FIFO, clearing, summarization, ACON's thresholds).
   */
  budget?: number;
}

/**
 * The task as a strategy sees it: its id and the user message that starts the episode, nothing else, so
 * a strategy has no channel to the gold answer a scenario keeps on its own tasks.
 */
export interface StrategyTask {
  readonly id: string;
  readonly prompt: string;
}

/** The view of `task` a strategy may see: a new frozen object of its id and prompt only. */
export function strategyTask(task: Pick<ScenarioTask, 'id' | 'prompt'>): StrategyTask {
  return Object.freeze({ id: task.id, prompt: task.prompt });
}

/** What a strategy adds to an episode's agent and runner. Every field is optional. */
export interface StrategySetup {
  /** Context processors, run in order after the built-in instruction and history stages. */
  processors?: ContextProcessor[];
  /** Processors applied to each tool result before it is appended (auto-paging, C_obs). */
  observationProcessors?: ObservationProcessor[];
  /** Services the processors and tools look up by key (page store, compressor, ...). */
  services?: Record<string, unknown>;
  /** Tools offered besides the scenario's (paging tools such as `get_reports`). */
  tools?: AnyTool[];
  /** Replaces the agent's instruction, given the scenario's (paging renders a working set into it). */
  instruction?: (base: string) => string | InstructionProvider;
}

/** Builds a strategy's setup for one episode; called once per episode, so state is never shared. */
export type StrategyFactory = (context: StrategyContext) => StrategySetup | Promise<StrategySetup>;

/** Options of {@link registerStrategy}. */
export interface RegisterStrategyOptions {
  /** One line for `pagewise bench --help` and reports. */
  description?: string;
  /** Scenarios the strategy applies to; all when omitted. */
  scenarios?: readonly string[];
  /** Replace an existing registration instead of failing (for tests and experiments). */
  replace?: boolean;
  /**
   * A labelled variant of another strategy (e.g. a baseline in an older layout): run only when named, never in a
   * scenario's default set. Default false.
   */
  variant?: boolean;
}

/** A registered strategy. */
export interface StrategyEntry {
  name: string;
  description: string;
  scenarios: readonly string[] | undefined;
  factory: StrategyFactory;
  /** Run only when named (see {@link RegisterStrategyOptions.variant}). */
  variant: boolean;
}

const registry = new Map<string, StrategyEntry>();

/**
 * Registers a strategy under `name`.
 *
 * @throws ConfigurationError when the name is taken and `replace` is not set.
 * @example
 * registerStrategy('my-acon-obs', ({ model }) => ({ observationProcessors: [observationCompressor({ compressor: model })] }), {
 *   description: 'ACON observation compression',
 * });
 */
export function registerStrategy(name: string, factory: StrategyFactory, options: RegisterStrategyOptions = {}): void {
  if (!/^[a-z0-9][a-z0-9+_-]*$/.test(name)) {
    throw new ConfigurationError(
      'invalid-strategy-name',
      `Strategy name "${name}" must use lowercase letters, digits, "+", "_" or "-" (e.g. "paging+acon").`,
    );
  }
  if (registry.has(name) && !options.replace) {
    throw new ConfigurationError(
      'duplicate-strategy',
      `A strategy named "${name}" is already registered; pass { replace: true } to replace it.`,
    );
  }
  registry.set(name, {
    name,
    description: options.description ?? '',
    scenarios: options.scenarios,
    factory,
    variant: options.variant ?? false,
  });
}

/** Removes a registration (tests use it to clean up); returns whether there was one. */
export function unregisterStrategy(name: string): boolean {
  return registry.delete(name);
}

/** Registered strategies applicable to `scenario` (all when omitted): the standard ones in {@link STRATEGY_ORDER}, then the rest by name. */
export function listStrategies(scenario?: string): StrategyEntry[] {
  const rank = (name: string) => {
    const position = (STRATEGY_ORDER as readonly string[]).indexOf(name);
    return position < 0 ? STRATEGY_ORDER.length : position;
  };
  return [...registry.values()]
    .filter((e) => scenario === undefined || e.scenarios === undefined || e.scenarios.includes(scenario))
    .sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The strategies a run of `strategies` (a scenario's) uses when none is named: all but the registered variants.
 */
export function defaultBenchStrategies(strategies: readonly string[]): string[] {
  return strategies.filter((name) => registry.get(name)?.variant !== true);
}

/**
 * The registered strategy `name`.
 *
 * @throws ConfigurationError naming the known strategies when `name` is unknown or does not apply to `scenario`.
 */
export function getStrategy(name: string, scenario?: string): StrategyEntry {
  const entry = registry.get(name);
  const applicable = listStrategies(scenario).map((e) => e.name);
  if (!entry) {
    const pending = (STRATEGY_ORDER as readonly string[]).includes(name)
      ? ' It is a standard strategy: call registerStandardBench() from pagewise/bench to register it.'
      : '';
    throw new ConfigurationError(
      'unknown-strategy',
      `Unknown strategy "${name}".${pending} Known strategies: ${applicable.join(', ') || 'none'}.`,
    );
  }
  if (scenario !== undefined && !applicable.includes(name)) {
    throw new ConfigurationError(
      'strategy-not-applicable',
      `Strategy "${name}" does not apply to scenario "${scenario}" (it applies to ${entry.scenarios?.join(', ')}). Strategies for "${scenario}": ${applicable.join(', ')}.`,
    );
  }
  return entry;
}

/** Builds the setup of strategy `name` for one episode. */
export async function setupStrategy(name: string, context: StrategyContext): Promise<StrategySetup> {
  return getStrategy(name, context.scenario).factory(context);
}
