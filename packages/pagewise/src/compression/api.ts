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
import { resolveBackend, type CompressorSpec } from './resolve-backend.js';
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
  /**
   * How the extractive backend scores units: `'heuristic'` (default, the hand-set weights) or `'learned'`
   * (the fitted model the package ships; see docs/compression-on-real-data.md). Only for the extractive
   * backend: with any other `backend` it is a `ConfigurationError`. In `compressMessages` it scores the tool
   * results being summarized; the sentences kept from plain messages are ranked alike under either scorer.
   */
  scoring?: 'heuristic' | 'learned';
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

/**
 * Whether the call runs the built-in extractive backend (no `backend`, or `'extractive'`); `scoring` is
 * checked here, as it means nothing to another backend.
 *
 * @throws ConfigurationError for an unknown `scoring`, or `scoring` with another backend.
 */
function isExtractive(user: string, options: CompressCallOptions): boolean {
  const extractive = options.backend === undefined || options.backend === 'extractive';
  if (options.scoring === undefined) return extractive;
  if (options.scoring !== 'heuristic' && options.scoring !== 'learned') {
    throw new ConfigurationError(
      'invalid-scoring',
      `${user}: scoring must be 'heuristic' or 'learned', got ${String(options.scoring)}.`,
    );
  }
  if (!extractive) {
    throw new ConfigurationError(
      'invalid-scoring',
      `${user}: scoring applies to the extractive backend only; pass it to extractiveBackend({ scoring }) or leave it out with another backend.`,
    );
  }
  return true;
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
  if (isExtractive('compressText', options)) {
    const result = compressExtractive(text, {
      query: options.query,
      rules,
      maxTokens: budget,
      ...(options.scoring ? { scoring: options.scoring } : {}),
    });
    return done(result.text, result);
  }
  const backend = resolveBackend(options.backend);
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
  /**
   * Throw `budget-too-small` when the target cannot be met, instead of returning the closest result with
   * `overTarget` set. Default false.
   */
  strict?: boolean;
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
  /**
   * Tokens of the system messages and the kept last turns: passed through as they are, so outside the
   * basis `targetRatio` applies to.
   */
  fixedTokens: number;
  /** Tokens of the turns folded into the summary: the basis of `targetRatio`. */
  basisTokens: number;
  /** Tokens of the summary message (preamble and fence included) / `basisTokens`; 1 when nothing was folded. */
  basisRatio: number;
  /**
   * The target could not be met (`basisRatio` above `targetRatio`, or `outputTokens` above `maxTokens`):
   * the messages are the closest the compressor could reach. With `strict: true` this throws instead.
   */
  overTarget: boolean;
  /** What passed through whole, outside the basis of `targetRatio`: the parts `fixedTokens` adds up. */
  keptWhole: {
    /** Tokens of the system messages. */
    systemTokens: number;
    /** Turns kept verbatim at the end (`keepLastTurns`, or fewer when the conversation is shorter). */
    lastTurns: number;
    /** Tokens of those turns. */
    lastTurnsTokens: number;
  };
  /**
   * `ratio`, of the whole output, is above `targetRatio`: the parts kept whole are too large for the whole to
   * reach it even when the summary did (`overTarget` false), or the target was not met (`overTarget` true).
   */
  ratioAboveTarget: boolean;
  /**
   * One sentence saying why `ratio` is above `targetRatio` (which parts were kept whole, how many tokens each) and
   * what brings it down; undefined when `ratio` is within the target.
   */
  warning?: string;
}

type MessagesResultCore = Omit<CompressMessagesResult, 'keptWhole' | 'ratioAboveTarget' | 'warning'>;

