/**
 * Running the report-analysis agent: corpora from generated reports or a folder, and one invocation
 * under a strategy on any model (the offline model gets the report-analysis rules).
 */
import { createHash, randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { ModelSpec, SessionStore, Ledger } from 'pagewise';
import type { ContextProcessor } from 'pagewise/context';
import type { PromptCacheRules } from 'pagewise/cost';
import type { PageStore } from 'pagewise/paging';
import type { CallLog } from 'pagewise/store-kit';
import {
  Runner,
  type RunResult,
  createOfflineModel,
  ConfigurationError,
  NotFoundError,
  modelLabel,
  InMemorySessionStore,
} from 'pagewise';
import { CorpusIndex, loaderSource, type DocumentSource } from 'pagewise/sources';
import {
  readDocumentFolder,
  type FolderDocument,
  type ReadDocumentFolderOptions,
  type SkippedFile,
  sha256Hex,
} from '@pagewise/documents';
import { createReportAnalyst, readingProgress, type ReadingProgress, type ReportStrategy } from './agent.js';
import type { Report } from './corpus.js';
import { FilingIndex } from './filings.js';
import { passageOfflinePolicy } from './passage-policy.js';
import { reportOfflinePolicy } from './policy.js';

/** Documents the analyst works over. */
export interface ReportCorpus {
  source: DocumentSource;
  index: CorpusIndex;
  uris: string[];
  /**
   * Page-store namespace of the corpus's pages, so two corpora with the same URIs (`a.txt` in two folders) never
   * share a stored page. Default `corpus`.
   */
  namespace?: string;
}

/** A corpus over generated reports held in memory. */
export function inMemoryCorpus(reports: readonly Report[]): ReportCorpus {
  const byUri = new Map(reports.map((r) => [r.uri, r]));
  const source = loaderSource(
    'generated-reports',
    (uri) => byUri.has(uri),
    (uri) => {
      const report = byUri.get(uri)!;
      return { body: report.body, title: report.title, mediaType: 'text/markdown' };
    },
  );
  const index = new CorpusIndex();
  for (const report of reports) index.add({ uri: report.uri, title: report.title, body: report.body });
  return { source, index, uris: reports.map((r) => r.uri) };
}

/** A corpus read from a folder, with what could not be read. */
export interface FolderCorpus extends ReportCorpus {
  /** Files read (a PDF is one file of several page documents). */
  filesRead: number;
  /** Files not read, each with a one-line reason. */
  skipped: SkippedFile[];
  /** Files parsed by this call; the rest came from the extraction cache (see `readDocumentFolder`'s `cache`). */
  extracted: number;
  /** Files answered by the extraction cache instead of being parsed again. */
  reused: number;
}

/**
 * A corpus over the documents of a folder (confined to it): text, Markdown, HTML, JSON, CSV, PDF pages, DOCX and
 * XLSX sheets. Files that cannot be read are listed in `skipped`, never indexed.
 *
 * What is extracted is cached by content hash: by default in this process's memory (a second call on the same
 * files parses none of them again), and also on disk when `options.cache` is a `DocumentCache` with a folder (as
 * `pagewise analyze` passes); `cache: false` parses every file again. The search index over the pages is kept too:
 * a call whose documents are all the same as an earlier call's in this process gets that call's index, so treat
 * `index` as read-only.
 */
export async function folderCorpus(dir: string, options: ReadDocumentFolderOptions = {}): Promise<FolderCorpus> {
  const folder = await readDocumentFolder(dir, options);
  // A generated corpus's manifest lists ids and titles only; it is bookkeeping, not a document to answer from.
  const byUri = new Map(folder.documents.filter((doc) => !isCorpusManifest(doc)).map((doc) => [doc.uri, doc]));
  const identity = await realpath(dir).catch(() => path.resolve(dir));
  const source: DocumentSource = {
    ...loaderSource(
      `folder:${identity}`,
      (uri) => byUri.has(uri),
      (uri) => {
        const doc = byUri.get(uri);
        if (!doc) throw new NotFoundError('Document', uri, 'Search the folder for the documents it holds.');
        return { body: doc.body, title: doc.title, mediaType: doc.mediaType };
      },
    ),
    // The text this run read (and searched): a page stored by an earlier run is served only when it is the same.
    contentHash: async (uri) => {
      const doc = byUri.get(uri);
      return doc ? sha256Hex(doc.body) : undefined;
    },
  };
  const index = filingIndexOf(folder.documents);
  return {
    source,
    index,
    uris: [...byUri.keys()],
    namespace: `folder:${identity}`,
    filesRead: folder.filesRead,
    skipped: folder.skipped,
    extracted: folder.extracted,
    reused: folder.reused,
  };
}

/** How many folder indexes this process keeps, the most recently used first. */
const MAX_KEPT_INDEXES = 16;
const keptIndexes = new Map<string, FilingIndex>();

/**
 * The search index of a folder's documents: documents before passages, as a folder of filings is searched for the
 * document the question is about first. Built once per set of documents (URI, title and text) in this process.
 */
function filingIndexOf(documents: readonly FolderDocument[]): FilingIndex {
  const digest = createHash('sha256');
  for (const doc of documents) digest.update(`${doc.uri}\0${doc.title}\0${doc.body}\0`);
  const key = digest.digest('hex');
  let index = keptIndexes.get(key);
  if (index) keptIndexes.delete(key);
  else {
    index = new FilingIndex();
    for (const doc of documents) index.add(doc);
  }
  keptIndexes.set(key, index);
  for (const oldest of keptIndexes.keys()) {
    if (keptIndexes.size <= MAX_KEPT_INDEXES) break;
    keptIndexes.delete(oldest);
  }
  return index;
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
  /** The naive analyst's plan line in the system message (see `ReportAnalystOptions.volatilePrefix`). */
  volatilePrefix?: boolean;
  /** App name the session is stored under. Default `pagewise`. */
  appName?: string;
  signal?: AbortSignal;
  /** Continue the interrupted invocation of this session (through `Runner.resume`) instead of starting one. */
  resumeSessionId?: string;
  /** Told the session id before the run starts, so an interrupted run can say how to resume it. */
  onSession?: (sessionId: string) => void;
  /**
   * Told the reading plan and progress (documents planned, loaded, read) before each model call of the analyst,
   * for a progress display.
   */
  onProgress?: (progress: ReadingProgress) => void;
  /** Timeout of one model call attempt, in ms. Default the runner's (120,000). */
  modelTimeoutMs?: number;
  /** The prompt-cache rules agent calls are modelled with (the runner's `promptCache`). */
  promptCache?: PromptCacheRules | false;
  /** Wall-time limit of the run, in ms. Default the runner's (30 minutes). */
  maxWallTimeMs?: number;
  /**
   * Resume with another model than the session was started with. Off by default: a resumed analysis that silently
   * continues on another model (the offline rules after a hosted model, say) gives an answer neither would give.
   */
  allowModelChange?: boolean;
}

/** Session state key of what an analysis was started with, kept durably so that a resume can reproduce it. */
export const ANALYSIS_RUN_KEY = 'analysis:run';

/** What an analysis was started with ({@link ANALYSIS_RUN_KEY}). */
export interface RecordedReportRun {
  /** The model spec (`offline`, `openai:gpt-4.1-mini`, …). */
  model: string;
  strategy: ReportStrategy;
  ramBudgetTokens?: number;
  maxReportsPerRead?: number;
  contextWindow?: number;
}

function recordedRunOf(value: unknown): RecordedReportRun | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.model !== 'string' || (record.strategy !== 'paging' && record.strategy !== 'none'))
    return undefined;
  const int = (x: unknown) => (typeof x === 'number' && Number.isInteger(x) ? x : undefined);
  const budget = int(record.ramBudgetTokens);
  const batch = int(record.maxReportsPerRead);
  const window = int(record.contextWindow);
  return {
    model: record.model,
    strategy: record.strategy,
    ...(budget !== undefined ? { ramBudgetTokens: budget } : {}),
    ...(batch !== undefined ? { maxReportsPerRead: batch } : {}),
    ...(window !== undefined ? { contextWindow: window } : {}),
  };
}

