/**
 * The step block in each framework adapter: what the prompt cache serves, and what that saves, when the part of
 * the instruction that changes per step (saved results, the fenced pages) goes after the history instead of into
 * the system message. One paging workload runs on each adapter (AI SDK `createAiSdkPaging`, LangChain
 * `pagewiseInstructionMiddleware`, Mastra `pagewiseInstructionProcessor`, Google ADK `PagewiseAdkPlugin`, OpenAI
 * Agents `pagewiseInputFilter`), driven by a scripted model whose decisions depend on the call's index only: at
 * call i it loads batch i of the generated reports with `get_reports` (from the second call on also saving a short
 * result for the previous batch with `save_result`), then it answers. Every adapter makes the same decisions.
 *
 * Two layouts per adapter:
 * - "after", the current code: the system message stays the same from call to call and the per-step part is a
 *   last user message after the history, starting with `STEP_BLOCK_HEADER`.
 * - "before", the previous layout: the step block's text folded into the end of the system message and the step
 *   block message removed. For OpenAI Agents it is the real option, `pagewiseInputFilter({ stepBlock:
 *   'instructions' })`; for the other adapters it is a reconstruction, applied to each request as the model
 *   received it.
 *
 * Each request (the prompt as the model received it, and the tool definitions) is priced by the core prompt-cache
 * model, as `bench/cache-parity.ts` prices its sides (`PromptCache.observePrompt`, the provider's
 * `promptCacheRulesFor`, `callCostUsd`, `DEFAULT_PRICES`), one cache key per adapter and layout, at two OpenAI
 * price tables. Reported per adapter and layout: model calls, prompt tokens, cache hit rate, dollars, and after ÷
 * before. Measures tokens and dollars, not time. OpenAI Agents requests (system instructions and input items) are
 * converted to an AI SDK prompt for pricing, text kept byte for byte.
 *
 *   node --conditions=@pagewise/source --import tsx bench/adapter-cache.ts [--reports 24] [--batch 4] [--seed 1]
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3GenerateResult,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { InMemorySessionService, LlmAgent, Runner as AdkRunner } from '@google/adk';
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Agent as MastraAgent } from '@mastra/core/agent';
import { MockMemory } from '@mastra/core/memory';
import { Agent as OpenAiAgent, Runner as OpenAiRunner, type AgentInputItem } from '@openai/agents';
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createAgent } from 'langchain';
import { countTokens } from 'pagewise';
import { createAiSdkPaging } from 'pagewise/ai-sdk';
import { STEP_BLOCK_HEADER } from 'pagewise/context';
import { DEFAULT_PRICES, PromptCache, promptCacheRulesFor, PRICES_CHECKED } from 'pagewise/cost';
import { modelledCallUsd, wholeNumberOption } from './modelled-cost.js';
import { parseFencedPages, seededFenceBoundary } from 'pagewise/internal';
import { createPagingTools, pagedInstruction, PagingService } from 'pagewise/paging';
import { adkInstruction, AiSdkLlm, createAdkPagingTools, PagewiseAdkPlugin } from '@pagewise/adk';
import {
  langchainRequestToCallOptions,
  LangChainThreads,
  langchainTool,
  pagewiseInstructionMiddleware,
} from '@pagewise/langchain';
import { MastraThreads, mastraTool, pagewiseInstructionProcessor } from '@pagewise/mastra';
import {
  createOpenAiPagingTools,
  pagedInstructions,
  pagewiseInputFilter,
  pagingContext,
  resultOutputText,
} from '@pagewise/openai-agents';
import { createRng, generateReports, inMemoryCorpus, type Report } from '@pagewise/lab/scenarios/report-analysis';

/** The price tables compared (the keys of `DEFAULT_PRICES`). */
export const ADAPTER_CACHE_PRICES = ['openai:gpt-4.1', 'openai:gpt-5'] as const;

/** The time between two calls of a run on the modelled clock (well inside the caches' lifetimes). */
const CALL_INTERVAL_MS = 5_000;

