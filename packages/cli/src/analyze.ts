/**
 * `pagewise analyze <folder> "<question>"`: the report-analysis agent over a folder of documents, and
 * `pagewise corpus generate`: writes a generated report corpus.
 */
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  ConfigurationError,
  ContextWindowExceededError,
  LimitExceededError,
  resolveModel,
  type JsonValue,
  type RunResult,
} from 'pagewise';
import { DEFAULT_READER_LIMITS, DocumentCache, type DocumentReaderLimits } from '@pagewise/documents';
import {
  SqliteCallLog,
  SqlitePageStore,
  SqliteSessionStore,
  defaultDatabasePath,
  openSqliteDatabase,
} from '@pagewise/sqlite';
import {
  folderCorpus,
  readingProgress,
  recordedReportRun,
  runReportAnalysis,
  writeCorpus,
  type FolderCorpus,
  type RecordedReportRun,
  type ReportStrategy,
} from '@pagewise/lab/scenarios/report-analysis';
import { intOption, MODEL_TIME_FLAGS, MODEL_TIME_HELP, modelTimeOptions, parseCommand } from './args.js';
import { describeError, EXIT, isTransientFailure } from './errors.js';
import { commandLine } from './invocation.js';
import { ensureFolder, ensureParentOf } from './paths.js';
import { progressDisplay } from './progress.js';

export const ANALYZE_HELP = `Usage: pagewise analyze <folder> "<question>" [options]
       pagewise analyze <folder> --question-file <file|-> [options]
       pagewise analyze <folder> --resume <session-id> [options]

Answers a question over the documents of a folder (txt, md, html, json, csv, pdf, docx, xlsx) with the
report-analysis agents: a planner searches and chooses the documents, an analyst reads them in batches.
With paging, bodies live in the page store and only the current batch is in the instruction. Answers cite
file#page (PDF pages, sheets) or file:lines.

Without an LLM (--model offline, the default) the answer is extractive: the passages and table rows that
best match the question's terms, quoted with their citations; it is not a model's reasoning.

Options:
  --model <spec>         Model (default: offline, rule-based, not an LLM), e.g. openai:gpt-4.1-mini
  --question-file <f>    Read the question from a file, or from standard input with -
  --resume <session-id>  Continue an interrupted analysis of this session, with the model and settings
                         it was started with (a flag given here overrides one of them)
  --switch-model         With --resume: allow continuing on another --model than the session started with
  --budget <tokens>      Working-set budget in tokens (default 32000)
  --batch <n>            Documents per read (default 10)
  --strategy <name>      paging (default) or none (bodies returned into history)
  --window <tokens>      Context window; 0 = no limit (default: the model's)
${MODEL_TIME_HELP}
  --max-file-mb <n>      Skip files larger than this (default 50)
  --file-timeout <s>     Skip a PDF, DOCX or XLSX that takes longer to read, in seconds (default 60)
  --file-memory-mb <n>   Skip a PDF, DOCX or XLSX that needs more memory to read (default 512)
  --max-pages <n>        Skip a PDF of more pages (default 2000)
  --max-unpacked-mb <n>  Skip a DOCX or XLSX that unpacks to more (default 100)
  --cache-dir <dir>      Where text extracted from files is cached by content hash (default:
                         $PAGEWISE_CACHE_DIR/documents, else pagewise/documents in your cache folder)
  --no-cache             Extract every file again and keep nothing
  --db <file>            SQLite database for the session and pages (default: .pagewise/pagewise.db);
                         inspect the run afterwards with \`pagewise sessions show <id>\`
  -h, --help             Show this help

Progress (documents read) goes to stderr: a bar on a terminal, a line every tenth of the plan otherwise.
A document counts as read once the model has seen it and saved a result from it or answered from it.

Exit codes: 0 answered from every document chosen, 1 usage, 2 configuration or provider error, 3 context
window exceeded, 6 an answer not grounded in every document chosen (some or all were not read; a
warning says which), 130 interrupted (Ctrl-C; the command to resume is printed).
`;

export const CORPUS_HELP = `Usage: pagewise corpus generate --n <N> --out <dir> [--seed <S>]

Writes N generated quarterly business reports (markdown, about 1-2k tokens each) and a manifest to <dir>.
Questions over them, with gold answers computed from the generated data, are used by the demo and the
benchmark.
`;

