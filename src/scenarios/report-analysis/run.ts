/**
 * Running the report-analysis agent: corpora from generated reports or a folder, and one invocation
 * under a strategy on any model (the offline model gets the report-analysis rules).
 */
import type { CallLog } from '../../agents/call-log.js';
import { Runner, type RunResult } from '../../agents/runner.js';
import { createOfflineModel } from '../../models/offline.js';
import type { ContextProcessor } from '../../context/request.js';
import type { ModelSpec } from '../../models/resolve.js';
import type { SessionStore } from '../../session/store.js';
import type { Ledger } from '../../tokens/ledger.js';
import { CorpusIndex } from '../../sources/corpus-index.js';
import { createFolderSource } from '../../sources/folder-source.js';
import { loaderSource, type DocumentSource } from '../../sources/source.js';
import type { PageStore } from '../../paging/page-store.js';
import { createReportAnalyst, type ReportStrategy } from './agent.js';
import type { Report } from './corpus.js';
import { reportOfflinePolicy } from './policy.js';

/** Documents the analyst works over. */
export interface ReportCorpus {
  source: DocumentSource;
  index: CorpusIndex;
  uris: string[];
}

/** A corpus over generated reports held in memory. */
export function inMemoryCorpus(reports: readonly Report[]): ReportCorpus {
  const byUri = new Map(reports.map((r) => [r.uri, r]));
  const source = loaderSource(
    'generated-reports',
    (uri) => byUri.has(uri),
    (uri) => {
      const r = byUri.get(uri)!;
      return { body: r.body, title: r.title, mediaType: 'text/markdown' };
    },
  );
  const index = new CorpusIndex();
  for (const r of reports) index.add({ uri: r.uri, title: r.title, body: r.body });
  return { source, index, uris: reports.map((r) => r.uri) };
}

/** A corpus over the markdown and text files of a folder (confined to it). */
export async function folderCorpus(dir: string): Promise<ReportCorpus> {
  const source = createFolderSource({ root: dir, extensions: ['md', 'markdown', 'txt', 'html', 'htm'] });
  const index = await CorpusIndex.fromSource(source);
  return { source, index, uris: await source.list() };
}

/** Options of {@link runReportAnalysis}. */
export interface ReportRunOptions {
  corpus: ReportCorpus;
  question: string;
  strategy?: ReportStrategy;
  /** Default `offline`. */
  model?: ModelSpec;
  ramBudgetTokens?: number;
  maxReportsPerRead?: number;
  /** Context window; 0 turns the check off; default the model's. */
  contextWindow?: number;
  boundary?: () => string;
  store?: SessionStore;
  pageStore?: PageStore;
  ledger?: Ledger;
  /** Receives every agent model call as sent (for `pagewise inspect`). */
  callLog?: CallLog;
  userId?: string;
  /** Extra context processors of the analyst. */
  processors?: ContextProcessor[];
  /** App name the session is stored under. Default `pagewise`. */
  appName?: string;
  signal?: AbortSignal;
}

/** Runs one report-analysis invocation and returns its result (throws on a context-window overflow). */
export async function runReportAnalysis(options: ReportRunOptions): Promise<RunResult> {
  const modelSpec = options.model ?? 'offline';
  const model = modelSpec === 'offline' ? createOfflineModel({ policies: [reportOfflinePolicy] }) : modelSpec;
  const analyst = createReportAnalyst({
    source: options.corpus.source,
    index: options.corpus.index,
    uris: options.corpus.uris,
    model,
    strategy: options.strategy ?? 'paging',
    ...(options.ramBudgetTokens !== undefined ? { ramBudgetTokens: options.ramBudgetTokens } : {}),
    ...(options.maxReportsPerRead !== undefined ? { maxReportsPerRead: options.maxReportsPerRead } : {}),
    ...(options.boundary ? { boundary: options.boundary } : {}),
    ...(options.pageStore ? { pageStore: options.pageStore } : {}),
    ...(options.processors ? { processors: options.processors } : {}),
  });
  const runner = new Runner({
    agent: analyst.planner,
    appName: options.appName ?? 'pagewise',
    ...(options.store ? { store: options.store } : {}),
    ...(options.ledger ? { ledger: options.ledger } : {}),
    ...(options.callLog ? { callLog: options.callLog } : {}),
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    limits: { maxSteps: analyst.maxStepsFor(options.corpus.uris.length) },
  });
  return runner.run({
    userId: options.userId ?? 'analyst',
    message: options.question,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
