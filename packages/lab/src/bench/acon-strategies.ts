/**
 * Compression strategies for the benchmark, as factories of the processors and tools one episode needs:
 * the prompting baseline (`summarize`), ACON's observation compression (`acon-obs`), history
 * compression (`acon-hist`), both (`acon`), and the ACON pieces of `paging+acon`. Each factory is
 * called once per episode, so no state is shared between episodes.
 *
 * Settings come from {@link ACON_DEFAULTS} (the paper's T_obs 1024 and T_hist 4096), overridden per
 * scenario by {@link ACON_PRESETS} (as the paper sets thresholds per benchmark), then by the options.
 */
import type { InstructionProvider, AnyTool, ModelSpec } from 'pagewise';
import type { CompressorBackend, Guideline } from 'pagewise/compression';
import type { ObservationProcessor, ContextProcessor } from 'pagewise/context';
import {
  DEFAULT_HISTORY_GUIDELINE,
  DEFAULT_OBSERVATION_GUIDELINE,
  DEFAULT_HISTORY_THRESHOLD,
  historyCompressor,
  type HistoryMode,
  ACON_OBSERVATION_THRESHOLD,
  observationCompressor,
  promptingSummarizer,
  resolveBackend,
  type CompressorSpec,
} from 'pagewise/compression';
import { pagedInstruction, PagingService, createPagingTools } from 'pagewise/paging';
import { isOfflineModel } from 'pagewise/internal';
import { fixedPromptTokens } from './budget-fit.js';

/** What the factories read of the episode; the benchmark's strategy context has these fields. */
export interface CompressionStrategyContext {
  /** The scenario name, which selects a preset (`retail-tool-use`, `multi-objective-qa`). */
  scenario?: string;
  /** The agent's model; the compressor uses it unless told otherwise, the extractive backend when it is `offline`. */
  model?: ModelSpec;
  /** The run's prompt-token budget: C_hist compresses to fit it and C_obs is held within it (see {@link aconBudgetSettings}). */
  budget?: number;
  /** The agent's instruction and tools, whose tokens the budget must also hold. */
  instruction?: string;
  tools?: readonly AnyTool[];
}

/** What a factory returns: the fields of the benchmark's strategy setup it fills. */
export interface CompressionStrategySetup {
  /** Context processors (C_hist, the prompting baseline). */
  processors?: ContextProcessor[];
  /** Observation processors (C_obs). */
  observationProcessors?: ObservationProcessor[];
  /** Tools offered besides the scenario's (`page_in`, with `pageIn`). */
  tools?: AnyTool[];
  /** Services the processors and tools look up by key. */
  services?: Record<string, unknown>;
  /** Replaces the agent's instruction given the scenario's (with `pageIn`: renders paged-in results). */
  instruction?: (base: string) => string | InstructionProvider;
}

/** The settings of ACON compression. */
export interface AconSettings {
  /** T_obs. */
  observationThreshold: number;
  /** T_hist. */
  historyThreshold: number;
  /** Turns kept verbatim after the summary (ACON keeps the last action/observation pair). */
  keepLastTurns: number;
  /** How C_hist compresses a history compressed before: `accumulate` or `reset`. */
  mode: HistoryMode;
  /** The summary budget; ⌊T_hist / 2⌋ when absent. */
  maxSummaryTokens?: number;
  /** C_hist's batch between compactions as a fraction of T_hist (see `batchRatio` of `historyCompressor`); its default when absent. */
  batchRatio?: number;
  /** g_obs. */
  observationGuideline: Guideline;
  /** g_hist. */
  historyGuideline: Guideline;
  /** History tokens C_obs sees as context. */
  contextTokens: number;
  /** Whether extractive summaries keep the page handles of compressed observations. */
  keepHandles: boolean;
  /** A cap on a compressed observation's text in tokens (set at a budget); none: the guideline's ratio alone. */
  observationMaxTokens?: number;
  /**
   * The run's prompt-token budget (set at a budget): C_hist then compresses when a request would exceed it,
   * into the room left, as the `summarize` baseline does, instead of at T_hist (see `budgetTokens` of
   * `historyCompressor`).
   */
  budgetTokens?: number;
  /**
   * C_obs shows a repeated call its result whole (see `expandOnRepeat` of `observationCompressor`). Default
   * true; guideline optimization turns it off, so a guideline is judged by what it keeps, not rescued by it.
   */
  expandOnRepeat?: boolean;
}

/** The paper's defaults: T_obs 1024, T_hist 4096, the last turn kept, the default guidelines. */
export const ACON_DEFAULTS: Readonly<AconSettings> = Object.freeze({
  observationThreshold: ACON_OBSERVATION_THRESHOLD,
  historyThreshold: DEFAULT_HISTORY_THRESHOLD,
  keepLastTurns: 1,
  mode: 'accumulate',
  observationGuideline: DEFAULT_OBSERVATION_GUIDELINE,
  historyGuideline: DEFAULT_HISTORY_GUIDELINE,
  contextTokens: 2048,
  keepHandles: true,
});

