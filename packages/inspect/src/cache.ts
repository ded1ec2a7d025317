/**
 * The prompt cache of a session's logged calls, as the inspector and `pagewise replay` show it: per call
 * the tokens read from the cache, written to it and left uncached, where the first changed token is (which
 * part of the request broke the cached prefix, with the text there), and the cost in dollars with caching;
 * per session the hit rate and the cost. The figures are the ledger's where the run recorded them
 * (`entry.cache`); a call logged without them is modelled here from its stored request, replayed in call
 * order through `PromptCache` under its provider's rules, as the runner would have modelled it.
 */
import { encodingForModel, type LedgerEntry, type SessionKey } from 'pagewise';
import { isStepBlock, renderPrompt, systemText, type ContextRequest } from 'pagewise/context';
import {
  DEFAULT_PRICES,
  PROMPT_CACHE_RULES,
  PromptCache,
  billedPromptTokens,
  callCostUsd,
  locatePromptToken,
  promptCacheRulesFor,
  withCacheHints,
  type ModelPrice,
  type PromptCacheRules,
  type PromptTokenLocation,
} from 'pagewise/cost';

/** One logged call, as its cache figures need it. */
export interface CacheCallInput {
  /** The model label of the call log (`openai:gpt-4.1`, `pagewise:offline`). */
  model: string;
  /** When the call was made (ms since the epoch): the ledger entry's `at`, else the log row's time. */
  at: number;
  /** The ledger entry; undefined when the call's body could not be read. */
  entry: LedgerEntry | undefined;
  /** The request as the runner built it; undefined when not stored or unreadable. */
  request: ContextRequest | undefined;
}

/** Where the first changed token of a call is (see {@link CallCache.firstChange}). */
export interface FirstChange {
  /** The token position (in the request as the cache model serializes it). */
  token: number;
  /**
   * `first`: no earlier request of this model in the session, nothing could be read; `unchanged`: the request
   * extends the previous one unchanged; `changed`: the prefix broke at {@link token}.
   */
  status: 'first' | 'unchanged' | 'changed';
  /** The position located in the request as sent (with `changed`), without the part's text (see {@link excerpt}). */
  location?: Omit<PromptTokenLocation, 'text'>;
  /**
   * The part of the stored request the position is in: `tools`, `system` (the instruction in the system message),
   * `history` (with {@link item}), or `step block` (the per-step instruction after the history).
   */
  requestPart?: 'tools' | 'system' | 'history' | 'step block';
  /** The index of the history item (0-based, into the request's items) with `history`. */
  item?: number;
  /** The text just before the changed token and from it on, whitespace runs shown as one space. */
  excerpt?: { before: string; after: string };
}

/** The prompt cache of one call. */
export interface CallCache {
  /** `recorded`: the ledger's figures (the provider's report when it gave one); `computed`: modelled here. */
  source: 'recorded' | 'computed';
  /** The cache rules the figures are modelled under (`openai`, `anthropic-1024`, ...). */
  rules: string;
  promptTokens: number;
  read: number;
  write: number;
  uncached: number;
  /** read ÷ prompt tokens. */
  hitRate: number;
  /** Undefined when the request is not stored, so the position cannot be located. */
  firstChange: FirstChange | undefined;
  /** The price-table entry the call is priced at; undefined when the model has none (unpriced). */
  price?: string;
  /** Cost in USD with caching at {@link price}. */
  costUsd?: number;
}

/** The prompt cache of a session's calls so far. */
export interface SessionCacheTotals {
  /** Calls with cache figures, and those without (no rules for the model, or nothing stored to model). */
  calls: number;
  withoutFigures: number;
  promptTokens: number;
  read: number;
  write: number;
  /** read ÷ prompt tokens over the calls with figures; null when none has them. */
  hitRate: number | null;
  /** USD with caching over the priced calls; {@link unpriced} names the models without a price. */
  costUsd: number;
  unpriced: string[];
  /**
   * The price-table entries that priced calls at nothing (the offline model), so a cost of $0 reads as "free model",
   * not "cheap run": price such a session as a provider bills with {@link SessionCacheOptions.priceAs}.
   */
  free: string[];
  /** The rules the figures are modelled under, and whether any were recorded or computed here. */
  rules: string[];
  sources: ('recorded' | 'computed')[];
}

/** Options of {@link SessionCacheReplay}. */
export interface SessionCacheOptions {
  /**
   * Price every call as this price-table entry (`openai:gpt-4.1`), and model the calls that carry no recorded
   * figures under its provider's rules. Default: each call's own model.
   */
  priceAs?: string;
}

const OPENAI_RULES = PROMPT_CACHE_RULES.find((row) => row.provider === 'openai')!.rules;
const EXCERPT_BEFORE = 60;
const EXCERPT_AFTER = 120;

function split(label: string): { provider: string; modelId: string } {
  const colon = label.indexOf(':');
  return colon < 0
    ? { provider: '', modelId: label }
    : { provider: label.slice(0, colon), modelId: label.slice(colon + 1) };
}

