/**
 * `pagewise replay <file|folder>`: replays recorded agent traces under the compression strategies and
 * reports, per strategy, the prompt tokens saved and the share of later-used values the model would
 * still have seen; with --out, the report as JSON, markdown and HTML.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AbortedError, ConfigurationError } from 'pagewise';
import { loadGuideline } from 'pagewise/compression';
import {
  defaultStrategies,
  readTraces,
  replayHtml,
  replayMarkdown,
  replaySummaryTable,
  replayTraces,
  toolResultCount,
  TRACE_FORMATS,
  type ReplayedTrace,
  type ReplayTrace,
  type TraceFormat,
} from '@pagewise/lab/replay';
import { intOption, parseCommand } from './args.js';
import { checkPriceAs, recordedCache, recordedCacheText } from './replay-cache.js';

/** The progress file of a replay with --out: a header line (the settings), then one line per trace replayed. */
export const PROGRESS_FILE = 'replay-progress.jsonl';
const PROGRESS_SCHEMA = 'pagewise.replay-progress/1';

/**
 * Reads the traces a previous run with the same settings replayed into `folder`, and starts or continues its
 * progress file. Progress made with other settings is refused, not mixed in.
 */
function openProgress(folder: string, settings: unknown): Map<string, ReplayedTrace> {
  const file = path.join(folder, PROGRESS_FILE);
  const header = JSON.stringify({ schema: PROGRESS_SCHEMA, settings });
  const done = new Map<string, ReplayedTrace>();
  if (!existsSync(file)) {
    writeFileSync(file, `${header}\n`);
    return done;
  }
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines[0] !== header)
    throw new ConfigurationError(
      'bad-arguments',
      `${file} holds the progress of a replay with other settings (strategies, thresholds or guideline). Use another --out, or delete that file to start over.`,
    );
  for (const line of lines.slice(1)) {
    if (!line.trim()) continue;
    try {
      const entry = JSON.parse(line) as ReplayedTrace;
      if (typeof entry.key === 'string' && Array.isArray(entry.replays)) done.set(entry.key, entry);
    } catch {
      // A line cut by a crash while it was written: that trace is replayed again.
    }
  }
  return done;
}

/** Warnings printed in full before the rest are counted: a trace folder can hold thousands. */
const WARNINGS_SHOWN = 10;

/** Prints what the readers kept but could not read as recorded (tool arguments that are not JSON), each located. */
function reportTraceWarnings(traces: readonly ReplayTrace[], err: (s: string) => void): void {
  const warnings = traces.flatMap((trace) => trace.warnings ?? []);
  if (warnings.length === 0) return;
  err(
    `Warning: ${warnings.length} tool call(s) have arguments that are not valid JSON; they are replayed with the ` +
      'arguments as text (values in them still count, as text):',
  );
  for (const warning of warnings.slice(0, WARNINGS_SHOWN)) err(`  ${warning}`);
  if (warnings.length > WARNINGS_SHOWN) err(`  … and ${warnings.length - WARNINGS_SHOWN} more.`);
}

/** Help text of `pagewise replay`. */
export const REPLAY_HELP = `Usage: pagewise replay <file|folder> [options]

Replays recorded agent traces, without a model, under each context strategy: ACON's observation
compressor (acon-obs), history compressor (acon-hist), both (acon-both), and the baselines none,
truncation (head of each long observation), fifo and clear-tool-results. For each it reports the
prompt tokens saved against none (peak and cumulative, counted with the project's tokenizer) and the
used-later recall: of the values the model took from a tool result and wrote later (in a tool call or a
reply), the share still present in the request it would have seen. With a reward or success field,
recall is also weighted by outcome.

Formats, detected per record (.json, .jsonl, .ndjson; a folder is read recursively):
${TRACE_FORMATS.map((f) => `  ${f}`).join('\n')}
A SQLite session database (the --db of analyze, known by its header) is read read-only, each
session a trace; its call log also gives each recorded session's cache hit rate and cost in USD
with prompt caching beside its prompt tokens (as the runs recorded them, or modelled from the
stored requests in call order). Trace files hold no requests as sent: there the figures are
unavailable.

Options:
  --format <f>              Read every record as this format instead of detecting it
  --app <name>              Of a SQLite session database, only this app's sessions (default: all)
  --strategies <a,b,...>    Only these strategies (default: all)
  --obs-threshold <tokens>  T_obs of acon-obs and truncation (default 256)
  --hist-threshold <tokens> T_hist of acon-hist (default 4096)
  --guideline <file>        Observation guideline file for acon-obs (default: the built-in one)
  --fifo-turns <n>          Turns fifo keeps (default 5)
  --clear-keep <n>          Tool results clear-tool-results keeps (default 3)
  --losses <n>              Worst losses listed per strategy (default 5 in markdown, 20 in JSON)
  --price-as <model>        Price the recorded calls of a session database as this model's list prices
                            (default: each call's own model), e.g. openai:gpt-4.1
  --out <folder>            Write replay.json, replay.md and replay.html there, and the progress as each
                            trace is replayed (${PROGRESS_FILE}): run the same command again after an
                            interrupt and the traces done are not replayed again
  --json                    Print the report as JSON instead of the table
  -h, --help                Show this help
`;