/** The most skipped files listed one by one; the rest are counted. */
const MAX_SKIP_NOTICES = 20;

function strategyOf(value: string | undefined): ReportStrategy {
  if (value === undefined || value === 'paging' || value === 'none') return value ?? 'paging';
  throw new ConfigurationError('bad-arguments', `--strategy must be "paging" or "none", got "${value}".`);
}

function readQuestionFile(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigurationError('bad-arguments', `--question-file ${file} cannot be read (${code}).`);
  }
}

/** The question from the arguments: one quoted argument, several words (joined, with a warning), or a file. */
function questionOf(words: string[], file: string | undefined, warn: (s: string) => void): string | undefined {
  if (file !== undefined) {
    if (words.length > 0)
      throw new ConfigurationError(
        'bad-arguments',
        'Give the question either as an argument or with --question-file, not both.',
      );
    const text = readQuestionFile(file);
    if (text === '') throw new ConfigurationError('bad-arguments', `--question-file ${file} is empty.`);
    return text;
  }
  if (words.length > 1)
    warn(`pagewise analyze: joined ${words.length} arguments into one question; quote the question to pass it as one.`);
  return words.length ? words.join(' ') : undefined;
}

/** The file a document URI belongs to: a PDF page (`q3.pdf#12`) and a sheet (`book.xlsx#Costs`) to their file. */
export function fileOfUri(uri: string): string {
  const match = /^(.*\.(?:pdf|xlsx))#[^/]*$/i.exec(uri);
  return match ? match[1]! : uri;
}

function plural(count: number, word: string): string {
  return `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
}

/** PDF pages and sheets among `uris`: the parts of files that are read one by one. */
function partCounts(uris: readonly string[]): { pages: number; sheets: number } {
  let pages = 0;
  let sheets = 0;
  for (const uri of uris) {
    if (/\.pdf#[^/]*$/i.test(uri)) pages += 1;
    else if (/\.xlsx#[^/]*$/i.test(uri)) sheets += 1;
  }
  return { pages, sheets };
}

/** "12 PDF pages, 3 sheets"; empty when every document is a whole file. */
function partsOf(uris: readonly string[]): string {
  const { pages, sheets } = partCounts(uris);
  return [pages ? plural(pages, 'PDF page') : '', sheets ? plural(sheets, 'sheet') : ''].filter(Boolean).join(', ');
}

/**
 * What the analysis read, counted in documents (files) and, when some are read by page or sheet, in those too:
 * "Read 2 of 20 documents (5 of 2,773 PDF pages)", never pages counted as documents.
 */
export function readFooter(readUris: readonly string[], allUris: readonly string[]): string {
  const files = new Set(allUris.map(fileOfUri));
  const readFiles = new Set(readUris.map(fileOfUri));
  const all = partCounts(allUris);
  const read = partCounts(readUris);
  const detail = [
    all.pages ? `${read.pages.toLocaleString('en-US')} of ${plural(all.pages, 'PDF page')}` : '',
    all.sheets ? `${read.sheets.toLocaleString('en-US')} of ${plural(all.sheets, 'sheet')}` : '',
  ].filter(Boolean);
  return `Read ${readFiles.size.toLocaleString('en-US')} of ${plural(files.size, 'document')}${detail.length ? ` (${detail.join(', ')})` : ''}`;
}

/** "Read 12 files (40 PDF pages); skipped 3: 2 unsupported file type, 1 over the size limit." */
export function readSummary(corpus: FolderCorpus): string {
  const parts = partsOf(corpus.uris);
  const read = `Read ${plural(corpus.filesRead, 'file')}${parts ? ` (${parts})` : ''}`;
  if (corpus.skipped.length === 0) return `${read}; skipped none.`;
  const reasons = new Map<string, number>();
  for (const skipped of corpus.skipped) {
    const reason = skipped.reason
      .replace(/ \(.*$/, '')
      .replace(/^[\d.]+ MB is over .*$/, 'over the size limit')
      .replace(/ \.\w+$/, '');
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  return `${read}; skipped ${corpus.skipped.length}: ${[...reasons].map(([r, n]) => `${n} ${r}`).join(', ')}.`;
}

/**
 * The warning for an answer that is not grounded in every document the analysis chose, or undefined when it is:
 * a model that answered without reading, or a run that stopped short of its plan, must not pass for an answer.
 */
export function ungroundedWarning(state: Readonly<Record<string, JsonValue>>): string | undefined {
  const { planned, read } = readingProgress(state);
  if (planned.length === 0)
    return 'pagewise analyze: warning: the answer is not grounded: no documents were chosen, so none was read.';
  const unread = planned.filter((uri) => !read.has(uri));
  if (unread.length === 0) return undefined;
  const shown = unread.slice(0, 5).join(', ');
  return (
    `pagewise analyze: warning: the answer is not grounded in every document chosen: ${unread.length} of ${plural(planned.length, 'document')} ${unread.length === 1 ? 'was' : 'were'} not read (${shown}${unread.length > 5 ? ', …' : ''}). ` +
    'A document counts as read once the model has seen it and saved a result from it or answered from it.'
  );
}

/**
 * Prints the answer, what was read and what it cost, and the session; a warning when the answer is not grounded in
 * every document chosen. Returns the exit code.
 */
function printResult(
  result: RunResult,
  run: { corpus: FolderCorpus; model: string; db: string | undefined; dbFile: string },
  out: (s: string) => void,
  err: (s: string) => void,
): number {
  const summary = result.ledger.summary;
  const { sessionId } = result.session;
  out(result.text);
  const read = [...readingProgress(result.session.state).read];
  out(
    `\n${readFooter(read, run.corpus.uris)} · model ${run.model}${run.model === 'offline' ? ' (rules, not an LLM)' : ''} · tokens: peak ${summary.peakPromptTokens.toLocaleString('en-US')}, cumulative ${summary.cumulativePromptTokens.toLocaleString('en-US')}, model calls ${summary.modelCalls}`,
  );
  out(`session ${sessionId} (${commandLine(['sessions', 'show', sessionId, ...(run.db ? ['--db', run.db] : [])])})`);
  const warning = ungroundedWarning(result.session.state);
  if (!warning) return EXIT.ok;
  err(
    `${warning} See every call with \`${commandLine(['inspect', '--store', `sqlite:${run.dbFile}`])}\`, then ask again, or with another --model.`,
  );
  return EXIT.ungrounded;
}

