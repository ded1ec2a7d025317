/**
 * `pagewise demo`: the report-analysis demo on a generated corpus, offline (no API key): the naive
 * strategy against instruction paging, side by side.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ConfigurationError,
  ContextWindowExceededError,
  OFFLINE_DISCLAIMER,
  resolveModel,
  type LedgerEntry,
} from 'pagewise';
import { DEFAULT_PRICES, PRICES_CHECKED, callCostUsd, promptCacheRulesFor, type ModelPrice } from 'pagewise/cost';
import { SqliteCallLog, SqlitePageStore, SqliteSessionStore, openSqliteDatabase } from '@pagewise/sqlite';
import {
  folderCorpus,
  generateQuestions,
  isCorrect,
  runReportAnalysis,
  writeCorpus,
  type ReportStrategy,
} from '@pagewise/lab/scenarios/report-analysis';
import { intOption, parseCommand } from './args.js';
import { commandLine } from './invocation.js';

export const DEMO_HELP = `Usage: pagewise demo [options]

Generates a corpus of business reports, then answers questions that need every report twice: with the
naive strategy (report bodies returned into history) and with instruction paging (bodies paged into the
instruction one batch at a time, results saved as they go). Prints the answers and a token table, and
keeps the corpus and the SQLite database of the sessions so they can be looked at afterwards. The table
gives the cost in USD with prompt caching beside the tokens: each call priced as --price-as, its cache
modelled under that provider's rules.
Runs on the offline model, a deterministic rule-based model that is not an LLM; needs no API key.
With --model, the same comparison runs on a model of your choice (its API key from the environment).

Options:
  --model <spec>     Model (default: offline), e.g. openai:gpt-4.1-mini
  --n <N>            Reports in the corpus (default 164)
  --questions <K>    Questions to ask (default 2)
  --seed <S>         Seed of the corpus and questions (default 1)
  --window <tokens>  Context window of the offline model (default 128000; 0 = no limit, to see the
                     naive strategy's full cost)
  --price-as <model> Price the calls as this model's list prices (default: the model, or
                     openai:gpt-4.1 for the offline model), e.g. anthropic:claude-sonnet-4-5
  -h, --help         Show this help
`;

const fmt = (n: number) => n.toLocaleString('en-US');

/** How the demo prices its calls: a price-table entry and the cache rules of its provider. */
function demoPricing(spec: string): {
  spec: string;
  rules: ReturnType<typeof promptCacheRulesFor>;
  cost: (entries: readonly LedgerEntry[]) => string;
} {
  const price: ModelPrice | undefined = DEFAULT_PRICES[spec];
  if (!price)
    throw new ConfigurationError(
      'invalid-option',
      `--price-as ${spec} has no built-in price; use one of ${Object.keys(DEFAULT_PRICES).join(', ')}.`,
    );
  const colon = spec.indexOf(':');
  const rules = colon < 0 ? undefined : promptCacheRulesFor(spec.slice(0, colon), spec.slice(colon + 1));
  const cost = (entries: readonly LedgerEntry[]): string =>
    `$${entries.reduce((sum, entry) => sum + callCostUsd(entry, price), 0).toFixed(4)}`;
  return { spec, rules, cost };
}

