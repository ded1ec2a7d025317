/**
 * Which fields of the tool results a successful run needs, found by ablation: each training task is run
 * uncompressed once (it must succeed), then again with one kind of field (a field rule such as
 * `items.price` or `address`) removed from every JSON tool result. A rule whose removal turns a success
 * into a failure is needed; one whose removal changes no outcome is not. It is the contrast of ACON's
 * utility step (what the failing run lost that the successful run used), asked of the agent directly
 * instead of read from a compressed run, where every lost field is confounded with every other.
 *
 * Coarse rules are tried first (`address`, `items`); the finer rules under a needed one
 * (`items.price`, `items.options`) are then tried one by one, so a record's needed fields are named
 * without trying every leaf. Rules name kinds of fields, never values: ids are generalized as in
 * {@link jsonLeaves}.
 */
import type { BenchScenario, ScenarioTask } from '../bench/scenario.js';
import { registerStrategy, unregisterStrategy } from '../bench/strategies.js';
import type { ModelSpec } from 'pagewise';
import type { ObservationProcessor } from 'pagewise/context';
import { setOwn } from 'pagewise/internal';
import { jsonLeaves, ruleForPath, ruleMatchesPath } from './field-diff.js';

/** What the ablation found for one field rule. */
export interface FieldNecessity {
  /** The field rule, as `jsonKeepFields` and `jsonDropFields` take it. */
  rule: string;
  /** Estimated tokens of the field over the successful runs' tool results. */
  tokens: number;
  /** Tasks that failed with the field removed (ids). */
  brokeTasks: string[];
  /** Tasks run with the field removed. */
  tried: number;
}

/** Options of {@link fieldNecessity}. */
export interface FieldNecessityOptions {
  scenario: BenchScenario;
  /** Training tasks; only those the agent solves uncompressed are used. */
  tasks: readonly ScenarioTask[];
  /** The agent's model. Default `offline`. */
  model?: ModelSpec;
  /** Episodes run at once. Default 1. */
  concurrency?: number;
  /** Called after each episode with how many are done. */
  onProgress?: (done: number) => void;
}

/** What {@link fieldNecessity} returns: the rules needed and those not, each with its cost. */
export interface FieldNecessityResult {
  needed: FieldNecessity[];
  /** Rules whose removal changed no outcome, coarsest first (a rule under an unneeded one is not listed). */
  unneeded: FieldNecessity[];
  /** Tasks the agent solved uncompressed (the ones ablated). */
  solved: string[];
  episodes: number;
}

let nonce = 0;

/** Removes from a JSON value every field whose generalized path matches `rule`. */
export function withoutField(value: unknown, rule: string, path = ''): unknown {
  const join = (step: string) => (path === '' ? step : `${path}.${step}`);
  if (Array.isArray(value)) return value.map((item) => withoutField(item, rule, join('[]')));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  const recordMap =
    entries.length >= 2 && entries.every(([k, v]) => typeof v === 'object' && v !== null && /\d/u.test(k));
  const out: Record<string, unknown> = {};
  for (const [key, child] of entries) {
    const step = recordMap || /\d\D*\d\D*\d/u.test(key) ? '*' : key;
    const childPath = join(step);
    // A key matched by the rule goes whole; the rule names the field where its last key stands.
    if (step !== '*' && ruleMatchesPath(rule, childPath) && rule.split('.').pop() === key) continue;
    setOwn(out, key, withoutField(child, rule, childPath));
  }
  return out;
}

function ablate(output: string, rule: string): string {
  const trimmed = output.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return output;
  try {
    return JSON.stringify(withoutField(JSON.parse(trimmed) as unknown, rule));
  } catch {
    return output;
  }
}

/** Runs one task with `process` on every observation; returns success and the tool outputs seen. */
async function runWith(
  scenario: BenchScenario,
  task: ScenarioTask,
  model: ModelSpec,
  rule: string | undefined,
): Promise<{ success: boolean; outputs: string[] }> {
  const name = `ablation-${process.pid}-${(nonce += 1)}`;
  const outputs: string[] = [];
  const processor: ObservationProcessor = {
    name: 'field-ablation',
    process: (obs) => {
      outputs.push(obs.output);
      return rule === undefined ? obs : { ...obs, output: ablate(obs.output, rule) };
    },
  };
  registerStrategy(name, () => ({ observationProcessors: [processor] }), {
    scenarios: [scenario.name],
    description: 'an episode of a field ablation',
  });
  try {
    const outcome = await scenario.runEpisode(task, { strategy: name, model });
    return { success: outcome.success, outputs };
  } finally {
    unregisterStrategy(name);
  }
}

