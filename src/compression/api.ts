/**
 * One-call compression: a text against a query, or an AI SDK message array against a task, to a target
 * ratio or a token cap, without building a session, a request or a ledger. The same backends and
 * guidelines as C_obs and C_hist do the work.
 */
import type { ModelMessage } from 'ai';
import { itemText, type ContextItem } from '../context/request.js';
import { ConfigurationError } from '../errors.js';
import type { Ledger } from '../tokens/ledger.js';
import { countTokens } from '../tokens/tokenizer.js';
import type { CompressionContext } from './backend.js';
import { DEFAULT_HISTORY_GUIDELINE, DEFAULT_OBSERVATION_GUIDELINE } from './default-guidelines.js';
import { compressExtractive } from './extractive.js';
import { requireGuidelineTarget, type Guideline } from './guideline.js';
import { checkRatio, objectiveOf, summarizeTurns, summaryBody, summaryOverhead } from './history.js';
import { resolveCompressor, type CompressorSpec } from './resolve-compressor.js';
import { headAtWordBoundary, tokenBudget } from './token-budget.js';
import { shortBoundary } from './transcript.js';

/** How much to keep: a ratio of the input tokens, a token cap, or both (the smaller budget wins). */
export interface CompressionBudget {
  /** Output tokens / input tokens, in (0, 1]. Default: the guideline's ratio (0.5 by default). */
  targetRatio?: number;
  /** A cap in tokens on the output. */
  maxTokens?: number;
}

/** Options shared by {@link compressText} and {@link compressMessages}. */
export interface CompressCallOptions extends CompressionBudget {
  /** `'extractive'` (default, no model), a model spec such as `openai:gpt-4.1-mini`, a model, or a backend. */
  backend?: CompressorSpec;
  /** Records the compressor's model calls (LLM backends). */
  ledger?: Ledger;
  signal?: AbortSignal;
}

/** Options of {@link compressText}. */
export interface CompressTextOptions extends CompressCallOptions {
  /** What the kept text must serve: a question, a task. */
  query: string;
  /** The observation guideline. Default {@link DEFAULT_OBSERVATION_GUIDELINE}. */
  guideline?: Guideline;
}

/** The result of {@link compressText}. */
export interface CompressTextResult {
  text: string;
  inputTokens: number;
  outputTokens: number;
  /** outputTokens / inputTokens (1 for an empty input). */
  ratio: number;
  /** Units kept and units in the input (extractive backend only). */
  keptUnits?: number;
  totalUnits?: number;
  /**
   * Extractive backend: no whole unit fitted the budget, so the text came back whole, over the budget; a
   * cut inside a unit could have changed a value.
   */
  irreducible?: true;
  /** Extractive backend: the input was an error result, and its first line was kept whole (over the budget if need be). */
  error?: true;
}

function budgetOf(user: string, inputTokens: number, ratio: number, maxTokens: number | undefined): number {
  checkRatio(user, ratio);
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 0)) {
    throw new ConfigurationError('invalid-max-tokens', `${user}: maxTokens must be an integer ≥ 0, got ${maxTokens}.`);
  }
  return tokenBudget(inputTokens, ratio, maxTokens);
}