/** Runs the demo command. */
export async function demoCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  const { values } = parseCommand('demo', argv, {
    n: { type: 'string' },
    questions: { type: 'string' },
    seed: { type: 'string' },
    window: { type: 'string' },
    model: { type: 'string' },
    'price-as': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out(DEMO_HELP);
    return 0;
  }
  const reportCount = intOption('n', values.n, 164, 1);
  const seed = intOption('seed', values.seed, 1);
  const questionCount = intOption('questions', values.questions, 2, 1);
  const window = values.window !== undefined ? intOption('window', values.window, 0) : undefined;
  const model = values.model ?? 'offline';
  // A missing key or an unknown provider is said before the corpus is written.
  if (model !== 'offline') resolveModel(model);
  const pricing = demoPricing(values['price-as'] ?? (model === 'offline' ? 'openai:gpt-4.1' : model));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-demo-'));
  const db = path.join(dir, 'pagewise.db');
  const reports = await writeCorpus(path.join(dir, 'reports'), reportCount, seed);
  const corpus = await folderCorpus(path.join(dir, 'reports'));
  const questions = generateQuestions(reports, seed, questionCount);
  out(
    `pagewise demo: ${reportCount} generated reports in ${path.join(dir, 'reports')}; model: ${model === 'offline' ? `offline ${OFFLINE_DISCLAIMER}` : model}`,
  );
  out(
    'Each question needs every report. "none" returns report bodies into the history, so its prompt grows with the\n' +
      'corpus until it no longer fits the window: that failure is the point. "paging" keeps bodies in a page store\n' +
      'and shows the model one batch at a time, so its largest prompt stays flat however many reports there are.\n',
  );
  const database = openSqliteDatabase(db);
  const store = new SqliteSessionStore({ database });
  const pageStore = new SqlitePageStore({ database });
  const rows: string[] = [];
  const sessions: string[] = [];
  try {
    for (const [qi, question] of questions.entries()) {
      out(`Q: ${question.text}`);
      for (const strategy of ['none', 'paging'] as ReportStrategy[]) {
        err(`demo: question ${qi + 1}/${questions.length}, strategy ${strategy}: reading ${reportCount} reports…`);
        try {
          const result = await runReportAnalysis({
            corpus,
            question: question.text,
            model,
            strategy,
            store,
            pageStore,
            onSession: (id) => sessions.push(id),
            callLog: new SqliteCallLog({ database, tags: { strategy } }),
            ...(window !== undefined ? { contextWindow: window } : {}),
            ...(pricing.rules ? { promptCache: pricing.rules } : {}),
          });
          const summary = result.ledger.summary;
          const ok = isCorrect(result.text, question.gold);
          out(
            `  ${strategy.padEnd(6)} ${ok ? 'correct' : 'WRONG'}: ${result.text.replace(OFFLINE_DISCLAIMER, '').trim()}`,
          );
          rows.push(
            `| ${question.id} | ${strategy} | ${ok ? 'yes' : 'no'} | ${fmt(summary.peakPromptTokens)} | ${fmt(summary.cumulativePromptTokens)} | ${summary.cacheHitRate === null ? '-' : `${Math.round(summary.cacheHitRate * 100)}%`} | ${pricing.cost(result.ledger.entries)} | ${summary.modelCalls} |`,
          );
        } catch (error) {
          if (!(error instanceof ContextWindowExceededError)) throw error;
          out(
            `  ${strategy.padEnd(6)} FAILED: context window exceeded (${fmt(error.promptTokens)} prompt tokens > ${fmt(error.windowTokens)}).`,
          );
          rows.push(
            `| ${question.id} | ${strategy} | window exceeded | > ${fmt(error.windowTokens)} | - | - | - | - |`,
          );
        }
      }
      out('');
    }
  } finally {
    database.close();
  }
  out(
    `| question | strategy | correct | peak prompt tokens | cumulative prompt tokens | cache hit | cost (USD, cached, as ${pricing.spec}) | model calls |`,
  );
  out('|---|---|---|---:|---:|---:|---:|---:|');
  for (const row of rows) out(row);
  out(
    `\nCost: ${pricing.spec} list prices as of ${PRICES_CHECKED} (to be checked), with prompt caching as ${pricing.rules ? `the prompt-cache model (rules "${pricing.rules.name}")` : 'no cache model (no rules for this provider)'} or the provider reports it; tokens are counted without the cache.`,
  );
  out(`\nThe corpus and the sessions are kept in ${dir}. To look at them:`);
  out(`  ${commandLine(['sessions', 'list', '--db', db])}`);
  if (sessions.length > 0) out(`  ${commandLine(['sessions', 'show', sessions[sessions.length - 1]!, '--db', db])}`);
  out(`  ${commandLine(['inspect', '--store', `sqlite:${db}`])}     (every call as the model saw it)`);
  out(`  ${commandLine(['analyze', path.join(dir, 'reports'), '<your question>', '--db', db])}`);
  return 0;
}
