/**
 * Runs the episodes the optimizer scores: a benchmark scenario's task, uncompressed or with the
 * compressor under a candidate guideline, through the scenario's own `runEpisode`, so success is the
 * scenario's own check. Each episode gets a strategy of its own (registered for the episode, then
 * removed) that adds an observer of tool calls and, when compressed, the scenario's ACON setup with the
 * candidate guideline and a recording compressor; its compressor calls go to the store, scored when
 * the episode is.
 */
import { randomUUID } from 'node:crypto';
import type { BenchScenario, ScenarioTask } from '../bench/scenario.js';
import { registerStrategy, unregisterStrategy } from '../bench/strategies.js';
import type { SessionStore, ModelSpec } from 'pagewise';
import type { Guideline, GuidelineTarget } from 'pagewise/compression';
import type { ObservationProcessor } from 'pagewise/context';
import type { CallLog, CallTags, CompressorCallRecord, CompressorCallStore } from 'pagewise/store-kit';
import { isOfflineModel, itemText } from 'pagewise/internal';
import {
  resolveBackend,
  type CompressorSpec,
  DEFAULT_HISTORY_GUIDELINE,
  DEFAULT_OBSERVATION_GUIDELINE,
} from 'pagewise/compression';
import { type ContextProcessor } from 'pagewise/context';
import { aconHistoryStrategy, aconObservationStrategy, aconSettings, aconStrategy } from '../bench/acon-strategies.js';
import { canonicalJson } from './hash.js';
import { recordingBackend } from './recording.js';
import type { EpisodeMode, EpisodeResult, ObservedToolCall } from './trace.js';

/** One episode to run. */
export interface EvaluationJob {
  task: ScenarioTask;
  mode: EpisodeMode;
  /** The guideline under test; required when compressed. */
  guideline?: Guideline;
}

/** Runs one episode and reports it. Errors of the episode are reported in the result; aborts throw. */
export type EpisodeEvaluator = (job: EvaluationJob, signal?: AbortSignal) => Promise<EpisodeResult>;

/** Options of {@link scenarioEvaluator}. */
export interface ScenarioEvaluatorOptions {
  scenario: BenchScenario;
  target: GuidelineTarget;
  /** The agent's model: `offline` (the scenario's rules) or a spec. Default `offline`. */
  model?: ModelSpec;
  /** The compressor: default the extractive backend with the offline model, else the agent's model. */
  compressor?: CompressorSpec;
  /** Where compressor calls are recorded (scored once the episode is). */
  store?: CompressorCallStore;
  /** Context window of the agent's requests; the model's known one when omitted. */
  contextWindow?: number;
  /** Per-attempt timeout of the agent's model calls, in ms; the runner's default when omitted. */
  modelTimeoutMs?: number;
  /**
   * Prompt-token budget of the compressed runs: ACON's thresholds fit it and a larger request fails the
   * episode. The uncompressed runs are the reference and run without it.
   */
  budget?: number;
  /**
   * Run both compressors in every compressed episode, as the `acon` strategy does: the guideline under
   * test for its target and {@link jointPartner} of it for the other, so one set of rules is learned for
   * both and a field one compressor keeps is not lost by the other. Default false: the target's
   * compressor alone.
   */
  joint?: boolean;
  /** Where each episode's session and model calls are kept, for `pagewise inspect`; not kept when undefined. */
  sessions?: EpisodeSessions;
}

/**
 * Where the episodes of an optimization keep their sessions and model calls: the session store, and a
 * call log per episode with its labels (see {@link episodeTags}), as the demo keeps its runs.
 */
export interface EpisodeSessions {
  store: SessionStore;
  callLog(tags: CallTags): CallLog;
}

/**
 * The labels of an episode's calls in the call log, shown and filtered by the inspector: `strategy`
 * (`optimize-uncompressed` or `optimize-compressed`), the task and the guideline under test.
 */
export function episodeTags(job: EvaluationJob): CallTags {
  return {
    strategy: `optimize-${job.mode}`,
    task: job.task.id,
    ...(job.guideline ? { guideline: `${job.guideline.id}@${job.guideline.version}` } : {}),
  };
}

/**
 * The other compressor's guideline in a joint optimization: the other target's default guideline (its
 * template) with the rules of `guideline`, named after it.
 *
 * @example
 * const history = jointPartner(learnedObservationGuideline); // target 'history', same rules
 */
export function jointPartner(guideline: Guideline): Guideline {
  const other = guideline.target === 'observation' ? DEFAULT_HISTORY_GUIDELINE : DEFAULT_OBSERVATION_GUIDELINE;
  return {
    ...other,
    id: `${guideline.id}-${other.target}`,
    version: guideline.version,
    rules: guideline.rules,
    description: `The ${other.target} half of the jointly optimized ${guideline.id}@${guideline.version}: the default ${other.target} template with its rules.`,
  };
}

