/**
 * `pagewise demo`: the report-analysis demo on a generated corpus, offline (no API key): the naive
 * strategy against instruction paging, side by side.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ContextWindowExceededError, OFFLINE_DISCLAIMER } from '../index.js';
import { SqliteCallLog, SqlitePageStore, SqliteSessionStore } from '../sqlite.js';
import {
  folderCorpus,
  generateQuestions,
  isCorrect,
  runReportAnalysis,
  writeCorpus,
  type ReportStrategy,
} from '../scenarios/report-analysis/index.js';
import { intOption, parseCommand } from './args.js';

export const DEMO_HELP = `Usage: pagewise demo [options]

Generates a corpus of business reports, then answers questions that need every report twice: with the
naive strategy (report bodies returned into history) and with instruction paging (bodies paged into the
instruction one batch at a time, results saved as they go). Prints the answers and a token table.
Runs on the offline model, a deterministic rule-based model that is not an LLM; needs no API key.

Options:
  --n <N>            Reports in the corpus (default 164)
  --questions <K>    Questions to ask (default 2)
  --seed <S>         Seed of the corpus and questions (default 1)
  --window <tokens>  Context window of the offline model (default 128000; 0 = no limit, to see the
                     naive strategy's full cost)
  -h, --help         Show this help
`;

const fmt = (n: number) => n.toLocaleString('en-US');

/** Runs the demo command. */
export async function demoCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values } = parseCommand('demo', argv, {
    n: { type: 'string' },
    questions: { type: 'string' },
    seed: { type: 'string' },
    window: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out(DEMO_HELP);
    return 0;
  }
  const n = intOption('n', values.n, 164, 1);
  const seed = intOption('seed', values.seed, 1);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-demo-'));
  // The runs are kept (outside the corpus folder, which is removed) so the inspector can open them.
  const dbFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'pagewise-demo-runs-')), 'demo.db');
  const store = new SqliteSessionStore({ path: dbFile });
  const pageStore = new SqlitePageStore({ database: store.db });
  try {
    const reports = await writeCorpus(dir, n, seed);
    const corpus = await folderCorpus(dir);
    const questions = generateQuestions(reports, seed, intOption('questions', values.questions, 2, 1));
    out(`pagewise demo: ${n} generated reports in ${dir}; model: offline ${OFFLINE_DISCLAIMER}\n`);
    const rows: string[] = [];
    for (const q of questions) {
      out(`Q: ${q.text}`);
      for (const strategy of ['none', 'paging'] as ReportStrategy[]) {
        try {
          const result = await runReportAnalysis({
            corpus,
            question: q.text,
            strategy,
            store,
            pageStore,
            callLog: new SqliteCallLog({ database: store.db, tags: { strategy } }),
            ...(values.window !== undefined ? { contextWindow: intOption('window', values.window, 0) } : {}),
          });
          const s = result.ledger.summary;
          const ok = isCorrect(result.text, q.gold);
          out(
            `  ${strategy.padEnd(6)} ${ok ? 'correct' : 'WRONG'}: ${result.text.replace(OFFLINE_DISCLAIMER, '').trim()}`,
          );
          rows.push(
            `| ${q.id} | ${strategy} | ${ok ? 'yes' : 'no'} | ${fmt(s.peakPromptTokens)} | ${fmt(s.cumulativePromptTokens)} | ${s.modelCalls} |`,
          );
        } catch (error) {
          if (!(error instanceof ContextWindowExceededError)) throw error;
          out(
            `  ${strategy.padEnd(6)} FAILED: context window exceeded (${fmt(error.promptTokens)} prompt tokens > ${fmt(error.windowTokens)}).`,
          );
          rows.push(`| ${q.id} | ${strategy} | window exceeded | > ${fmt(error.windowTokens)} | - | - |`);
        }
      }
      out('');
    }
    out('| question | strategy | correct | peak prompt tokens | cumulative prompt tokens | model calls |');
    out('|---|---|---|---:|---:|---:|');
    for (const r of rows) out(r);
    out(`\nSee every call as the model saw it: pagewise inspect --store sqlite:${dbFile}`);
    return 0;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
