/**
 * Small helpers over node:util parseArgs shared by the commands: typed options and clear errors.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigurationError } from 'pagewise';
import { closest } from './suggest.js';

/** Node's parse error, told in the command line's terms: the flag, the closest known flag, where the help is. */
function parseErrorMessage(command: string, error: Error & { code?: string }, flags: readonly string[]): string {
  const help = `Run \`pagewise ${command} --help\` for the options.`;
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = /'([^']+)'/.exec(error.message)?.[1] ?? '';
    const name = given.replace(/^-+/, '').split('=')[0]!;
    const match = name ? closest(name, flags) : undefined;
    return `Unknown option ${given}.${match ? ` Did you mean --${match}?` : ''} ${help}`;
  }
  const missing = /^Option '(-\S+)(?: <value>)?' argument missing/.exec(error.message);
  if (missing) return `${missing[1]} needs a value. ${help}`;
  return `${error.message.replace(/\.$/, '')}. ${help}`;
}

/** Parses `argv` for one command; unknown flags are a ConfigurationError with a "did you mean" and the command's help. */
export function parseCommand<const T extends NonNullable<ParseArgsConfig['options']>>(
  command: string,
  argv: string[],
  options: T,
): { values: { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string }; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return parsed as unknown as {
      values: { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string };
      positionals: string[];
    };
  } catch (error) {
    throw new ConfigurationError('bad-arguments', parseErrorMessage(command, error as Error, Object.keys(options)));
  }
}

/** Reads an integer option, with a clear error naming the flag. */
export function intOption(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min)
    throw new ConfigurationError('bad-arguments', `--${name} must be an integer ≥ ${min}, got "${value}".`);
  return parsed;
}

/** Default of `--timeout`: seconds one model call (one attempt) may take. */
export const DEFAULT_MODEL_TIMEOUT_S = 120;
/** Default of `--deadline`: seconds a whole run of a command may take, model calls and retries included. */
export const DEFAULT_RUN_DEADLINE_S = 1800;

/** The flags of every command that calls a model, for {@link parseCommand}. */
export const MODEL_TIME_FLAGS = {
  timeout: { type: 'string' },
  deadline: { type: 'string' },
} as const;

/** Help lines of {@link MODEL_TIME_FLAGS}. */
export const MODEL_TIME_HELP = `  --timeout <seconds>    Time one model call may take before it is retried (3 retries) (default ${DEFAULT_MODEL_TIMEOUT_S})
  --deadline <seconds>   Time the whole run may take, every call and retry included (default ${DEFAULT_RUN_DEADLINE_S})`;

/** Help lines of `--timeout` and `--deadline` for a command whose runs can be resumed, so have no default deadline. */
export const RESUMABLE_TIME_HELP = `  --timeout <seconds>    Time one model call may take before it is retried (3 retries) (default ${DEFAULT_MODEL_TIMEOUT_S})
  --deadline <seconds>   Time the whole run may take; past it the run stops as on Ctrl-C, keeping what
                         finished, and the command exits 2 (default: none)`;

/**
 * Reads `--timeout` and an optional `--deadline` for a command whose runs are long and resumable (bench,
 * optimize): the per-attempt timeout of model calls, and the whole run's deadline in ms, or undefined.
 */
export function resumableTimeOptions(values: { timeout?: string | undefined; deadline?: string | undefined }): {
  modelTimeoutMs: number;
  deadlineMs: number | undefined;
} {
  return {
    modelTimeoutMs: intOption('timeout', values.timeout, DEFAULT_MODEL_TIMEOUT_S, 1) * 1000,
    deadlineMs: values.deadline === undefined ? undefined : intOption('deadline', values.deadline, 0, 1) * 1000,
  };
}

/**
 * Reads `--timeout` and `--deadline` into the runner's settings: the per-attempt timeout of model calls
 * and the run's wall-time limit. A hung model then costs at most four timeouts, and never more than the
 * deadline, instead of four times 120 s with nothing to lower it.
 */
export function modelTimeOptions(values: { timeout?: string | undefined; deadline?: string | undefined }): {
  modelTimeoutMs: number;
  maxWallTimeMs: number;
} {
  return {
    modelTimeoutMs: intOption('timeout', values.timeout, DEFAULT_MODEL_TIMEOUT_S, 1) * 1000,
    maxWallTimeMs: intOption('deadline', values.deadline, DEFAULT_RUN_DEADLINE_S, 1) * 1000,
  };
}

/** What ends a long, resumable run early: Ctrl-C, or `--deadline`. */
export interface RunStopper {
  /** Aborted on Ctrl-C or at the deadline. */
  readonly signal: AbortSignal;
  /** Whether it was the deadline that stopped the run. */
  pastDeadline(): boolean;
  /** "Interrupted." or "Stopped at the deadline (--deadline N s).", to begin the message that says what was kept. */
  stoppedText(): string;
  /** Removes the Ctrl-C listener and the timer. */
  dispose(): void;
}

/** Starts listening for Ctrl-C (once) and the deadline, if one is given in ms. */
export function runStopper(deadlineMs: number | undefined): RunStopper {
  const abort = new AbortController();
  const onInterrupt = () => abort.abort();
  process.once('SIGINT', onInterrupt);
  let pastDeadline = false;
  const timer =
    deadlineMs === undefined
      ? undefined
      : setTimeout(() => {
          pastDeadline = true;
          abort.abort();
        }, deadlineMs);
  return {
    signal: abort.signal,
    pastDeadline: () => pastDeadline,
    stoppedText: () =>
      pastDeadline ? `Stopped at the deadline (--deadline ${deadlineMs! / 1000} s).` : 'Interrupted.',
    dispose: () => {
      clearTimeout(timer);
      process.removeListener('SIGINT', onInterrupt);
    },
  };
}