/** Runs `pagewise replay`. */
export async function replayCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  const { values, positionals } = parseCommand('replay', argv, {
    format: { type: 'string' },
    app: { type: 'string' },
    strategies: { type: 'string' },
    'obs-threshold': { type: 'string' },
    'hist-threshold': { type: 'string' },
    guideline: { type: 'string' },
    'fifo-turns': { type: 'string' },
    'clear-keep': { type: 'string' },
    losses: { type: 'string' },
    'price-as': { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out(REPLAY_HELP);
    return 0;
  }
  const [target, ...extra] = positionals;
  if (!target || extra.length > 0) {
    err(`pagewise replay: give one trace file or folder.\n\n${REPLAY_HELP}`);
    return 1;
  }
  const format = values.format;
  if (format !== undefined && !(TRACE_FORMATS as readonly string[]).includes(format))
    throw new ConfigurationError(
      'bad-arguments',
      `--format must be one of ${TRACE_FORMATS.join(', ')}, got "${format}".`,
    );
  const settings = {
    observationThreshold: intOption('obs-threshold', values['obs-threshold'], 256),
    historyThreshold: intOption('hist-threshold', values['hist-threshold'], 4096),
    fifoTurns: intOption('fifo-turns', values['fifo-turns'], 5, 1),
    clearKeepLast: intOption('clear-keep', values['clear-keep'], 3),
    ...(values.guideline ? { observationGuideline: await loadGuideline(values.guideline) } : {}),
  };
  let strategies = defaultStrategies(settings);
  if (values.strategies) {
    const wanted = values.strategies.split(',').map((s) => s.trim());
    const unknown = wanted.filter((w) => !strategies.some((s) => s.name === w));
    if (unknown.length > 0)
      throw new ConfigurationError(
        'bad-arguments',
        `--strategies: unknown ${unknown.join(', ')}; the strategies are ${strategies.map((s) => s.name).join(', ')}.`,
      );
    strategies = strategies.filter((s) => wanted.includes(s.name));
  }
  const priceAs = checkPriceAs(values['price-as']);
  const traces = await readTraces(target, {
    ...(format ? { format: format as TraceFormat } : {}),
    ...(values.app !== undefined ? { appName: values.app } : {}),
  });
  reportTraceWarnings(traces, err);
  const results = traces.reduce((n, t) => n + toolResultCount(t), 0);
  let done: Map<string, ReplayedTrace> | undefined;
  if (values.out) {
    await mkdir(values.out, { recursive: true });
    done = openProgress(values.out, {
      strategies: strategies.map((s) => s.name),
      ...settings,
    });
    if (done.size > 0)
      err(`Resuming: ${done.size} trace(s) replayed before are taken from ${path.join(values.out, PROGRESS_FILE)}.`);
  }
  err(`Replaying ${traces.length} trace(s), ${results} tool results, under ${strategies.length} strategies.`);
  const abort = new AbortController();
  const onInterrupt = () => abort.abort();
  process.once('SIGINT', onInterrupt);
  const tty = process.stderr.isTTY === true;
  let lastShown = 0;
  const progressFile = values.out ? path.join(values.out, PROGRESS_FILE) : undefined;
  let report;
  try {
    report = await replayTraces(traces, {
      strategies,
      signal: abort.signal,
      ...(done ? { done } : {}),
      ...(progressFile
        ? { onTrace: (t: ReplayedTrace) => appendFileSync(progressFile, `${JSON.stringify(t)}\n`) }
        : {}),
      onProgress: ({ done, total, trace }) => {
        // On a terminal one line rewritten in place; in a log a line every tenth of the way.
        if (tty)
          process.stderr.write(`\r${done}/${total} ${trace.slice(0, 50).padEnd(50)}${done === total ? '\n' : ''}`);
        else if (done === total || done - lastShown >= Math.max(1, Math.ceil(total / 10))) {
          lastShown = done;
          err(`${done}/${total} traces`);
        }
      },
    });
  } catch (error) {
    if (!AbortedError.isInstance(error) || !abort.signal.aborted) throw error;
    if (tty) process.stderr.write('\n');
    err(
      progressFile
        ? `Interrupted. The traces replayed so far are in ${progressFile}; run the same command again to go on.`
        : 'Interrupted. Nothing was kept: run with --out <folder> to make a replay resumable.',
    );
    return 130;
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
  const losses = values.losses === undefined ? undefined : intOption('losses', values.losses, 5);
  const cache = await recordedCache(target, {
    ...(values.app !== undefined ? { appName: values.app } : {}),
    ...(priceAs !== undefined ? { priceAs } : {}),
  });
  if (values.out) {
    await writeFile(path.join(values.out, 'replay.json'), `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(path.join(values.out, 'replay.md'), replayMarkdown(report, losses === undefined ? {} : { losses }));
    await writeFile(path.join(values.out, 'replay.html'), await replayHtml(report));
    err(`Report written to ${path.join(values.out, 'replay.{json,md,html}')}`);
  }
  if (values.json) out(JSON.stringify({ ...report, recordedCache: cache }, null, 2));
  else {
    out(replaySummaryTable(report));
    out(recordedCacheText(cache));
    out(
      `\n${report.uses} used-later values over ${report.traces} traces; ${(report.elapsedMs / 1000).toFixed(1)} s ` +
        `(${((report.elapsedMs / Math.max(1, results)) * 100).toFixed(0)} ms per 100 tool results, all strategies).`,
    );
  }
  return 0;
}
