/**
 * `pagewise analyze <folder> "<question>"`: the report-analysis agent over a folder of documents, and
 * `pagewise corpus generate`: writes a generated report corpus.
 */
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigurationError, ContextWindowExceededError, type SessionEvent } from '../index.js';
import { SqlitePageStore, SqliteSessionStore, defaultDatabasePath, openSqliteDatabase } from '../sqlite.js';
import {
  folderCorpus,
  runReportAnalysis,
  writeCorpus,
  type FolderCorpus,
  type ReportStrategy,
} from '../scenarios/report-analysis/index.js';
import { intOption, parseCommand } from './args.js';
import { describeError, EXIT, isTransientFailure } from './errors.js';
import { ensureFolder, ensureParentOf } from './paths.js';

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
  --resume <session-id>  Continue an interrupted analysis of this session
  --budget <tokens>      Working-set budget in tokens (default 32000)
  --batch <n>            Documents per read (default 10)
  --strategy <name>      paging (default) or none (bodies returned into history)
  --window <tokens>      Context window; 0 = no limit (default: the model's)
  --max-file-mb <n>      Skip files larger than this (default 50)
  --db <file>            SQLite database for the session and pages (default: .pagewise/pagewise.db);
                         inspect the run afterwards with \`pagewise sessions show <id>\`
  -h, --help             Show this help

Exit codes: 0 answered, 1 usage, 2 configuration or provider error, 3 context window exceeded,
130 interrupted (Ctrl-C; the command to resume is printed).
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

/** "Read 12 files (40 documents); skipped 3: 2 unsupported file type, 1 over the size limit." */
export function readSummary(corpus: FolderCorpus): string {
  const documents = corpus.uris.length;
  const read = `Read ${corpus.filesRead} file${corpus.filesRead === 1 ? '' : 's'} (${documents} document${documents === 1 ? '' : 's'})`;
  if (corpus.skipped.length === 0) return `${read}; skipped none.`;
  const reasons = new Map<string, number>();
  for (const s of corpus.skipped) {
    const reason = s.reason
      .replace(/ \(.*$/, '')
      .replace(/^[\d.]+ MB is over .*$/, 'over the size limit')
      .replace(/ \.\w+$/, '');
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  return `${read}; skipped ${corpus.skipped.length}: ${[...reasons].map(([r, n]) => `${n} ${r}`).join(', ')}.`;
}

/** Distinct documents the analyst loaded in this invocation, counted from the recorded tool calls. */
function documentsRead(events: readonly SessionEvent[], invocationId: string): number {
  const read = new Set<string>();
  for (const e of events) {
    if (e.kind !== 'model' || e.invocationId !== invocationId) continue;
    for (const call of e.toolCalls) {
      const urls = (call.input as { urls?: unknown } | null)?.urls;
      if (call.toolName === 'get_reports' && Array.isArray(urls))
        for (const u of urls) if (typeof u === 'string') read.add(u);
    }
  }
  return read.size;
}

/** Runs `pagewise analyze`. */
export async function analyzeCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  const { values, positionals } = parseCommand('analyze', argv, {
    model: { type: 'string' },
    budget: { type: 'string' },
    batch: { type: 'string' },
    strategy: { type: 'string' },
    window: { type: 'string' },
    db: { type: 'string' },
    'max-file-mb': { type: 'string' },
    'question-file': { type: 'string' },
    resume: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  const [folder, ...words] = positionals;
  if (values.help || !folder) {
    out(ANALYZE_HELP);
    return values.help ? 0 : 1;
  }
  const question = values.resume ? '' : questionOf(words, values['question-file'], err);
  if (question === undefined) {
    out(ANALYZE_HELP);
    return 1;
  }
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory())
    throw new ConfigurationError(
      'bad-arguments',
      `"${folder}" is not a folder. Generate one with \`pagewise corpus generate --n 50 --out ${folder}\`.`,
    );
  const maxFileMb = intOption('max-file-mb', values['max-file-mb'], 50, 1);
  const dbFile = values.db ?? defaultDatabasePath();
  ensureParentOf('--db', dbFile);
  const corpus = await folderCorpus(path.resolve(folder), { maxFileBytes: maxFileMb * 1024 * 1024 });
  for (const s of corpus.skipped.slice(0, MAX_SKIP_NOTICES)) err(`skipped ${s.path}: ${s.reason}`);
  if (corpus.skipped.length > MAX_SKIP_NOTICES)
    err(`… and ${corpus.skipped.length - MAX_SKIP_NOTICES} more skipped files.`);
  err(readSummary(corpus));
  if (corpus.uris.length === 0)
    throw new ConfigurationError(
      'bad-arguments',
      `"${folder}" holds no readable documents (read: txt, md, html, json, csv, pdf, docx, xlsx).${corpus.skipped.length ? ` ${corpus.skipped.length} files were skipped, see above.` : ''}`,
    );
  const model = values.model ?? 'offline';
  const database = openSqliteDatabase(dbFile);
  const store = new SqliteSessionStore({ database });
  const pageStore = new SqlitePageStore({ database });
  const abort = new AbortController();
  let sessionId = values.resume;
  const onInterrupt = () => abort.abort(new Error('interrupted'));
  process.once('SIGINT', onInterrupt);
  try {
    const result = await runReportAnalysis({
      corpus,
      store,
      pageStore,
      question,
      model,
      strategy: strategyOf(values.strategy),
      ramBudgetTokens: intOption('budget', values.budget, 32_000, 1000),
      maxReportsPerRead: intOption('batch', values.batch, 10, 1),
      ...(values.window !== undefined ? { contextWindow: intOption('window', values.window, 0) } : {}),
      ...(values.resume ? { resumeSessionId: values.resume } : {}),
      onSession: (id) => (sessionId = id),
      signal: abort.signal,
    });
    const s = result.ledger.summary;
    out(result.text);
    const read = documentsRead(result.session.events, result.invocationId);
    out(
      `\nRead ${read} of ${corpus.uris.length} documents · model ${model}${model === 'offline' ? ' (rules, not an LLM)' : ''} · tokens: peak ${s.peakPromptTokens.toLocaleString('en-US')}, cumulative ${s.cumulativePromptTokens.toLocaleString('en-US')}, model calls ${s.modelCalls}`,
    );
    out(
      `session ${result.session.sessionId} (pagewise sessions show ${result.session.sessionId}${values.db ? ` --db ${values.db}` : ''})`,
    );
    return 0;
  } catch (error) {
    if (error instanceof ContextWindowExceededError) {
      out(`The run failed: ${describeError('analyze', error)?.message ?? error.message}`);
      return EXIT.contextWindow;
    }
    if (abort.signal.aborted) {
      err(
        `Interrupted.${sessionId ? ` Continue with: pagewise analyze ${JSON.stringify(folder)} --resume ${sessionId}${values.db ? ` --db ${values.db}` : ''}` : ''}`,
      );
      return EXIT.interrupted;
    }
    // A rate limit, an outage or a network failure leaves the session intact: say how to continue it.
    const described = sessionId && isTransientFailure(error) ? describeError('analyze', error) : undefined;
    if (described) {
      err(described.message);
      err(
        `The session ${sessionId} is saved. Continue with: pagewise analyze ${JSON.stringify(folder)} --resume ${sessionId}${model === 'offline' ? '' : ` --model ${model}`}${values.db ? ` --db ${values.db}` : ''}`,
      );
      return described.exitCode;
    }
    throw error;
  } finally {
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
  const n = intOption('n', values.n, 50, 1);
  if (n > 100_000) throw new ConfigurationError('bad-arguments', '--n is capped at 100000 reports.');
  ensureFolder('--out', values.out);
  const reports = await writeCorpus(values.out, n, intOption('seed', values.seed, 1));
  out(`Wrote ${reports.length} reports and manifest.json to ${values.out}.`);
  return 0;
}
