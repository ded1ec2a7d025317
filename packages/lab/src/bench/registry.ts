/**
 * The scenarios `pagewise bench` can run, by name. Nothing is registered when this module loads: the
 * standard set is registered by `registerStandardBench()` (./standard.ts), which the CLI, the worker and
 * the benchmark scripts call, and users may register their own.
 */
import { ConfigurationError } from 'pagewise';
import type { BenchScenario } from './scenario.js';

/** The standard scenarios in display order. */
export const SCENARIO_ORDER = ['report-analysis', 'retail-tool-use', 'multi-objective-qa'] as const;

const scenarios = new Map<string, BenchScenario>();

/** Options of {@link registerScenario}. */
export interface RegisterScenarioOptions {
  /** Replace an existing registration instead of failing (for tests and experiments). */
  replace?: boolean;
}

/**
 * Registers a scenario under its `name`.
 *
 * @throws ConfigurationError when the name is taken and `replace` is not set.
 * @example
 * registerScenario(createReportAnalysisScenario());
 */
export function registerScenario(scenario: BenchScenario, options: RegisterScenarioOptions = {}): void {
  if (scenarios.has(scenario.name) && !options.replace) {
    throw new ConfigurationError(
      'duplicate-scenario',
      `A scenario named "${scenario.name}" is already registered; pass { replace: true } to replace it.`,
    );
  }
  scenarios.set(scenario.name, scenario);
}

/** Removes a registration (tests use it to clean up); returns whether there was one. */
export function unregisterScenario(name: string): boolean {
  return scenarios.delete(name);
}

/** One line of {@link listScenarios}. */
export interface ScenarioListing {
  name: string;
  description: string;
  /** Whether the scenario can run here (always true for a registered scenario). */
  available: boolean;
}

/** The registered scenarios: the standard ones in {@link SCENARIO_ORDER}, then any others by name. */
export function listScenarios(): ScenarioListing[] {
  const names = [
    ...SCENARIO_ORDER,
    ...[...scenarios.keys()].filter((n) => !(SCENARIO_ORDER as readonly string[]).includes(n)).sort(),
  ];
  return names.flatMap((name): ScenarioListing[] => {
    const scenario = scenarios.get(name);
    return scenario ? [{ name, description: scenario.description, available: true }] : [];
  });
}

/**
 * The scenario registered under `name`.
 *
 * @throws ConfigurationError for an unknown name, listing the known ones (and saying how to register the standard set
 *   when nothing is registered).
 */
export function getScenario(name: string): BenchScenario {
  const scenario = scenarios.get(name);
  if (scenario) return scenario;
  const available = listScenarios()
    .filter((s) => s.available)
    .map((s) => s.name);
  const hint = available.length === 0 ? ' Call registerStandardBench() from pagewise/bench first.' : '';
  throw new ConfigurationError(
    'unknown-scenario',
    `Unknown scenario "${name}". Available scenarios: ${available.join(', ') || 'none'}.${hint}`,
  );
}
