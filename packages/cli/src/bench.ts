/**
 * `pagewise bench`: runs a scenario under several context strategies and reports tokens, success and
 * cost per strategy as a markdown table, with optional JSON, saved runs and charts. Progress goes to
 * stderr, so stdout holds only the report.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import {
  getScenario,
  registerStandardBench,
  listScenarios,
  listStrategies,
  markdownReport,
  readPrices,
  readRuns,
  rebuildReport,
  inProcessExecutor,
  runBench,
  writeBenchOutput,
  writeResultsJson,
  type BenchProgress,
  type BenchReport,
  type EpisodeJob,
  type EpisodeRecording,
  type LearnedGuidelines,
} from '@pagewise/lab';
import { ConfigurationError } from 'pagewise';
import { loadGuideline } from 'pagewise/compression';
import { DEFAULT_PRICES, type ModelPrice } from 'pagewise/cost';
import { queueExecutor } from '@pagewise/distributed';
import { SqliteCallLog, SqlitePageStore, SqliteSessionStore, openSqliteDatabase } from '@pagewise/sqlite';
import { defaultHotpotPath, hotpotAvailable } from '@pagewise/lab/scenarios/multi-qa';
import { defaultRetailDataDir, retailDataAvailable } from '@pagewise/lab/scenarios/retail';

import {
  intOption,
  MODEL_TIME_FLAGS,
  parseCommand,
  RESUMABLE_TIME_HELP,
  resumableTimeOptions,
  runStopper,
} from './args.js';
import { commandLine } from './invocation.js';
import { EPISODES_FILE, readBenchRun, resumableExecutor, startBenchRun } from './bench-resume.js';
import { ensureFolder, ensureParentOf } from './paths.js';
import { progressDisplay } from './progress.js';

/** Help text of `pagewise bench`. */
export const BENCH_HELP = `Usage: pagewise bench <scenario> [options]
       pagewise bench --rebuild <folder|runs.json> [--json <file>] [--out <folder>] [--prices <file>]
       pagewise bench --resume <folder> [--json <file>]
       pagewise bench --list

Runs every task of a scenario under each context strategy and prints a markdown table per strategy:
success rate, peak and cumulative prompt tokens, completion and compressor tokens, model calls, ACON's
dependency metric, evidence recall (where defined), framework overhead per step, window failures and
estimated cost. The default model is "offline": deterministic rules, not an LLM, which fail when the
context lost a fact they need. With it the same seed gives the same numbers (timings aside).

Scenarios: report-analysis, retail-tool-use, multi-objective-qa (pagewise bench --list shows which are
available and their strategies).

Options:
  --strategies a,b,...  Strategies to compare (default: all of the scenario's but its labelled
                        variants, e.g. none-volatile-prefix, which run only when named)
  --n N[,N,...]         Scenario size, e.g. questions per episode; several values run the set once per
                        value and chart peak tokens against N (default: the scenario's)
  --tasks K             Episodes per strategy and N (default 8)
  --seed S              Seed of the task sampling (default 1)
  --model <spec>        "offline" (default) or provider:model, e.g. openai:gpt-4.1-mini
  --window <tokens>     Context window; a larger request fails the episode; 0 = no limit
                        (default: the model's known window)
  --budget <tokens>     Prompt-token budget given to every strategy: FIFO, clearing, summarization and
                        ACON fit their context to it, and a larger request fails the episode
  --concurrency C       Episodes run at once (default 1; raise it for hosted models)
${RESUMABLE_TIME_HELP}
  --queue <redis url>   Run the episodes on workers (pagewise worker --redis <url>) through a Redis
                        queue instead of in this process; the saved runs are the same. The model must
                        be a spec; workers need its API key
  --queue-prefix <name> Key prefix of the queue; the workers' --prefix must match (default pagewise)
  --prices <file>       JSON price table over the built-in one (USD per million tokens):
                        { "<model>": { "inputPerMTok": 0.4, "outputPerMTok": 1.6, "cacheReadPerMTok": 0.1,
                        "cacheWritePerMTok": 0.5, "cacheWrite1hPerMTok": 0.8 } }; the cache prices are
                        optional (left out, cache reads and writes cost as input)
  --price-as <model>    Price agent calls as this model of the price table (e.g. openai:gpt-4.1) and
                        model their prompt cache under its provider's rules, whatever model ran
  --json <file>         Write the results JSON (schema 1) to <file>
  --out <folder>        Write results.json, runs.json (every episode with its per-call ledger), report.md
                        and the charts as SVG, and the episodes' sessions and model calls to sessions.db
                        (pagewise inspect --store sqlite:<folder>/sessions.db --runs <folder> shows them).
                        With a hosted model and no --out, the output is saved to
                        bench-out/<scenario>-<time>/ so the report can be rebuilt without calling it again.
  --rebuild <path>      Rebuild the report from saved runs (a folder or runs.json), without a model call
  --resume <folder>     Continue an interrupted run from its --out folder: finished episodes are not run
                        again (each episode is written to <folder>/episodes.jsonl as it finishes)
  --list                List the scenarios and their strategies
  -h, --help            Show this help

Exit codes: 0 done, 2 bad arguments, an output that could not be written or a run stopped at --deadline,
130 interrupted (Ctrl-C and --deadline print where the partial results are and the command that resumes the
run).
`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  list: { type: 'boolean' },
  strategies: { type: 'string' },
  n: { type: 'string' },
  tasks: { type: 'string' },
  seed: { type: 'string' },
  model: { type: 'string' },
  window: { type: 'string' },
  budget: { type: 'string' },
  concurrency: { type: 'string' },
  ...MODEL_TIME_FLAGS,
  queue: { type: 'string' },
  'queue-prefix': { type: 'string' },
  prices: { type: 'string' },
  'price-as': { type: 'string' },
  json: { type: 'string' },
  out: { type: 'string' },
  rebuild: { type: 'string' },
  resume: { type: 'string' },
} as const;

