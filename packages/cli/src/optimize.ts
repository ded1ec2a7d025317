/**
 * `pagewise optimize`: ACON's guideline optimization for one compressor of a scenario (the utility
 * step, then the compression step), with the chosen guideline, every candidate, the feedback and the
 * before/after report written to --out. Progress goes to stderr (a bar on a terminal); the report to
 * stdout. Interrupted, it saves its progress; run again with the same --out, it resumes.
 */
import path from 'node:path';
import cliProgress from 'cli-progress';
import { getScenario, listScenarios, registerStandardBench } from '@pagewise/lab';
import { AbortedError, ConfigurationError } from 'pagewise';
import { loadGuideline, type GuidelineTarget } from 'pagewise/compression';
import {
  optimizeGuideline,
  optimizeMarkdown,
  OPTIMIZE_OUTPUT_FILES,
  PROGRESS_FILE,
  SqliteCompressorCallStore,
  type CompressorCallStore,
  type EpisodeSessions,
  type OptimizePhase,
  type OptimizeProgressEvent,
} from '@pagewise/lab/optimize';
import { defaultDatabasePath, openSqliteDatabase, SqliteCallLog, SqliteSessionStore } from '@pagewise/sqlite';
import { DEFAULT_MODEL_TIMEOUT_S, intOption, MODEL_TIME_FLAGS, parseCommand, resumableTimeOptions } from './args.js';
import { commandLine } from './invocation.js';

/** Help text of `pagewise optimize`. */
export const OPTIMIZE_HELP = `Usage: pagewise optimize --scenario <name> --target history|observation [options]

Optimizes the guideline of one compressor, as ACON does. The training tasks run uncompressed and with
the starting guideline (by default the target's default guideline). The utility step takes the tasks
that succeed uncompressed and fail compressed, gets feedback on each (where the runs parted, the root
cause, the facts and variables lost), asks for K revised guidelines and keeps the one with the best
training success. The compression step takes the tasks that then succeed, gets feedback on what was
kept and not needed, asks for K shorter guidelines and keeps the best success - lambda * cost (cost:
tokens compressed / tokens uncompressed). Before and after are then measured on held-out tasks.

Without --optimizer (or with "offline") the loop is deterministic: the feedback is a diff of which
fields held gold facts or later-used values and were dropped, and candidates are edits of the
extractive compressor's rules. With a model, that model writes the feedback and the candidates.
Every candidate must keep the template's placeholders and hold no value of a training task.

Options:
  --scenario <name>         retail-tool-use or multi-objective-qa (pagewise bench --list)
  --target <t>              history or observation
  --train N                 Training tasks (default 8)
  --val M                   Held-out tasks (default 8)
  --seed S                  Seed of the task sampling (default 1)
  --model <spec>            The agent's model: "offline" (default; rules, not an LLM) or provider:model
  --compressor <spec>       "extractive" (default with the offline model) or provider:model
  --optimizer <spec>        "offline" (default: rule edits) or provider:model
  --start <file>            Guideline file to start from (default: the target's default guideline)
  --candidates K            Candidates per step (default 5)
  --lambda L                Weight of cost in the compression step's selection (default 0.5)
  --concurrency C           Episodes and optimizer calls at once (default 1; raise it for hosted models)
  --max-optimizer-calls N   Stop (progress saved) before the optimizer model is called more than N times
  --max-optimizer-tokens N  Stop (progress saved) once the optimizer model has used N tokens
  --window <tokens>         Context window of the agent's requests (default: the model's)
  --timeout <seconds>       Time one model call may take before it is retried (3 retries) (default ${DEFAULT_MODEL_TIMEOUT_S})
  --deadline <seconds>      Time the whole run may take; past it the run stops as on Ctrl-C, progress saved,
                            and the command exits 2 (default: none)
  --budget <tokens>         Prompt-token budget of the compressed runs, as pagewise bench --budget: a
                            candidate whose runs exceed it, or that costs more tokens than the start, is
                            rejected
  --out <folder>            Progress and outputs (default optimize-out/<scenario>-<target>): guideline.md,
                            candidates.json and candidates/, feedback.json, report.json, report.md,
                            progress.json. Run again with the same folder to resume.
  --db <file>               Record every compressor call, scored by its episode, in this SQLite
                            database for \`pagewise distill export\`, and every episode's session with
                            its model calls and the optimizer's calls for \`pagewise inspect\`
                            (default ${path.join('.pagewise', 'pagewise.db')})
  --no-record               Do not record compressor calls nor episodes
  -h, --help                Show this help
`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  scenario: { type: 'string' },
  target: { type: 'string' },
  train: { type: 'string' },
  val: { type: 'string' },
  seed: { type: 'string' },
  model: { type: 'string' },
  compressor: { type: 'string' },
  optimizer: { type: 'string' },
  start: { type: 'string' },
  candidates: { type: 'string' },
  lambda: { type: 'string' },
  budget: { type: 'string' },
  concurrency: { type: 'string' },
  'max-optimizer-calls': { type: 'string' },
  'max-optimizer-tokens': { type: 'string' },
  window: { type: 'string' },
  ...MODEL_TIME_FLAGS,
  out: { type: 'string' },
  db: { type: 'string' },
  'no-record': { type: 'boolean' },
} as const;