/**
 * The rules a call of `label` is modelled under when the run recorded none: its provider's, or OpenAI's for the
 * offline model (which has no provider; the demo and the bench model it so too). Undefined for a provider with no
 * published rules (an OpenAI-compatible server).
 */
export function cacheRulesForModel(label: string): PromptCacheRules | undefined {
  const { provider, modelId } = split(label);
  return promptCacheRulesFor(provider, modelId) ?? (modelId === 'offline' ? OPENAI_RULES : undefined);
}

/** The price-table entry of a model label, if the built-in table has one. */
export function priceFor(label: string): { key: string; price: ModelPrice } | undefined {
  const { modelId } = split(label);
  const key = DEFAULT_PRICES[label] ? label : modelId === 'offline' ? 'offline' : undefined;
  return key ? { key, price: DEFAULT_PRICES[key]! } : undefined;
}

/** Whether a price bills nothing at all (the offline model's entry). */
export function isFreePrice(price: ModelPrice): boolean {
  return (
    price.inputPerMTok === 0 &&
    price.outputPerMTok === 0 &&
    !price.cacheReadPerMTok &&
    !price.cacheWritePerMTok &&
    !price.cacheWrite1hPerMTok
  );
}

const rulesByName = new Map(PROMPT_CACHE_RULES.map((row) => [row.rules.name, row.rules]));

const flat = (text: string) => text.replace(/\s+/gu, ' ');

/** Which part of the stored request message `index` of its rendered prompt is, and which history item. */
function requestPartOf(
  request: ContextRequest,
  prompt: ReturnType<typeof renderPrompt>['prompt'],
  location: Omit<PromptTokenLocation, 'text'>,
): Pick<FirstChange, 'requestPart' | 'item'> {
  if (location.kind === 'tool') return { requestPart: 'tools' };
  const message = prompt[location.index];
  if (!message) return {};
  if (message.role === 'system') return { requestPart: 'system' };
  if (isStepBlock(message)) return { requestPart: 'step block' };
  // History messages: one per item, one per run of tool results (as `renderPrompt` renders them).
  let item = 0;
  const first = systemText(request) ? 1 : 0;
  for (let messageIndex = first; messageIndex < location.index && item < request.items.length; messageIndex++) {
    if (request.items[item]!.type !== 'tool-result') item += 1;
    else while (item < request.items.length && request.items[item]!.type === 'tool-result') item += 1;
  }
  const offset = message.role === 'tool' ? Math.max(0, location.partIndex) : 0;
  return { requestPart: 'history', item: Math.min(item + offset, request.items.length - 1) };
}

/** The first change of a call with position `token`, located in its request. */
function firstChangeOf(
  token: number,
  promptTokens: number,
  earlier: boolean,
  sent: { request: ContextRequest; rendered: ReturnType<typeof renderPrompt>; billed: ReturnType<typeof renderPrompt> },
  encoding: ReturnType<typeof encodingForModel>,
): FirstChange {
  if (token === 0 && !earlier) return { token, status: 'first' };
  if (token >= promptTokens) return { token, status: 'unchanged' };
  const { text, ...location } = locatePromptToken(sent.billed.prompt, sent.billed.tools, token, encoding);
  const { charOffset } = location;
  return {
    token,
    status: 'changed',
    location,
    ...requestPartOf(sent.request, sent.rendered.prompt, location),
    excerpt: {
      before: flat(text.slice(Math.max(0, charOffset - EXCERPT_BEFORE), charOffset)),
      after: flat(text.slice(charOffset, charOffset + EXCERPT_AFTER)),
    },
  };
}

/**
 * Works out the prompt cache of one session's logged calls, fed in call order with {@link next}: the recorded
 * figures where the ledger has them, else modelled from the stored requests (each rendered as the runner renders
 * it, with the cache hints of the rules' provider), keyed by model as the runner keys its model.
 *
 * @example
 * const replay = new SessionCacheReplay(key);
 * for (const call of calls) replay.next(call);
 * replay.totals.hitRate; // cache reads ÷ prompt tokens
 */
export class SessionCacheReplay {
  private readonly caches = new Map<string, PromptCache>();
  private readonly seen = new Set<string>();
  private readonly price: { key: string; price: ModelPrice } | undefined;
  private readonly unpriced = new Set<string>();
  private readonly free = new Set<string>();
  private readonly rules = new Set<string>();
  private readonly sources = new Set<'recorded' | 'computed'>();
  private sums = { calls: 0, withoutFigures: 0, promptTokens: 0, read: 0, write: 0, costUsd: 0 };

  constructor(
    private readonly key: SessionKey,
    private readonly options: SessionCacheOptions = {},
  ) {
    if (options.priceAs !== undefined) {
      const price = DEFAULT_PRICES[options.priceAs];
      if (!price) throw new RangeError(`No built-in price for ${options.priceAs}.`);
      this.price = { key: options.priceAs, price };
    }
  }