/**
 * Settings per scenario, over {@link ACON_DEFAULTS}.
 *
 * - `retail-tool-use`: records of 200–1,400 tokens and runs whose full history peaks at 3–20k tokens,
 *   far below the paper's AppWorld runs, so the thresholds are lower (T_obs 256, T_hist 1024); C_obs
 *   sees the whole (compressed) history, where the order that names a catalogue item is; summaries drop
 *   page handles (about 14 tokens a step) and may grow to 6,144 tokens. The guidelines are the default
 *   ones: a scenario's own come from `pagewise optimize` (the `acon-learned` strategy), never by hand.
 * - `multi-objective-qa`: the paper's multi-objective QA thresholds, T_obs 400 and T_hist 2048.
 */
export const ACON_PRESETS: Readonly<Record<string, Partial<AconSettings>>> = Object.freeze({
  'retail-tool-use': {
    observationThreshold: 256,
    historyThreshold: 1024,
    maxSummaryTokens: 6144,
    contextTokens: 8192,
    keepHandles: false,
  },
  'multi-objective-qa': { observationThreshold: 400, historyThreshold: 2048, keepLastTurns: 3 },
});

/** Options of the ACON factories: settings over the scenario's preset, and the compressor. */
export interface AconStrategyOptions extends Partial<AconSettings> {
  /**
   * The compressor. Default: the extractive backend when the agent's model is the offline one (or none
   * is given), else the LLM backend on the agent's model.
   */
  compressor?: CompressorSpec;
  /** Holds the raw observations. Default: a new in-memory service per episode. */
  service?: PagingService;
  /**
   * Offer the agent `page_in` (and render paged-in results into its instruction), so the handle of a
   * compressed observation can be followed. Default false: ACON itself offers no retrieval, and the
   * tool's schema costs about 140 prompt tokens per request.
   */
  pageIn?: boolean;
  /** Fence boundary generator (seed it for reproducible token counts). */
  boundary?: () => string;
}

/**
 * ACON's settings at a budget, never above the given settings. C_hist works as the `summarize` baseline
 * does at a budget: it compresses when a request would exceed the budget, into the room the rest of the
 * request leaves (a fifth kept free), so ACON and the baseline differ in what they keep, not in when or
 * how much. C_obs compresses an observation above a quarter of the room beside the instruction and tools,
 * and caps its compressed text at a quarter, so a large result alone never fills the budget. The same for
 * every scenario.
 */
export function aconBudgetSettings(
  settings: Readonly<AconSettings>,
  budget: number,
  fixedTokens: number,
): Partial<AconSettings> {
  const room = Math.max(64, budget - fixedTokens);
  return {
    budgetTokens: budget,
    observationThreshold: Math.min(settings.observationThreshold, Math.floor(room / 4)),
    observationMaxTokens: Math.min(settings.observationMaxTokens ?? Number.POSITIVE_INFINITY, Math.floor(room / 4)),
  };
}

/** The settings for an episode: defaults, then the scenario's preset, then the budget's limits, then the options. */
export function aconSettings(context: CompressionStrategyContext, options: AconStrategyOptions = {}): AconSettings {
  const preset = context.scenario === undefined ? {} : (ACON_PRESETS[context.scenario] ?? {});
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<AconSettings>;
  const base = { ...ACON_DEFAULTS, ...preset };
  const fitted =
    context.budget === undefined
      ? {}
      : aconBudgetSettings(base, context.budget, fixedPromptTokens(context.instruction ?? '', context.tools ?? []));
  return { ...base, ...fitted, ...given };
}

function backendFor(
  context: CompressionStrategyContext,
  options: AconStrategyOptions,
  settings: AconSettings,
): CompressorBackend {
  const spec =
    options.compressor ?? (context.model === undefined || isOfflineModel(context.model) ? 'extractive' : context.model);
  return resolveBackend(spec, { extractive: { keepHandles: settings.keepHandles } });
}

