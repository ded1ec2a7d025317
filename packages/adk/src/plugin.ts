/**
 * pagewise context management as an ADK plugin: history processors (ACON's C_hist, paging-turn
 * compaction, FIFO, ...) rewrite each model request's contents in `beforeModelCallback`; observation
 * processors (C_obs, auto-paging) rewrite each tool response in `afterToolCallback`, after its raw text
 * is kept as a page, so ADK stores only the compressed text and its handle. Every model call is
 * measured into a pagewise ledger.
 */
import { BasePlugin, type BaseTool, type Context, type LlmRequest, type LlmResponse } from '@google/adk';
import { splitInstruction, type ObservationProcessor, type ToolObservation } from 'pagewise/context';
import type { ContextProcessor } from 'pagewise/context';
import { Ledger } from 'pagewise';
import { countTokens } from 'pagewise';
import { HistoryBridge } from 'pagewise/adapter-kit';
import { measureCallOptions } from 'pagewise/ai-sdk';
import { llmRequestToCallOptions } from './ai-sdk-llm.js';
import { contentsCodec, functionResponseText, readContents } from './contents.js';
import { eventsToItems } from 'pagewise/internal';
import type { SessionEvent } from 'pagewise';

/** Options of {@link PagewiseAdkPlugin}. */
export interface PagewiseAdkPluginOptions {
  /** Processors of each model request's history, in order. */
  processors?: ContextProcessor[];
  /** Processors of each tool response, in order. */
  observationProcessors?: ObservationProcessor[];
  /** Receives one entry per model call (and the compressors' calls). Default: a new ledger. */
  ledger?: Ledger;
  /** Apply only to these agents. Default: every agent. */
  agents?: readonly string[];
  /** Services processors look up by key. */
  services?: ReadonlyMap<string, unknown>;
  /** Plugin name (unique within an ADK runner). Default `pagewise`. */
  name?: string;
}

function userText(ctx: Context): string {
  return (ctx.userContent?.parts ?? [])
    .map((p) => p.text ?? '')
    .join('')
    .trim();
}

/**
 * The plugin. Add it to an ADK `Runner`'s `plugins`.
 *
 * @example
 * const cObs = observationCompressor({ service: paging });
 * const runner = new Runner({ appName, agent, sessionService, plugins: [new PagewiseAdkPlugin({ observationProcessors: [cObs], processors: [historyCompressor()] })] });
 */
export class PagewiseAdkPlugin extends BasePlugin {
  /** Model calls and compressor calls, measured with the project's tokenizer. */
  readonly ledger: Ledger;
  private readonly bridge: HistoryBridge;
  private readonly observationProcessors: readonly ObservationProcessor[];
  private readonly agents: ReadonlySet<string> | undefined;
  private readonly services: ReadonlyMap<string, unknown>;
  private readonly pending = new Map<
    string,
    { parts: ReturnType<typeof measureCallOptions>; model: string; at: number }
  >();

  constructor(options: PagewiseAdkPluginOptions = {}) {
    super(options.name ?? 'pagewise');
    this.ledger = options.ledger ?? new Ledger();
    this.bridge = new HistoryBridge(options.processors ?? []);
    this.observationProcessors = options.observationProcessors ?? [];
    this.agents = options.agents ? new Set(options.agents) : undefined;
    this.services = options.services ?? new Map();
  }

  private applies(agentName: string): boolean {
    return !this.agents || this.agents.has(agentName);
  }

  override async beforeModelCallback({
    callbackContext,
    llmRequest,
  }: {
    callbackContext: Context;
    llmRequest: LlmRequest;
  }): Promise<LlmResponse | undefined> {
    if (this.applies(callbackContext.agentName)) {
      const stepBlock = takeStepBlock(llmRequest);
      llmRequest.contents = [
        ...(await this.bridge.apply(llmRequest.contents, contentsCodec, {
          sessionId: callbackContext.sessionId,
          agentName: callbackContext.agentName,
          invocationId: callbackContext.invocationId,
          task: userText(callbackContext),
          ledger: this.ledger,
          services: this.services,
          ...(callbackContext.abortSignal ? { signal: callbackContext.abortSignal } : {}),
        })),
      ];
      // For this call only, after the history: ADK rebuilds the contents from its events at every call.
      if (stepBlock) llmRequest.contents.push({ role: 'user', parts: [{ text: stepBlock }] });
    }
    this.pending.set(`${callbackContext.invocationId}:${callbackContext.agentName}`, {
      parts: measureCallOptions(llmRequestToCallOptions(llmRequest)),
      model: llmRequest.model ?? '',
      at: Date.now(),
    });
    return undefined;
  }