  /**
   * Takes it that `model` made a call before the next one fed (a call the replay was not given): a first changed
   * token at 0 is then a change at the first token, not the session's first request.
   */
  assumeEarlier(model: string): void {
    this.seen.add(model);
  }

  /** The totals of the calls fed so far. */
  get totals(): SessionCacheTotals {
    const { calls, withoutFigures, promptTokens, read, write, costUsd } = this.sums;
    return {
      calls,
      withoutFigures,
      promptTokens,
      read,
      write,
      hitRate: promptTokens > 0 ? read / promptTokens : null,
      costUsd,
      unpriced: [...this.unpriced],
      free: [...this.free],
      rules: [...this.rules],
      sources: [...this.sources],
    };
  }

  /** The cache figures of the session's next call; undefined when it has none and none can be modelled. */
  next(call: CacheCallInput): CallCache | undefined {
    const figures = this.figuresOf(call);
    if (!figures) {
      this.sums.withoutFigures += 1;
      return undefined;
    }
    const price = this.price ?? priceFor(call.model);
    const out: CallCache = figures;
    if (price && call.entry) {
      const entry: LedgerEntry =
        figures.source === 'recorded' ? call.entry : { ...call.entry, cache: { modelled: figures.usage } };
      out.price = price.key;
      out.costUsd = callCostUsd(entry, price.price);
      this.sums.costUsd += out.costUsd;
      if (isFreePrice(price.price)) this.free.add(price.key);
    } else this.unpriced.add(call.model);
    delete (out as Partial<typeof figures>).usage;
    this.sums.calls += 1;
    this.sums.promptTokens += out.promptTokens;
    this.sums.read += out.read;
    this.sums.write += out.write;
    this.rules.add(out.rules);
    this.sources.add(out.source);
    return out;
  }

  private figuresOf(call: CacheCallInput): (CallCache & { usage: ReturnType<PromptCache['observe']> }) | undefined {
    const recorded = call.entry?.cache;
    const rules = recorded
      ? rulesByName.get(recorded.modelled.rules)
      : this.options.priceAs !== undefined
        ? cacheRulesForModel(this.options.priceAs)
        : cacheRulesForModel(call.model);
    if (!recorded && (!rules || !call.request)) return undefined;
    const earlier = this.seen.has(call.model);
    this.seen.add(call.model);
    const encoding = encodingForModel(split(call.model).modelId);
    const rendered = call.request ? renderPrompt(call.request) : undefined;
    const billed = rendered && rules ? withCacheHints(rules.provider, rendered, this.key) : rendered;
    let usage: ReturnType<PromptCache['observe']>;
    let split3: { read: number; write: number; uncached: number };
    if (recorded) {
      usage = recorded.modelled;
      const billedTokens = billedPromptTokens(call.entry!);
      split3 = { read: billedTokens.read, write: billedTokens.write, uncached: billedTokens.uncached };
    } else {
      let cache = this.caches.get(rules!.name);
      if (!cache) this.caches.set(rules!.name, (cache = new PromptCache(rules!)));
      usage = cache.observePrompt(call.model, billed!.prompt, billed!.tools, call.at, encoding);
      split3 = { read: usage.readTokens, write: usage.writeTokens, uncached: usage.uncachedTokens };
    }
    const promptTokens = split3.read + split3.write + split3.uncached;
    return {
      source: recorded ? 'recorded' : 'computed',
      rules: usage.rules,
      promptTokens,
      ...split3,
      hitRate: promptTokens > 0 ? split3.read / promptTokens : 0,
      firstChange:
        call.request && rendered && billed
          ? firstChangeOf(
              usage.firstChangedToken,
              usage.promptTokens,
              earlier,
              { request: call.request, rendered, billed },
              encoding,
            )
          : undefined,
      usage,
    };
  }
}

/**
 * A first change in words, numbered from 1 as the call view lists them: `tool #2 (lookup)`, `message #3 (assistant,
 * tool-call lookup)`, then the part of the request (`history item #5`, `step block`) and the token position.
 */
export function describeFirstChange(change: FirstChange): string {
  if (change.status === 'first') return 'first call: nothing cached before it';
  if (change.status === 'unchanged') return 'nothing changed: the request extends the previous one';
  const location = change.location!;
  const where =
    location.kind === 'tool'
      ? `tool #${location.index + 1} (${location.name ?? ''})`
      : `message #${location.index + 1} (${location.role}, ${location.part}${location.name ? ` ${location.name}` : ''})`;
  const part =
    change.requestPart === 'history'
      ? `history item #${change.item! + 1}`
      : change.requestPart === 'step block'
        ? 'step block'
        : change.requestPart === 'system'
          ? 'system message'
          : 'tool definitions';
  return `${where} · ${part} · token ${change.token.toLocaleString('en-US')}`;
}