const PHASES: Record<OptimizePhase, string> = {
  baseline: 'baseline episodes',
  'utility-feedback': 'UT feedback',
  'utility-candidates': 'UT candidates',
  'compression-feedback': 'CO feedback',
  'compression-candidates': 'CO candidates',
  validation: 'held-out episodes',
};

/** Reads `--target`, with an error that lists the two targets. */
export function targetOption(value: string | undefined, command: string): GuidelineTarget {
  if (value === 'history' || value === 'observation') return value;
  throw new ConfigurationError(
    'bad-arguments',
    `${value === undefined ? 'Give' : `Unknown target "${value}"; give`} --target history or --target observation (pagewise ${command} --help).`,
  );
}

function lambdaOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const lambda = Number(value);
  if (!Number.isFinite(lambda) || lambda < 0)
    throw new ConfigurationError('bad-arguments', `--lambda must be a number ≥ 0, got "${value}".`);
  return lambda;
}

/** A bar per phase on a terminal; otherwise a line when a phase starts and when it ends. */
function progressReporter(
  err: (s: string) => void,
  tty: boolean,
): { update: (e: OptimizeProgressEvent) => void; stop: () => void } {
  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        format: 'optimize |{bar}| {value}/{total} {phase}{resumed} | eta {eta_formatted}',
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    let phase: OptimizePhase | undefined;
    return {
      update: (progress) => {
        const payload = {
          phase: PHASES[progress.phase],
          resumed: progress.resumed > 0 ? ` (${progress.resumed} from the progress file)` : '',
        };
        if (phase === undefined) bar.start(progress.total, progress.done, payload);
        else if (phase !== progress.phase || progress.done === 0) bar.setTotal(progress.total);
        phase = progress.phase;
        bar.update(progress.done, payload);
      },
      stop: () => bar.stop(),
    };
  }
  return {
    update: (progress) => {
      if (progress.done === 0) err(`optimize: ${PHASES[progress.phase]}: ${progress.total} to do`);
      else if (progress.done === progress.total)
        err(
          `optimize: ${PHASES[progress.phase]}: done${progress.resumed > 0 ? ` (${progress.resumed} from the progress file)` : ''}`,
        );
    },
    stop: () => {},
  };
}

/**
 * Runs `pagewise optimize` with `argv` (after the command name). The report goes to `out`; progress
 * and notes to `err` (stderr by default).
 */