const MB = 1024 * 1024;

/** The document reader's limits from their flags; a flag not given keeps the reader's default. */
function readerLimitsOf(values: Record<string, string | boolean | undefined>): Partial<DocumentReaderLimits> {
  const flag = (name: string) => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const defaults = DEFAULT_READER_LIMITS;
  return {
    timeoutMs: intOption('file-timeout', flag('file-timeout'), defaults.timeoutMs / 1000, 1) * 1000,
    memoryBytes: intOption('file-memory-mb', flag('file-memory-mb'), defaults.memoryBytes / MB, 16) * MB,
    maxPages: intOption('max-pages', flag('max-pages'), defaults.maxPages, 1),
    maxUnpackedBytes: intOption('max-unpacked-mb', flag('max-unpacked-mb'), defaults.maxUnpackedBytes / MB, 1) * MB,
  };
}

const ANALYZE_OPTIONS = {
  model: { type: 'string' },
  budget: { type: 'string' },
  batch: { type: 'string' },
  strategy: { type: 'string' },
  window: { type: 'string' },
  db: { type: 'string' },
  'max-file-mb': { type: 'string' },
  'file-timeout': { type: 'string' },
  'file-memory-mb': { type: 'string' },
  'max-pages': { type: 'string' },
  'max-unpacked-mb': { type: 'string' },
  'question-file': { type: 'string' },
  resume: { type: 'string' },
  ...MODEL_TIME_FLAGS,
  'switch-model': { type: 'boolean' },
  'cache-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The settings of a run, from the flags and, on resume, from what the session recorded. */
interface AnalyzeSettings {
  model: string;
  strategy: ReportStrategy;
  budget: number;
  batch: number;
  window: number | undefined;
}

/**
 * The settings a resumed run continues with: what the session was started with, unless a flag says otherwise; a
 * different --model is refused unless --switch-model asks for it.
 */
function resumedSettings(
  values: {
    model?: string;
    strategy?: string;
    budget?: string;
    batch?: string;
    window?: string;
    'switch-model'?: boolean;
  },
  sessionId: string,
  recorded: RecordedReportRun | undefined,
): AnalyzeSettings {
  if (recorded && values.model !== undefined && values.model !== recorded.model && !values['switch-model'])
    throw new ConfigurationError(
      'resume-model-mismatch',
      `session ${sessionId} was started with --model ${recorded.model}; resume it with that model (leave --model out), or add --switch-model to continue it with ${values.model}.`,
    );
  return {
    model: values.model ?? recorded?.model ?? 'offline',
    strategy: values.strategy !== undefined ? strategyOf(values.strategy) : (recorded?.strategy ?? 'paging'),
    budget: intOption('budget', values.budget, recorded?.ramBudgetTokens ?? 32_000, 1000),
    batch: intOption('batch', values.batch, recorded?.maxReportsPerRead ?? 10, 1),
    window:
      values.window !== undefined ? intOption('window', values.window, 0) : (recorded?.contextWindow ?? undefined),
  };
}

/** The flags that reproduce a run, for the printed resume command. */
function resumeArgs(
  folder: string,
  sessionId: string,
  settings: AnalyzeSettings,
  values: { db?: string; 'max-file-mb'?: string; 'cache-dir'?: string; 'no-cache'?: boolean },
): string[] {
  return [
    'analyze',
    folder,
    '--resume',
    sessionId,
    '--model',
    settings.model,
    '--strategy',
    settings.strategy,
    '--budget',
    String(settings.budget),
    '--batch',
    String(settings.batch),
    ...(settings.window !== undefined ? ['--window', String(settings.window)] : []),
    ...(values['max-file-mb'] !== undefined ? ['--max-file-mb', values['max-file-mb']] : []),
    ...(values.db !== undefined ? ['--db', values.db] : []),
    ...(values['cache-dir'] !== undefined ? ['--cache-dir', values['cache-dir']] : []),
    ...(values['no-cache'] ? ['--no-cache'] : []),
  ];
}

/** Runs `pagewise analyze`. */
export async function analyzeCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  const { values, positionals } = parseCommand('analyze', argv, ANALYZE_OPTIONS);
  const [folder, ...words] = positionals;
  if (values.help || !folder) {
    out(ANALYZE_HELP);
    return values.help ? 0 : 1;
  }
  if (values['switch-model'] && !values.resume)
    throw new ConfigurationError('bad-arguments', '--switch-model only applies with --resume <session-id>.');
  if (values['no-cache'] && values['cache-dir'] !== undefined)
    throw new ConfigurationError('bad-arguments', 'Give either --cache-dir or --no-cache, not both.');
  const times = modelTimeOptions(values);
  const question = values.resume ? '' : questionOf(words, values['question-file'], err);
  if (question === undefined) {
    out(ANALYZE_HELP);
    return 1;
  }
  // Every flag and the model are checked before the folder is read: a typo must not cost a read of 1,000 files.
  const maxFileMb = intOption('max-file-mb', values['max-file-mb'], 50, 1);
  if (!values.resume) resumedSettings(values, '', undefined);
  if (values.model !== undefined && values.model !== 'offline') resolveModel(values.model);
  const dbFile = values.db ?? defaultDatabasePath();
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory())
    throw new ConfigurationError(
      'bad-arguments',
      `"${folder}" is not a folder. Generate one with \`${commandLine(['corpus', 'generate', '--n', '50', '--out', folder])}\`.`,
    );
  // Created only once the arguments hold: a command refused for a bad folder leaves nothing behind.
  ensureParentOf('--db', dbFile);
  const database = openSqliteDatabase(dbFile);
  const abort = new AbortController();
  let sessionId = values.resume;
  let settings: AnalyzeSettings | undefined;
  let progress: { stop(): void } | undefined;
  const onInterrupt = () => abort.abort(new Error('interrupted'));
  process.on('SIGINT', onInterrupt);
  // The runner checks its wall-time limit between steps; a model call in flight is ended here, so a hung
  // model cannot hold the command past --deadline.
  let pastDeadline = false;
  const deadline = setTimeout(() => {
    pastDeadline = true;
    abort.abort(new Error('deadline'));
  }, times.maxWallTimeMs);
  try {
    const store = new SqliteSessionStore({ database });
    const pageStore = new SqlitePageStore({ database });
    settings = values.resume
      ? resumedSettings(values, values.resume, await recordedReportRun(store, values.resume))
      : resumedSettings(values, '', undefined);
    const cache = values['no-cache']
      ? undefined
      : new DocumentCache({
          ...(values['cache-dir'] !== undefined ? { dir: values['cache-dir'] } : {}),
          onWarning: (message) => err(`pagewise analyze: ${message}`),
        });
    const corpus = await folderCorpus(path.resolve(folder), {
      maxFileBytes: maxFileMb * 1024 * 1024,
      limits: readerLimitsOf(values),
      signal: abort.signal,
      ...(cache ? { cache } : {}),
    });
    for (const skipped of corpus.skipped.slice(0, MAX_SKIP_NOTICES)) err(`skipped ${skipped.path}: ${skipped.reason}`);
    if (corpus.skipped.length > MAX_SKIP_NOTICES)
      err(`… and ${corpus.skipped.length - MAX_SKIP_NOTICES} more skipped files.`);
    err(readSummary(corpus));
    if (cache) err(`document cache: ${cache.hits} of ${cache.hits + cache.misses} files reused from ${cache.dir}`);
    if (corpus.uris.length === 0)
      throw new ConfigurationError(
        'bad-arguments',
        `"${folder}" holds no readable documents (read: txt, md, html, json, csv, pdf, docx, xlsx).${corpus.skipped.length ? ` ${corpus.skipped.length} files were skipped, see above.` : ''}`,
      );
    const { model } = settings;
    // Under paging a batch is read once its result is saved; under none the bodies are in the history, so what
    // is loaded is what the answer will be read from.
    const paging = settings.strategy === 'paging';
    const display = progressDisplay(
      'analyze',
      paging ? 'documents read' : 'documents loaded',
      err,
      process.stderr.isTTY === true,
    );
    progress = display;
    const result = await runReportAnalysis({
      corpus,
      store,
      pageStore,
      question,
      model,
      strategy: settings.strategy,
      ramBudgetTokens: settings.budget,
      maxReportsPerRead: settings.batch,
      ...(settings.window !== undefined ? { contextWindow: settings.window } : {}),
      ...(values.resume ? { resumeSessionId: values.resume, allowModelChange: values['switch-model'] === true } : {}),
      onSession: (id) => (sessionId = id),
      onProgress: ({ planned, loaded, read }) => {
        if (planned.length > 0) display.update((paging ? read : loaded).size, planned.length);
      },
      // Every call as the model saw it, for `pagewise inspect`.
      callLog: new SqliteCallLog({ database, tags: { command: 'analyze', strategy: settings.strategy } }),
      signal: abort.signal,
      ...times,
    });
    display.stop();
    return printResult(result, { corpus, model, db: values.db, dbFile }, out, err);
  } catch (error) {
    progress?.stop();
    if (error instanceof ContextWindowExceededError) {
      out(`The run failed: ${describeError('analyze', error)?.message ?? error.message}`);
      return EXIT.contextWindow;
    }
    if (pastDeadline) throw new LimitExceededError('maxWallTimeMs', times.maxWallTimeMs, 'limits.maxWallTimeMs');
    if (abort.signal.aborted) {
      err(
        `Interrupted.${sessionId && settings ? ` Continue with: ${commandLine(resumeArgs(folder, sessionId, settings, values))}` : ''}`,
      );
      return EXIT.interrupted;
    }
    // A rate limit, an outage or a network failure leaves the session intact: say how to continue it.
    const described = sessionId && settings && isTransientFailure(error) ? describeError('analyze', error) : undefined;
    if (described && sessionId && settings) {
      err(described.message);
      err(
        `The session ${sessionId} is saved. Continue with: ${commandLine(resumeArgs(folder, sessionId, settings, values))}`,
      );
      return described.exitCode;
    }
    throw error;
  } finally {
    clearTimeout(deadline);
    process.removeListener('SIGINT', onInterrupt);
    database.close();
  }
}

/** Runs `pagewise corpus generate`. */
export async function corpusCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values, positionals } = parseCommand('corpus', argv, {
    n: { type: 'string' },
    out: { type: 'string' },
    seed: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help || positionals[0] !== 'generate' || !values.out) {
    out(CORPUS_HELP);
    return values.help ? 0 : 1;
  }
  const reportCount = intOption('n', values.n, 50, 1);
  if (reportCount > 100_000) throw new ConfigurationError('bad-arguments', '--n is capped at 100000 reports.');
  ensureFolder('--out', values.out);
  const reports = await writeCorpus(values.out, reportCount, intOption('seed', values.seed, 1));
  out(`Wrote ${reports.length} reports and manifest.json to ${values.out}.`);
  return 0;
}
