/**
 * The LLM compressor backend: the guideline rendered with every placeholder filled is the whole prompt
 * (one user message), the model's text is the compressed observation or summary, and the call is
 * recorded in the run's ledger as kind `compressor`, so compression has a visible cost. The model is any
 * spec or instance, independent of the agent's (ACON distils the compressor into a smaller model).
 */
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { ModelBehaviorError } from '../errors.js';
import { modelLabel, resolveModel, type ModelSpec, type ResolveModelOptions } from '../models/resolve.js';
import { withRetry, type RetryOptions } from '../models/retry.js';
import { emptyParts } from '../tokens/ledger.js';
import { countTokens, encodingForModel } from '../tokens/tokenizer.js';
import { guidelineValues, type CompressionContext, type CompressionInput, type CompressorBackend } from './backend.js';
import { renderGuideline } from './guideline.js';

/** Options of {@link llmCompressor}. */
export interface LlmCompressorOptions {
  /** The compressor model: a spec (`openai:gpt-4.1-mini`) or a LanguageModelV3 instance. */
  model: ModelSpec;
  /** Passed to {@link resolveModel} (environment, offline policies). */
  modelOptions?: ResolveModelOptions;
  /** Retries of provider faults, as for the agent's calls. */
  retry?: RetryOptions;
  /**
   * A hard cap on completion tokens sent to the provider, as `n · max_tokens + extra`. Default
   * `{ factor: 2, extra: 256 }`: room for a model that overshoots the budget a little, never a runaway.
   */
  outputLimit?: { factor: number; extra: number };
  /** Sampling temperature. Default 0: a compressor should be as repeatable as the provider allows. */
  temperature?: number;
}

/**
 * Creates the LLM backend.
 *
 * @example
 * const backend = llmCompressor({ model: 'openai:gpt-4.1-mini' });
 * const processor = observationCompressor({ compressor: backend });
 */
export function llmCompressor(options: LlmCompressorOptions): CompressorBackend {
  let model: LanguageModelV3 | undefined;
  const label = modelLabel(options.model);
  const limit = options.outputLimit ?? { factor: 2, extra: 256 };
  return {
    name: `llm(${label})`,
    async compress(input: CompressionInput, context: CompressionContext): Promise<string> {
      // Resolved on first use, so building a strategy never needs the key of a model it does not call.
      model ??= resolveModel(options.model, options.modelOptions);
      const resolved = model;
      const prompt = renderGuideline(input.guideline, guidelineValues(input));
      const call: LanguageModelV3CallOptions = {
        prompt: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
        maxOutputTokens: Math.ceil(limit.factor * input.maxTokens + limit.extra),
        temperature: options.temperature ?? 0,
      };
      const started = performance.now();
      const result = await withRetry(
        (signal) => resolved.doGenerate({ ...call, abortSignal: signal }),
        context.signal,
        options.retry,
      );
      const modelMs = performance.now() - started;
      const text = result.content
        .map((c) => (c.type === 'text' ? c.text : ''))
        .join('')
        .trim();
      const encoding = encodingForModel(resolved.modelId);
      const promptTokens = countTokens(prompt, encoding);
      const parts = emptyParts();
      parts[input.target] = promptTokens;
      const providerPrompt = result.usage.inputTokens.total;
      const providerCompletion = result.usage.outputTokens.total;
      context.ledger?.record({
        kind: 'compressor',
        agent: `${context.agentName}:${input.target}-compressor`,
        model: label,
        invocationId: context.invocationId,
        parts,
        promptTokens,
        completionTokens: countTokens(text, encoding),
        ...(providerPrompt !== undefined ? { providerPromptTokens: providerPrompt } : {}),
        ...(providerCompletion !== undefined ? { providerCompletionTokens: providerCompletion } : {}),
        modelMs,
        frameworkMs: 0,
        at: Date.now(),
      });
      if (text === '') {
        throw new ModelBehaviorError(
          'empty-compression',
          `The compressor model ${label} returned no text for the ${input.target} guideline "${input.guideline.id}" v${input.guideline.version}. ` +
            'Check the model and the guideline, or use the extractive backend.',
        );
      }
      return text;
    },
  };
}
