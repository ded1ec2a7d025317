/**
 * C_obs, ACON's observation compressor, as an observation processor: a tool result above T_obs is
 * compressed by a backend steered by the observation guideline, given the task and the recent steps,
 * and the agent sees only the compressed text. The raw result is kept as a page first, and the
 * compressed text ends with its handle, so `page_in` restores the original byte for byte. An agent that
 * has no `page_in` (the runner says which tools it has) gets no handle, only how large the original was:
 * a pointer to a tool it cannot call would be a dead end.
 */
import { createHash } from 'node:crypto';
import type { ObservationContext, ObservationProcessor, ToolObservation } from '../context/observation.js';
import type { ContextItem } from '../context/request.js';
import { groupTurns } from '../context/history.js';
import { ConfigurationError } from '../errors.js';
import { recordCompressionError, recoverableCompressionError } from './fallback.js';
import { findResultPage, keepResultPage } from '../paging/result-pages.js';
import { PagingService } from '../paging/service.js';
import { PAGING_TOOL_NAMES } from '../paging/tools.js';
import { countTokens } from '../tokens/tokenizer.js';
import type { CompressorBackend } from './backend.js';
import { DEFAULT_OBSERVATION_GUIDELINE } from './default-guidelines.js';
import { requireGuidelineTarget, type Guideline } from './guideline.js';
import { resolveBackend, type CompressorSpec } from './resolve-backend.js';
import { checkRatio } from './history.js';
import { headAtWordBoundary, tokenBudget } from './token-budget.js';
import { fenceBoundary } from '../paging/fence.js';
import { argumentText, fenceQuoted, handleLine, renderTranscript, unreachableHandleLine } from './transcript.js';

/** ACON's T_obs (1,024 tokens), which the ACON benchmark strategies start from. */
export const ACON_OBSERVATION_THRESHOLD = 1024;

/**
 * ACON's T_obs, under the name it had before; it never was this package's default ({@link OBSERVATION_THRESHOLD}).
 *
 * @deprecated Use {@link ACON_OBSERVATION_THRESHOLD}, or {@link OBSERVATION_THRESHOLD} for the default.
 */
export const DEFAULT_OBSERVATION_THRESHOLD = ACON_OBSERVATION_THRESHOLD;

/**
 * The default T_obs of {@link observationCompressor}: observations above this many tokens are compressed.
 * ACON's 1,024 leaves most report pages alone, since real annual-report pages (a table and its paragraphs)
 * are mostly shorter than that; at 256 most of them are compressed, while the fence and handle line still
 * cost a small share of the smallest page compressed. The page lengths measured on TAT-QA are in
 * docs/decisions/0007-observation-threshold.md.
 */
export const OBSERVATION_THRESHOLD = 256;

/** Options of {@link observationCompressor}. */
export interface ObservationCompressorOptions {
  /** The backend: `'extractive'` (default), a model spec or instance (LLM), or a backend object. */
  compressor?: CompressorSpec;
  /** The observation guideline (g_obs). Default {@link DEFAULT_OBSERVATION_GUIDELINE}. */
  guideline?: Guideline;
  /** T_obs: results above this many tokens are compressed. Default {@link OBSERVATION_THRESHOLD}. */
  thresholdTokens?: number;
  /** T_obs per tool name, over `thresholdTokens`. */
  toolThresholds?: Readonly<Record<string, number>>;
  /** Tools whose results are never compressed (the paging tools never are). */
  exclude?: readonly string[];
  /**
   * A cap on the compressed text in tokens. The budget is ⌊ratio · tokens⌋ by the guideline's rules,
   * or this cap when smaller.
   */
  maxTokens?: number;
  /**
   * Output tokens / input tokens, in (0, 1], counting everything the agent sees: the compressed text,
   * its fence and its handle line. Overrides the guideline's ratio; the budget of the text is
   * ⌊targetRatio · tokens⌋ less the fence and handle (an observation too small for them stays as it is).
   */
  targetRatio?: number;
  /**
   * Where raw results are kept as pages; give the service your `page_in` tool uses so the handle
   * resolves. Default: a new in-memory service (see {@link ObservationCompressor.service}).
   */
  service?: PagingService;
  /**
   * How much of the history the compressor sees as context, in tokens: the latest whole turns that fit
   * (at least the latest turn). Default 2,048. ACON conditions C_obs on the history, since what the
   * agent did before says which parts of an observation matter (the item of an order, in a catalogue).
   */
  contextTokens?: number;
  /** Fence boundary generator (seed it for reproducible token counts). Default {@link fenceBoundary}: ≈70 random bits, 7 tokens. */
  boundary?: () => string;
  /**
   * When the agent repeats a call (same tool, same arguments, same session, another call id) and gets the
   * same result that was compressed before, the compression left out what it looked for: the repeat's
   * result is shown whole, or as much of it as `maxTokens` allows, instead of compressed the same way
   * again. A result that changed (a status polled again) is compressed as usual. Default true.
   */
  expandOnRepeat?: boolean;
}

