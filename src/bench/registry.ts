/**
 * The scenarios `pagewise bench` can run, by name. retail-tool-use and multi-objective-qa are registered
 * here; report-analysis has a reserved slot that its adapter fills with {@link registerScenario}.
 */
import { ConfigurationError } from '../errors.js';
import type { BenchScenario } from './scenario.js';
import './compression-strategies.js';
import { createMultiQaScenario } from './scenarios/multi-qa.js';
import { createReportAnalysisScenario } from './scenarios/report-analysis.js';
import { createRetailScenario } from './scenarios/retail.js';

/** The standard scenarios in display order, registered or not yet. */
export const SCENARIO_ORDER = ['report-analysis', 'retail-tool-use', 'multi-objective-qa'] as const;

// What a reserved scenario will be, so help and errors can describe it before it is registered.
const RESERVED: Record<string, string> = {
  'report-analysis': 'analysis over a corpus of long reports (instruction paging)',
};

const scenarios = new Map<string, BenchScenario>();

/** Options of {@link registerScenario}. */
export interface RegisterScenarioOptions {
  /** Replace an existing registration instead of failing (for tests and experiments). */
  replace?: boolean;
}

/**
 * Registers a scenario under its `name`; a reserved name (report-analysis) may be filled once.
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
  /** False for a reserved slot whose scenario has not been registered. */
  available: boolean;
}

/** The standard scenarios in {@link SCENARIO_ORDER} (reserved slots included), then any others by name. */
export function listScenarios(): ScenarioListing[] {
  const names = [
    ...SCENARIO_ORDER,
    ...[...scenarios.keys()].filter((n) => !(SCENARIO_ORDER as readonly string[]).includes(n)).sort(),
  ];
  return names.flatMap((name): ScenarioListing[] => {
    const scenario = scenarios.get(name);
    if (scenario) return [{ name, description: scenario.description, available: true }];
    const reserved = RESERVED[name];
    return reserved === undefined ? [] : [{ name, description: reserved, available: false }];
  });
}

/**
 * The scenario registered under `name`.
 *
 * @throws ConfigurationError for a reserved slot not yet filled, or an unknown name (listing the known ones).
 */
export function getScenario(name: string): BenchScenario {
  const scenario = scenarios.get(name);
  if (scenario) return scenario;
  const available = listScenarios()
    .filter((s) => s.available)
    .map((s) => s.name);
  if (RESERVED[name] !== undefined) {
    throw new ConfigurationError(
      'scenario-not-available',
      `Scenario "${name}" is not available yet: no adapter has registered it (registerScenario). Available scenarios: ${available.join(', ') || 'none'}.`,
    );
  }
  throw new ConfigurationError(
    'unknown-scenario',
    `Unknown scenario "${name}". Available scenarios: ${available.join(', ') || 'none'}.`,
  );
}

registerScenario(createReportAnalysisScenario());
registerScenario(createRetailScenario());
registerScenario(createMultiQaScenario());
