/**
 * The scripted model for tests: a queue of steps answered in order, every call recorded,
 * `assertComplete()` failing on unused steps, and a loud failure on a call the script did not expect.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { PagewiseError } from '../errors.js';
import { viewPrompt, type PromptView } from './prompt-view.js';

/** One scripted response: text, tool calls, or both. */
export interface ScriptedResponse {
  text?: string;
  toolCalls?: { toolName: string; input: unknown; toolCallId?: string }[];
  /** Raw argument text, to simulate a model that writes invalid JSON. Overrides `input`. */
  rawToolCalls?: { toolName: string; inputText: string; toolCallId?: string }[];
  usage?: { inputTokens?: number; outputTokens?: number };
}

/** A step: a string (text answer), a response, an Error to throw, or a function of the call. */
export type ScriptedStep =
  | string
  | ScriptedResponse
  | Error
  | ((call: {
      options: LanguageModelV3CallOptions;
      view: PromptView;
      index: number;
    }) => string | ScriptedResponse | Error);

/** Thrown when the scripted model is called more often, or less, than its script says. */
export class ScriptedModelError extends PagewiseError {
  constructor(message: string) {
    super({ code: 'scripted-model', fault: 'system', message });
  }
}

/** A LanguageModelV3 that answers from a script. */
export class ScriptedModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'scripted';
  readonly modelId: string;
  readonly supportedUrls = {};
  /** Every call's options, in order. */
  readonly calls: LanguageModelV3CallOptions[] = [];
  private readonly steps: ScriptedStep[];
  private next = 0;
  private ids = 0;

  constructor(steps: ScriptedStep[], options: { modelId?: string } = {}) {
    this.steps = [...steps];
    this.modelId = options.modelId ?? 'scripted';
  }

  /** Views of every call's prompt, for assertions. */
  get views(): PromptView[] {
    return this.calls.map((c) => viewPrompt(c));
  }

  /** Throws unless every step has been used. */
  assertComplete(): void {
    if (this.next < this.steps.length) {
      throw new ScriptedModelError(
        `The scripted model used ${this.next} of ${this.steps.length} steps; ${this.steps.length - this.next} were never requested.`,
      );
    }
  }

  private respond(options: LanguageModelV3CallOptions): LanguageModelV3GenerateResult {
    const index = this.next;
    const step = this.steps[index];
    this.calls.push(options);
    if (step === undefined) {
      const view = viewPrompt(options);
      const last = view.turns[view.turns.length - 1];
      throw new ScriptedModelError(
        `Unexpected model call #${index + 1}: the script has only ${this.steps.length} steps. Last turn: ${JSON.stringify(last).slice(0, 300)}`,
      );
    }
    this.next += 1;
    const resolved = typeof step === 'function' ? step({ options, view: viewPrompt(options), index }) : step;
    if (resolved instanceof Error) throw resolved;
    const response: ScriptedResponse = typeof resolved === 'string' ? { text: resolved } : resolved;
    const content: LanguageModelV3Content[] = [];
    if (response.text) content.push({ type: 'text', text: response.text });
    for (const call of response.toolCalls ?? []) {
      content.push({
        type: 'tool-call',
        toolCallId: call.toolCallId ?? `call-${++this.ids}`,
        toolName: call.toolName,
        input: JSON.stringify(call.input),
      });
    }
    for (const call of response.rawToolCalls ?? []) {
      content.push({
        type: 'tool-call',
        toolCallId: call.toolCallId ?? `call-${++this.ids}`,
        toolName: call.toolName,
        input: call.inputText,
      });
    }
    const hasCalls = content.some((c) => c.type === 'tool-call');
    return {
      content,
      finishReason: { unified: hasCalls ? 'tool-calls' : 'stop', raw: undefined },
      usage: {
        inputTokens: {
          total: response.usage?.inputTokens,
          noCache: undefined,
          cacheRead: undefined,
          cacheWrite: undefined,
        },
        outputTokens: { total: response.usage?.outputTokens, text: undefined, reasoning: undefined },
      },
      warnings: [],
    };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    options.abortSignal?.throwIfAborted();
    return this.respond(options);
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    options.abortSignal?.throwIfAborted();
    const result = this.respond(options);
    const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
    for (const part of result.content) {
      if (part.type === 'text') {
        parts.push({ type: 'text-start', id: 'text' });
        for (const word of part.text.split(/(?<= )/)) parts.push({ type: 'text-delta', id: 'text', delta: word });
        parts.push({ type: 'text-end', id: 'text' });
      } else if (part.type === 'tool-call') parts.push(part);
    }
    parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
    return { stream: new ReadableStream({ start: (ctl) => (parts.forEach((p) => ctl.enqueue(p)), ctl.close()) }) };
  }
}

/** Creates a {@link ScriptedModel}. */
export function scriptedModel(steps: ScriptedStep[], options?: { modelId?: string }): ScriptedModel {
  return new ScriptedModel(steps, options);
}