export async function optimizeCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  // Learning from recorded traces needs no scenario: its own command, in its own module.
  if (argv.some((a) => a === '--from-traces' || a.startsWith('--from-traces=')))
    return (await import('./optimize-traces.js')).optimizeFromTracesCommand(argv, out, err);
  registerStandardBench();
  const { values, positionals } = parseCommand('optimize', argv, OPTIONS);
  if (values.help) {
    out(OPTIMIZE_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new ConfigurationError(
      'bad-arguments',
      `Unexpected arguments: ${positionals.join(' ')}. Run \`pagewise optimize --help\` for the options.`,
    );
  if (!values.scenario) {
    throw new ConfigurationError(
      'bad-arguments',
      `Name a scenario: --scenario <name>. Available: ${listScenarios()
        .filter((s) => s.available)
        .map((s) => s.name)
        .join(', ')}.`,
    );
  }
  const scenario = getScenario(values.scenario);
  const target = targetOption(values.target, 'optimize');
  if (values['no-record'] && values.db !== undefined)
    throw new ConfigurationError('bad-arguments', '--db and --no-record contradict each other; give one.');
  const outDir = values.out ?? path.join('optimize-out', `${scenario.name}-${target}`);
  const start = values.start ? await loadGuideline(values.start) : undefined;
  const lambda = lambdaOption(values.lambda);
  const maxCalls =
    values['max-optimizer-calls'] === undefined
      ? undefined
      : intOption('max-optimizer-calls', values['max-optimizer-calls'], 0, 0);
  const maxTokens =
    values['max-optimizer-tokens'] === undefined
      ? undefined
      : intOption('max-optimizer-tokens', values['max-optimizer-tokens'], 0, 0);
  const times = resumableTimeOptions(values);
  const dbPath = values.db ?? defaultDatabasePath();
  // One database for the compressor calls and, as the demo keeps its runs, each episode's session and model calls.
  const database = values['no-record'] ? undefined : openSqliteDatabase(dbPath);
  const store: CompressorCallStore | undefined = database ? new SqliteCompressorCallStore({ database }) : undefined;
  const sessions: EpisodeSessions | undefined = database
    ? { store: new SqliteSessionStore({ database }), callLog: (tags) => new SqliteCallLog({ database, tags }) }
    : undefined;

  const controller = new AbortController();
  const quit = () => process.exit(130);
  // Past --deadline the run stops as on Ctrl-C: the episodes in flight end and the progress is saved.
  let pastDeadline = false;
  const deadline =
    times.deadlineMs === undefined
      ? undefined
      : setTimeout(() => {
          pastDeadline = true;
          err(
            `optimize: the deadline (--deadline ${times.deadlineMs! / 1000} s) has passed; stopping and saving the progress`,
          );
          controller.abort();
        }, times.deadlineMs);
  const onInterrupt = () => {
    err(
      'optimize: interrupted; finishing the episodes in flight and saving the progress (Ctrl-C again to quit at once)',
    );
    controller.abort();
    process.once('SIGINT', quit);
  };
  process.once('SIGINT', onInterrupt);
  const progress = progressReporter(err, process.stderr.isTTY === true);
  try {
    const result = await optimizeGuideline({
      scenario,
      target,
      train: intOption('train', values.train, 8, 1),
      val: intOption('val', values.val, 8, 0),
      seed: intOption('seed', values.seed, 1, 0),
      model: values.model ?? 'offline',
      ...(values.compressor !== undefined ? { compressor: values.compressor } : {}),
      optimizer: values.optimizer ?? 'offline',
      ...(start ? { start } : {}),
      candidates: intOption('candidates', values.candidates, 5, 1),
      ...(lambda !== undefined ? { lambda } : {}),
      concurrency: intOption('concurrency', values.concurrency, 1, 1),
      ...(maxCalls !== undefined ? { maxOptimizerCalls: maxCalls } : {}),
      ...(maxTokens !== undefined ? { maxOptimizerTokens: maxTokens } : {}),
      settingNames: { maxOptimizerCalls: '--max-optimizer-calls', maxOptimizerTokens: '--max-optimizer-tokens' },
      ...(values.window !== undefined ? { contextWindow: intOption('window', values.window, 0, 0) } : {}),
      modelTimeoutMs: times.modelTimeoutMs,
      ...(values.budget !== undefined ? { budget: intOption('budget', values.budget, 1, 1) } : {}),
      outDir,
      ...(store ? { store } : {}),
      ...(sessions ? { sessions } : {}),
      signal: controller.signal,
      onProgress: progress.update,
    });
    progress.stop();
    out(optimizeMarkdown(result.report, result));
    err(
      `optimize: chosen guideline in ${path.join(outDir, OPTIMIZE_OUTPUT_FILES.guideline)}; report, candidates and feedback in ${outDir}`,
    );
    if (store)
      err(
        `optimize: compressor calls recorded in ${dbPath} (${commandLine(['distill', 'export', '--target', target, '--out', '<file>'])}); the episodes and their model calls too (${commandLine(['inspect', '--store', `sqlite:${dbPath}`])})`,
      );
    return 0;
  } catch (error) {
    progress.stop();
    if (AbortedError.isInstance(error) && error.code === 'aborted') {
      err(
        `optimize: stopped; progress saved in ${path.join(outDir, PROGRESS_FILE)}. Run the same command again to resume.`,
      );
      return pastDeadline ? 2 : 130;
    }
    throw error;
  } finally {
    clearTimeout(deadline);
    process.removeListener('SIGINT', onInterrupt);
    process.removeListener('SIGINT', quit);
    await store?.close();
    database?.close();
  }
}