/** The result with what was kept whole, and a warning when the whole is above `targetRatio`. */
function withTargetNote(
  core: MessagesResultCore,
  targetRatio: number,
  keptWhole: CompressMessagesResult['keptWhole'],
): CompressMessagesResult {
  const ratioAboveTarget = core.ratio > targetRatio;
  if (!ratioAboveTarget) return { ...core, keptWhole, ratioAboveTarget };
  const parts = [
    ...(keptWhole.systemTokens > 0 ? [`the system messages (${keptWhole.systemTokens} tokens)`] : []),
    ...(keptWhole.lastTurns > 0
      ? [`the last ${keptWhole.lastTurns} turn(s) (${keptWhole.lastTurnsTokens} tokens)`]
      : []),
  ];
  const whole =
    parts.length > 0 ? `${parts.join(' and ')} are kept whole, outside the basis targetRatio applies to` : '';
  const folded =
    core.compressedTurns > 0
      ? `the summary of the ${core.compressedTurns} earlier turn(s) is ${core.basisRatio.toFixed(2)} of their ${core.basisTokens} tokens`
      : 'no earlier turn was folded into a summary';
  const warning =
    `compressMessages: ratio ${core.ratio.toFixed(2)} is above targetRatio ${targetRatio}${core.overTarget ? ' (the target was not met)' : ''}: ` +
    `${whole ? `${whole}; ` : ''}${folded}. Lower keepLastTurns, shorten the system prompt, or set maxTokens to bound the whole.`;
  return { ...core, keptWhole, ratioAboveTarget, warning };
}

/**
 * Compresses an AI SDK message array: every turn but the last `keepLastTurns` becomes one summary,
 * ranked against the task and the latest user message. The system messages and the kept turns pass
 * through unchanged and are outside the ratio's basis: the summary message takes at most `targetRatio` of
 * the tokens of the turns it replaces, and the whole at most `maxTokens`. Tool calls and their results
 * stay together.
 *
 * So `ratio`, of the whole, can stay above `targetRatio` when the parts kept whole are large (a long system
 * prompt): `ratioAboveTarget` is then set, `keptWhole` says what was kept whole, and `warning` says it in one
 * sentence.
 *
 * A target that cannot be met (a system prompt and kept turns above `maxTokens`, earlier turns too short
 * for a summary's frame) does not throw: the result is the closest reachable, with `overTarget` set. When
 * even the frame of a summary does not fit `maxTokens`, the earlier turns are left out
 * (`compressedTurns` counts them, `summary` is empty).
 *
 * @example
 * const { messages: compact } = await compressMessages(messages, { task: 'Plan the trip', targetRatio: 0.5 });
 * await generateText({ model, messages: compact });
 *
 * @throws ConfigurationError for a bad ratio, `maxTokens` or `keepLastTurns`, and with `strict: true` when
 * the target cannot be met (lower `keepLastTurns` or raise the ratio).
 */
