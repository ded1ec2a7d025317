/**
 * The `pagewise` command line. Every command uses only the public API, so anything it does can be done
 * in code.
 */
import { readFileSync } from 'node:fs';
import { redactError, redactSecrets } from 'pagewise';
import { didYouMean } from './suggest.js';
import { terminalSafe } from './terminal.js';

type Run = (argv: string[], out: (s: string) => void, err: (s: string) => void) => Promise<number>;

/**
 * A command is loaded only when it runs: `--version`, `--help` and light commands must not pay for the model
 * providers, databases, queues and chart libraries the heavy ones import.
 */
type Command = { summary: string; load: () => Promise<Run> };

const COMMANDS: Record<string, Command> = {
  demo: {
    summary: 'Run the report-analysis demo offline: none against paging (no API key needed)',
    load: async () => (await import('./demo.js')).demoCommand,
  },
  analyze: {
    summary: 'Answer a question over a folder of documents with the paging agents',
    load: async () => (await import('./analyze.js')).analyzeCommand,
  },
  bench: {
    summary: 'Compare context strategies on a scenario (tables, JSON, charts)',
    load: async () => (await import('./bench.js')).benchCommand,
  },
  optimize: {
    summary: 'Learn a compression guideline from contrastive failures (UT and CO steps)',
    load: async () => (await import('./optimize.js')).optimizeCommand,
  },
  replay: {
    summary: 'Replay recorded agent traces under each compression strategy: tokens saved, values lost',
    load: async () => (await import('./replay.js')).replayCommand,
  },
  distill: {
    summary: 'Export recorded compressor calls as fine-tuning JSONL',
    load: async () => (await import('./distill.js')).distillCommand,
  },
  worker: {
    summary: 'Take benchmark episodes from a Redis queue (BullMQ) and run them',
    load: async () => (await import('./worker.js')).workerCommand,
  },
  db: { summary: 'Apply PostgreSQL schema migrations', load: async () => (await import('./db.js')).dbCommand },
  corpus: {
    summary: 'Generate a corpus of business reports',
    load: async () => (await import('./analyze.js')).corpusCommand,
  },
  data: {
    summary: 'Fetch the third-party data the benchmarks use (checksummed, pinned commits)',
    load: async () => (await import('./data.js')).dataCommand,
  },
  sessions: {
    summary: 'List, show or delete stored sessions',
    load: async () => (await import('./sessions.js')).sessionsCommand,
  },
  inspect: {
    summary: 'Browse sessions, calls and benchmark runs in a local web inspector',
    load: async () => (await import('./inspect.js')).inspectCommand,
  },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function help(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`);
  return `pagewise ${version()}: keeps the context of long-horizon LLM agents small and useful.

Usage: pagewise <command> [options]

Commands:
${lines.join('\n')}

Options:
  -h, --help      Show help (also: pagewise <command> --help)
  -v, --version   Show the version
`;
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(`${s}\n`),
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  // Stored content reaches the terminal through every command; none of it may carry escape sequences.
  const rawOut = out;
  const rawErr = err;
  out = (s) => rawOut(terminalSafe(redactSecrets(s)));
  err = (s) => rawErr(terminalSafe(redactSecrets(s)));
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    out(help());
    return name ? 0 : 1;
  }
  if (name === '--version' || name === '-v') {
    out(version());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    err(`Unknown command "${name}".${didYouMean(name, Object.keys(COMMANDS))}\n\n${help()}`);
    return 1;
  }
  try {
    const run = await command.load();
    return await run(rest, out, err);
  } catch (error) {
    // Whatever a command failed with, keys from the environment are not printed or passed on.
    const { describeError } = await import('./errors.js');
    const described = describeError(name, redactError(error));
    if (described) {
      err(described.message);
      return described.exitCode;
    }
    throw redactError(error);
  }
}

const invokedDirectly =
  process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop()!);
if (invokedDirectly) {
  // A reader that stops early (`… | head`) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(
        redactSecrets(`pagewise: unexpected failure: ${(error as Error)?.stack ?? String(error)}\n`),
      );
      process.exitCode = 70;
    },
  );
}
