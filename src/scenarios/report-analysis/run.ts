/**
 * Running the report-analysis agent: corpora from generated reports or a folder, and one invocation
 * under a strategy on any model (the offline model gets the report-analysis rules).
 */
import { randomUUID } from 'node:crypto';
import type { CallLog } from '../../agents/call-log.js';
import { Runner, type RunResult } from '../../agents/runner.js';
import { createOfflineModel } from '../../models/offline.js';
import type { ContextProcessor } from '../../context/request.js';
import type { ModelSpec } from '../../models/resolve.js';
import type { SessionStore } from '../../session/store.js';
import type { Ledger } from '../../tokens/ledger.js';
import { CorpusIndex } from '../../sources/corpus-index.js';
import { readDocumentFolder, type ReadDocumentFolderOptions, type SkippedFile } from '../../sources/documents.js';
import { NotFoundError } from '../../errors.js';
import { loaderSource, type DocumentSource } from '../../sources/source.js';
import type { PageStore } from '../../paging/page-store.js';
import { createReportAnalyst, type ReportStrategy } from './agent.js';
import type { Report } from './corpus.js';
import { passageOfflinePolicy } from './passage-policy.js';
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

/** A corpus read from a folder, with what could not be read. */
export interface FolderCorpus extends ReportCorpus {
  /** Files read (a PDF is one file of several page documents). */
  filesRead: number;
  /** Files not read, each with a one-line reason. */
  skipped: SkippedFile[];
}

/**
 * A corpus over the documents of a folder (confined to it): text, Markdown, HTML, JSON, CSV, PDF pages, DOCX and
 * XLSX sheets. Files that cannot be read are listed in `skipped`, never indexed.
 */
export async function folderCorpus(dir: string, options: ReadDocumentFolderOptions = {}): Promise<FolderCorpus> {
  const folder = await readDocumentFolder(dir, options);
  // A generated corpus's manifest lists ids and titles only; it is bookkeeping, not a document to answer from.
  const byUri = new Map(folder.documents.filter((doc) => !isCorpusManifest(doc)).map((doc) => [doc.uri, doc]));
  const source = loaderSource(
    `folder:${dir}`,
    (uri) => byUri.has(uri),
    (uri) => {
      const doc = byUri.get(uri);
      if (!doc) throw new NotFoundError('Document', uri, 'Search the folder for the documents it holds.');
      return { body: doc.body, title: doc.title, mediaType: doc.mediaType };
    },
  );
  const index = new CorpusIndex();
  for (const doc of folder.documents) index.add(doc);
  return { source, index, uris: [...byUri.keys()], filesRead: folder.filesRead, skipped: folder.skipped };
}

function isCorpusManifest(doc: { uri: string; body: string }): boolean {
  if (doc.uri !== 'manifest.json') return false;
  try {
    const value = JSON.parse(doc.body) as { seed?: unknown; count?: unknown; reports?: unknown };
    return typeof value.seed === 'number' && typeof value.count === 'number' && Array.isArray(value.reports);
  } catch {
    return false;
  }
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
  /** Continue the interrupted invocation of this session (through `Runner.resume`) instead of starting one. */
  resumeSessionId?: string;
  /** Told the session id before the run starts, so an interrupted run can say how to resume it. */
  onSession?: (sessionId: string) => void;
  /** Timeout of one model call attempt, in ms. Default the runner's (120,000). */
  modelTimeoutMs?: number;
  /** Wall-time limit of the run, in ms. Default the runner's (30 minutes). */
  maxWallTimeMs?: number;
}

/** Runs one report-analysis invocation and returns its result (throws on a context-window overflow). */
export async function runReportAnalysis(options: ReportRunOptions): Promise<RunResult> {
  const modelSpec = options.model ?? 'offline';
  const model =
    modelSpec === 'offline' ? createOfflineModel({ policies: [passageOfflinePolicy, reportOfflinePolicy] }) : modelSpec;
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
    limits: {
      maxSteps: analyst.maxStepsFor(options.corpus.uris.length),
      ...(options.maxWallTimeMs !== undefined ? { maxWallTimeMs: options.maxWallTimeMs } : {}),
    },
    ...(options.modelTimeoutMs !== undefined ? { retry: { timeoutMs: options.modelTimeoutMs } } : {}),
  });
  const userId = options.userId ?? 'analyst';
  const signal = options.signal ? { signal: options.signal } : {};
  if (options.resumeSessionId !== undefined) {
    options.onSession?.(options.resumeSessionId);
    return runner.resume({ userId, sessionId: options.resumeSessionId, ...signal });
  }
  const sessionId = randomUUID();
  options.onSession?.(sessionId);
  return runner.run({ userId, sessionId, message: options.question, ...signal });
}
