/**
 * An ADK model over any AI SDK `LanguageModelV3`: ADK agents can then run on the providers pagewise
 * resolves ("openai:...", Ollama, ...), on the offline model, or on pagewise's scripted test model,
 * which is how the adapter's tests drive ADK without a network.
 */
import { BaseLlm, type BaseLlmConnection, type LlmRequest, type LlmResponse } from '@google/adk';
import type {
  JSONSchema7,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { STEP_BLOCK_HEADER, STEP_BLOCK_MARK } from 'pagewise/context';
import { functionResponseText, type AdkContent } from './contents.js';

type Schema = Record<string, unknown>;

/** Converts a genai `Schema` (upper-case types) into JSON Schema. */
export function genaiSchemaToJson(schema: Schema | undefined): JSONSchema7 {
  if (!schema) return { type: 'object', properties: {} };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined || value === null) continue;
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'properties' && typeof value === 'object')
      out.properties = Object.fromEntries(
        Object.entries(value as Schema).map(([p, s]) => [p, genaiSchemaToJson(s as Schema)]),
      );
    else if (key === 'items' && typeof value === 'object') out.items = genaiSchemaToJson(value as Schema);
    else if (key === 'anyOf' && Array.isArray(value)) out.anyOf = value.map((s) => genaiSchemaToJson(s as Schema));
    else if (
      [
        'description',
        'enum',
        'required',
        'format',
        'minimum',
        'maximum',
        'minItems',
        'maxItems',
        'minLength',
        'maxLength',
        'pattern',
      ].includes(key)
    )
      out[key] = ['minItems', 'maxItems', 'minLength', 'maxLength'].includes(key) ? Number(value) : value;
  }
  return out as JSONSchema7;
}

function systemText(request: LlmRequest): string {
  const instruction = request.config?.systemInstruction as unknown;
  if (!instruction) return '';
  if (typeof instruction === 'string') return instruction;
  const parts = Array.isArray(instruction) ? instruction : ((instruction as AdkContent).parts ?? [instruction]);
  return (parts as { text?: string }[]).map((p) => (typeof p === 'string' ? p : (p.text ?? ''))).join('\n');
}

/** Converts an ADK request into AI SDK call options (system, messages, function tools). */
export function llmRequestToCallOptions(request: LlmRequest, abortSignal?: AbortSignal): LanguageModelV3CallOptions {
  const prompt: LanguageModelV3Prompt = [];
  const system = systemText(request);
  if (system) prompt.push({ role: 'system', content: system });
  for (const content of request.contents) {
    const parts = content.parts ?? [];
    if (content.role === 'model') {
      const out: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
      for (const part of parts) {
        if (typeof part.text === 'string' && !part.thought) out.push({ type: 'text', text: part.text });
        if (part.functionCall)
          out.push({
            type: 'tool-call',
            toolCallId: part.functionCall.id ?? '',
            toolName: part.functionCall.name ?? '',
            input: JSON.stringify(part.functionCall.args ?? {}),
          });
      }
      if (out.length) prompt.push({ role: 'assistant', content: out });
      continue;
    }
    const text = parts.filter((p) => typeof p.text === 'string').map((p) => p.text!);
    // The plugin's step block: the last content, after the history, marked as the runner marks it.
    const stepBlock =
      content === request.contents[request.contents.length - 1] && text[0]?.startsWith(STEP_BLOCK_HEADER) === true;
    if (text.length)
      prompt.push({
        role: 'user',
        content: text.map((t) => ({ type: 'text' as const, text: t })),
        ...(stepBlock ? { providerOptions: STEP_BLOCK_MARK } : {}),
      });
    const results = parts.filter((p) => p.functionResponse);
    if (results.length) {
      prompt.push({
        role: 'tool',
        content: results.map((part) => {
          const response = part.functionResponse!;
          const { text: value, isError } = functionResponseText(response.response);
          return {
            type: 'tool-result' as const,
            toolCallId: response.id ?? '',
            toolName: response.name ?? '',
            output: isError ? { type: 'error-text' as const, value } : { type: 'text' as const, value },
          };
        }),
      });
    }
  }
  const tools: LanguageModelV3FunctionTool[] = [];
  for (const tool of request.config?.tools ?? []) {
    for (const declaration of (tool as { functionDeclarations?: Schema[] }).functionDeclarations ?? []) {
      tools.push({
        type: 'function',
        name: String(declaration.name),
        description: String(declaration.description ?? ''),
        inputSchema:
          (declaration.parametersJsonSchema as JSONSchema7 | undefined) ??
          genaiSchemaToJson(declaration.parameters as Schema),
      });
    }
  }
  return { prompt, ...(tools.length ? { tools } : {}), ...(abortSignal ? { abortSignal } : {}) };
}

/**
 * An ADK `BaseLlm` that calls an AI SDK `LanguageModelV3` (non-streaming; live connections are not
 * supported).
 *
 * @example
 * const agent = new LlmAgent({ name: 'a', model: new AiSdkLlm(resolveModel('openai:gpt-4.1-mini')) });
 */
export class AiSdkLlm extends BaseLlm {
  /** Every request ADK sent, converted, in order (for tests and token accounting). */
  readonly calls: LanguageModelV3CallOptions[] = [];

  constructor(
    readonly languageModel: LanguageModelV3,
    options: { model?: string } = {},
  ) {
    super({ model: options.model ?? `${languageModel.provider}:${languageModel.modelId}` });
  }

  async *generateContentAsync(
    llmRequest: LlmRequest,
    _stream?: boolean,
    abortSignal?: AbortSignal,
  ): AsyncGenerator<LlmResponse, void> {
    const options = llmRequestToCallOptions(llmRequest, abortSignal);
    this.calls.push(options);
    const result = await this.languageModel.doGenerate(options);
    const parts: NonNullable<AdkContent['parts']> = [];
    for (const content of result.content) {
      if (content.type === 'text' && content.text) parts.push({ text: content.text });
      if (content.type === 'tool-call') {
        let args: Record<string, unknown>;
        try {
          const parsed = JSON.parse(content.input || '{}') as unknown;
          args =
            parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
        } catch {
          yield {
            errorCode: 'MALFORMED_FUNCTION_CALL',
            errorMessage: `The model called ${content.toolName} with arguments that are not JSON.`,
          };
          return;
        }
        parts.push({ functionCall: { id: content.toolCallId, name: content.toolName, args } });
      }
    }
    yield {
      content: { role: 'model', parts },
      turnComplete: true,
      usageMetadata: {
        ...(result.usage.inputTokens.total !== undefined ? { promptTokenCount: result.usage.inputTokens.total } : {}),
        ...(result.usage.outputTokens.total !== undefined
          ? { candidatesTokenCount: result.usage.outputTokens.total }
          : {}),
      },
    };
  }

  async connect(_llmRequest: LlmRequest): Promise<BaseLlmConnection> {
    throw new Error('AiSdkLlm does not support live (bidirectional) connections; use runAsync.');
  }
}