/** The agent's own instruction: the stable part of the system message on every adapter. */
const INSTRUCTION =
  'You read business reports in batches. Load each batch with get_reports; once you have read it, save a short ' +
  'result for it with save_result before loading the next. When every batch is read, answer with a summary.';

/** The user's message that starts every run. */
const TASK = 'Read all the reports, batch by batch, and tell me when you are done.';

/** One request an adapter sent, as the model received it, and the tokens of its answer. */
export interface CapturedRequest {
  prompt: LanguageModelV3Prompt;
  tools: LanguageModelV3FunctionTool[];
  outputTokens: number;
}

/** The two layouts compared. */
export type CacheLayout = 'after' | 'before';

/** What the scripted model answers at one call. */
interface ScriptedTurn {
  text?: string;
  toolCalls: { toolName: string; input: Record<string, unknown> }[];
}

/** The paging workload: the reports, their batches, and the seed of the fence boundaries. */
export interface Workload {
  reports: Report[];
  batches: string[][];
  seed: number;
}

/** Builds the workload: `reports` generated reports of `seed`, in batches of `batch` URIs. */
export function buildWorkload(reports: number, batch: number, seed: number): Workload {
  const generated = generateReports(reports, seed);
  const batches: string[][] = [];
  for (let start = 0; start < generated.length; start += batch)
    batches.push(generated.slice(start, start + batch).map((r) => r.uri));
  return { reports: generated, batches, seed };
}

/** A paging service over the workload's reports, its fence boundaries drawn from the seed (the same on every run). */
function newService(workload: Workload): PagingService {
  const rng = createRng(workload.seed);
  const service = new PagingService({
    source: inMemoryCorpus(workload.reports).source,
    boundary: seededFenceBoundary(() => rng.next()),
  });
  const widest = Math.max(...workload.batches.map((b) => b.length));
  if (widest > service.maxPagesPerRead)
    throw new RangeError(`--batch ${widest} is over the ${service.maxPagesPerRead} reports get_reports loads at once.`);
  return service;
}

/** The scripted decision at call `index`: load batch `index` (saving the previous one), or answer after the last. */
function turnAt(workload: Workload, index: number): ScriptedTurn {
  const batches = workload.batches;
  if (index > batches.length)
    throw new Error(`unexpected model call #${index + 1}: the script has ${batches.length + 1}.`);
  if (index === batches.length)
    return { text: `Done: ${workload.reports.length} reports read in ${batches.length} batches.`, toolCalls: [] };
  const load = { toolName: 'get_reports', input: { urls: batches[index]! } };
  if (index === 0) return { toolCalls: [load] };
  const saved = { task_id: `batch-${index}`, result: `batch ${index}: ${batches[index - 1]!.length} reports read` };
  return { toolCalls: [{ toolName: 'save_result', input: saved }, load] };
}

/** Model calls allowed per run: the script's calls and one spare, so a run that overshoots fails in `turnAt`. */
const maxSteps = (workload: Workload) => workload.batches.length + 2;

const callId = (call: number, position: number) => `call_${call}_${position}`;

/** The answer's tokens, counted as cache-parity counts them: its text and its tool calls' inputs. */
function outputTokensOf(turn: ScriptedTurn): number {
  return countTokens((turn.text ?? '') + turn.toolCalls.map((c) => JSON.stringify(c.input)).join(''));
}

/** A copy of what the model received (a framework may reuse its arrays at the next call). */
function capture(options: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>, turn: ScriptedTurn): CapturedRequest {
  const sent = structuredClone({ prompt: options.prompt, tools: options.tools ?? [] });
  return {
    prompt: sent.prompt,
    tools: sent.tools.filter((t): t is LanguageModelV3FunctionTool => t.type === 'function'),
    outputTokens: outputTokensOf(turn),
  };
}