export async function compressMessages(
  messages: readonly ModelMessage[],
  options: CompressMessagesOptions,
): Promise<CompressMessagesResult> {
  const guideline = options.guideline ?? DEFAULT_HISTORY_GUIDELINE;
  requireGuidelineTarget(guideline, 'history', 'compressMessages', 'Use DEFAULT_HISTORY_GUIDELINE.');
  const extractive = isExtractive('compressMessages', options);
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
  budgetOf('compressMessages', inputTokens, ratio, options.maxTokens);
  const cap = options.maxTokens ?? Number.POSITIVE_INFINITY;
  const tail = turns.slice(Math.max(0, turns.length - keepLastTurns));
  const region = turns.slice(0, turns.length - tail.length);
  const keptWhole = { systemTokens: tokensOf(system), lastTurns: tail.length, lastTurnsTokens: tokensOf(tail.flat()) };
  const fixedTokens = keptWhole.systemTokens + keptWhole.lastTurnsTokens;
  const basisTokens = tokensOf(region.flat());
  const finish = (core: MessagesResultCore): CompressMessagesResult => withTargetNote(core, ratio, keptWhole);
  const refuse = (why: string): never => {
    throw new ConfigurationError(
      'budget-too-small',
      `compressMessages: ${why} Lower keepLastTurns or raise targetRatio/maxTokens (or leave strict off to get ` +
        `the closest result with overTarget set).`,
    );
  };
  const unchanged = (overTarget: boolean): CompressMessagesResult => {
    if (overTarget && options.strict) {
      refuse(`the messages take ${inputTokens} tokens and nothing can be folded below the target.`);
    }
    return finish({
      messages: [...messages],
      summary: '',
      inputTokens,
      outputTokens: inputTokens,
      ratio: 1,
      compressedTurns: 0,
      keptTurns: turns.length,
      fixedTokens,
      basisTokens,
      basisRatio: 1,
      overTarget,
    });
  };
  const ratioBudget = tokenBudget(basisTokens, ratio);
  if (region.length === 0) return unchanged(inputTokens > cap);
  if (basisTokens <= ratioBudget && inputTokens <= cap) return unchanged(false);

  const boundary = (options.boundary ?? shortBoundary)();
  const overhead = summaryOverhead(boundary);
  const summaryBudget = Math.min(ratioBudget, cap - fixedTokens) - overhead;
  if (summaryBudget < 1) {
    if (options.strict) {
      refuse(
        `the system messages and the last ${keepLastTurns} turn(s) take ${fixedTokens} tokens and the ` +
          `${region.length} earlier turn(s) ${basisTokens}: no summary of them fits ${ratio} of those within ` +
          `maxTokens ${options.maxTokens ?? 'unset'} (a summary's frame alone takes ${overhead}).`,
      );
    }
    // maxTokens leaves no room for a summary: leaving the earlier turns out is the closest to it.
    if (cap - fixedTokens - overhead < 1) {
      const out = [...system, ...tail.flat()];
      const outputTokens = tokensOf(out);
      return finish({
        messages: out,
        summary: '',
        inputTokens,
        outputTokens,
        ratio: inputTokens === 0 ? 1 : outputTokens / inputTokens,
        compressedTurns: region.length,
        keptTurns: tail.length,
        fixedTokens,
        basisTokens,
        basisRatio: 0,
        overTarget: outputTokens > cap,
      });
    }
    // The earlier turns are shorter than a summary of them could be: they stay as they are.
    return unchanged(true);
  }
  const regionItems = region.map((turn) => turn.flatMap(messageItems));
  const allItems = turns.flat().flatMap(messageItems);
  const text = await summarizeTurns(
    extractive
      ? resolveBackend('extractive', { extractive: options.scoring ? { scoring: options.scoring } : {} })
      : resolveBackend(options.backend),
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
  const summaryMessage: ModelMessage = { role: 'user', content: text };
  const out: ModelMessage[] = [...system, summaryMessage, ...tail.flat()];
  const outputTokens = tokensOf(out);
  const summaryTokens = tokensOf([summaryMessage]);
  const overTarget = summaryTokens > ratioBudget || outputTokens > cap;
  if (overTarget && options.strict) refuse(`the summary took ${summaryTokens} tokens, above its budget.`);
  return finish({
    messages: out,
    summary: summaryBody(text.slice(text.indexOf('\n') + 1)),
    inputTokens,
    outputTokens,
    ratio: outputTokens / inputTokens,
    compressedTurns: region.length,
    keptTurns: tail.length,
    fixedTokens,
    basisTokens,
    basisRatio: basisTokens === 0 ? 1 : summaryTokens / basisTokens,
    overTarget,
  });
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
    .map((part) =>
      part.type === 'text' || part.type === 'reasoning'
        ? String(part.text ?? '')
        : part.type === 'tool-call'
          ? ''
          : `[${part.type}]`,
    )
    .filter(Boolean)
    .join('\n');
}

function toolOutputText(output: unknown): { text: string; isError: boolean } {
  if (typeof output !== 'object' || output === null) return { text: String(output ?? ''), isError: false };
  const typedOutput = output as { type?: string; value?: unknown; reason?: string };
  const isError =
    typedOutput.type === 'error-text' || typedOutput.type === 'error-json' || typedOutput.type === 'execution-denied';
  if (typedOutput.type === 'text' || typedOutput.type === 'error-text')
    return { text: String(typedOutput.value ?? ''), isError };
  if (typedOutput.type === 'execution-denied')
    return { text: `execution denied${typedOutput.reason ? `: ${typedOutput.reason}` : ''}`, isError };
  if (typedOutput.type === 'content' && Array.isArray(typedOutput.value))
    return { text: textOfParts(typedOutput.value as Part[]), isError };
  return { text: JSON.stringify(typedOutput.value ?? null), isError };
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
        .map((part) => {
          const { text, isError } = toolOutputText(part.output);
          return {
            type: 'tool-result',
            toolCallId: String(part.toolCallId),
            toolName: String(part.toolName),
            output: text,
            isError,
          };
        });
  }
}
