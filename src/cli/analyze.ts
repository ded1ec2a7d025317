/**
 * `pagewise analyze <folder> "<question>"`: the report-analysis agent over a folder of documents, and
 * `pagewise corpus generate`: writes a generated report corpus.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigurationError, ContextWindowExceededError } from '../index.js';
import { SqlitePageStore, SqliteSessionStore, defaultDatabasePath, openSqliteDatabase } from '../sqlite.js';
import {
  folderCorpus,
  runReportAnalysis,
  writeCorpus,
  type ReportStrategy,
} from '../scenarios/report-analysis/index.js';
import { intOption, parseCommand } from './args.js';

export const ANALYZE_HELP = `Usage: pagewise analyze <folder> "<question>" [options]

Answers a question over the documents of a folder with the report-analysis agents: a planner searches
and chooses the documents, an analyst reads them in batches. With paging, bodies live in the page store
and only the current batch is in the instruction.

Options:
  --model <spec>       Model (default: offline, a rule-based model that is not an LLM)
  --budget <tokens>    Working-set budget in tokens (default 32000)
  --batch <n>          Documents per read (default 10)
  --strategy <name>    paging (default) or none (bodies returned into history)
  --window <tokens>    Context window; 0 = no limit (default: the model's)
  --db <file>          SQLite database for the session and pages (default: .pagewise/pagewise.db);
                       inspect the run afterwards with \`pagewise sessions show <id>\`
  -h, --help           Show this help
`;

export const CORPUS_HELP = `Usage: pagewise corpus generate --n <N> --out <dir> [--seed <S>]

Writes N generated quarterly business reports (markdown, about 1-2k tokens each) and a manifest to <dir>.
Questions over them, with gold answers computed from the generated data, are used by the demo and the
benchmark.
`;

function strategyOf(value: string | undefined): ReportStrategy {
  if (value === undefined || value === 'paging' || value === 'none') return value ?? 'paging';
  throw new ConfigurationError('bad-arguments', `--strategy must be "paging" or "none", got "${value}".`);
}

/** Runs `pagewise analyze`. */
export async function analyzeCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values, positionals } = parseCommand('analyze', argv, {
    model: { type: 'string' },
    budget: { type: 'string' },
    batch: { type: 'string' },
    strategy: { type: 'string' },
    window: { type: 'string' },
    db: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  const [folder, question] = positionals;
  if (values.help || !folder || !question) {
    out(ANALYZE_HELP);
    return values.help ? 0 : 1;
  }
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory())
    throw new ConfigurationError(
      'bad-arguments',
      `"${folder}" is not a folder. Generate one with \`pagewise corpus generate --n 50 --out ${folder}\`.`,
    );
  const corpus = await folderCorpus(path.resolve(folder));
  if (corpus.uris.length === 0)
    throw new ConfigurationError('bad-arguments', `"${folder}" holds no .md, .txt or .html documents.`);
  const model = values.model ?? 'offline';
  const database = openSqliteDatabase(values.db ?? defaultDatabasePath());
  const store = new SqliteSessionStore({ database });
  const pageStore = new SqlitePageStore({ database });
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
    });
    const s = result.ledger.summary;
    out(result.text);
    out(
      `\n${corpus.uris.length} documents · model ${model} · tokens: peak ${s.peakPromptTokens.toLocaleString('en-US')}, cumulative ${s.cumulativePromptTokens.toLocaleString('en-US')}, model calls ${s.modelCalls}`,
    );
    out(`session ${result.session.sessionId} (pagewise sessions show ${result.session.sessionId})`);
    return 0;
  } catch (error) {
    if (error instanceof ContextWindowExceededError) {
      out(`The run failed: ${error.message}`);
      return 3;
    }
    throw error;
  } finally {
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
  const reports = await writeCorpus(values.out, n, intOption('seed', values.seed, 1));
  out(`Wrote ${reports.length} reports and manifest.json to ${values.out}.`);
  return 0;
}