/**
 * What the analysis stored in session `sessionId` was started with, or undefined when the session is absent or
 * predates this record. A resume takes its model and settings from here unless told otherwise.
 */
export async function recordedReportRun(
  store: SessionStore,
  sessionId: string,
  options: { appName?: string; userId?: string } = {},
): Promise<RecordedReportRun | undefined> {
  const session = await store.getSession({
    appName: options.appName ?? 'pagewise',
    userId: options.userId ?? 'analyst',
    sessionId,
  });
  return session ? recordedRunOf(session.state[ANALYSIS_RUN_KEY]) : undefined;
}

/** A processor that changes nothing and reports the reading progress in the session state it is run on. */
function progressReporter(onProgress: (progress: ReadingProgress) => void): ContextProcessor {
  return {
    name: 'reading-progress',
    touches: [],
    process: (_request, ctx) => onProgress(readingProgress(ctx.session.state)),
  };
}

/** Runs one report-analysis invocation and returns its result (throws on a context-window overflow). */
export async function runReportAnalysis(options: ReportRunOptions): Promise<RunResult> {
  const modelSpec = options.model ?? 'offline';
  const model =
    modelSpec === 'offline' ? createOfflineModel({ policies: [passageOfflinePolicy, reportOfflinePolicy] }) : modelSpec;
  const processors = [
    ...(options.processors ?? []),
    ...(options.onProgress ? [progressReporter(options.onProgress)] : []),
  ];
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
    ...(processors.length ? { processors } : {}),
    ...(options.corpus.namespace ? { corpusNamespace: options.corpus.namespace } : {}),
    ...(options.volatilePrefix ? { volatilePrefix: true } : {}),
  });
  const store = options.store ?? new InMemorySessionStore();
  const runner = new Runner({
    agent: analyst.planner,
    appName: options.appName ?? 'pagewise',
    store,
    ...(options.ledger ? { ledger: options.ledger } : {}),
    ...(options.callLog ? { callLog: options.callLog } : {}),
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    limits: {
      maxSteps: analyst.maxStepsFor(options.corpus.uris.length),
      ...(options.maxWallTimeMs !== undefined ? { maxWallTimeMs: options.maxWallTimeMs } : {}),
    },
    ...(options.modelTimeoutMs !== undefined ? { retry: { timeoutMs: options.modelTimeoutMs } } : {}),
    ...(options.promptCache ? { promptCache: options.promptCache } : {}),
  });
  const userId = options.userId ?? 'analyst';
  const appName = options.appName ?? 'pagewise';
  const signal = options.signal ? { signal: options.signal } : {};
  const label = modelLabel(modelSpec);
  if (options.resumeSessionId !== undefined) {
    const recorded = await recordedReportRun(store, options.resumeSessionId, { appName, userId });
    if (recorded && recorded.model !== label && !options.allowModelChange)
      throw new ConfigurationError(
        'resume-model-mismatch',
        `Session ${options.resumeSessionId} was started with the model "${recorded.model}", not "${label}". Resume it with that model, or allow the change (\`allowModelChange\`).`,
      );
    options.onSession?.(options.resumeSessionId);
    return runner.resume({ userId, sessionId: options.resumeSessionId, ...signal });
  }
  const sessionId = randomUUID();
  const record: RecordedReportRun = {
    model: label,
    strategy: options.strategy ?? 'paging',
    ...(options.ramBudgetTokens !== undefined ? { ramBudgetTokens: options.ramBudgetTokens } : {}),
    ...(options.maxReportsPerRead !== undefined ? { maxReportsPerRead: options.maxReportsPerRead } : {}),
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
  };
  // Recorded before the first step, so a run interrupted at any point can be resumed as it was started.
  await store.createSession({ appName, userId, sessionId, state: { [ANALYSIS_RUN_KEY]: { ...record } } });
  options.onSession?.(sessionId);
  return runner.run({ userId, sessionId, message: options.question, ...signal });
}
