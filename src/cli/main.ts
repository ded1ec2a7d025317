/**
 * The `pagewise` command line. Every command uses only the public API, so anything it does can be done
 * in code.
 */
import { readFileSync } from 'node:fs';
import { APICallError } from '@ai-sdk/provider';
import { PagewiseError, redactError, redactSecrets } from '../index.js';
import { benchCommand, BENCH_HELP } from './bench.js';
import { dbCommand, DB_HELP } from './db.js';
import { distillCommand, DISTILL_HELP } from './distill.js';
import { optimizeCommand, OPTIMIZE_HELP } from './optimize.js';
import { workerCommand, WORKER_HELP } from './worker.js';
import { analyzeCommand, ANALYZE_HELP, corpusCommand, CORPUS_HELP } from './analyze.js';
import { demoCommand, DEMO_HELP } from './demo.js';
import { sessionsCommand, SESSIONS_HELP } from './sessions.js';
import { inspectCommand, INSPECT_HELP } from './inspect.js';

type Command = { summary: string; help: string; run: (argv: string[], out: (s: string) => void) => Promise<number> };

const COMMANDS: Record<string, Command> = {
  demo: {
    summary: 'Run the report-analysis demo offline: none against paging (no API key needed)',
    help: DEMO_HELP,
    run: demoCommand,
  },
  analyze: {
    summary: 'Answer a question over a folder of documents with the paging agents',
    help: ANALYZE_HELP,
    run: analyzeCommand,
  },
  bench: {
    summary: 'Compare context strategies on a scenario (tables, JSON, charts)',
    help: BENCH_HELP,
    run: benchCommand,
  },
  optimize: {
    summary: 'Learn a compression guideline from contrastive failures (UT and CO steps)',
    help: OPTIMIZE_HELP,
    run: optimizeCommand,
  },
  distill: {
    summary: 'Export recorded compressor calls as fine-tuning JSONL',
    help: DISTILL_HELP,
    run: distillCommand,
  },
  worker: {
    summary: 'Take benchmark episodes from a Redis queue (BullMQ) and run them',
    help: WORKER_HELP,
    run: workerCommand,
  },
  db: { summary: 'Apply PostgreSQL schema migrations', help: DB_HELP, run: dbCommand },
  corpus: { summary: 'Generate a corpus of business reports', help: CORPUS_HELP, run: corpusCommand },
  sessions: { summary: 'List, show or delete stored sessions', help: SESSIONS_HELP, run: sessionsCommand },
  inspect: {
    summary: 'Browse sessions, calls and benchmark runs in a local web inspector',
    help: INSPECT_HELP,
    run: inspectCommand,
  },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
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
    err(`Unknown command "${name}".\n\n${help()}`);
    return 1;
  }
  try {
    return await command.run(rest, out);
  } catch (error) {
    // Whatever a command failed with, keys from the environment are not printed or passed on.
    if (PagewiseError.isInstance(error)) {
      err(redactSecrets(`pagewise ${name}: ${error.message}`));
      return 2;
    }
    if (APICallError.isInstance(error)) {
      // The provider refused the call: a fact about the setup (key, model id, quota), not a crash.
      const status = error.statusCode ? ` (HTTP ${error.statusCode})` : '';
      err(
        redactSecrets(
          `pagewise ${name}: the model provider refused the call${status}: ${error.message}. Check the API key, the model id and your quota.`,
        ),
      );
      return 2;
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