let nonce = 0;

/**
 * The evaluator over a benchmark scenario (see the module comment).
 *
 * @example
 * const evaluate = scenarioEvaluator({ scenario: getScenario('retail-tool-use'), target: 'observation' });
 * const result = await evaluate({ task, mode: 'compressed', guideline: DEFAULT_OBSERVATION_GUIDELINE });
 */
export function scenarioEvaluator(options: ScenarioEvaluatorOptions): EpisodeEvaluator {
  const { scenario, target, store } = options;
  const model = options.model ?? 'offline';
  const context = { scenario: scenario.name, model };
  const spec = options.compressor ?? (isOfflineModel(model) ? 'extractive' : model);
  // As the benchmark's ACON strategies build it for this scenario (page handles kept or not).
  const base = resolveBackend(spec, { extractive: { keepHandles: aconSettings(context).keepHandles } });
  const prefix = `optimize-${process.pid}-${(nonce += 1)}`;
  let counter = 0;

  return async (job, signal) => {
    if (job.mode === 'compressed' && !job.guideline)
      throw new TypeError('scenarioEvaluator: a compressed episode needs a guideline.');
    const name = `${prefix}-${(counter += 1)}`;
    const episodeId = randomUUID();
    const toolCalls: ObservedToolCall[] = [];
    const compressions: CompressorCallRecord[] = [];
    // First in line, so it sees each result before a compressor rewrites it. Failed calls do not pass
    // through observation processors; what re-discovery counts are the calls that did return.
    const observer: ObservationProcessor = {
      name: 'optimize-observer',
      process: (obs) => {
        toolCalls.push({
          toolName: obs.toolName,
          input: canonicalJson(typeof obs.input === 'string' ? safeParse(obs.input) : obs.input),
        });
        return obs;
      },
    };
    let finalPrompt = '';
    // Last in line, so it sees the history the model is sent after any compression. Only the latest
    // request is kept: the failing point of a run that went wrong is its last call.
    const promptObserver: ContextProcessor = {
      name: 'optimize-prompt-observer',
      process: (request) => {
        finalPrompt = request.items.map(itemText).join('\n');
      },
    };
    registerStrategy(
      name,
      (ctx) => {
        if (job.mode === 'uncompressed') return { observationProcessors: [observer], processors: [promptObserver] };
        const compressor = recordingBackend(base, {
          episodeId,
          taskId: job.task.id,
          ...(store ? { store } : {}),
          onRecord: (r) => compressions.push(r),
        });
        const settings = {
          scenario: ctx.scenario,
          model: ctx.model,
          instruction: ctx.instruction,
          tools: ctx.tools,
          ...(ctx.budget !== undefined ? { budget: ctx.budget } : {}),
        };
        const guideline = job.guideline as Guideline;
        // A guideline is judged by what it keeps: a repeated call shown whole would hide what it drops.
        const judged = { compressor, expandOnRepeat: false };
        const setup = options.joint
          ? aconStrategy(settings, {
              observationGuideline: target === 'observation' ? guideline : jointPartner(guideline),
              historyGuideline: target === 'history' ? guideline : jointPartner(guideline),
              ...judged,
            })
          : target === 'observation'
            ? aconObservationStrategy(settings, { observationGuideline: guideline, ...judged })
            : aconHistoryStrategy(settings, { historyGuideline: guideline, ...judged });
        return {
          ...setup,
          observationProcessors: [observer, ...(setup.observationProcessors ?? [])],
          processors: [...(setup.processors ?? []), promptObserver],
        };
      },
      { scenarios: [scenario.name], description: 'an episode of a guideline optimization' },
    );
    try {
      const outcome = await scenario.runEpisode(job.task, {
        strategy: name,
        model,
        ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
        ...(options.modelTimeoutMs !== undefined ? { modelTimeoutMs: options.modelTimeoutMs } : {}),
        ...(options.budget !== undefined && job.mode === 'compressed' ? { budget: options.budget } : {}),
        ...(options.sessions
          ? { recording: { store: options.sessions.store, callLog: options.sessions.callLog(episodeTags(job)) } }
          : {}),
        ...(signal ? { signal } : {}),
      });
      if (store && compressions.length > 0) await store.setEpisodeSuccess(episodeId, outcome.success ? 1 : 0);
      return {
        success: outcome.success,
        answer: outcome.answer,
        ...(outcome.error !== undefined ? { error: outcome.error } : {}),
        ...(outcome.errorFault !== undefined ? { errorFault: outcome.errorFault } : {}),
        ledger: outcome.ledger,
        toolCalls,
        compressions,
        finalPrompt,
      };
    } finally {
      unregisterStrategy(name);
    }
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