function buildPieces(
  context: CompressionStrategyContext,
  options: AconStrategyOptions,
  parts: { observation: boolean; history: boolean },
) {
  const settings = aconSettings(context, options);
  const backend = backendFor(context, options, settings);
  const service = options.service ?? new PagingService();
  const boundary = options.boundary ? { boundary: options.boundary } : {};
  const observation = parts.observation
    ? observationCompressor({
        compressor: backend,
        guideline: settings.observationGuideline,
        thresholdTokens: settings.observationThreshold,
        ...(settings.observationMaxTokens !== undefined ? { maxTokens: settings.observationMaxTokens } : {}),
        contextTokens: settings.contextTokens,
        ...(settings.expandOnRepeat !== undefined ? { expandOnRepeat: settings.expandOnRepeat } : {}),
        service,
        ...boundary,
      })
    : undefined;
  const history = parts.history
    ? historyCompressor({
        compressor: backend,
        guideline: settings.historyGuideline,
        thresholdTokens: settings.historyThreshold,
        keepLastTurns: settings.keepLastTurns,
        mode: settings.mode,
        ...(settings.maxSummaryTokens !== undefined ? { maxSummaryTokens: settings.maxSummaryTokens } : {}),
        ...(settings.batchRatio !== undefined ? { batchRatio: settings.batchRatio } : {}),
        ...(settings.budgetTokens !== undefined ? { budgetTokens: settings.budgetTokens } : {}),
        ...boundary,
      })
    : undefined;
  return { observation, history, service };
}

function setupOf(pieces: ReturnType<typeof buildPieces>, pageIn: boolean): CompressionStrategySetup {
  const setup: CompressionStrategySetup = {};
  if (pieces.history) setup.processors = [pieces.history];
  if (pieces.observation) {
    setup.observationProcessors = [pieces.observation];
    if (pageIn) {
      const service = pieces.service;
      setup.tools = [createPagingTools(service).page_in];
      setup.instruction = (base) => pagedInstruction({ base, service, showResults: false });
    }
  }
  return setup;
}

/**
 * `acon-obs`: C_obs only.
 *
 * @example
 * registerStrategy('acon-obs', (ctx) => aconObservationStrategy(ctx));
 */
export function aconObservationStrategy(
  context: CompressionStrategyContext,
  options: AconStrategyOptions = {},
): CompressionStrategySetup {
  return setupOf(buildPieces(context, options, { observation: true, history: false }), options.pageIn ?? false);
}

/** `acon-hist`: C_hist only. */
export function aconHistoryStrategy(
  context: CompressionStrategyContext,
  options: AconStrategyOptions = {},
): CompressionStrategySetup {
  return setupOf(buildPieces(context, options, { observation: false, history: true }), false);
}

/** `acon`: C_obs and C_hist. */
export function aconStrategy(
  context: CompressionStrategyContext,
  options: AconStrategyOptions = {},
): CompressionStrategySetup {
  return setupOf(buildPieces(context, options, { observation: true, history: true }), options.pageIn ?? false);
}

/**
 * The ACON half of `paging+acon`: C_obs keeping raw results in the paging strategy's own service (so
 * its `page_in` follows the handles) and C_hist. The paging strategy supplies tools and instruction.
 */
export function pagingAconPieces(
  service: PagingService,
  context: CompressionStrategyContext,
  options: Omit<AconStrategyOptions, 'service' | 'pageIn'> = {},
): { processors: ContextProcessor[]; observationProcessors: ObservationProcessor[] } {
  const pieces = buildPieces(context, { ...options, service }, { observation: true, history: true });
  return {
    processors: pieces.history ? [pieces.history] : [],
    observationProcessors: pieces.observation ? [pieces.observation] : [],
  };
}

/** Options of {@link promptingStrategy}. */
export interface PromptingStrategyOptions {
  /** The summarizing model; default the agent's (the naive stand-in on the offline model). */
  model?: ModelSpec;
  /** Default: the scenario's T_hist, so the baseline is compared with C_hist at the same trigger. */
  thresholdTokens?: number;
  /** Default: as C_hist. */
  keepLastTurns?: number;
  /** Fence boundary generator (seed it for reproducible token counts). */
  boundary?: () => string;
}

/**
 * `summarize`: the prompting baseline, with the trigger and kept turns of the scenario's C_hist, or, at a
 * budget, summarizing whenever a request would exceed it.
 */
export function promptingStrategy(
  context: CompressionStrategyContext,
  options: PromptingStrategyOptions = {},
): CompressionStrategySetup {
  const settings = aconSettings({ ...context, budget: undefined });
  const model = options.model ?? context.model;
  return {
    processors: [
      promptingSummarizer({
        ...(model !== undefined ? { model } : {}),
        ...(context.budget !== undefined ? { budgetTokens: context.budget } : {}),
        thresholdTokens: options.thresholdTokens ?? settings.historyThreshold,
        keepLastTurns: options.keepLastTurns ?? settings.keepLastTurns,
        ...(settings.maxSummaryTokens !== undefined ? { maxSummaryTokens: settings.maxSummaryTokens } : {}),
        ...(settings.batchRatio !== undefined ? { batchRatio: settings.batchRatio } : {}),
        ...(options.boundary ? { boundary: options.boundary } : {}),
      }),
    ],
  };
}