/** Field rules of the outputs with their token estimates: every rule and its coarser ancestors. */
function rulesOf(outputs: readonly string[]): { tokens: Map<string, number>; leafRules: Set<string> } {
  const tokens = new Map<string, number>();
  const leafRules = new Set<string>();
  for (const output of outputs) {
    let value: unknown;
    try {
      value = JSON.parse(output.trim()) as unknown;
    } catch {
      continue;
    }
    for (const leaf of jsonLeaves(value)) {
      const rule = ruleForPath(leaf.path);
      if (rule === undefined) continue;
      leafRules.add(rule);
      const keys = rule.split('.');
      for (let length = 1; length <= keys.length; length += 1) {
        const prefix = keys.slice(0, length).join('.');
        if (prefix.endsWith('*')) continue;
        tokens.set(prefix, (tokens.get(prefix) ?? 0) + leaf.tokens);
      }
    }
  }
  return { tokens, leafRules };
}

const depth = (rule: string) => rule.split('.').filter((k) => k !== '*').length;

async function pooled<T>(jobs: readonly (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results: T[] = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next;
      next += 1;
      results[index] = await (jobs[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return results;
}

/**
 * The field rules the agent needs on `tasks` (see the module comment).
 *
 * @example
 * const { needed, unneeded } = await fieldNecessity({ scenario: getScenario('retail-tool-use'), tasks });
 */
export async function fieldNecessity(options: FieldNecessityOptions): Promise<FieldNecessityResult> {
  const { scenario } = options;
  const model = options.model ?? 'offline';
  const concurrency = options.concurrency ?? 1;
  let episodes = 0;
  const tick = () => {
    episodes += 1;
    options.onProgress?.(episodes);
  };
  const base = await pooled(
    options.tasks.map((task) => async () => ({ task, ...(await runWith(scenario, task, model, undefined)) })),
    concurrency,
  );
  base.forEach(tick);
  const solved = base.filter((b) => b.success);
  const { tokens, leafRules } = rulesOf(solved.flatMap((b) => b.outputs));
  const try1 = async (rule: string): Promise<FieldNecessity> => {
    const runs = await pooled(
      solved.map((solvedRun) => async () => {
        const run = await runWith(scenario, solvedRun.task, model, rule);
        tick();
        return { id: solvedRun.task.id, success: run.success };
      }),
      concurrency,
    );
    return {
      rule,
      tokens: tokens.get(rule) ?? 0,
      brokeTasks: runs.filter((r) => !r.success).map((r) => r.id),
      tried: runs.length,
    };
  };
  const needed: FieldNecessity[] = [];
  const unneeded: FieldNecessity[] = [];
  // Coarse to fine: a rule is tried when its parent was needed (or it has none).
  let level = [...tokens.keys()].filter((r) => depth(r) === 1).sort();
  while (level.length > 0) {
    const found: FieldNecessity[] = [];
    for (const rule of level) found.push(await try1(rule));
    const neededHere = found.filter((f) => f.brokeTasks.length > 0);
    unneeded.push(...found.filter((f) => f.brokeTasks.length === 0));
    const childDepth = depth(level[0] as string) + 1;
    const children = [...tokens.keys()].filter(
      (r) => depth(r) === childDepth && neededHere.some((n) => r.startsWith(`${n.rule}.`)),
    );
    // A needed rule without finer rules is needed as it is; one with them is replaced by what they find,
    // unless it also names a field of its own elsewhere (`name` of an item beside `name.first_name`).
    needed.push(
      ...neededHere.filter((n) => leafRules.has(n.rule) || !children.some((c) => c.startsWith(`${n.rule}.`))),
    );
    level = children.sort();
  }
  return { needed, unneeded, solved: solved.map((b) => b.task.id), episodes };
}