/** Where the guidelines learned by `pagewise optimize` ship: guidelines/<scenario>/ of the lab package. */
const LEARNED_GUIDELINES_DIR = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@pagewise/lab/package.json')),
  'guidelines',
);

/**
 * The learned guidelines the package ships, by scenario, for the `acon-learned` strategy: each scenario folder's
 * observation.md and history.md (either may be absent). A damaged file is an error naming it, not a silent default.
 */
async function shippedLearnedGuidelines(dir = LEARNED_GUIDELINES_DIR): Promise<Record<string, LearnedGuidelines>> {
  if (!existsSync(dir)) return {};
  const learned: Record<string, LearnedGuidelines> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const guidelines: LearnedGuidelines = {};
    for (const target of ['observation', 'history'] as const) {
      const file = path.join(dir, entry.name, `${target}.md`);
      if (existsSync(file)) guidelines[target] = await loadGuideline(file);
    }
    if (guidelines.observation || guidelines.history) learned[entry.name] = guidelines;
  }
  return learned;
}

/** Default number of tasks per strategy and N. */
export const DEFAULT_BENCH_TASKS = 8;

/** The third-party data a scenario needs, and whether it is where the scenario looks. */
const SCENARIO_DATA: Readonly<Record<string, { set: string; where: () => string; present: () => boolean }>> = {
  'retail-tool-use': {
    set: 'tau-retail',
    where: defaultRetailDataDir,
    present: () => retailDataAvailable(),
  },
  'multi-objective-qa': { set: 'hotpotqa', where: defaultHotpotPath, present: () => hotpotAvailable() },
};

