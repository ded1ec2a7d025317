/**
 * Chooses a compressor backend from a spec: `extractive`, a model spec or instance (the LLM backend),
 * or a backend object as it is.
 */
import { OfflineModel } from '../models/offline.js';
import type { ModelSpec, ResolveModelOptions } from '../models/resolve.js';
import type { CompressorBackend } from './backend.js';
import { extractiveCompressor, type ExtractiveCompressorOptions } from './extractive-backend.js';
import { llmCompressor } from './llm-backend.js';

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

/** Options of {@link resolveCompressor}. */
export interface ResolveCompressorOptions {
  /** For the LLM backend: environment and offline policies, as for `resolveModel`. */
  modelOptions?: ResolveModelOptions;
  /** For the extractive backend. */
  extractive?: ExtractiveCompressorOptions;
}

/**
 * Resolves a compressor spec. The offline model (`'offline'` or an instance) cannot compress, so it
 * resolves to the extractive backend, which obeys the same guideline's rules without a model.
 *
 * @example
 * resolveCompressor('openai:gpt-4.1-mini'); // the LLM backend
 * resolveCompressor('extractive');          // no model
 */
export function resolveCompressor(
  spec: CompressorSpec = 'extractive',
  options: ResolveCompressorOptions = {},
): CompressorBackend {
  if (isBackend(spec)) return spec;
  if (spec === 'extractive' || isOfflineModel(spec)) return extractiveCompressor(options.extractive);
  return llmCompressor({ model: spec, ...(options.modelOptions ? { modelOptions: options.modelOptions } : {}) });
}