/** The AI SDK's mock model answering with the script, every call captured (AI SDK, Mastra, ADK's `AiSdkLlm`). */
function capturingModel(workload: Workload, out: CapturedRequest[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      const index = out.length;
      const turn = turnAt(workload, index);
      out.push(capture(options, turn));
      return {
        content: [
          ...(turn.text !== undefined ? [{ type: 'text' as const, text: turn.text }] : []),
          ...turn.toolCalls.map((toolCall, position) => ({
            type: 'tool-call' as const,
            toolCallId: callId(index, position),
            toolName: toolCall.toolName,
            input: JSON.stringify(toolCall.input),
          })),
        ],
        finishReason: { unified: turn.toolCalls.length ? 'tool-calls' : 'stop', raw: undefined },
        usage: {
          inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 0, text: 0, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

async function runAiSdk(workload: Workload): Promise<CapturedRequest[]> {
  const requests: CapturedRequest[] = [];
  const paging = createAiSdkPaging({
    service: newService(workload),
    instruction: INSTRUCTION,
    tools: ['get_reports', 'save_result'],
    sessionId: 'adapter-cache',
  });
  await generateText({
    model: capturingModel(workload, requests),
    tools: paging.tools,
    prepareStep: paging.prepareStep,
    stopWhen: stepCountIs(maxSteps(workload)),
    prompt: TASK,
  });
  return requests;
}

async function runLangChain(workload: Workload): Promise<CapturedRequest[]> {
  const requests: CapturedRequest[] = [];
  const service = newService(workload);
  const threads = new LangChainThreads();
  const paging = createPagingTools(service);
  const tools = [langchainTool(paging.get_reports, { threads }), langchainTool(paging.save_result, { threads })];
  const model = fakeModel();
  for (let call = 0; call <= workload.batches.length; call++)
    model.respond((messages: BaseMessage[]) => {
      const index = requests.length;
      const turn = turnAt(workload, index);
      requests.push(capture(langchainRequestToCallOptions({ messages, tools }), turn));
      return new AIMessage({
        content: turn.text ?? '',
        tool_calls: turn.toolCalls.map((toolCall, position) => ({
          id: callId(index, position),
          name: toolCall.toolName,
          args: toolCall.input,
          type: 'tool_call' as const,
        })),
      });
    });
  const agent = createAgent({
    model,
    tools,
    middleware: [
      pagewiseInstructionMiddleware({ instruction: pagedInstruction({ base: INSTRUCTION, service }), threads }),
    ],
  });
  await agent.invoke(
    { messages: [new HumanMessage(TASK)] },
    { configurable: { thread_id: 'adapter-cache' }, recursionLimit: 4 * maxSteps(workload) },
  );
  return requests;
}

async function runMastra(workload: Workload): Promise<CapturedRequest[]> {
  const requests: CapturedRequest[] = [];
  const service = newService(workload);
  const threads = new MastraThreads();
  const paging = createPagingTools(service);
  const agent = new MastraAgent({
    id: 'reader',
    name: 'reader',
    instructions: '',
    model: capturingModel(workload, requests),
    memory: new MockMemory(),
    tools: {
      get_reports: mastraTool(paging.get_reports, { threads }),
      save_result: mastraTool(paging.save_result, { threads }),
    },
    inputProcessors: [
      pagewiseInstructionProcessor({ instruction: pagedInstruction({ base: INSTRUCTION, service }), threads }) as never,
    ],
  });
  await agent.generate(TASK, {
    memory: { thread: 'adapter-cache', resource: 'bench' },
    stopWhen: stepCountIs(maxSteps(workload)),
  });
  return requests;
}

async function runAdk(workload: Workload): Promise<CapturedRequest[]> {
  const requests: CapturedRequest[] = [];
  const service = newService(workload);
  const paging = createAdkPagingTools(service);
  const agent = new LlmAgent({
    name: 'reader',
    description: 'Reads business reports in batches.',
    model: new AiSdkLlm(capturingModel(workload, requests)),
    instruction: adkInstruction(pagedInstruction({ base: INSTRUCTION, service })),
    tools: [paging.get_reports, paging.save_result],
  });
  const sessionService = new InMemorySessionService();
  const runner = new AdkRunner({
    appName: 'adapter-cache',
    agent,
    sessionService,
    plugins: [new PagewiseAdkPlugin()],
  });
  const session = await sessionService.createSession({ appName: 'adapter-cache', userId: 'bench' });
  for await (const event of runner.runAsync({
    userId: 'bench',
    sessionId: session.id,
    newMessage: { role: 'user', parts: [{ text: TASK }] },
  }))
    if (event.errorCode) throw new Error(`ADK ended on ${event.errorCode}: ${event.errorMessage ?? ''}`);
  return requests;
}

/** An OpenAI Agents input item, as far as the conversion reads it. */
interface LooseItem {
  type?: string;
  role?: string;
  content?: unknown;
  callId?: string;
  name?: string;
  arguments?: string;
  output?: unknown;
}

/** The text parts of an item's content (a string, or parts with `text`), each kept as it is. */
function textParts(content: unknown): { type: 'text'; text: string }[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((part: { type?: string; text?: unknown }) => {
    if (typeof part.text !== 'string') throw new Error(`an input item has a ${part.type} part, not text.`);
    return { type: 'text', text: part.text };
  });
}

/**
 * An OpenAI Agents request as an AI SDK prompt: the system instructions first, then the items in order, user and
 * assistant messages as such, an assistant's function calls as tool-call parts of its message, function results
 * as tool messages (consecutive ones in one message). Texts are kept byte for byte.
 */
export function openAiRequestToPrompt(request: {
  systemInstructions?: string;
  input: string | AgentInputItem[];
}): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Message[] = [];
  if (request.systemInstructions) prompt.push({ role: 'system', content: request.systemInstructions });
  const items: LooseItem[] =
    typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : (request.input as LooseItem[]);
  for (const item of items) {
    const last = prompt[prompt.length - 1];
    if (item.type === 'function_call') {
      const part = {
        type: 'tool-call' as const,
        toolCallId: item.callId ?? '',
        toolName: item.name ?? '',
        input: item.arguments ?? '',
      };
      if (last?.role === 'assistant') last.content.push(part);
      else prompt.push({ role: 'assistant', content: [part] });
    } else if (item.type === 'function_call_result') {
      const part = {
        type: 'tool-result' as const,
        toolCallId: item.callId ?? '',
        toolName: item.name ?? '',
        output: { type: 'text' as const, value: resultOutputText(item.output as never) },
      };
      if (last?.role === 'tool') last.content.push(part);
      else prompt.push({ role: 'tool', content: [part] });
    } else if ((item.type === undefined || item.type === 'message') && item.role === 'user') {
      prompt.push({ role: 'user', content: textParts(item.content) });
    } else if ((item.type === undefined || item.type === 'message') && item.role === 'assistant') {
      const parts = textParts(item.content);
      if (last?.role === 'assistant') last.content.push(...parts);
      else prompt.push({ role: 'assistant', content: parts });
    } else if ((item.type === undefined || item.type === 'message') && item.role === 'system') {
      prompt.push({
        role: 'system',
        content: textParts(item.content)
          .map((p) => p.text)
          .join(''),
      });
    } else throw new Error(`an OpenAI Agents input item of type "${item.type}" has no AI SDK counterpart here.`);
  }
  return prompt;
}

/** The SDK's function tools as AI SDK function tools. */
function openAiTools(tools: readonly { type: string; name?: string; description?: string; parameters?: unknown }[]) {
  return tools.map((offered): LanguageModelV3FunctionTool => {
    if (offered.type !== 'function')
      throw new Error(`OpenAI Agents offered a ${offered.type} tool; only function tools are priced.`);
    return {
      type: 'function',
      name: offered.name ?? '',
      description: offered.description ?? '',
      inputSchema: offered.parameters as never,
    };
  });
}

async function runOpenAiAgents(workload: Workload, layout: CacheLayout): Promise<CapturedRequest[]> {
  const service = newService(workload);
  const tools = createOpenAiPagingTools(service);
  const model = new ScriptedModel(
    Array.from({ length: workload.batches.length + 1 }, (_, index) =>
      modelResponder(() => {
        const turn = turnAt(workload, index);
        if (turn.text !== undefined) return [assistantMessage(turn.text)];
        return turn.toolCalls.map((toolCall, position) =>
          functionCall(toolCall.toolName, toolCall.input, { callId: callId(index, position) }),
        );
      }),
    ),
  );
  const agent = new OpenAiAgent({
    name: 'reader',
    model,
    instructions: pagedInstructions({ base: INSTRUCTION, service }),
    tools: [tools.get_reports, tools.save_result],
  });
  await new OpenAiRunner({ tracingDisabled: true }).run(agent, TASK, {
    context: pagingContext({ sessionId: 'adapter-cache' }),
    callModelInputFilter: pagewiseInputFilter(layout === 'before' ? { stepBlock: 'instructions' } : {}),
    maxTurns: maxSteps(workload),
  });
  model.assertComplete();
  return model.calls.map((call, index) => ({
    prompt: openAiRequestToPrompt(call.request),
    tools: openAiTools(call.request.tools as never),
    outputTokens: outputTokensOf(turnAt(workload, index)),
  }));
}

/** One adapter: how to run it, and whether its "before" layout is the real option or the reconstruction. */
interface AdapterEntry {
  name: string;
  /** Runs the workload; `layout` reaches only an adapter with a real "before" option. */
  run: (workload: Workload, layout: CacheLayout) => Promise<CapturedRequest[]>;
  realBefore: boolean;
}

/** The adapters, in the order of the table. */
export const ADAPTERS: readonly AdapterEntry[] = [
  { name: 'AI SDK (`createAiSdkPaging`)', run: runAiSdk, realBefore: false },
  { name: 'LangChain (`pagewiseInstructionMiddleware`)', run: runLangChain, realBefore: false },
  { name: 'Mastra (`pagewiseInstructionProcessor`)', run: runMastra, realBefore: false },
  { name: 'Google ADK (`PagewiseAdkPlugin`)', run: runAdk, realBefore: false },
  { name: 'OpenAI Agents (`pagewiseInputFilter`)', run: runOpenAiAgents, realBefore: true },
];

/** The text of a step block message (a last user message whose text starts with the header), or undefined. */
function stepBlockOf(message: LanguageModelV3Message | undefined): string | undefined {
  if (message?.role !== 'user') return undefined;
  if (!message.content.every((p) => p.type === 'text')) return undefined;
  const text = message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
  return text.startsWith(STEP_BLOCK_HEADER) ? text : undefined;
}

/** The system text of a prompt: its system messages, joined. */
function systemOf(prompt: LanguageModelV3Prompt): string {
  return prompt
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');
}

/**
 * The previous layout, reconstructed: the step block (the last message, when it is one) removed and its text
 * appended to the last system message (`system + "\n\n" + step block`); a prompt without a step block is unchanged.
 */
export function foldStepBlock(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  const block = stepBlockOf(prompt[prompt.length - 1]);
  if (block === undefined) return prompt;
  const rest = prompt.slice(0, -1);
  let at = -1;
  rest.forEach((message, index) => {
    if (message.role === 'system') at = index;
  });
  if (at < 0) return [{ role: 'system', content: block }, ...rest];
  return rest.map((message, index) =>
    index === at && message.role === 'system' ? { ...message, content: `${message.content}\n\n${block}` } : message,
  );
}

/** The text that carries the instruction's per-step part in `layout`: the step block after, the system before. */
function carrierOf(prompt: LanguageModelV3Prompt, layout: CacheLayout): string {
  return layout === 'after' ? (stepBlockOf(prompt[prompt.length - 1]) ?? '') : systemOf(prompt);
}

/** One adapter's run in one layout. */
export interface LayoutRun {
  adapter: string;
  layout: CacheLayout;
  /** Whether the "before" layout is a reconstruction (false for "after" and for a real option). */
  reconstructed: boolean;
  requests: CapturedRequest[];
}

/** The sanity checks; each throws with what went wrong. */
export function checkRuns(workload: Workload, after: LayoutRun, before: LayoutRun): void {
  const systems = new Set(after.requests.map((r) => systemOf(r.prompt)));
  if (systems.size !== 1)
    throw new Error(
      `${after.adapter}: in the "after" layout the system message changed between calls (${systems.size} ` +
        `different texts over ${after.requests.length} calls); it should stay the same.`,
    );
  if (after.requests.length !== before.requests.length)
    throw new Error(
      `${after.adapter}: the layouts made different numbers of model calls (after ${after.requests.length}, ` +
        `before ${before.requests.length}).`,
    );
  for (const run of [after, before]) {
    const seen = new Set<string>();
    for (const request of run.requests)
      for (const page of parseFencedPages(carrierOf(request.prompt, run.layout)).pages) seen.add(page.uri);
    const missing = workload.reports.filter((r) => !seen.has(r.uri)).map((r) => r.uri);
    if (missing.length)
      throw new Error(
        `${run.adapter}, "${run.layout}" layout: ${missing.length} of ${workload.reports.length} reports never ` +
          `reached the model as fenced pages (first: ${missing[0]}).`,
      );
  }
}

/** One run priced at one table. */
export interface LayoutFigures {
  calls: number;
  promptTokens: number;
  cacheReadTokens: number;
  /** Cache read tokens ÷ prompt tokens. */
  cacheHitRate: number;
  usd: number;
  /** The most tokens a request shared with the previous request of its run (its first changed token, at most). */
  longestSharedPrefix: number;
}

/** Prices one run's requests in order under `cache`, at `spec`'s prices, under the run's own key. */
export function priceRun(run: LayoutRun, spec: string, cache: PromptCache): LayoutFigures {
  const price = DEFAULT_PRICES[spec];
  if (!price) throw new Error(`No price for "${spec}".`);
  const figures: LayoutFigures = {
    calls: 0,
    promptTokens: 0,
    cacheReadTokens: 0,
    cacheHitRate: 0,
    usd: 0,
    longestSharedPrefix: 0,
  };
  run.requests.forEach((request, index) => {
    const usage = cache.observePrompt(
      `${run.adapter}\u0000${run.layout}`,
      request.prompt,
      request.tools,
      index * CALL_INTERVAL_MS,
    );
    figures.calls += 1;
    figures.promptTokens += usage.promptTokens;
    figures.cacheReadTokens += usage.readTokens;
    figures.usd += modelledCallUsd(usage, request.outputTokens, index, price);
    if (index > 0) figures.longestSharedPrefix = Math.max(figures.longestSharedPrefix, usage.firstChangedToken);
  });
  figures.cacheHitRate = figures.promptTokens > 0 ? figures.cacheReadTokens / figures.promptTokens : 0;
  return figures;
}

/** One row of the table: a run and its figures at every table of {@link ADAPTER_CACHE_PRICES}. */
export interface AdapterCacheRow {
  run: LayoutRun;
  figures: Record<string, LayoutFigures>;
}

/** The result of {@link runAdapterCache}. */
export interface AdapterCacheReport {
  reports: number;
  batches: number;
  seed: number;
  rows: AdapterCacheRow[];
  /** Adapters that could not be driven, with the reason. */
  skipped: { adapter: string; reason: string }[];
}

/** Runs the workload on every adapter in both layouts, checks the runs and prices them. */
export async function runAdapterCache(options: {
  reports: number;
  batch: number;
  seed: number;
}): Promise<AdapterCacheReport> {
  const workload = buildWorkload(options.reports, options.batch, options.seed);
  const caches = new Map(
    ADAPTER_CACHE_PRICES.map((spec) => {
      const colon = spec.indexOf(':');
      const rules = promptCacheRulesFor(spec.slice(0, colon), spec.slice(colon + 1));
      if (!rules) throw new Error(`No cache rules for "${spec}".`);
      return [spec, new PromptCache(rules)] as const;
    }),
  );
  const rows: AdapterCacheRow[] = [];
  const skipped: AdapterCacheReport['skipped'] = [];
  for (const adapter of ADAPTERS) {
    let after: LayoutRun;
    let before: LayoutRun;
    try {
      after = {
        adapter: adapter.name,
        layout: 'after',
        reconstructed: false,
        requests: await adapter.run(workload, 'after'),
      };
      const sent = await adapter.run(workload, 'before');
      before = {
        adapter: adapter.name,
        layout: 'before',
        reconstructed: !adapter.realBefore,
        requests: adapter.realBefore ? sent : sent.map((r) => ({ ...r, prompt: foldStepBlock(r.prompt) })),
      };
    } catch (error) {
      skipped.push({ adapter: adapter.name, reason: error instanceof Error ? error.message : String(error) });
      continue;
    }
    checkRuns(workload, after, before);
    for (const run of [after, before])
      rows.push({
        run,
        figures: Object.fromEntries(ADAPTER_CACHE_PRICES.map((spec) => [spec, priceRun(run, spec, caches.get(spec)!)])),
      });
  }
  return { reports: workload.reports.length, batches: workload.batches.length, seed: options.seed, rows, skipped };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const usd = (x: number) => `$${x.toFixed(4)}`;
const int = (x: number) => Math.round(x).toLocaleString('en-US');

/** The report as a markdown table. */
export function adapterCacheTable(report: AdapterCacheReport): string {
  const [first, second] = ADAPTER_CACHE_PRICES;
  const lines = [
    `Paging workload: ${report.reports} generated reports (seed ${report.seed}) in ${report.batches} batches, ` +
      `scripted model; prompt-cache model and list prices of ${PRICES_CHECKED}.`,
    '',
    `| adapter | layout | model calls | prompt tokens | cache hit rate | $ (${first.split(':')[1]}) | $ (${second.split(':')[1]}) | after ÷ before ($) |`,
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of report.rows) {
    const one = row.figures[first]!;
    const two = row.figures[second]!;
    const hit =
      one.cacheHitRate === two.cacheHitRate
        ? pct(one.cacheHitRate)
        : `${pct(one.cacheHitRate)} / ${pct(two.cacheHitRate)}`;
    const layout =
      row.run.layout === 'after'
        ? 'after (step block)'
        : row.run.reconstructed
          ? 'before (folded into system, reconstructed)'
          : "before (`stepBlock: 'instructions'`, real)";
    const partner = report.rows.find((r) => r.run.adapter === row.run.adapter && r.run.layout === 'before');
    const ratio =
      row.run.layout === 'after' && partner
        ? `${(one.usd / partner.figures[first]!.usd).toFixed(3)}× / ${(two.usd / partner.figures[second]!.usd).toFixed(3)}×`
        : '—';
    lines.push(
      `| ${row.run.adapter} | ${layout} | ${int(one.calls)} | ${int(one.promptTokens)} | ${hit} | ${usd(one.usd)} | ${usd(two.usd)} | ${ratio} |`,
    );
  }
  lines.push(
    '',
    `Cache hit rate: cache read tokens ÷ prompt tokens (one figure when both price tables' cache rules agree). ` +
      `after ÷ before: ${first} / ${second}.`,
  );
  const rules = promptCacheRulesFor(first.split(':')[0]!, first.split(':')[1]!);
  lines.push(
    '',
    `The longest prefix a call shared with the previous call of its run, in tokens (the ${rules?.name} cache ` +
      `serves prefixes from ${int(rules?.minTokens ?? 0)} tokens on):`,
    '',
  );
  for (const row of report.rows)
    if (row.run.layout === 'after') {
      const partner = report.rows.find((r) => r.run.adapter === row.run.adapter && r.run.layout === 'before');
      const before = partner ? int(partner.figures[first]!.longestSharedPrefix) : '—';
      lines.push(`- ${row.run.adapter}: after ${int(row.figures[first]!.longestSharedPrefix)}, before ${before}`);
    }
  for (const skip of report.skipped) lines.push('', `Skipped ${skip.adapter}: ${skip.reason}`);
  return lines.join('\n');
}

/** The command line: 24 reports in batches of 4, seed 1, by default. */
export async function main(argv: readonly string[] = []): Promise<void> {
  console.log('\n## Prompt cache per framework adapter: step block after the history against the system message\n');
  const report = await runAdapterCache({
    reports: wholeNumberOption(argv, '--reports', 24),
    batch: wholeNumberOption(argv, '--batch', 4),
    seed: wholeNumberOption(argv, '--seed', 1),
  });
  console.log(adapterCacheTable(report));
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
