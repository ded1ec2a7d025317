/**
 * `pagewise bench`: runs a scenario under several context strategies and reports tokens, success and
 * cost per strategy as a markdown table, with optional JSON, saved runs and charts. Progress goes to
 * stderr, so stdout holds only the report.
 */
import path from 'node:path';
import cliProgress from 'cli-progress';
import {
  getScenario,
  registerStandardBench,
  listScenarios,
  listStrategies,
  markdownReport,
  readPrices,
  readRuns,
  rebuildReport,
  runBench,
  writeBenchOutput,
  writeResultsJson,
  type BenchProgress,
  type BenchReport,
} from '../bench/index.js';
import { queueExecutor } from '../distributed/index.js';
import { ConfigurationError } from '../errors.js';
import { intOption, parseCommand } from './args.js';

/** Help text of `pagewise bench`. */
export const BENCH_HELP = `Usage: pagewise bench <scenario> [options]
       pagewise bench --rebuild <folder|runs.json> [--json <file>] [--out <folder>] [--prices <file>]
       pagewise bench --list

Runs every task of a scenario under each context strategy and prints a markdown table per strategy:
success rate, peak and cumulative prompt tokens, completion and compressor tokens, model calls, ACON's
dependency metric, evidence recall (where defined), framework overhead per step, window failures and
estimated cost. The default model is "offline": deterministic rules, not an LLM, which fail when the
context lost a fact they need. With it the same seed gives the same numbers (timings aside).

Scenarios: report-analysis, retail-tool-use, multi-objective-qa (pagewise bench --list shows which are
available and their strategies).

Options:
  --strategies a,b,...  Strategies to compare (default: all of the scenario's)
  --n N[,N,...]         Scenario size, e.g. questions per episode; several values run the set once per
                        value and chart peak tokens against N (default: the scenario's)
  --tasks K             Episodes per strategy and N (default 8)
  --seed S              Seed of the task sampling (default 1)
  --model <spec>        "offline" (default) or provider:model, e.g. openai:gpt-4.1-mini
  --window <tokens>     Context window; a larger request fails the episode; 0 = no limit
                        (default: the model's known window)
  --concurrency C       Episodes run at once (default 1; raise it for hosted models)
  --queue <redis url>   Run the episodes on workers (pagewise worker --redis <url>) through a Redis
                        queue instead of in this process; the saved runs are the same. The model must
                        be a spec; workers need its API key
  --queue-prefix <name> Key prefix of the queue; the workers' --prefix must match (default pagewise)
  --prices <file>       JSON price table over the built-in one:
                        { "<model>": { "inputPerMTok": 0.4, "outputPerMTok": 1.6 } } (USD per million tokens)
  --json <file>         Write the results JSON (schema 1) to <file>
  --out <folder>        Write results.json, runs.json (every episode with its per-call ledger), report.md
                        and the charts as SVG. With a hosted model and no --out, the output is saved to
                        bench-out/<scenario>-<time>/ so the report can be rebuilt without calling it again.
  --rebuild <path>      Rebuild the report from saved runs (a folder or runs.json), without a model call
  --list                List the scenarios and their strategies
  -h, --help            Show this help
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
  concurrency: { type: 'string' },
  queue: { type: 'string' },
  'queue-prefix': { type: 'string' },
  prices: { type: 'string' },
  json: { type: 'string' },
  out: { type: 'string' },
  rebuild: { type: 'string' },
} as const;

/** Default number of tasks per strategy and N. */
export const DEFAULT_BENCH_TASKS = 8;

function listText(): string {
  const lines = ['Scenarios:'];
  for (const s of listScenarios()) {
    lines.push(`  ${s.name.padEnd(20)} ${s.description}${s.available ? '' : ' (not available yet)'}`);
    if (s.available)
      lines.push(
        `  ${''.padEnd(20)} strategies: ${listStrategies(s.name)
          .map((e) => e.name)
          .join(', ')}`,
      );
  }
  lines.push('', 'Strategies:');
  for (const e of listStrategies()) lines.push(`  ${e.name.padEnd(20)} ${e.description}`);
  return lines.join('\n');
}

function nList(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').map((part) => intOption('n', part.trim(), 0, 1));
}

/** Reports progress: a bar on an interactive terminal, a line every tenth of the run otherwise. */
function progressReporter(
  scenario: string,
  err: (s: string) => void,
  tty: boolean,
): { update: (p: BenchProgress) => void; stop: () => void } {
  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        format: `bench ${scenario} |{bar}| {value}/{total} episodes | {last} | eta {eta_formatted}`,
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update: (p) => {
        const last = p.last
          ? `${p.last.strategy}${p.last.n === null ? '' : ` N=${p.last.n}`} ${p.last.success ? 'ok' : 'failed'}`
          : 'starting';
        if (!started) {
          bar.start(p.total, p.done, { last });
          started = true;
        } else bar.update(p.done, { last });
      },
      stop: () => bar.stop(),
    };
  }
  let shown = -1;
  return {
    update: (p) => {
      const tenth = p.total === 0 ? 10 : Math.floor((p.done * 10) / p.total);
      if (tenth === shown) return;
      shown = tenth;
      err(
        `bench ${scenario}: ${p.done}/${p.total} episodes${p.last ? ` (last: ${p.last.strategy}${p.last.n === null ? '' : ` N=${p.last.n}`}, ${p.last.success ? 'ok' : 'failed'})` : ''}`,
      );
    },
    stop: () => {},
  };
}

async function writeOutputs(
  report: BenchReport,
  values: { json?: string; out?: string },
  err: (s: string) => void,
): Promise<void> {
  if (values.json) {
    await writeResultsJson(values.json, report);
    err(`results written to ${values.json}`);
  }
  if (values.out) {
    const files = await writeBenchOutput(values.out, report);
    err(`report written to ${values.out} (${files.map((f) => path.basename(f)).join(', ')})`);
  }
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
  registerStandardBench();
  const { values, positionals } = parseCommand('bench', argv, OPTIONS);
  if (values.help) {
    out(BENCH_HELP);
    return 0;
  }
  if (values.list) {
    out(listText());
    return 0;
  }
  const prices = values.prices ? await readPrices(values.prices) : undefined;
  if (values.rebuild) {
    const report = rebuildReport(await readRuns(values.rebuild), prices ? { prices } : {});
    out(markdownReport(report));
    await writeOutputs(report, values, err);
    return 0;
  }
  const [name, ...extra] = positionals;
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
  const scenario = getScenario(name);
  const model = values.model ?? 'offline';
  const n = nList(values.n);
  const strategies = values.strategies
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const contextWindow = values.window === undefined ? undefined : intOption('window', values.window, 0, 0);
  if (values.queue === undefined && values['queue-prefix'] !== undefined)
    throw new ConfigurationError('bad-arguments', '--queue-prefix needs --queue <redis url>.');
  if (values.queue !== undefined && values.concurrency !== undefined) {
    throw new ConfigurationError(
      'bad-arguments',
      'With --queue the workers run the episodes: set --concurrency on each `pagewise worker`, not on bench.',
    );
  }
  const executor =
    values.queue === undefined
      ? undefined
      : queueExecutor({
          url: values.queue,
          urlSetting: '--queue',
          ...(values['queue-prefix'] ? { prefix: values['queue-prefix'] } : {}),
          onNotice: (notice) => err(notice.message),
        });

  const progress = progressReporter(scenario.name, err, process.stderr.isTTY === true);
  let report: BenchReport;
  try {
    report = await runBench({
      scenario,
      ...(strategies ? { strategies } : {}),
      ...(n ? { n } : {}),
      tasks: intOption('tasks', values.tasks, DEFAULT_BENCH_TASKS, 1),
      seed: intOption('seed', values.seed, 1, 0),
      model,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      concurrency: intOption('concurrency', values.concurrency, 1, 1),
      ...(executor ? { executor } : {}),
      ...(prices ? { prices } : {}),
      onProgress: progress.update,
    });
  } finally {
    progress.stop();
  }
  out(markdownReport(report));
  // Calls to a hosted model cost money and time: keep them, so the report can be rebuilt offline.
  const outDir =
    values.out ??
    (model === 'offline'
      ? undefined
      : path.join('bench-out', `${scenario.name}-${report.runs.startedAt.replace(/[:.]/g, '-')}`));
  await writeOutputs(
    report,
    { ...(values.json ? { json: values.json } : {}), ...(outDir ? { out: outDir } : {}) },
    err,
  );
  return 0;
}
