/**
 * The paging service: loads pages (from the page store or a source, at most once per invocation), keeps
 * the working set in `temp:` state under a token budget, and renders it fenced into the instruction.
 * State is the disk, the instruction is the RAM, the model is the CPU.
 */
import { LimitExceededError, NotFoundError, PagewiseError } from '../errors.js';
import type { StateAccess } from '../agents/tool.js';
import type { DocumentSource } from '../sources/source.js';
import type { JsonValue } from '../session/types.js';
import { countTokens } from '../tokens/tokenizer.js';
import { fenceBoundary, renderFencedNotes, renderFencedPages, type FencedNotes, type FencedPage } from './fence.js';
import { splitFrames } from './frames.js';
import { loadedReceipt } from './paging-history.js';
import { InMemoryPageStore, TOOL_PAGE_SCHEME, type PageInfo, type PageStore } from './page-store.js';

export { TOOL_PAGE_SCHEME } from './page-store.js';

/** The state key of the working set (the name the instruction-paging pattern gives it): the URIs to expand at the next call. */
export const WANT_READ_KEY = 'temp:want_read';
/** Prefix of the keys that hold the frame (1-based) of a split page in the working set. */
export const WANT_FRAME_PREFIX = 'temp:want_frame:';
/** Prefix of durable saved results. */
export const RESULT_PREFIX = 'result:';
/** The instruction-paging pattern's cap on pages per read. */
export const MAX_REPORTS_PER_READ = 10;

/** How page-in treats `mode`: replace the working set, or add to it. */
export type PageInMode = 'replace' | 'add';

/** Options of a {@link PagingService}. */
export interface PagingOptions {
  /** Where pages are kept. Default: in memory. */
  pageStore?: PageStore;
  /** Loads URIs not in the store (folder, HTTP, custom). */
  source?: DocumentSource;
  /** Token budget of the working set (`ramBudgetTokens`). Default 32,000. */
  ramBudgetTokens?: number;
  /** Pages per page-in call (`MAX_REPORTS_PER_READ`). Default 10. */
  maxPagesPerRead?: number;
  /** Pages above this many tokens are split into frames of this size. Default 8,000. */
  frameTokens?: number;
  /**
   * Reuse a stored page across invocations if fetched within this many ms, for sources that cannot tell a body's
   * current hash (`DocumentSource.contentHash`); pages of sources that can are reused exactly while unchanged.
   * Default 1 hour; 0 refetches every invocation.
   */
  cacheMaxAgeMs?: number;
  /** Namespace of source pages in the page store. Default `corpus`. */
  corpusNamespace?: string;
  /** Fence boundary generator. Default {@link fenceBoundary}: 21 random decimal digits (≈70 bits) per render. */
  boundary?: () => string;
}

/**
 * Pages could not be loaded; nothing was changed. The sources' messages are fenced as data in the
 * message, because they carry text from outside (an HTTP server's status text, a file name), and this
 * message reaches the model as a tool error. Retryable when every failure was.
 */
export class PageLoadError extends PagewiseError {
  /** Each URI that failed, with the error its source gave. */
  readonly failures: readonly { uri: string; error: unknown }[];

  constructor(failures: readonly { uri: string; error: unknown }[], requested: number, boundary: string) {
    const notes = failures.map(
      ({ uri, error }) => [uri, error instanceof Error ? error.message : String(error)] as const,
    );
    super({
      code: 'page-load-failed',
      fault: 'system',
      retryable: failures.every((f) => PagewiseError.isInstance(f.error) && f.error.retryable),
      message:
        `Could not load ${failures.length} of ${requested} pages; nothing was changed.\n` +
        renderFencedNotes('Errors from the sources', notes, boundary),
      cause: failures[0]?.error,
    });
    this.failures = failures;
  }
}

/** One entry of the working set. */
export interface WorkingSetEntry {
  uri: string;
  /** 1-based frame of a split page. */
  frame?: number;
  tokens: number;
  title: string;
  frames: number;
}

