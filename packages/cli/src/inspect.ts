/**
 * `pagewise inspect`: the local, read-only web inspector over a store and benchmark folders. Runs until
 * interrupted.
 */
import { spawn } from 'node:child_process';
import { startInspector } from '@pagewise/inspect';
import { inCliTerms } from './errors.js';
import { intOption, parseCommand } from './args.js';
import { checkPriceAs } from './replay-cache.js';

export const INSPECT_HELP = `Usage: pagewise inspect [options]

Serves a read-only web inspector: sessions, each session's timeline, every model call as sent (the
instruction with its paged pages, history, tools, tokens by part), context over time, compressions,
and benchmark results. Stop it with Ctrl-C.

Options:
  --store <spec>     sqlite:<file>, a SQLite file, or a postgres:// URL (default: .pagewise/pagewise.db)
  --schema <name>    PostgreSQL schema of the tables
  --runs <dir>       A \`pagewise bench --out\` folder (repeatable)
  --replay <path>    A \`pagewise replay --out\` folder or its replay.json (repeatable): strategies side
                     by side, each lost value marked beside what the request held instead
  --price-as <model> Price every call as this model of the built-in price table (e.g.
                     openai:gpt-4.1): a session of the offline model, which bills nothing, in a
                     provider's dollars with caching
  --port <n>         Port (default 4317; 0 picks a free one)
  --host <address>   Address to bind (default 127.0.0.1); any other address prints an access token
                     that every request must carry
  --open             Open the inspector in the default browser
  -h, --help         Show this help
`;

function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    spawn(command, [url], { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref();
  } catch {
    // No browser launcher: the printed address is enough.
  }
}

/** Runs the inspect command; resolves when the process is told to stop. */
export async function inspectCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values } = parseCommand('inspect', argv, {
    store: { type: 'string' },
    schema: { type: 'string' },
    runs: { type: 'string', multiple: true },
    replay: { type: 'string', multiple: true },
    'price-as': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    open: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out(INSPECT_HELP);
    return 0;
  }
  const priceAs = checkPriceAs(values['price-as']);
  const inspector = await startInspector({
    ...(priceAs !== undefined ? { priceAs } : {}),
    ...(values.store ? { store: values.store } : {}),
    ...(values.schema ? { schema: values.schema } : {}),
    ...(values.runs ? { runs: values.runs as unknown as string[] } : {}),
    ...(values.replay ? { replays: values.replay as unknown as string[] } : {}),
    port: intOption('port', values.port, 4317),
    ...(values.host ? { host: values.host } : {}),
    storedMessage: inCliTerms,
  });
  out(`pagewise inspect: read-only inspector at ${inspector.url}`);
  if (inspector.token)
    out(`Access token (needed from other machines; the address above carries it): ${inspector.token}`);
  out('Stop it with Ctrl-C.');
  if (values.open) openBrowser(inspector.url);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await inspector.close();
  return 0;
}