function listText(): string {
  const lines = ['Scenarios:'];
  for (const scenario of listScenarios()) {
    const data = SCENARIO_DATA[scenario.name];
    const missing =
      data && !data.present() ? ` (data missing: run \`${commandLine(['data', 'fetch', data.set])}\`)` : '';
    lines.push(
      `  ${scenario.name.padEnd(20)} ${scenario.description}${scenario.available ? '' : ' (not available yet)'}${missing}`,
    );
    if (scenario.available)
      lines.push(
        `  ${''.padEnd(20)} strategies: ${listStrategies(scenario.name)
          .map((e) => (e.variant ? `${e.name} (variant, run when named)` : e.name))
          .join(', ')}`,
      );
  }
  lines.push('', 'Strategies:');
  for (const entry of listStrategies()) lines.push(`  ${entry.name.padEnd(20)} ${entry.description}`);
  return lines.join('\n');
}

/**
 * Creates the default output folder of a hosted-model run (`bench-out/<scenario>-<time>`), parents included: the
 * user gave no path that could hold a typo. A failure names --out, the flag that chooses another place.
 */
function ensureDefaultOutDir(outDir: string): void {
  try {
    mkdirSync(outDir, { recursive: true });
  } catch (error) {
    throw new ConfigurationError(
      'bad-arguments',
      `A run on a hosted model is saved so it can be rebuilt and resumed, but the default folder ${path.resolve(outDir)} cannot be created (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Choose a folder with --out <folder>.`,
    );
  }
}

function nList(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').map((part) => intOption('n', part.trim(), 0, 1));
}

/** The SQLite file of a run folder that holds the episodes' sessions and call log. */
const SESSIONS_FILE = 'sessions.db';

/**
 * Keeps every episode's session and model calls as sent in `<outDir>/sessions.db`, so `pagewise inspect` shows the
 * calls of a bench run as it does those of `analyze`.
 */
function episodeRecorder(outDir: string): {
  /** Where the sessions are and the command that opens them. */
  note: string;
  recording: (job: EpisodeJob) => EpisodeRecording;
  close: () => void;
} {
  const file = path.join(outDir, SESSIONS_FILE);
  const database = openSqliteDatabase(file);
  const store = new SqliteSessionStore({ database });
  const pageStore = new SqlitePageStore({ database });
  return {
    note: `sessions and every model call in ${file}: ${commandLine(['inspect', '--store', `sqlite:${file}`, '--runs', outDir])}`,
    recording: (job) => ({
      store,
      pageStore,
      callLog: new SqliteCallLog({
        database,
        tags: { command: 'bench', strategy: job.strategy, ...(job.n === null ? {} : { n: String(job.n) }) },
      }),
    }),
    close: () => database.close(),
  };
}

/** What a stopped run says: where the finished episodes are and how to continue, or that nothing was kept. */
function stoppedMessage(stopped: string, outDir: string | undefined): string {
  return outDir
    ? `${stopped} Finished episodes are in ${path.join(outDir, EPISODES_FILE)}; continue with: ${commandLine(['bench', '--resume', outDir])}`
    : `${stopped} Nothing was kept: run with --out <folder> to make a run resumable.`;
}

/** Bench progress in episodes, with the last episode's strategy, size and outcome. */
function progressReporter(
  scenario: string,
  err: (s: string) => void,
  tty: boolean,
): { update: (p: BenchProgress) => void; stop: () => void } {
  const display = progressDisplay(`bench ${scenario}`, 'episodes', err, tty);
  return {
    update: (progress) =>
      display.update(
        progress.done,
        progress.total,
        progress.last
          ? `last: ${progress.last.strategy}${progress.last.n === null ? '' : ` N=${progress.last.n}`}, ${progress.last.success ? 'ok' : 'failed'}`
          : undefined,
      ),
    stop: () => display.stop(),
  };
}

/**
 * Writes the report: the run folder first, then the optional extra --json copy. A failure of the extra copy never
 * loses a finished run: the results are then saved in a run folder and the command says where.
 */
