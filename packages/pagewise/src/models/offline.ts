/**
 * The `offline` model: a deterministic, rule-based LanguageModelV3 that needs no key. It reads only the
 * request it is given (no side channel to any data), so when a context strategy drops a fact the model
 * needs, it fails; that makes it an honest probe of context quality. It says in its answers that it is
 * not an LLM. Scenario policies teach it their tasks; the first policy whose `matches` is true decides.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { countTokens } from '../tokens/tokenizer.js';
import { viewPrompt, type PromptView } from './prompt-view.js';

/** What a policy decides to do at one step: answer, or call tools. */
export type OfflineDecision =
  { text: string; toolCalls?: undefined } | { text?: string; toolCalls: { toolName: string; input: unknown }[] };

/** A rule set for one kind of task. */
export interface OfflinePolicy {
  /** A short name, for errors and logs. */
  readonly name: string;
  /** True when this policy recognizes the task from the prompt alone. */
  matches(view: PromptView): boolean;
  /** The next action, computed from the prompt alone. */
  decide(view: PromptView): OfflineDecision;
}

/** The sentence every offline answer starts with, so no reader mistakes it for an LLM. */
export const OFFLINE_DISCLAIMER = '[offline model: deterministic rules, not an LLM]';

/** The fallback policy: acknowledges the last user message, or transfers/escalates when told to. */
export const echoPolicy: OfflinePolicy = {
  name: 'echo',
  matches: () => true,
  decide(view) {
    const last = view.turns[view.turns.length - 1];
    if (last?.role === 'tool') {
      const summary = last.results.map((r) => `${r.toolName}: ${r.output.slice(0, 200)}`).join('; ');
      return { text: `${OFFLINE_DISCLAIMER} Tool results received: ${summary}` };
    }
    const words = view.lastUserText.trim().split(/\s+/).filter(Boolean).length;
    return {
      text: `${OFFLINE_DISCLAIMER} I read your message (${words} words): "${view.lastUserText.slice(0, 200)}".`,
    };
  },
};

/** Options of {@link createOfflineModel}. */
export interface OfflineModelOptions {
  /** Policies tried in order before the fallback echo policy. */
  policies?: OfflinePolicy[];
  /** The model id reported in ledgers; `offline` by default. */
  modelId?: string;
}

/** A LanguageModelV3 whose answers are computed by {@link OfflinePolicy} rules from the prompt alone. */
export class OfflineModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'pagewise';
  readonly modelId: string;
  readonly supportedUrls = {};
  private readonly policies: OfflinePolicy[];
  private callCount = 0;

  constructor(options: OfflineModelOptions = {}) {
    this.policies = [...(options.policies ?? []), echoPolicy];
    this.modelId = options.modelId ?? 'offline';
  }

  /** Registers a policy ahead of the ones already present. */
  use(policy: OfflinePolicy): this {
    this.policies.unshift(policy);
    return this;
  }

  private decide(options: LanguageModelV3CallOptions): {
    content: LanguageModelV3Content[];
    inputTokens: number;
    outputTokens: number;
  } {
    const view = viewPrompt(options);
    const policy = this.policies.find((p) => p.matches(view)) ?? echoPolicy;
    const decision = policy.decide(view);
    const offered = new Set(view.toolNames);
    const content: LanguageModelV3Content[] = [];
    let outputText = '';
    if (decision.text) {
      content.push({ type: 'text', text: decision.text });
      outputText += decision.text;
    }
    for (const call of decision.toolCalls ?? []) {
      if (!offered.has(call.toolName)) {
        // A rule-based model must not call tools it was not offered; answer instead, loudly.
        const text = `${OFFLINE_DISCLAIMER} policy "${policy.name}" wanted tool "${call.toolName}", which this request does not offer.`;
        content.push({ type: 'text', text });
        outputText += text;
        continue;
      }
      const input = JSON.stringify(call.input ?? {});
      this.callCount += 1;
      content.push({ type: 'tool-call', toolCallId: `offline-${this.callCount}`, toolName: call.toolName, input });
      outputText += input;
    }
    return { content, inputTokens: countTokens(view.fullText), outputTokens: countTokens(outputText) };
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    options.abortSignal?.throwIfAborted();
    const { content, inputTokens, outputTokens } = this.decide(options);
    const hasCalls = content.some((c) => c.type === 'tool-call');
    return {
      content,
      finishReason: { unified: hasCalls ? 'tool-calls' : 'stop', raw: undefined },
      usage: {
        inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
      },
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const result = await this.doGenerate(options);
    const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
    for (const part of result.content) {
      if (part.type === 'text') {
        parts.push({ type: 'text-start', id: 't' });
        for (const chunk of part.text.match(/.{1,40}/gs) ?? [])
          parts.push({ type: 'text-delta', id: 't', delta: chunk });
        parts.push({ type: 'text-end', id: 't' });
      } else if (part.type === 'tool-call') {
        parts.push(part);
      }
    }
    parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }
}

/** Creates the offline model with the given policies (the echo policy is always last). */
export function createOfflineModel(options: OfflineModelOptions = {}): OfflineModel {
  return new OfflineModel(options);
}
