/**
 * Recorded compressor calls: what a compressor was given, under which guideline, what it wrote, and how
 * the episode it served scored. They feed the optimizer's failure analysis and, from successful
 * episodes, the distillation of the compressor into a small model. A call is recorded as it happens;
 * its episode's score is set once the episode is scored, so an episode that never finished is never
 * taken for a success.
 */
import { z } from 'zod';
import { ConfigurationError } from '../errors.js';
import type { GuidelineTarget } from './guideline.js';

/** Version of the stored call body; readers refuse versions they do not know. */
export const COMPRESSOR_CALL_SCHEMA = 1;

/** What the compressor was given, without the structured turns (the `history` text renders them). */
export interface CompressorCallInput {
  task: string;
  history: string;
  previousSummary: string;
  observation: string;
  toolName?: string;
  maxTokens: number;
}

/** One compressor call. */
export interface CompressorCallRecord {
  /** Unique id of the call. */
  id: string;
  /** The episode the call served; its score is set on every call of the episode at once. */
  episodeId: string;
  /** The task the episode ran. */
  taskId: string;
  target: GuidelineTarget;
  /** The guideline that steered the call: id and version as written, hash of its behaviour. */
  guideline: { id: string; version: number; hash: string };
  /** The backend's name (`extractive`, `llm(openai:gpt-4.1-mini)`). */
  backend: string;
  input: CompressorCallInput;
  /** The guideline rendered with the input: the prompt an LLM compressor is (or would be) sent. */
  prompt: string;
  /** What the compressor wrote. */
  output: string;
  /** Milliseconds since the epoch. */
  at: number;
  /** The episode's score in [0, 1] (1: succeeded, 0: failed); null until the episode is scored. */
  success: number | null;
}

/** Which calls {@link CompressorCallStore.list} returns; every field given must match. */
export interface CompressorCallFilter {
  target?: GuidelineTarget;
  episodeId?: string;
  guidelineId?: string;
  guidelineVersion?: number;
  /** Only calls of episodes scored at least this (calls of unscored episodes never match). */
  minSuccess?: number;
}

/** Where compressor calls are kept: in memory, or SQLite (`SqliteCompressorCallStore`). */
export interface CompressorCallStore {
  add(record: CompressorCallRecord): Promise<void>;
  /** Sets the score of every call of an episode; returns how many calls it set. */
  setEpisodeSuccess(episodeId: string, success: number): Promise<number>;
  /** Calls matching `filter`, oldest first. */
  list(filter?: CompressorCallFilter): Promise<CompressorCallRecord[]>;
  close(): Promise<void>;
}

/** The stored body of a call (what is not a column), validated when read back. */
export const CompressorCallBodySchema = z.object({
  schema: z.literal(COMPRESSOR_CALL_SCHEMA),
  input: z.object({
    task: z.string(),
    history: z.string(),
    previousSummary: z.string(),
    observation: z.string(),
    toolName: z.string().optional(),
    maxTokens: z.number().int().nonnegative(),
  }),
  prompt: z.string(),
  output: z.string(),
});

/** Refuses a score outside [0, 1], which would make `minSuccess` filters meaningless. */
export function checkSuccess(success: number): void {
  if (!Number.isFinite(success) || success < 0 || success > 1) {
    throw new ConfigurationError(
      'invalid-success',
      `An episode score must be a number from 0 to 1 (1 = succeeded), got ${success}.`,
    );
  }
}

/** True when `record` passes `filter`. */
export function matchesCallFilter(record: CompressorCallRecord, filter: CompressorCallFilter = {}): boolean {
  if (filter.target !== undefined && record.target !== filter.target) return false;
  if (filter.episodeId !== undefined && record.episodeId !== filter.episodeId) return false;
  if (filter.guidelineId !== undefined && record.guideline.id !== filter.guidelineId) return false;
  if (filter.guidelineVersion !== undefined && record.guideline.version !== filter.guidelineVersion) return false;
  if (filter.minSuccess !== undefined && (record.success === null || record.success < filter.minSuccess)) return false;
  return true;
}

/**
 * A {@link CompressorCallStore} in memory, for tests and for runs whose calls need not outlive them.
 *
 * @example
 * const store = new InMemoryCompressorCallStore();
 * const backend = recordingBackend(extractiveBackend(), { store, episodeId: 'e1', taskId: 't1' });
 */
export class InMemoryCompressorCallStore implements CompressorCallStore {
  private readonly records: CompressorCallRecord[] = [];

  async add(record: CompressorCallRecord): Promise<void> {
    if (record.success !== null) checkSuccess(record.success);
    this.records.push(structuredClone(record));
  }

  async setEpisodeSuccess(episodeId: string, success: number): Promise<number> {
    checkSuccess(success);
    let updated = 0;
    for (const record of this.records) {
      if (record.episodeId !== episodeId) continue;
      record.success = success;
      updated += 1;
    }
    return updated;
  }

  async list(filter: CompressorCallFilter = {}): Promise<CompressorCallRecord[]> {
    return this.records.filter((r) => matchesCallFilter(r, filter)).map((r) => structuredClone(r));
  }

  async close(): Promise<void> {}
}