/** Reads the working set URIs from state. */
function wantedUris(
  state: { get(key: string): JsonValue | undefined } | Readonly<Record<string, JsonValue>>,
): string[] {
  const raw =
    typeof (state as StateAccess).get === 'function'
      ? (state as StateAccess).get(WANT_READ_KEY)
      : (state as Record<string, JsonValue>)[WANT_READ_KEY];
  return Array.isArray(raw) ? raw.filter((u): u is string => typeof u === 'string') : [];
}

function frameOf(state: StateAccess | Readonly<Record<string, JsonValue>>, uri: string): number | undefined {
  const key = WANT_FRAME_PREFIX + uri;
  const raw =
    typeof (state as StateAccess).get === 'function'
      ? (state as StateAccess).get(key)
      : (state as Record<string, JsonValue>)[key];
  return typeof raw === 'number' ? raw : undefined;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** Loads pages and manages the working set of an agent. */
export class PagingService {
  readonly pageStore: PageStore;
  readonly source: DocumentSource | undefined;
  readonly ramBudgetTokens: number;
  readonly maxPagesPerRead: number;
  readonly frameTokens: number;
  readonly cacheMaxAgeMs: number;
  readonly corpusNamespace: string;
  /** Draws the fence boundary of one render; every fenced block of a paged instruction uses it. */
  readonly boundary: () => string;
  private readonly fetched = new Map<string, Set<string>>();
  /** The URIs of the working set as last rendered into a prompt, per session: what the model has seen. */
  private readonly rendered = new Map<string, readonly string[]>();
  /** Source fetches made, for tests and metrics. */
  fetchCount = 0;

  constructor(options: PagingOptions = {}) {
    this.pageStore = options.pageStore ?? new InMemoryPageStore();
    this.source = options.source;
    this.ramBudgetTokens = options.ramBudgetTokens ?? 32_000;
    this.maxPagesPerRead = options.maxPagesPerRead ?? MAX_REPORTS_PER_READ;
    this.frameTokens = options.frameTokens ?? 8_000;
    this.cacheMaxAgeMs = options.cacheMaxAgeMs ?? 60 * 60_000;
    this.corpusNamespace = options.corpusNamespace ?? 'corpus';
    this.boundary = options.boundary ?? fenceBoundary;
    for (const [name, value] of [
      ['ramBudgetTokens', this.ramBudgetTokens],
      ['maxPagesPerRead', this.maxPagesPerRead],
      ['frameTokens', this.frameTokens],
    ] as const) {
      if (!Number.isInteger(value) || value < 1)
        throw new RangeError(`Paging option ${name} must be a positive integer, got ${value}.`);
    }
  }

  /** The page-store namespace of a URI: tool pages belong to their session, the rest to the corpus. */
  namespaceOf(uri: string, sessionId: string): string {
    return uri.startsWith(TOOL_PAGE_SCHEME) ? `session:${sessionId}` : this.corpusNamespace;
  }

  private fetchedSet(invocationId: string): Set<string> {
    let set = this.fetched.get(invocationId);
    if (!set) {
      set = new Set();
      this.fetched.set(invocationId, set);
      // Keep the bookkeeping of recent invocations only.
      if (this.fetched.size > 64) this.fetched.delete(this.fetched.keys().next().value!);
    }
    return set;
  }

  /**
   * Returns a page's info, fetching it from the source if the store lacks it or holds a copy older than
   * the cache policy allows. Within one invocation a page is fetched at most once.
   */
  async load(uri: string, ctx: { invocationId: string; sessionId: string; signal?: AbortSignal }): Promise<PageInfo> {
    const ns = this.namespaceOf(uri, ctx.sessionId);
    const seen = this.fetchedSet(ctx.invocationId);
    const stored = await this.pageStore.info(ns, uri);
    if (stored && (seen.has(uri) || uri.startsWith(TOOL_PAGE_SCHEME) || (await this.isCurrent(stored, ctx.signal)))) {
      seen.add(uri);
      return stored;
    }
    if (uri.startsWith(TOOL_PAGE_SCHEME))
      throw new NotFoundError('Page', uri, 'Tool-result pages exist only in the session that produced them.');
    if (!this.source || !this.source.canLoad(uri)) {
      throw new NotFoundError(
        'Page',
        uri,
        this.source
          ? `No source can load it (${this.source.name}). Check the URI; search for documents first.`
          : 'No source is configured to load it.',
      );
    }
    const doc = await this.source.load(uri, ctx.signal ? { signal: ctx.signal } : {});
    this.fetchCount += 1;
    const info = await this.pageStore.put({
      namespace: ns,
      uri,
      title: doc.title,
      body: doc.body,
      mediaType: doc.mediaType,
      fetchedAt: doc.fetchedAt,
    });
    seen.add(uri);
    return info;
  }

  /**
   * Whether a stored page may stand for its source now: by content when the source can tell its current hash (a
   * changed file is fetched again however recent the copy), else by age.
   */
  private async isCurrent(stored: PageInfo, signal: AbortSignal | undefined): Promise<boolean> {
    if (this.cacheMaxAgeMs <= 0) return false;
    const current =
      this.source?.contentHash && this.source.canLoad(stored.uri)
        ? await this.source.contentHash(stored.uri, signal ? { signal } : {})
        : undefined;
    if (current !== undefined) return current === stored.hash;
    return Date.now() - stored.fetchedAt < this.cacheMaxAgeMs;
  }

  /** {@link load}, with a failure reported as a {@link PageLoadError} whose source text is fenced. */
  async loadFenced(
    uri: string,
    ctx: { invocationId: string; sessionId: string; signal?: AbortSignal },
  ): Promise<PageInfo> {
    try {
      return await this.load(uri, ctx);
    } catch (error) {
      throw new PageLoadError([{ uri, error }], 1, this.boundary());
    }
  }

  /** The body of a page (or of one frame, 1-based). */
  async body(uri: string, sessionId: string, frame?: number): Promise<string> {
    const page = await this.pageStore.get(this.namespaceOf(uri, sessionId), uri);
    if (!page) throw new NotFoundError('Page', uri, 'Page it in first.');
    if (frame === undefined && page.tokens <= this.frameTokens) return page.body;
    const frames = splitFrames(page.body, this.frameTokens, page.hash);
    const frameNumber = frame ?? 1;
    if (frameNumber < 1 || frameNumber > frames.length)
      throw new RangeError(`Page ${uri} has frames 1..${frames.length}; frame ${frameNumber} does not exist.`);
    return frames[frameNumber - 1]!;
  }

  private async entryFor(info: PageInfo, sessionId: string, frame?: number): Promise<WorkingSetEntry> {
    if (info.tokens <= this.frameTokens && frame === undefined)
      return { uri: info.uri, tokens: info.tokens, title: info.title, frames: 1 };
    const page = await this.pageStore.get(info.namespace, info.uri);
    const frames = splitFrames(page!.body, this.frameTokens, info.hash);
    const frameNumber = frame ?? 1;
    if (!Number.isInteger(frameNumber) || frameNumber < 1 || frameNumber > frames.length)
      throw new RangeError(`Page ${info.uri} has frames 1..${frames.length}; frame ${frameNumber} does not exist.`);
    return {
      uri: info.uri,
      frame: frameNumber,
      tokens: countTokens(frames[frameNumber - 1]!),
      title: info.title,
      frames: frames.length,
    };
  }

  /** The current working set, with token sizes. */
  async workingSet(
    state: StateAccess | Readonly<Record<string, JsonValue>>,
    sessionId: string,
  ): Promise<WorkingSetEntry[]> {
    const out: WorkingSetEntry[] = [];
    for (const uri of wantedUris(state)) {
      const info = await this.pageStore.info(this.namespaceOf(uri, sessionId), uri);
      if (!info) continue;
      out.push(await this.entryFor(info, sessionId, frameOf(state, uri)));
    }
    return out;
  }

  private writeWorkingSet(state: StateAccess, entries: WorkingSetEntry[]): void {
    for (const key of state.keys(WANT_FRAME_PREFIX)) state.delete(key);
    state.set(
      WANT_READ_KEY,
      entries.map((e) => e.uri),
    );
    for (const entry of entries) if (entry.frame !== undefined) state.set(WANT_FRAME_PREFIX + entry.uri, entry.frame);
  }

  private budgetError(requested: WorkingSetEntry[], kept: WorkingSetEntry[], verb: string): Error {
    const keptTokens = kept.reduce((s, e) => s + e.tokens, 0);
    let room = this.ramBudgetTokens - keptTokens;
    const fits: string[] = [];
    for (const entry of requested) {
      if (entry.tokens > room) break;
      fits.push(entry.uri);
      room -= entry.tokens;
    }
    const total = keptTokens + requested.reduce((s, e) => s + e.tokens, 0);
    return new LimitExceededError(
      'ramBudgetTokens',
      this.ramBudgetTokens,
      'ramBudgetTokens',
      `${verb} would make the working set ${fmt(total)} tokens; nothing was changed. ` +
        (fits.length
          ? `These fit: ${JSON.stringify(fits)}.`
          : 'None of the requested pages fits; page out others first, or read a large page frame by frame.'),
    );
  }

  /**
   * Loads pages into the working set (`replace` or `add`) and returns a receipt. Refuses, changing
   * nothing, when the batch is too large or would exceed the budget.
   */
  async pageIn(
    uris: string[],
    mode: PageInMode,
    ctx: { state: StateAccess; invocationId: string; sessionId: string; signal?: AbortSignal },
  ): Promise<string> {
    const unique = [...new Set(uris)];
    if (unique.length === 0) throw new RangeError('Give at least one URI.');
    if (unique.length > this.maxPagesPerRead) {
      throw new LimitExceededError(
        'maxPagesPerRead',
        this.maxPagesPerRead,
        'maxPagesPerRead',
        `${unique.length} pages requested at once; read them in batches of at most ${this.maxPagesPerRead}`,
      );
    }
    const failures: { uri: string; error: unknown }[] = [];
    const infos: PageInfo[] = [];
    await Promise.all(
      unique.map(async (uri, index) => {
        try {
          infos[index] = await this.load(uri, ctx);
        } catch (error) {
          failures.push({ uri, error });
        }
      }),
    );
    if (failures.length) throw new PageLoadError(failures, unique.length, this.boundary());
    const requested = await Promise.all(infos.map((info) => this.entryFor(info, ctx.sessionId)));
    const current =
      mode === 'add' ? (await this.workingSet(ctx.state, ctx.sessionId)).filter((e) => !unique.includes(e.uri)) : [];
    const next = [...current, ...requested];
    const total = next.reduce((s, e) => s + e.tokens, 0);
    if (total > this.ramBudgetTokens) throw this.budgetError(requested, current, `Paging in ${unique.length} pages`);
    this.writeWorkingSet(ctx.state, next);
    const framed = requested.filter((e) => e.frame !== undefined);
    // The instruction lists the working set and states its budget once it binds, so the receipt need not.
    return (
      loadedReceipt(requested.length) +
      (framed.length
        ? ` Split pages (frame 1 loaded; use read_frame for the others): ${framed.map((e) => `${e.uri} has ${e.frames} frames`).join('; ')}.`
        : '')
    );
  }

  /** Puts frame `frame` (1-based) of a split page into the working set, keeping the other pages. */
  async readFrame(
    uri: string,
    frame: number,
    ctx: { state: StateAccess; invocationId: string; sessionId: string; signal?: AbortSignal },
  ): Promise<string> {
    const info = await this.loadFenced(uri, ctx);
    const entry = await this.entryFor(info, ctx.sessionId, frame);
    const current = (await this.workingSet(ctx.state, ctx.sessionId)).filter((e) => e.uri !== uri);
    const total = current.reduce((s, e) => s + e.tokens, 0) + entry.tokens;
    if (total > this.ramBudgetTokens) throw this.budgetError([entry], current, `Reading frame ${frame} of ${uri}`);
    this.writeWorkingSet(ctx.state, [...current, entry]);
    return `Frame ${frame}/${entry.frames} of ${uri} loaded (${fmt(entry.tokens)} tokens). Working set: ${current.length + 1} pages, ${fmt(total)} of ${fmt(this.ramBudgetTokens)} tokens.`;
  }

  /** Removes pages from the working set. */
  async pageOut(uris: string[], ctx: { state: StateAccess; sessionId: string }): Promise<string> {
    const current = await this.workingSet(ctx.state, ctx.sessionId);
    const drop = new Set(uris);
    const next = current.filter((e) => !drop.has(e.uri));
    this.writeWorkingSet(ctx.state, next);
    const total = next.reduce((s, e) => s + e.tokens, 0);
    return `${current.length - next.length} paged out. Working set: ${next.length} pages, ${fmt(total)} of ${fmt(this.ramBudgetTokens)} tokens.`;
  }

  /**
   * The URIs of this session's working set as last rendered into a prompt: the pages the model has seen in its
   * latest request. Empty before the first render in this process.
   */
  seenUris(sessionId: string): readonly string[] {
    return this.rendered.get(sessionId) ?? [];
  }

  /**
   * Releases the pages the model has seen (the working set as last rendered for this session) and keeps
   * any loaded since, e.g. by a `get_reports` in the same step. Returns how many were released.
   */
  async releaseSeen(ctx: { state: StateAccess; sessionId: string }): Promise<number> {
    const seen = new Set(this.rendered.get(ctx.sessionId) ?? []);
    if (seen.size === 0) return 0;
    // Read and written with no await in between: a tool of the same step that loads a batch into a state
    // shared across concurrent tools (as the framework adapters have) is never overwritten by a stale copy.
    const current = wantedUris(ctx.state);
    const next = current.filter((uri) => !seen.has(uri));
    if (next.length === current.length) return 0;
    ctx.state.set(WANT_READ_KEY, next);
    for (const uri of current) if (seen.has(uri)) ctx.state.delete(WANT_FRAME_PREFIX + uri);
    return current.length - next.length;
  }

  /**
   * Renders the working set as a fenced block, its token use (`14641 of 32000 tokens`) in the preface;
   * `notes` (e.g. saved results) open the same block. Empty string when there is nothing to show.
   */
  async render(
    state: Readonly<Record<string, JsonValue>>,
    sessionId: string,
    boundary: string = this.boundary(),
    options: { notes?: FencedNotes } = {},
  ): Promise<{ text: string; entries: WorkingSetEntry[] }> {
    const entries = await this.workingSet(state, sessionId);
    this.rendered.delete(sessionId);
    // Bounded bookkeeping: the sessions rendered most recently.
    if (this.rendered.size >= 1024) this.rendered.delete(this.rendered.keys().next().value!);
    this.rendered.set(
      sessionId,
      entries.map((e) => e.uri),
    );
    if (entries.length === 0 && !options.notes?.items.length) return { text: '', entries };
    const pages: FencedPage[] = [];
    for (const entry of entries) {
      pages.push({
        uri: entry.uri,
        title: entry.title,
        body: await this.body(entry.uri, sessionId, entry.frame),
        ...(entry.frame !== undefined ? { frame: `${entry.frame}/${entry.frames}` } : {}),
      });
    }
    const used = entries.reduce((s, e) => s + e.tokens, 0);
    // The budget is stated once it binds: past half of it, another working set as large no longer fits.
    // Below that the model can load as much again, and a load over budget is refused with the figures.
    const { text } = renderFencedPages(pages, boundary, {
      ...(options.notes ? { notes: options.notes } : {}),
      ...(used * 2 > this.ramBudgetTokens ? { detail: `${used} of ${this.ramBudgetTokens} tokens` } : {}),
    });
    return { text, entries };
  }
}