async function writeOutputs(
  report: BenchReport,
  values: { json?: string; out?: string },
  err: (s: string) => void,
  fallbackDir?: string,
): Promise<number> {
  let saved: string | undefined;
  if (values.out) {
    const files = await writeBenchOutput(values.out, report);
    err(`report written to ${values.out} (${files.map((f) => path.basename(f)).join(', ')})`);
    saved = values.out;
  }
  if (values.json) {
    try {
      await writeResultsJson(values.json, report);
      err(`results written to ${values.json}`);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      if (!saved && fallbackDir) {
        await writeBenchOutput(fallbackDir, report);
        saved = fallbackDir;
      }
      err(
        `pagewise bench: could not write --json ${values.json} (${code}).${saved ? ` The results are saved in ${saved}/results.json.` : ''}`,
      );
      return 2;
    }
  }
  return 0;
}

/** `--price-as`, checked against the price table in force (the defaults and `--prices`). */
function checkedPriceAs(
  priceAs: string | undefined,
  prices: Record<string, ModelPrice> | undefined,
): string | undefined {
  const table = { ...DEFAULT_PRICES, ...prices };
  if (priceAs !== undefined && !table[priceAs])
    throw new ConfigurationError(
      'invalid-option',
      `--price-as ${priceAs} is not in the price table; use one of ${Object.keys(table).join(', ')}, or add it with --prices <file>.`,
    );
  return priceAs;
}

/** The scenario to run: the one positional, or the resumed run's; anything else is a usage error. */
function scenarioName(
  positionals: string[],
  resumedScenario: string | undefined,
  values: { resume?: string | undefined; out?: string | undefined },
): string {
  const [name = resumedScenario, ...extra] = positionals;
  if (resumedScenario !== undefined && (positionals.length > 0 || values.out))
    throw new ConfigurationError(
      'bad-arguments',
      `--resume takes the scenario and options from ${values.resume}; give no scenario and no --out with it.`,
    );
  if (!name)
    throw new ConfigurationError(
      'bad-arguments',
      `Name a scenario: pagewise bench <scenario>. Available: ${listScenarios()
        .filter((s) => s.available)
        .map((s) => s.name)
        .join(', ')}.`,
    );
  if (extra.length > 0)
    throw new ConfigurationError(
      'bad-arguments',
      `Unexpected arguments: ${extra.join(' ')}. Run \`pagewise bench --help\` for the options.`,
    );
  return name;
}

/**
 * Runs `pagewise bench` with `argv` (after the command name). The report goes to `out`; progress and
 * notes go to `err` (stderr by default), as a bar when stderr is a terminal.
 */
