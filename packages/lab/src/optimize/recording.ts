/**
 * A compressor backend that records every call it passes through: the input, the guideline (id,
 * version, behaviour hash), the rendered prompt and the output, tagged with the episode and task. The
 * optimizer's failure analysis reads the records of an episode; a store keeps them for distillation.
 */
import { randomUUID } from 'node:crypto';
import {
  compressorPrompt,
  type CompressionContext,
  type CompressionInput,
  type CompressorBackend,
} from 'pagewise/compression';
import type { CompressorCallRecord, CompressorCallStore } from 'pagewise/store-kit';
import { guidelineHash } from './hash.js';

/** Options of {@link recordingBackend}. */
export interface RecordingBackendOptions {
  /** The episode the calls serve; score it later with `store.setEpisodeSuccess(episodeId, …)`. */
  episodeId: string;
  taskId: string;
  /** Where records go; none to only hand them to `onRecord`. */
  store?: CompressorCallStore;
  /** Sees every record as it is made (after the store has it). */
  onRecord?: (record: CompressorCallRecord) => void;
}

/**
 * Wraps a backend so every successful call is recorded. A call that throws is not recorded: it has no
 * output to learn from. Records start unscored (`success: null`).
 *
 * @example
 * const store = new SqliteCompressorCallStore({ path: '.pagewise/pagewise.db' });
 * const backend = recordingBackend(resolveBackend('openai:gpt-4.1-mini'), { store, episodeId, taskId });
 * // ... run the episode with `backend`, score it, then:
 * await store.setEpisodeSuccess(episodeId, succeeded ? 1 : 0);
 */
export function recordingBackend(backend: CompressorBackend, options: RecordingBackendOptions): CompressorBackend {
  return {
    name: backend.name,
    async compress(input: CompressionInput, context: CompressionContext): Promise<string> {
      const output = await backend.compress(input, context);
      const record: CompressorCallRecord = {
        id: randomUUID(),
        episodeId: options.episodeId,
        taskId: options.taskId,
        target: input.target,
        guideline: { id: input.guideline.id, version: input.guideline.version, hash: guidelineHash(input.guideline) },
        backend: backend.name,
        input: {
          task: input.task,
          history: input.history,
          previousSummary: input.previousSummary,
          observation: input.observation,
          ...(input.toolName !== undefined ? { toolName: input.toolName } : {}),
          maxTokens: input.maxTokens,
        },
        prompt: compressorPrompt(input),
        output,
        at: Date.now(),
        success: null,
      };
      await options.store?.add(record);
      options.onRecord?.(record);
      return output;
    },
  };
}

/**
 * The recording backend under the name it had before: it wraps a backend, not a processor like `historyCompressor`.
 *
 * @deprecated Use {@link recordingBackend}.
 */
export const recordingCompressor = recordingBackend;

/**
 * Options of the recording backend under the name they had before.
 *
 * @deprecated Use {@link RecordingBackendOptions}.
 */
export type RecordingCompressorOptions = RecordingBackendOptions;