function callContext(options: CompressCallOptions, agentName: string): CompressionContext {
  return {
    invocationId: agentName,
    agentName,
    ...(options.ledger ? { ledger: options.ledger } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * Compresses `text` to keep what `query` needs, within `targetRatio` of its tokens (and `maxTokens`).
 * The extractive backend keeps whole units (sentences, table rows with their headers, chat turns) in
 * their original order.
 *
 * @example
 * const { text, ratio } = await compressText(reportPage, { query: 'What was revenue in 2019?', targetRatio: 0.5 });
 *
 * @throws ConfigurationError for a ratio outside (0, 1], a bad `maxTokens` or a guideline not for observations.
 */
export async function compressText(text: string, options: CompressTextOptions): Promise<CompressTextResult> {
  const guideline = options.guideline ?? DEFAULT_OBSERVATION_GUIDELINE;
  requireGuidelineTarget(guideline, 'observation', 'compressText', 'Use DEFAULT_OBSERVATION_GUIDELINE.');
  const ratio = options.targetRatio ?? guideline.rules.ratio;
  const inputTokens = countTokens(text);
  const budget = budgetOf('compressText', inputTokens, ratio, options.maxTokens);
  const rules = { ...guideline.rules, ratio };
  const done = (
    out: string,
    units?: { kept: number; total: number; irreducible?: true; error?: true },
  ): CompressTextResult => {
    const outputTokens = countTokens(out);
    return {
      text: out,
      inputTokens,
      outputTokens,
      ratio: inputTokens === 0 ? 1 : outputTokens / inputTokens,
      ...(units ? { keptUnits: units.kept, totalUnits: units.total } : {}),
      ...(units?.irreducible ? { irreducible: true as const } : {}),
      ...(units?.error ? { error: true as const } : {}),
    };
  };
  if (options.backend === undefined || options.backend === 'extractive') {
    const result = compressExtractive(text, { query: options.query, rules, maxTokens: budget });
    return done(result.text, result);
  }
  const backend = resolveCompressor(options.backend);
  const out = await backend.compress(
    {
      target: 'observation',
      guideline: { ...guideline, rules },
      task: options.query,
      history: '',
      turns: [],
      previousSummary: '',
      observation: text,
      maxTokens: budget,
    },
    callContext(options, 'compressText'),
  );
  return done(headAtWordBoundary(out, budget));
}

/** Options of {@link compressMessages}. */
export interface CompressMessagesOptions extends CompressCallOptions {
  /** The task the conversation serves; the latest user message is added to it as the current objective. */
  task: string;
  /**
   * Turns kept verbatim at the end (a turn: a user message, or an assistant message with its tool
   * results). Default 1.
   */
  keepLastTurns?: number;
  /** The history guideline. Default {@link DEFAULT_HISTORY_GUIDELINE}. */
  guideline?: Guideline;
  /** Fence boundary generator (seed it for reproducible output). Default: 48 random bits. */
  boundary?: () => string;
}

/** The result of {@link compressMessages}. */
export interface CompressMessagesResult {
  /**
   * System messages, then one user message holding the summary of the earlier turns (fenced, as quoted
   * data), then the last turns as they were. Every tool call still has its result.
   */
  messages: ModelMessage[];
  /** The summary as the backend wrote it, without preamble and fence ('' when nothing was compressed). */
  summary: string;
  inputTokens: number;
  outputTokens: number;
  /** outputTokens / inputTokens, the summary's preamble and fence included. */
  ratio: number;
  /** Turns folded into the summary, and turns kept verbatim. */
  compressedTurns: number;
  keptTurns: number;
}

/**
 * Compresses an AI SDK message array: every turn but the last `keepLastTurns` becomes one summary,
 * ranked against the task and the latest user message, so the whole stays within `targetRatio` of the
 * input tokens (and `maxTokens`). Tool calls and their results stay together.
 *
 * @example
 * const { messages: compact } = await compressMessages(messages, { task: 'Plan the trip', targetRatio: 0.5 });
 * await generateText({ model, messages: compact });
 *
 * @throws ConfigurationError for a bad ratio, or when the system messages and the kept turns alone exceed
 * the budget (lower `keepLastTurns` or raise the ratio).
 */
export async function compressMessages(
  messages: readonly ModelMessage[],
  options: CompressMessagesOptions,
): Promise<CompressMessagesResult> {
  const guideline = options.guideline ?? DEFAULT_HISTORY_GUIDELINE;
  requireGuidelineTarget(guideline, 'history', 'compressMessages', 'Use DEFAULT_HISTORY_GUIDELINE.');
  const keepLastTurns = options.keepLastTurns ?? 1;
  if (!Number.isInteger(keepLastTurns) || keepLastTurns < 0) {
    throw new ConfigurationError(
      'invalid-history-option',
      `compressMessages: keepLastTurns must be an integer ≥ 0, got ${keepLastTurns}.`,
    );
  }
  const system = messages.filter((m) => m.role === 'system');
  const turns = messageTurns(messages.filter((m) => m.role !== 'system'));
  const tokensOf = (ms: readonly ModelMessage[]): number =>
    ms.reduce((sum, m) => sum + messageItems(m).reduce((s, item) => s + countTokens(itemText(item)), 0), 0);
  const inputTokens = tokensOf(messages);
  const ratio = options.targetRatio ?? guideline.rules.ratio;
  const budget = budgetOf('compressMessages', inputTokens, ratio, options.maxTokens);
  const tail = turns.slice(Math.max(0, turns.length - keepLastTurns));
  const region = turns.slice(0, turns.length - tail.length);
  const unchanged = (): CompressMessagesResult => ({
    messages: [...messages],
    summary: '',
    inputTokens,
    outputTokens: inputTokens,
    ratio: 1,
    compressedTurns: 0,
    keptTurns: turns.length,
  });
  if (region.length === 0 || inputTokens <= budget) return unchanged();

  const boundary = (options.boundary ?? shortBoundary)();
  const fixed = tokensOf(system) + tokensOf(tail.flat()) + summaryOverhead(boundary);
  const summaryBudget = budget - fixed;
  if (summaryBudget < 1) {
    throw new ConfigurationError(
      'budget-too-small',
      `compressMessages: the system messages and the last ${keepLastTurns} turn(s) take ${fixed} tokens with the ` +
        `summary's frame, above the budget of ${budget}. Lower keepLastTurns or raise targetRatio/maxTokens.`,
    );
  }
  const regionItems = region.map((turn) => turn.flatMap(messageItems));
  const allItems = turns.flat().flatMap(messageItems);
  const text = await summarizeTurns(
    resolveCompressor(options.backend),
    {
      guideline,
      task: options.task,
      turns: regionItems,
      previousSummary: '',
      objective: objectiveOf(allItems, tail.flat().flatMap(messageItems)),
      maxTokens: summaryBudget,
      boundary,
    },
    callContext(options, 'compressMessages'),
  );
  const out: ModelMessage[] = [...system, { role: 'user', content: text }, ...tail.flat()];
  const outputTokens = tokensOf(out);
  return {
    messages: out,
    summary: summaryBody(text.slice(text.indexOf('\n') + 1)),
    inputTokens,
    outputTokens,
    ratio: outputTokens / inputTokens,
    compressedTurns: region.length,
    keptTurns: tail.length,
  };
}

/** Turns of a conversation: a user message alone, or an assistant message with the tool messages after it. */
function messageTurns(messages: readonly ModelMessage[]): ModelMessage[][] {
  const turns: ModelMessage[][] = [];
  for (const message of messages) {
    const last = turns[turns.length - 1];
    if (message.role === 'tool' && last) last.push(message);
    else turns.push([message]);
  }
  return turns;
}

type Part = { type: string; [key: string]: unknown };

function partsOf(content: unknown): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Part[]) : [];
}

function textOfParts(parts: readonly Part[]): string {
  return parts
    .map((p) =>
      p.type === 'text' || p.type === 'reasoning' ? String(p.text ?? '') : p.type === 'tool-call' ? '' : `[${p.type}]`,
    )
    .filter(Boolean)
    .join('\n');
}

function toolOutputText(output: unknown): { text: string; isError: boolean } {
  if (typeof output !== 'object' || output === null) return { text: String(output ?? ''), isError: false };
  const o = output as { type?: string; value?: unknown; reason?: string };
  const isError = o.type === 'error-text' || o.type === 'error-json' || o.type === 'execution-denied';
  if (o.type === 'text' || o.type === 'error-text') return { text: String(o.value ?? ''), isError };
  if (o.type === 'execution-denied') return { text: `execution denied${o.reason ? `: ${o.reason}` : ''}`, isError };
  if (o.type === 'content' && Array.isArray(o.value)) return { text: textOfParts(o.value as Part[]), isError };
  return { text: JSON.stringify(o.value ?? null), isError };
}

/** A message as the context items the compressors read. */
function messageItems(message: ModelMessage): ContextItem[] {
  switch (message.role) {
    case 'system':
    case 'user':
      return [{ type: 'user', text: textOfParts(partsOf(message.content)) }];
    case 'assistant': {
      const parts = partsOf(message.content);
      const toolCalls = parts
        .filter((p) => p.type === 'tool-call')
        .map((p) => ({ toolCallId: String(p.toolCallId), toolName: String(p.toolName), input: p.input }));
      return [{ type: 'assistant', text: textOfParts(parts), toolCalls }];
    }
    case 'tool':
      return partsOf(message.content)
        .filter((p) => p.type === 'tool-result')
        .map((p) => {
          const { text, isError } = toolOutputText(p.output);
          return {
            type: 'tool-result',
            toolCallId: String(p.toolCallId),
            toolName: String(p.toolName),
            output: text,
            isError,
          };
        });
  }
}