export async function benchCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  const { values, positionals } = parseCommand('bench', argv, OPTIONS);
  registerStandardBench({ learned: await shippedLearnedGuidelines() });
  if (values.help) {
    out(BENCH_HELP);
    return 0;
  }
  if (values.list) {
    out(listText());
    return 0;
  }
  const prices = values.prices ? await readPrices(values.prices) : undefined;
  const priceAs = checkedPriceAs(values['price-as'], prices);
  if (values.rebuild) {
    const report = rebuildReport(await readRuns(values.rebuild), {
      ...(prices ? { prices } : {}),
      ...(priceAs !== undefined ? { priceAs } : {}),
    });
    out(markdownReport(report));
    return writeOutputs(report, values, err);
  }
  // A resumed run takes its parameters from its folder, so it produces the same episodes in the same order.
  const resumed = values.resume ? readBenchRun(values.resume) : undefined;
  const scenario = getScenario(scenarioName(positionals, resumed?.scenario, values));
  const data = SCENARIO_DATA[scenario.name];
  // Which copy of the data a run used is part of its result: say it.
  if (data?.present()) err(`data: ${data.set} from ${data.where()}`);
  const model = resumed?.model ?? values.model ?? 'offline';
  const sizes = resumed ? resumed.n : nList(values.n);
  const strategies = resumed
    ? resumed.strategies
    : values.strategies
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
  const contextWindow = resumed
    ? resumed.contextWindow
    : values.window === undefined
      ? undefined
      : intOption('window', values.window, 0, 0);
  const tasks = resumed?.tasks ?? intOption('tasks', values.tasks, DEFAULT_BENCH_TASKS, 1);
  const times = resumableTimeOptions(values);
  const seed = resumed?.seed ?? intOption('seed', values.seed, 1, 0);
  if (values.queue === undefined && values['queue-prefix'] !== undefined)
    throw new ConfigurationError('bad-arguments', '--queue-prefix needs --queue <redis url>.');
  if (values.queue !== undefined && values.concurrency !== undefined) {
    throw new ConfigurationError(
      'bad-arguments',
      'With --queue the workers run the episodes: set --concurrency on each `pagewise worker`, not on bench.',
    );
  }
  const baseExecutor =
    values.queue === undefined
      ? undefined
      : queueExecutor({
          url: values.queue,
          urlSetting: '--queue',
          ...(values['queue-prefix'] ? { prefix: values['queue-prefix'] } : {}),
          onNotice: (notice) => err(notice.message),
        });

  // A typo in an output path is found before the run, not after it.
  if (values.out) ensureFolder('--out', values.out);
  if (values.json) ensureParentOf('--json', values.json);
  // Calls to a hosted model cost money and time: keep them (episode by episode), so the report can be rebuilt
  // offline and an interrupted run resumed.
  const outDir =
    values.resume ??
    values.out ??
    (model === 'offline'
      ? undefined
      : path.join('bench-out', `${scenario.name}-${new Date().toISOString().replace(/[:.]/g, '-')}`));
  if (outDir && !values.out && !values.resume) ensureDefaultOutDir(outDir);
  if (outDir)
    startBenchRun(outDir, {
      scenario: scenario.name,
      model: typeof model === 'string' ? model : String(model),
      ...(strategies ? { strategies: [...strategies] } : {}),
      ...(sizes ? { n: [...sizes] } : {}),
      tasks,
      seed,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
    });
  const executor = outDir
    ? resumableExecutor(baseExecutor ?? inProcessExecutor, outDir, (count) => {
        if (count > 0) err(`resuming ${outDir}: ${count} finished episodes are taken from ${EPISODES_FILE}`);
      })
    : baseExecutor;
  // Episodes run by workers through --queue run in other processes: no one here records them.
  const recorder = outDir && values.queue === undefined ? episodeRecorder(outDir) : undefined;
  // Ctrl-C, or --deadline: the run stops, what finished is kept, and the resume command is printed.
  const stopper = runStopper(times.deadlineMs);
  const progress = progressReporter(scenario.name, err, process.stderr.isTTY === true);
  let report: BenchReport;
  try {
    report = await runBench({
      scenario,
      ...(strategies ? { strategies } : {}),
      ...(sizes ? { n: sizes } : {}),
      tasks,
      seed,
      model,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(values.budget !== undefined ? { budget: intOption('budget', values.budget, 1, 1) } : {}),
      concurrency: intOption('concurrency', values.concurrency, 1, 1),
      modelTimeoutMs: times.modelTimeoutMs,
      ...(executor ? { executor } : {}),
      ...(prices ? { prices } : {}),
      ...(priceAs !== undefined ? { priceAs } : {}),
      ...(recorder ? { recording: recorder.recording } : {}),
      onProgress: progress.update,
      signal: stopper.signal,
    });
  } catch (error) {
    if (!stopper.signal.aborted) throw error;
    progress.stop();
    err(stoppedMessage(stopper.stoppedText(), outDir));
    return stopper.pastDeadline() ? 2 : 130;
  } finally {
    stopper.dispose();
    progress.stop();
    recorder?.close();
  }
  out(markdownReport(report));
  if (recorder) err(recorder.note);
  return writeOutputs(
    report,
    { ...(values.json ? { json: values.json } : {}), ...(outDir ? { out: outDir } : {}) },
    err,
    path.join('bench-out', `${scenario.name}-${report.runs.startedAt.replace(/[:.]/g, '-')}`),
  );
}
