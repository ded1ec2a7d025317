/**
 * `pagewise worker`: takes benchmark episodes from the Redis queue that `pagewise bench --queue` fills,
 * runs them and returns their outcomes, until stopped. One line per episode goes to stdout.
 */
import {
  startEpisodeWorker,
  DEFAULT_LOCK_DURATION_MS,
  DEFAULT_MAX_STALLED,
  DEFAULT_QUEUE_PREFIX,
  DEFAULT_STALLED_INTERVAL_MS,
  redactRedisUrl,
  type EpisodeWorkerEvent,
} from '@pagewise/distributed';
import { ConfigurationError } from 'pagewise';
import { intOption, parseCommand } from './args.js';

/** Help text of `pagewise worker`. */
export const WORKER_HELP = `Usage: pagewise worker --redis <url> [options]

Takes benchmark episodes from a Redis queue (BullMQ) and runs them, until stopped: start one or more
workers on any machines that reach Redis, then run \`pagewise bench <scenario> --queue <url>\`. The scenario
of each episode must be registered in the worker and its data present; a model other than "offline" needs
its API key in the worker's environment.

Each episode runs in a child process of the worker, so a CPU-bound episode (the offline model) never
holds up the worker's lock renewal or its signals. If a worker dies during an episode, another worker
runs the episode again once the dead worker's lock expires (--lock-duration). Ctrl-C (SIGINT) or SIGTERM
stops taking episodes and finishes the ones in progress; a second signal stops them at once and puts
them back in the queue for another worker.

Options:
  --redis <url>            Redis URL, e.g. redis://127.0.0.1:6379 (rediss:// for TLS)
  --prefix <name>          Key prefix of the queue; bench --queue-prefix must match (default ${DEFAULT_QUEUE_PREFIX})
  --concurrency C          Episodes run at once, one process each (default 1; the offline model uses a
                           core per episode, a hosted model far less)
  --lock-duration <ms>     How long an episode's lock lasts without renewal; a dead worker's episode
                           is retried this long after it died (default ${DEFAULT_LOCK_DURATION_MS})
  --stalled-interval <ms>  How often to look for episodes whose lock expired (default ${DEFAULT_STALLED_INTERVAL_MS})
  --max-stalled K          Times one episode may lose its worker before the run fails (default ${DEFAULT_MAX_STALLED})
  -h, --help               Show this help
`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  redis: { type: 'string' },
  prefix: { type: 'string' },
  concurrency: { type: 'string' },
  'lock-duration': { type: 'string' },
  'stalled-interval': { type: 'string' },
  'max-stalled': { type: 'string' },
} as const;

function describeEvent(event: EpisodeWorkerEvent): string {
  switch (event.type) {
    case 'started':
      return `episode ${event.jobId}: started (${event.scenario}, ${event.strategy}${event.n === null ? '' : `, N=${event.n}`}, task ${event.taskId})`;
    case 'finished':
      return `episode ${event.jobId}: ${event.success ? 'ok' : 'failed'} in ${(event.ms / 1000).toFixed(2)} s`;
    case 'failed':
      return `episode ${event.jobId}: could not be run: ${event.message}`;
    case 'released':
      return `episode ${event.jobId}: put back in the queue`;
    case 'lock-lost':
      return `episode ${event.jobId}: its lock expired while it ran (this worker was busy longer than --lock-duration), so another worker runs it; this result was dropped. Raise --lock-duration if this repeats.`;
    case 'error':
      return `error: ${event.message}`;
  }
}

/**
 * Runs `pagewise worker` with `argv` (after the command name) until SIGINT or SIGTERM. Episode lines go
 * to `out`, errors and shutdown notes to `err` (stderr by default).
 */
export async function workerCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  const { values, positionals } = parseCommand('worker', argv, OPTIONS);
  if (values.help) {
    out(WORKER_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new ConfigurationError(
      'bad-arguments',
      `Unexpected arguments: ${positionals.join(' ')}. Run \`pagewise worker --help\` for the options.`,
    );
  if (!values.redis)
    throw new ConfigurationError(
      'bad-arguments',
      'Give the Redis URL of the queue: pagewise worker --redis redis://127.0.0.1:6379',
    );
  const prefix = values.prefix ?? DEFAULT_QUEUE_PREFIX;
  const concurrency = intOption('concurrency', values.concurrency, 1, 1);
  const worker = await startEpisodeWorker({
    url: values.redis,
    urlSetting: '--redis',
    prefix,
    concurrency,
    lockDurationMs: intOption('lock-duration', values['lock-duration'], DEFAULT_LOCK_DURATION_MS, 1),
    stalledIntervalMs: intOption('stalled-interval', values['stalled-interval'], DEFAULT_STALLED_INTERVAL_MS, 1),
    maxStalled: intOption('max-stalled', values['max-stalled'], DEFAULT_MAX_STALLED, 1),
    onEvent: (e) => (e.type === 'error' || e.type === 'failed' || e.type === 'lock-lost' ? err : out)(describeEvent(e)),
  });
  out(
    `pagewise worker ${worker.id}: taking episodes from ${redactRedisUrl(values.redis)} (prefix "${prefix}", concurrency ${concurrency}); Ctrl-C to stop`,
  );

  let signals = 0;
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const stopped = new Promise<void>((resolve, reject) => {
    onSignal = (signal) => {
      signals += 1;
      if (signals === 1)
        err(`${signal}: finishing the episodes in progress; send it again to put them back in the queue now`);
      else err(`${signal}: putting the episodes in progress back in the queue`);
      worker.close({ release: signals > 1 }).then(resolve, reject);
    };
  });
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await stopped;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  err('pagewise worker: stopped');
  return 0;
}
