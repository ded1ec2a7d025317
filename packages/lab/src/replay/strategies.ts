/**
 * The strategies a replay compares: ACON's observation compressor (C_obs) and history compressor
 * (C_hist), alone and together, against the baselines none, head truncation of observations, FIFO and
 * tool-result clearing. Each is the library's own processor, created fresh for every trace since
 * processors keep per-run state.
 */
import { countTokens } from 'pagewise';
import {
  observationCompressor,
  OBSERVATION_THRESHOLD,
  DEFAULT_HISTORY_THRESHOLD,
  historyCompressor,
  DEFAULT_OBSERVATION_GUIDELINE,
} from 'pagewise/compression';
import { clearToolResults, fifoHistory } from 'pagewise/context';
import { truncateHead } from 'pagewise/extractive';
import { seededFenceBoundary, seededRandom } from 'pagewise/internal';
import type { Guideline, CompressorSpec } from 'pagewise/compression';
import type { ObservationProcessor, ContextProcessor } from 'pagewise/context';

/** What a strategy acts on. */
export type StrategyKind = 'none' | 'observation' | 'history' | 'both';

/** One contender of a replay. */
export interface ReplayStrategy {
  /** The name in reports. */
  name: string;
  kind: StrategyKind;
  /** True for the baselines (none, truncation, FIFO, clearing). */
  baseline: boolean;
  /** Fresh processors for one trace. */
  create(): { observation: ObservationProcessor[]; history: ContextProcessor[] };
}

/** Settings of {@link defaultStrategies}; each default is the library's. */
export interface StrategySettings {
  /** The observation compressor's backend. Default `'extractive'` (no model). */
  compressor?: CompressorSpec;
  /** g_obs. Default {@link DEFAULT_OBSERVATION_GUIDELINE}. */
  observationGuideline?: Guideline;
  /** T_obs. Default {@link OBSERVATION_THRESHOLD}. */
  observationThreshold?: number;
  /** T_obs per tool. */
  toolThresholds?: Readonly<Record<string, number>>;
  /** T_hist. Default {@link DEFAULT_HISTORY_THRESHOLD}. */
  historyThreshold?: number;
  /** C_hist's ratio of each compressed run of turns; default: its summary budget of ⌊T_hist / 2⌋. */
  historyRatio?: number;
  /** Turns FIFO keeps. Default 5. */
  fifoTurns?: number;
  /** Tool results clearing keeps. Default 3. */
  clearKeepLast?: number;
}

/** A boundary generator with a fixed seed, so token counts repeat from run to run. */
function boundary(): () => string {
  return seededFenceBoundary(seededRandom(7));
}

/**
 * Head truncation of observations, held to C_obs's threshold and its guideline's ratio: the first
 * ⌊ratio · tokens⌋ tokens of every result above the threshold.
 */
export function truncationProcessor(
  threshold: number,
  ratio: number,
  toolThresholds: Readonly<Record<string, number>> = {},
): ObservationProcessor {
  return {
    name: `truncate(${threshold}, ${ratio})`,
    process(obs) {
      if (obs.isError || countTokens(obs.output) <= (toolThresholds[obs.toolName] ?? threshold)) return obs;
      return { ...obs, output: truncateHead(obs.output, ratio) };
    },
  };
}

/** The observation compressor with the settings' guideline and thresholds, as a replay creates it. */
export function observationStrategy(name: string, settings: StrategySettings = {}): ReplayStrategy {
  return {
    name,
    kind: 'observation',
    baseline: false,
    create: () => ({ observation: [cObs(settings)], history: [] }),
  };
}

function cObs(settings: StrategySettings): ObservationProcessor {
  return observationCompressor({
    ...(settings.compressor !== undefined ? { compressor: settings.compressor } : {}),
    guideline: settings.observationGuideline ?? DEFAULT_OBSERVATION_GUIDELINE,
    thresholdTokens: settings.observationThreshold ?? OBSERVATION_THRESHOLD,
    ...(settings.toolThresholds ? { toolThresholds: settings.toolThresholds } : {}),
    boundary: boundary(),
  });
}

function cHist(settings: StrategySettings): ContextProcessor {
  return historyCompressor({
    ...(settings.compressor !== undefined ? { compressor: settings.compressor } : {}),
    thresholdTokens: settings.historyThreshold ?? DEFAULT_HISTORY_THRESHOLD,
    ...(settings.historyRatio !== undefined ? { targetRatio: settings.historyRatio } : {}),
    boundary: boundary(),
  });
}

/**
 * The standard contenders: `none`, `truncation`, `fifo`, `clear-tool-results`, `acon-obs`, `acon-hist`,
 * `acon-both`.
 */
export function defaultStrategies(settings: StrategySettings = {}): ReplayStrategy[] {
  const threshold = settings.observationThreshold ?? OBSERVATION_THRESHOLD;
  const ratio = (settings.observationGuideline ?? DEFAULT_OBSERVATION_GUIDELINE).rules.ratio;
  return [
    { name: 'none', kind: 'none', baseline: true, create: () => ({ observation: [], history: [] }) },
    {
      name: 'truncation',
      kind: 'observation',
      baseline: true,
      create: () => ({ observation: [truncationProcessor(threshold, ratio, settings.toolThresholds)], history: [] }),
    },
    {
      name: 'fifo',
      kind: 'history',
      baseline: true,
      create: () => ({ observation: [], history: [fifoHistory({ lastTurns: settings.fifoTurns ?? 5 })] }),
    },
    {
      name: 'clear-tool-results',
      kind: 'history',
      baseline: true,
      create: () => ({ observation: [], history: [clearToolResults({ keepLast: settings.clearKeepLast ?? 3 })] }),
    },
    observationStrategy('acon-obs', settings),
    {
      name: 'acon-hist',
      kind: 'history',
      baseline: false,
      create: () => ({ observation: [], history: [cHist(settings)] }),
    },
    {
      name: 'acon-both',
      kind: 'both',
      baseline: false,
      create: () => ({ observation: [cObs(settings)], history: [cHist(settings)] }),
    },
  ];
}
