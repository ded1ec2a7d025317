/**
 * A Session wrapper that compresses what the OpenAI Agents SDK stores, like the SDK's own compaction
 * session but steered by pagewise guidelines and with nothing lost: large function results are stored
 * compressed with a handle to their raw text (kept as pages), and history processors (ACON's C_hist)
 * may replace stored history with a summary, the replaced items kept as a page as well.
 */
import type { AgentInputItem, Session } from '@openai/agents';
import type { ObservationProcessor } from 'pagewise/context';
import type { ContextProcessor } from 'pagewise/context';
import { toolPageUri } from 'pagewise/adapter-kit';
import type { PagingService } from 'pagewise/paging';
import { Ledger } from 'pagewise';
import { HistoryBridge } from 'pagewise/adapter-kit';
import { compressResults, lastUserText } from './filter.js';
import { isStepBlockItem, itemsCodec } from './items.js';

/** Options of {@link PagewiseSession}. */
export interface PagewiseSessionOptions {
  /** Observation processors applied to function results as they are stored. */
  observationProcessors?: ObservationProcessor[];
  /** History processors applied to the stored history after each append. */
  processors?: ContextProcessor[];
  /** Where replaced history is archived (required with `processors`). */
  service?: PagingService;
  /** Receives compressor calls. Default: a new ledger. */
  ledger?: Ledger;
}

/** The page URI of history archive `pageNumber` of a session (a tool page: `page_in` reads it). */
export function historyPageUri(sessionId: string, pageNumber: number): string {
  return toolPageUri('history', `${sessionId}/${pageNumber}`);
}

/**
 * Wraps any SDK session (`MemorySession`, a database session, ...).
 *
 * @example
 * const session = new PagewiseSession(new MemorySession(), { observationProcessors: [observationCompressor({ service })] });
 * await run(agent, task, { session, context: pagingContext() });
 */
export class PagewiseSession implements Session {
  readonly ledger: Ledger;
  private readonly bridge: HistoryBridge;
  private readonly cache = new Map<string, string>();

  constructor(
    readonly inner: Session,
    private readonly options: PagewiseSessionOptions = {},
  ) {
    this.ledger = options.ledger ?? new Ledger();
    this.bridge = new HistoryBridge(options.processors ?? []);
    if (this.bridge.active && !options.service)
      throw new TypeError('PagewiseSession: history processors need `service` to archive the history they replace.');
  }

  getSessionId(): Promise<string> {
    return this.inner.getSessionId();
  }

  getItems(limit?: number): Promise<AgentInputItem[]> {
    return this.inner.getItems(limit);
  }

  async addItems(added: AgentInputItem[]): Promise<void> {
    // The SDK stores the first call's input as the model saw it; the step block is rendered per call, never history.
    const items = added.filter((item) => !isStepBlockItem(item));
    const sessionId = await this.inner.getSessionId();
    const history = await this.inner.getItems();
    const ctx = {
      sessionId,
      agentName: 'openai-agents',
      invocationId: 'session',
      task: lastUserText([...history, ...items]),
      ledger: this.ledger,
    };
    await this.inner.addItems([
      ...(await compressResults(items, this.options.observationProcessors ?? [], ctx, this.cache)),
    ]);
    if (!this.bridge.active) return;
    const all = await this.inner.getItems();
    const next = await this.bridge.apply(all, itemsCodec, ctx);
    if (next === all) return;
    const service = this.options.service!;
    // Numbered after the archives already in the store: a handle is written once, and a session wrapped
    // again (a restarted process) must not collide with the archives written before.
    const namespace = service.namespaceOf(historyPageUri(sessionId, 1), sessionId);
    const prefix = historyPageUri(sessionId, 1).slice(0, -1);
    const earlier = (await service.pageStore.list(namespace)).filter((page) => page.uri.startsWith(prefix));
    const uri = historyPageUri(sessionId, earlier.length + 1);
    await service.pageStore.put({
      namespace,
      uri,
      title: 'history before compaction',
      body: JSON.stringify(all),
      mediaType: 'application/json',
    });
    await this.inner.clearSession();
    await this.inner.addItems([...next]);
  }

  popItem(): Promise<AgentInputItem | undefined> {
    return this.inner.popItem();
  }

  clearSession(): Promise<void> {
    return this.inner.clearSession();
  }
}