  override async afterModelCallback({
    callbackContext,
    llmResponse,
  }: {
    callbackContext: Context;
    llmResponse: LlmResponse;
  }): Promise<LlmResponse | undefined> {
    const key = `${callbackContext.invocationId}:${callbackContext.agentName}`;
    const pending = this.pending.get(key);
    if (!pending || llmResponse.partial) return undefined;
    this.pending.delete(key);
    const completion = (llmResponse.content?.parts ?? [])
      .map(
        (p) => (p.text ?? '') + (p.functionCall ? `${p.functionCall.name}${JSON.stringify(p.functionCall.args)}` : ''),
      )
      .join('');
    this.ledger.record({
      kind: 'agent',
      agent: callbackContext.agentName,
      model: pending.model,
      invocationId: callbackContext.invocationId,
      parts: pending.parts.parts,
      promptTokens: pending.parts.total,
      completionTokens: countTokens(completion),
      ...(llmResponse.usageMetadata?.promptTokenCount !== undefined
        ? { providerPromptTokens: llmResponse.usageMetadata.promptTokenCount }
        : {}),
      ...(llmResponse.usageMetadata?.candidatesTokenCount !== undefined
        ? { providerCompletionTokens: llmResponse.usageMetadata.candidatesTokenCount }
        : {}),
      modelMs: Date.now() - pending.at,
      frameworkMs: 0,
      at: pending.at,
    });
    return undefined;
  }

  override async afterToolCallback({
    tool,
    toolArgs,
    toolContext,
    result,
  }: {
    tool: BaseTool;
    toolArgs: Record<string, unknown>;
    toolContext: Context;
    result: Record<string, unknown>;
  }): Promise<Record<string, unknown> | undefined> {
    if (this.observationProcessors.length === 0 || !this.applies(toolContext.agentName)) return undefined;
    const { text, isError } = functionResponseText(result);
    const session = toolContext.invocationContext.session;
    const recent: SessionEvent[] = readContents(session.events.filter((e) => e.content).map((e) => e.content!)).map(
      ({ event }, index) =>
        event.kind === 'user'
          ? { id: `r${index}`, invocationId: '', author: 'user', timestamp: 0, ...event }
          : { id: `r${index}`, invocationId: '', author: toolContext.agentName, timestamp: 0, ...event },
    );
    let obs: ToolObservation = {
      toolCallId: toolContext.functionCallId ?? `${toolContext.invocationId}:${tool.name}`,
      toolName: tool.name,
      input: toolArgs,
      output: text,
      isError,
    };
    for (const processor of this.observationProcessors) {
      obs = await processor.process(obs, {
        invocationId: toolContext.invocationId,
        agentName: toolContext.agentName,
        sessionId: toolContext.sessionId,
        task: userText(toolContext),
        recentItems: eventsToItems(recent),
        services: this.services,
        ledger: this.ledger,
        signal: toolContext.abortSignal ?? new AbortController().signal,
      });
    }
    return obs.output === text ? undefined : { result: obs.output };
  }
}

/**
 * Takes the step block (see `adkInstruction`) out of the request's system instruction, leaving the part that stays
 * the same; `''` when the instruction has none.
 */
function takeStepBlock(llmRequest: LlmRequest): string {
  const system = llmRequest.config?.systemInstruction;
  if (typeof system !== 'string') return '';
  const { system: stable, stepBlock } = splitInstruction(system);
  if (stepBlock) llmRequest.config = { ...llmRequest.config, systemInstruction: stable };
  return stepBlock;
}