/** The observation processor, with the paging service that holds the raw results. */
export interface ObservationCompressor extends ObservationProcessor {
  /**
   * Holds every raw result that was compressed; bind `page_in` to it (`createPagingTools(service)`) and
   * give that tool to the agent, or its compressed results carry no handle.
   */
  readonly service: PagingService;
  readonly backend: CompressorBackend;
}

function checkTokens(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigurationError(
      'invalid-threshold',
      `observationCompressor: ${name} must be an integer ≥ 0, got ${value}.`,
    );
  }
}

/**
 * Creates C_obs.
 *
 * @example
 * const cObs = observationCompressor({ compressor: 'openai:gpt-4.1-mini', thresholdTokens: 1024 });
 * const agent = new Agent({ name: 'a', tools: [...tools, createPagingTools(cObs.service).page_in], observationProcessors: [cObs] });
 *
 * @throws ConfigurationError for a guideline whose target is not `observation` or a bad threshold.
 */
export function observationCompressor(options: ObservationCompressorOptions = {}): ObservationCompressor {
  const guideline = options.guideline ?? DEFAULT_OBSERVATION_GUIDELINE;
  requireGuidelineTarget(
    guideline,
    'observation',
    'observationCompressor',
    'Use DEFAULT_OBSERVATION_GUIDELINE or a guideline file with "target: observation".',
  );
  const threshold = options.thresholdTokens ?? OBSERVATION_THRESHOLD;
  checkTokens('thresholdTokens', threshold);
  for (const [tool, value] of Object.entries(options.toolThresholds ?? {}))
    checkTokens(`toolThresholds.${tool}`, value);
  const contextTokens = options.contextTokens ?? 2048;
  checkTokens('contextTokens', contextTokens);
  const exclude = new Set<string>([...PAGING_TOOL_NAMES, ...(options.exclude ?? [])]);
  const service = options.service ?? new PagingService();
  const backend = resolveBackend(options.compressor);
  const guidelineRef = `${guideline.id}@${guideline.version}`;
  const boundary = options.boundary ?? fenceBoundary;
  const targetRatio = options.targetRatio;
  if (targetRatio !== undefined) checkRatio('observationCompressor', targetRatio);
  const expandOnRepeat = options.expandOnRepeat ?? true;
  // Per session, the first call id of each result that was compressed (keyed by a hash of the call and the
  // output); bounded, oldest sessions first. The same call id again is the same result processed again
  // (a framework that filters its history on every model call), not a repeat.
  const compressedCalls = new Map<string, Map<string, string>>();
  const isRepeat = (sessionId: string, key: string, toolCallId: string): boolean => {
    let calls = compressedCalls.get(sessionId);
    if (!calls) {
      if (compressedCalls.size >= MAX_TRACKED_SESSIONS) compressedCalls.delete(compressedCalls.keys().next().value!);
      calls = new Map();
      compressedCalls.set(sessionId, calls);
    }
    const first = calls.get(key);
    if (first !== undefined) return first !== toolCallId;
    if (calls.size < MAX_TRACKED_CALLS) calls.set(key, toolCallId);
    return false;
  };

  return {
    name: `acon-obs(${backend.name}, ${threshold})`,
    service,
    backend,
    async process(obs: ToolObservation, ctx: ObservationContext): Promise<ToolObservation> {
      if (obs.isError || exclude.has(obs.toolName)) return obs;
      const tokens = countTokens(obs.output);
      // Strictly above: T_obs is the largest observation shown as it is.
      if (tokens <= (options.toolThresholds?.[obs.toolName] ?? threshold)) return obs;
      // Compressed once (invariant 17): a compressed result met again is left as it is, and its raw text
      // again gets the text shown the first time, known by call id and content hash, not by its markers.
      const known = await findResultPage(service, ctx.sessionId, obs);
      if (known.status === 'shown') return obs;
      if (known.status === 'raw' && known.shown !== undefined) return { ...obs, output: known.shown };
      const call = `${obs.toolName} ${argumentText(obs.input)}`;
      const repeat =
        expandOnRepeat &&
        isRepeat(
          ctx.sessionId,
          createHash('sha256').update(call).update('\0').update(obs.output).digest('hex'),
          obs.toolCallId,
        );
      // A repeat is shown whole when no cap applies or it fits under the cap, else as much as the cap allows.
      if (repeat && (options.maxTokens === undefined || tokens <= options.maxTokens)) return obs;
      const uri = known.uri;
      const fence = boundary();
      // A handle only helps an agent that can follow it; one without `page_in` is told the result is gone.
      const handle =
        ctx.toolNames === undefined || ctx.toolNames.has('page_in')
          ? handleLine(uri, tokens)
          : unreachableHandleLine(tokens);
      let maxTokens = tokenBudget(tokens, repeat ? 1 : guideline.rules.ratio, options.maxTokens);
      let rules = repeat ? { ...guideline.rules, ratio: 1 } : guideline.rules;
      if (targetRatio !== undefined && !repeat) {
        // The fence and the handle are part of what the agent reads, so they come out of the budget.
        maxTokens =
          tokenBudget(tokens, targetRatio, options.maxTokens) - countTokens(`${fenceQuoted('', fence)}\n${handle}`);
        if (maxTokens < 1) return obs;
        rules = { ...rules, ratio: targetRatio };
      }
      let text: string;
      try {
        text = await backend.compress(
          {
            target: 'observation',
            guideline: rules === guideline.rules ? guideline : { ...guideline, rules },
            task: ctx.task,
            history: recentContext(ctx.recentItems, contextTokens),
            turns: [],
            previousSummary: '',
            observation: obs.output,
            toolName: obs.toolName,
            call,
            maxTokens,
          },
          { ledger: ctx.ledger, signal: ctx.signal, invocationId: ctx.invocationId, agentName: ctx.agentName },
        );
      } catch (error) {
        // A compressor that fails (a provider outage, a bad output) costs this observation its compression, not the run.
        const failure = recoverableCompressionError(error, ctx.signal);
        recordCompressionError(
          ctx.ledger,
          { agentName: ctx.agentName, invocationId: ctx.invocationId, target: 'observation', backend: backend.name },
          failure,
          'raw-observation',
        );
        return obs;
      }
      if (targetRatio !== undefined) text = headAtWordBoundary(text, maxTokens);
      const output = `${fenceQuoted(text, fence)}\n${handle}`;
      const outputTokens = countTokens(output);
      // A "compression" that is not smaller (an LLM that rewrote at length) is not used.
      if (outputTokens >= tokens) return obs;
      // Kept before the agent sees the handle; a compressor that fails leaves the raw result in place instead.
      await keepResultPage(service, ctx.sessionId, {
        uri,
        toolCallId: obs.toolCallId,
        raw: obs.output,
        shown: output,
        title: `${obs.toolName} result`,
        meta: {
          toolName: obs.toolName,
          input: obs.input,
          compressedBy: backend.name,
          guideline: guidelineRef,
        },
      });
      ctx.ledger.recordCompression({
        target: 'observation',
        backend: backend.name,
        agent: ctx.agentName,
        invocationId: ctx.invocationId,
        inputTokens: tokens,
        outputTokens,
        at: Date.now(),
      });
      // Recorded on the event, so the guideline and the original size are known without the page store.
      return {
        ...obs,
        output,
        compression: { guideline: guidelineRef, backend: backend.name, originalTokens: tokens },
      };
    },
  };
}

// Bounds of the repeat tracking: sessions remembered, and calls per session.
const MAX_TRACKED_SESSIONS = 1024;
const MAX_TRACKED_CALLS = 4096;

/** The latest whole turns of `items` within `maxTokens`, as a transcript; at least the latest turn. */
export function recentContext(items: readonly ContextItem[], maxTokens: number): string {
  const turns = groupTurns(items);
  const kept: string[] = [];
  let used = 0;
  for (let turnIndex = turns.length - 1; turnIndex >= 0; turnIndex -= 1) {
    const text = renderTranscript(turns[turnIndex] ?? []);
    const tokens = countTokens(text);
    if (kept.length > 0 && used + tokens > maxTokens) break;
    kept.unshift(text);
    used += tokens;
  }
  return kept.join('\n');
}
