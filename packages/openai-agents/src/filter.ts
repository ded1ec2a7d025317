/**
 * pagewise processors on the OpenAI Agents SDK's model input: a `callModelInputFilter` that compresses
 * large function results (raw text kept as pages behind a handle) and runs history processors
 * (paging-turn compaction, ACON history compression, FIFO) before every model call. What the SDK
 * stores is untouched; wrap the session with `PagewiseSession` to compress that too.
 */
import type { AgentInputItem, CallModelInputFilter } from '@openai/agents';
import type { ObservationProcessor } from 'pagewise/context';
import type { ContextProcessor } from 'pagewise/context';
import { eventsToItems } from 'pagewise/internal';
import { Ledger } from 'pagewise';
import { HistoryBridge } from 'pagewise/adapter-kit';
import { splitInstruction } from 'pagewise/context';
import { isStepBlockItem, itemsCodec, readItems, resultOutputText, stepBlockItem } from './items.js';
import type { PagingContext } from './paging.js';

/** What observation compression of items needs to know. */
export interface ItemCompressionContext {
  sessionId: string;
  agentName: string;
  invocationId: string;
  task: string;
  ledger: Ledger;
  signal?: AbortSignal;
}

/**
 * Runs observation processors over every `function_call_result` item; each result is processed once
 * (remembered by call id and content in `cache`), so a later call looks each one up by its text and runs no
 * processor and no digest for it. Returns the input array when nothing changed.
 */
export async function compressResults(
  items: readonly AgentInputItem[],
  processors: readonly ObservationProcessor[],
  ctx: ItemCompressionContext,
  cache: Map<string, string>,
): Promise<readonly AgentInputItem[]> {
  if (processors.length === 0) return items;
  let changed = false;
  const out: AgentInputItem[] = [];
  for (const [index, item] of items.entries()) {
    if (!('type' in item) || item.type !== 'function_call_result') {
      out.push(item);
      continue;
    }
    const text = resultOutputText(item.output);
    // Keyed by the text itself: the SDK hands the filter copies, so a lookup hashes the text once, no digest.
    const key = `${item.callId}\u0000${text}`;
    let result = cache.get(key);
    if (result === undefined) {
      const recent = readItems(out).map(({ event }, position) => ({
        id: `r${position}`,
        invocationId: ctx.invocationId,
        author: ctx.agentName,
        timestamp: 0,
        ...event,
      }));
      let obs = {
        toolCallId: item.callId,
        toolName: item.name,
        input: undefined as unknown,
        output: text,
        isError: false,
      };
      for (const processor of processors)
        obs = await processor.process(obs, {
          invocationId: ctx.invocationId,
          agentName: ctx.agentName,
          sessionId: ctx.sessionId,
          task: ctx.task,
          recentItems: eventsToItems(recent as never),
          services: new Map(),
          ledger: ctx.ledger,
          signal: ctx.signal ?? new AbortController().signal,
        });
      result = obs.output;
      cache.set(key, result);
      if (cache.size > 4096) cache.delete(cache.keys().next().value as string);
    }
    if (result === text) out.push(item);
    else {
      changed = true;
      out.push({ ...item, output: result });
    }
    void index;
  }
  return changed ? out : items;
}

/** The text of the last user message of the input: the task the run works on. */
export function lastUserText(items: readonly AgentInputItem[]): string {
  for (let index = items.length - 1; index >= 0; index--) {
    const it = items[index]!;
    if ('role' in it && it.role === 'user') {
      const content = (it as { content: unknown }).content;
      return typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((p: { text?: string }) => p.text ?? '').join('')
          : '';
    }
  }
  return '';
}

/** Options of {@link pagewiseInputFilter}. */
export interface PagewiseInputFilterOptions {
  /** History processors, in order (e.g. `compactPagingTurns()`, `historyCompressor()`). */
  processors?: ContextProcessor[];
  /** Observation processors of function results (e.g. `observationCompressor({ service })`). */
  observationProcessors?: ObservationProcessor[];
  /** Receives compressor calls. Default: a new ledger, exposed on the filter. */
  ledger?: Ledger;
  /** The session raw results are filed under when the run context carries none. Default `openai-agents`. */
  sessionId?: string;
  /**
   * Where the part of the instructions that changes per step goes (what follows the step block's header, as
   * `pagedInstructions` renders it). `'after-history'` (default): the instructions keep their stable part and the
   * changing part is sent as a last user message after the history, built anew at every call, so the
   * instructions and the history before it are a prefix the provider's prompt cache can reuse. `'instructions'`:
   * left in the instructions, as the SDK sends them (every call then misses the cache from the instructions on).
   */
  stepBlock?: 'after-history' | 'instructions';
}

/** The filter, with the ledger of its compressor calls. */
export type PagewiseInputFilter = CallModelInputFilter & { readonly ledger: Ledger };

/**
 * Creates the `callModelInputFilter`: compresses function results once each, runs the history processors, and
 * moves the per-step part of the instructions after the history (see {@link PagewiseInputFilterOptions.stepBlock}).
 *
 * @example
 * const cObs = observationCompressor({ service: paging });
 * await run(agent, task, { context: pagingContext(), callModelInputFilter: pagewiseInputFilter({ observationProcessors: [cObs], processors: [compactPagingTurns()] }) });
 */
export function pagewiseInputFilter(options: PagewiseInputFilterOptions = {}): PagewiseInputFilter {
  const ledger = options.ledger ?? new Ledger();
  const bridge = new HistoryBridge(options.processors ?? []);
  const cache = new Map<string, string>();
  const filter = async ({ modelData, agent, context }: Parameters<CallModelInputFilter>[0]) => {
    const rs = (context as Partial<PagingContext> | undefined)?.pagewise;
    const ctx: ItemCompressionContext = {
      sessionId: rs?.sessionId ?? options.sessionId ?? 'openai-agents',
      agentName: agent.name,
      invocationId: rs?.invocationId ?? 'openai-agents',
      task: lastUserText(modelData.input),
      ledger,
    };
    // A step block stored by a session that does not drop it is stale: the current one is appended below.
    const history = modelData.input.some(isStepBlockItem)
      ? modelData.input.filter((item) => !isStepBlockItem(item))
      : modelData.input;
    let input = await compressResults(history, options.observationProcessors ?? [], ctx, cache);
    input = await bridge.apply(input, itemsCodec, ctx);
    const { system, stepBlock } =
      options.stepBlock === 'instructions' || modelData.instructions === undefined
        ? { system: modelData.instructions, stepBlock: '' }
        : splitInstruction(modelData.instructions);
    if (!stepBlock) return input === modelData.input ? modelData : { ...modelData, input: [...input] };
    return { ...modelData, instructions: system, input: [...input, stepBlockItem(stepBlock)] };
  };
  return Object.assign(filter, { ledger });
}
