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
  for (const [k, v] of Object.entries(schema)) {
    if (v === undefined || v === null) continue;
    if (k === 'type' && typeof v === 'string') out.type = v.toLowerCase();
    else if (k === 'properties' && typeof v === 'object')
      out.properties = Object.fromEntries(
        Object.entries(v as Schema).map(([p, s]) => [p, genaiSchemaToJson(s as Schema)]),
      );
    else if (k === 'items' && typeof v === 'object') out.items = genaiSchemaToJson(v as Schema);
    else if (k === 'anyOf' && Array.isArray(v)) out.anyOf = v.map((s) => genaiSchemaToJson(s as Schema));
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
      ].includes(k)
    )
      out[k] = ['minItems', 'maxItems', 'minLength', 'maxLength'].includes(k) ? Number(v) : v;
  }
  return out as JSONSchema7;
}

function systemText(request: LlmRequest): string {
  const s = request.config?.systemInstruction as unknown;
  if (!s) return '';
  if (typeof s === 'string') return s;
  const parts = Array.isArray(s) ? s : ((s as AdkContent).parts ?? [s]);
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
      for (const p of parts) {
        if (typeof p.text === 'string' && !p.thought) out.push({ type: 'text', text: p.text });
        if (p.functionCall)
          out.push({
            type: 'tool-call',
            toolCallId: p.functionCall.id ?? '',
            toolName: p.functionCall.name ?? '',
            input: JSON.stringify(p.functionCall.args ?? {}),
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
        content: results.map((p) => {
          const r = p.functionResponse!;
          const { text: value, isError } = functionResponseText(r.response);
          return {
            type: 'tool-result' as const,
            toolCallId: r.id ?? '',
            toolName: r.name ?? '',
            output: isError ? { type: 'error-text' as const, value } : { type: 'text' as const, value },
          };
        }),
      });
    }
  }
  const tools: LanguageModelV3FunctionTool[] = [];
  for (const t of request.config?.tools ?? []) {
    for (const d of (t as { functionDeclarations?: Schema[] }).functionDeclarations ?? []) {
      tools.push({
        type: 'function',
        name: String(d.name),
        description: String(d.description ?? ''),
        inputSchema: (d.parametersJsonSchema as JSONSchema7 | undefined) ?? genaiSchemaToJson(d.parameters as Schema),
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
    for (const c of result.content) {
      if (c.type === 'text' && c.text) parts.push({ text: c.text });
      if (c.type === 'tool-call') {
        let args: Record<string, unknown>;
        try {
          const parsed = JSON.parse(c.input || '{}') as unknown;
          args =
            parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
        } catch {
          yield {
            errorCode: 'MALFORMED_FUNCTION_CALL',
            errorMessage: `The model called ${c.toolName} with arguments that are not JSON.`,
          };
          return;
        }
        parts.push({ functionCall: { id: c.toolCallId, name: c.toolName, args } });
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
