/**
 * Chooses a compressor backend from a spec: `extractive`, a model spec or instance (the LLM backend),
 * or a backend object as it is.
 */
import { OfflineModel } from '../models/offline.js';
import type { ModelSpec, ResolveModelOptions } from '../models/resolve.js';
import type { CompressorBackend } from './backend.js';
import { extractiveBackend, type ExtractiveBackendOptions } from './extractive-backend.js';
import { llmBackend } from './llm-backend.js';

/**
 * A compressor: `'extractive'` (no model), a model spec or LanguageModelV3 instance for the LLM backend,
 * or any {@link CompressorBackend}.
 */
export type CompressorSpec = 'extractive' | ModelSpec | CompressorBackend;

function isBackend(spec: CompressorSpec): spec is CompressorBackend {
  return typeof spec === 'object' && spec !== null && typeof (spec as CompressorBackend).compress === 'function';
}

/** True for the built-in offline model, by spec or instance: it is rules, not an LLM, and cannot follow a guideline. */
export function isOfflineModel(spec: ModelSpec): boolean {
  return spec === 'offline' || spec instanceof OfflineModel;
}

/** Options of {@link resolveBackend}. */
export interface ResolveBackendOptions {
  /** For the LLM backend: environment and offline policies, as for `resolveModel`. */
  modelOptions?: ResolveModelOptions;
  /** For the extractive backend. */
  extractive?: ExtractiveBackendOptions;
}

/**
 * Resolves a compressor spec to the backend it names. The offline model (`'offline'` or an instance) cannot compress, so it
 * resolves to the extractive backend, which obeys the same guideline's rules without a model.
 *
 * @example
 * resolveBackend('openai:gpt-4.1-mini'); // the LLM backend
 * resolveBackend('extractive');          // no model
 */
export function resolveBackend(
  spec: CompressorSpec = 'extractive',
  options: ResolveBackendOptions = {},
): CompressorBackend {
  if (isBackend(spec)) return spec;
  if (spec === 'extractive' || isOfflineModel(spec)) return extractiveBackend(options.extractive);
  return llmBackend({ model: spec, ...(options.modelOptions ? { modelOptions: options.modelOptions } : {}) });
}

/**
 * {@link resolveBackend} under the name it had before: it returns a backend, not a processor.
 *
 * @deprecated Use {@link resolveBackend}.
 */
export const resolveCompressor = resolveBackend;

/**
 * Options of {@link resolveBackend}, under the name they had before.
 *
 * @deprecated Use {@link ResolveBackendOptions}.
 */
export type ResolveCompressorOptions = ResolveBackendOptions;
