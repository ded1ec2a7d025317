/**
 * The inspector's HTTP server (Hono on Node): read-only routes over one store and any number of
 * benchmark folders. Security: loopback by default with a Host check against DNS rebinding; any other
 * address needs a token, checked on every request; a strict Content-Security-Policy with no inline
 * script or style; only GET and HEAD are served.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { ConfigurationError, PagewiseError } from 'pagewise';
import { DEFAULT_PRICES } from 'pagewise/cost';
import { renderChartSvg, promptTokensPerCallSpec, peakVsNSpec, readRuns, rebuildReport } from '@pagewise/lab';
import { replayChartSpec } from '@pagewise/lab/replay';
import { loadReplays, replayPage, replaysIndexPage, type LoadedReplay } from './replay-views.js';
import { parseFencedPages } from 'pagewise/internal';
import { defaultDatabasePath } from '@pagewise/sqlite';
import type { SessionKey } from 'pagewise';
import { contextSpec, workingSetSpec } from './charts.js';
import { InspectData, type CallSummary, type SessionFilter, type SessionHeader } from './data.js';
import { openStore, type InspectDb } from './db.js';
import { INSPECT_CSS, INSPECT_JS } from './assets.js';
import type { SafeHtml } from './html.js';
import {
  EVENTS_PER_PAGE,
  callPage,
  callsPage,
  collectCompressions,
  COMPRESSIONS_PER_PAGE,
  CALLS_PER_PAGE,
  compressionPage,
  contextPage,
  episodePage,
  errorPage,
  eventPage,
  eventRows,
  keyQuery,
  layout,
  pagePage,
  runsIndexPage,
  runsPage,
  sessionsPage,
  timelinePage,
  type LoadedRuns,
} from './views.js';

/** The Content-Security-Policy of every response: same-origin script, style, images and fetches only. */
export const INSPECT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Options of {@link startInspector} and {@link createInspectorApp}. */
export interface InspectorOptions {
  /**
   * The store: `sqlite:<file>`, a SQLite file path, a `postgres://` URL, or an open {@link InspectDb}.
   * Default: the default SQLite database (`.pagewise/pagewise.db`) when it exists.
   */
  store?: string | InspectDb;
  /** PostgreSQL schema the tables live in. */
  schema?: string;
  /** `pagewise bench --out` folders (or `runs.json` files) to open. */
  runs?: readonly string[];
  /** `pagewise replay --out` folders (or their `replay.json`) to open. */
  replays?: readonly string[];
  /** Address to bind. Default `127.0.0.1`; any other address requires a token. */
  host?: string;
  /** Port; 0 picks a free one. Default 4317. */
  port?: number;
  /** The access token for a non-loopback host; a random one is made when omitted. */
  token?: string;
  /**
   * Rewrites the message of each stored error event before a view shows it (tooltips, banners, the timeline).
   * The runtime's messages name library options (`contextWindow`); the `pagewise inspect` command passes one that
   * names its flags instead, since its users run the CLI. Default: messages as stored.
   */
  storedMessage?: (message: string) => string;
  /**
   * Price every logged call as this entry of the built-in price table (`openai:gpt-4.1`), modelling the calls the
   * run recorded no cache figures for under that provider's rules. The offline model bills nothing, so its sessions
   * read $0 at their own price. Default: each call's own model.
   */
  priceAs?: string;
}

/** A running inspector. */
export interface Inspector {
  /** The address to open (with the token, when one is required). */
  url: string;
  host: string;
  port: number;
  /** The access token, when the host is not loopback. */
  token: string | undefined;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const TOKEN_COOKIE = 'pagewise_inspect';

function bad(message: string): ConfigurationError {
  return new ConfigurationError('bad-request', message);
}

class NotFound extends Error {}

function intParam(context: Context, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = context.req.query(name);
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,15}$/.test(value)) throw bad(`Parameter ${name} must be a non-negative integer.`);
  return Math.min(Number(value), max);
}

function keyOf(context: Context): SessionKey {
  const appName = context.req.query('a');
  const userId = context.req.query('u');
  const sessionId = context.req.query('s');
  if (!appName || !userId || !sessionId)
    throw bad('A session is named by the parameters a (app), u (user) and s (session).');
  return { appName, userId, sessionId };
}

function dateParam(value: string | undefined, name: string): number | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  if (!Number.isFinite(time)) throw bad(`Parameter ${name} must be a date (YYYY-MM-DD).`);
  return time;
}

async function loadRuns(dirs: readonly string[]): Promise<{ loaded: LoadedRuns[]; errors: string[] }> {
  const loaded: LoadedRuns[] = [];
  const errors: string[] = [];
  for (const dir of dirs) {
    try {
      const runs = await readRuns(dir);
      const report = rebuildReport(runs);
      const charts = ['prompt-tokens-per-call', ...((runs.params.n?.length ?? 0) > 1 ? ['peak-vs-n'] : [])];
      loaded.push({ dir, runs, results: report.results, charts });
    } catch (error) {
      errors.push(PagewiseError.isInstance(error) ? error.message : `${dir}: ${(error as Error).message}`);
    }
  }
  return { loaded, errors };
}

/** Headers and checks of every request: read-only methods, the expected Host, the access token. */
function guard(token: string | undefined, allowedHosts: ReadonlySet<string> | undefined) {
  return async (context: Context, next: () => Promise<void>) => {
    context.header('Content-Security-Policy', INSPECT_CSP);
    context.header('X-Content-Type-Options', 'nosniff');
    context.header('Referrer-Policy', 'no-referrer');
    context.header('X-Frame-Options', 'DENY');
    context.header('Cross-Origin-Resource-Policy', 'same-origin');
    context.header('Cache-Control', 'no-store');
    if (context.req.method !== 'GET' && context.req.method !== 'HEAD') {
      context.header('Allow', 'GET, HEAD');
      return context.text('The inspector is read-only: only GET and HEAD are served.', 405);
    }
    if (allowedHosts && !allowedHosts.has((context.req.header('host') ?? '').toLowerCase()))
      return context.text('Unexpected Host header: open the inspector by the address it printed.', 403);
    if (token) {
      const given =
        context.req.query('token') ??
        /(?:^|;\s*)pagewise_inspect=([^;]+)/.exec(context.req.header('cookie') ?? '')?.[1];
      const ok =
        given !== undefined &&
        Buffer.byteLength(given) === Buffer.byteLength(token) &&
        timingSafeEqual(Buffer.from(given), Buffer.from(token));
      if (!ok)
        return context.text('This inspector needs its access token: open the address it printed (with ?token=…).', 401);
      if (context.req.query('token') !== undefined)
        context.header('Set-Cookie', `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
    }
    return next();
  };
}

/** The benchmark-folder views: the index, one folder's results and charts, one episode's calls. */
function addRunRoutes(
  app: Hono,
  runs: readonly LoadedRuns[],
  runErrors: readonly string[],
  page: (c: Context, title: string, body: SafeHtml) => Response | Promise<Response>,
  svg: (c: Context, text: string) => Response,
): void {
  app.get('/runs', (c) => page(c, 'Benchmark runs', runsIndexPage(runs, runErrors)));
  const runAt = (context: Context) => {
    const index = Number(context.req.param('i'));
    const run = Number.isInteger(index) ? runs[index] : undefined;
    if (!run) throw new NotFound('No such benchmark folder.');
    return { index, run };
  };
  app.get('/runs/:i', (context) => {
    const { index, run } = runAt(context);
    return page(context, run.runs.scenario, runsPage(index, run));
  });
  app.get('/runs/:i/chart/:name', async (context) => {
    const { run } = runAt(context);
    const name = context.req.param('name');
    if (name === 'prompt-tokens-per-call.svg')
      return svg(context, await renderChartSvg(promptTokensPerCallSpec(run.runs)));
    if (name === 'peak-vs-n.svg')
      return svg(context, await renderChartSvg(peakVsNSpec(run.results, run.runs.scenario, run.runs.model)));
    throw new NotFound('No such chart.');
  });
  app.get('/runs/:i/episode/:k', (context) => {
    const { index, run } = runAt(context);
    const episodeIndex = Number(context.req.param('k'));
    if (!Number.isInteger(episodeIndex) || !run.runs.episodes[episodeIndex]) throw new NotFound('No such episode.');
    return page(context, `Episode ${episodeIndex}`, episodePage(index, run, episodeIndex));
  });
}

/** The replay-report views: the index, one report with its chart. */
function addReplayRoutes(
  app: Hono,
  replays: readonly LoadedReplay[],
  errors: readonly string[],
  page: (c: Context, title: string, body: SafeHtml) => Response | Promise<Response>,
): void {
  app.get('/replays', (c) => page(c, 'Replay reports', replaysIndexPage(replays, errors)));
  const replayAt = (context: Context) => {
    const index = Number(context.req.param('i'));
    const replay = Number.isInteger(index) ? replays[index] : undefined;
    if (!replay) throw new NotFound('No such replay report.');
    return { index, replay };
  };
  app.get('/replays/:i', (context) => {
    const { index, replay } = replayAt(context);
    return page(context, 'Replay', replayPage(index, replay));
  });
  app.get('/replays/:i/chart.svg', async (context) =>
    svg(context, await renderChartSvg(replayChartSpec(replayAt(context).replay.report))),
  );
}

/** An SVG response. */
const svg = (c: Context, text: string) => c.body(text, 200, { 'Content-Type': 'image/svg+xml; charset=utf-8' });

/** The list of a session's calls and one call as sent, each with its prompt cache. */
function addCallRoutes(
  app: Hono,
  needData: () => InspectData,
  header: (key: SessionKey) => Promise<SessionHeader>,
  page: (c: Context, title: string, body: SafeHtml) => Response | Promise<Response>,
): void {
  app.get('/calls', async (context) => {
    const key = keyOf(context);
    const sessionHeader = await header(key);
    const offset = callsOffset(context, sessionHeader.calls);
    const calls = await needData().calls(key, { offset, limit: CALLS_PER_PAGE });
    // A call's cache figures need the calls before it: worked out through this page (once per session).
    const cache = await needData().sessionCache(key, offset + calls.length);
    sessionHeader.cache = cache.totals;
    return page(context, 'Calls', callsPage(sessionHeader, calls, offset, cache.calls));
  });

  app.get('/call', async (context) => {
    const key = keyOf(context);
    const sessionHeader = await header(key);
    const id = intParam(context, 'call', 0);
    const call = await needData().call(key, id);
    if (!call) throw new NotFound(`Session ${key.sessionId} has no readable call ${id}.`);
    // Position and neighbours from the ids alone: one call shown, one call body read.
    const { position, prev, next } = await needData().callNeighbours(key, id);
    // Its cache figures as far as the session's are worked out, else as its own body recorded them.
    const worked = await needData().sessionCache(key);
    const known = worked.calls.get(id) ?? (await needData().recordedCallCache(key, call));
    return page(
      context,
      `Call ${position}`,
      callPage(
        sessionHeader,
        call,
        position,
        {
          ...(prev !== undefined ? { prev } : {}),
          ...(next !== undefined ? { next } : {}),
        },
        { call: known, covered: worked.totals.calls + worked.totals.withoutFigures >= position },
      ),
    );
  });
}

/** A session's paged pages, its context over time (with charts) and its compressions. */
function addPageAndContextRoutes(
  app: Hono,
  needData: () => InspectData,
  header: (key: SessionKey) => Promise<SessionHeader>,
  page: (c: Context, title: string, body: SafeHtml) => Response | Promise<Response>,
): void {
  app.get('/page', async (context) => {
    const key = keyOf(context);
    const sessionHeader = await header(key);
    const uri = context.req.query('uri');
    if (context.req.query('call') !== undefined) {
      // A page as it was fenced into a call: exactly what the model read.
      const call = await needData().call(key, intParam(context, 'call', 0));
      const section = call?.request.instruction[intParam(context, 'section', 0)];
      const fencedPage = section ? parseFencedPages(section.text).pages[intParam(context, 'i', 0)] : undefined;
      if (!fencedPage) throw new NotFound('That call has no such paged page.');
      const stored = await needData().page(
        [`session:${key.sessionId}`, ...(await needData().namespacesOf(fencedPage.uri))],
        fencedPage.uri,
      );
      return page(
        context,
        fencedPage.title || fencedPage.uri,
        pagePage(
          sessionHeader,
          {
            ...fencedPage,
            ...(stored
              ? { namespace: stored.namespace, tokens: stored.tokens, mediaType: stored.mediaType, meta: stored.meta }
              : {}),
          },
          'as fenced into the call (markers inside neutralized)',
        ),
      );
    }
    if (!uri) throw bad('Parameter uri is required.');
    const stored = await needData().page([`session:${key.sessionId}`, ...(await needData().namespacesOf(uri))], uri);
    if (!stored) throw new NotFound(`No page ${uri} in this store.`);
    return page(context, stored.title || uri, pagePage(sessionHeader, stored, 'from the page store'));
  });

  app.get('/context', async (context) => {
    const key = keyOf(context);
    const sessionHeader = await header(key);
    const offset = callsOffset(context, sessionHeader.calls);
    const calls = await needData().calls(key, { offset, limit: CALLS_PER_PAGE });
    return page(
      context,
      'Context over time',
      contextPage(sessionHeader, calls, await compactionCalls(needData(), key, calls, offset), offset),
    );
  });

  // The charts show the page of calls the context view shows, never the whole log.
  app.get('/chart/context.svg', async (context) => {
    const key = keyOf(context);
    const sessionHeader = await header(key);
    const offset = callsOffset(context, sessionHeader.calls);
    const calls = await needData().calls(key, { offset, limit: CALLS_PER_PAGE });
    return svg(
      context,
      await renderChartSvg(contextSpec(calls, await compactionCalls(needData(), key, calls, offset), offset)),
    );
  });
  app.get('/chart/working-set.svg', async (context) => {
    const key = keyOf(context);
    const sessionHeader = await header(key);
    const offset = callsOffset(context, sessionHeader.calls);
    const calls = await needData().calls(key, { offset, limit: CALLS_PER_PAGE });
    return svg(context, await renderChartSvg(workingSetSpec(calls, undefined, offset)));
  });

  app.get('/compression', async (context) => {
    const key = keyOf(context);
    const sessionHeader = await header(key);
    const inspectData = needData();
    const needles = ['[pagewise] Compressed from', '"kind":"compaction"', '["c",'];
    const total = await inspectData.countMatching(key, needles);
    const last = Math.max(0, Math.floor((total - 1) / COMPRESSIONS_PER_PAGE) * COMPRESSIONS_PER_PAGE);
    // `at` (an event's seq, from the timeline's links) opens the page that holds that event.
    const at = context.req.query('at');
    const offset =
      at !== undefined && at !== ''
        ? Math.floor(
            (await inspectData.countMatching(key, needles, intParam(context, 'at', 0))) / COMPRESSIONS_PER_PAGE,
          ) * COMPRESSIONS_PER_PAGE
        : intParam(context, 'offset', 0, last);
    const matching = await inspectData.eventsMatching(key, needles, { offset, limit: COMPRESSIONS_PER_PAGE });
    const list = await collectCompressions(
      sessionHeader,
      matching,
      (from, to) => inspectData.eventRange(key, from, to),
      async (uri) => inspectData.page([`session:${key.sessionId}`], uri),
    );
    return page(context, 'Compression', compressionPage(sessionHeader, list, offset, total));
  });
}

/**
 * Builds the inspector's Hono app over an open store and loaded benchmark folders; {@link startInspector}
 * serves it. Exposed for embedding in another server.
 */
export function createInspectorApp(options: {
  data: InspectData | undefined;
  runs: readonly LoadedRuns[];
  runErrors?: readonly string[];
  /** Replay reports to show (see {@link loadReplays}). */
  replays?: readonly LoadedReplay[];
  replayErrors?: readonly string[];
  token?: string;
  /** Accepted Host header values (host:port); any Host when omitted. */
  allowedHosts?: ReadonlySet<string>;
}): Hono {
  const { data, runs, token, allowedHosts } = options;
  const label = data?.db.label ?? 'no store';
  const app = new Hono();
  const page = (context: Context, title: string, body: SafeHtml, live?: string) =>
    context.html(layout(title, label, body, live ? { live } : {}));
  const needData = (): InspectData => {
    if (!data) throw new NotFound('No store is open: start with --store sqlite:<file> or --store postgres://… .');
    return data;
  };
  const header = async (key: SessionKey, options: { errors?: boolean } = {}) => {
    const sessionHeader = await needData().session(key, options);
    if (!sessionHeader) throw new NotFound(`No session ${key.sessionId} of user ${key.userId} in app ${key.appName}.`);
    // The figures worked out so far; the calls view works them out through the calls it shows.
    if (sessionHeader.calls > 0) sessionHeader.cache = (await needData().sessionCache(key)).totals;
    return sessionHeader;
  };

  app.use('*', guard(token, allowedHosts));

  app.get('/assets/inspect.css', (c) => c.body(INSPECT_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/assets/inspect.js', (c) => c.body(INSPECT_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.get('/', async (context) => {
    const size = 50;
    const offset = intParam(context, 'offset', 0);
    const raw: Record<string, string | undefined> = {};
    for (const param of ['q', 'app', 'user', 'agent', 'model', 'strategy', 'from', 'to'])
      raw[param] = context.req.query(param) || undefined;
    const to = dateParam(raw.to, 'to');
    const filter: SessionFilter = {
      ...(raw.q ? { q: raw.q } : {}),
      ...(raw.app ? { app: raw.app } : {}),
      ...(raw.user ? { user: raw.user } : {}),
      ...(raw.agent ? { agent: raw.agent } : {}),
      ...(raw.model ? { model: raw.model } : {}),
      ...(raw.strategy ? { strategy: raw.strategy } : {}),
      ...(raw.from ? { from: dateParam(raw.from, 'from')! } : {}),
      // A date "to" includes that whole day.
      ...(to !== undefined ? { to: to + 86_400_000 } : {}),
    };
    if (!data) return page(context, 'Sessions', sessionsPage([], 0, 0, size, raw));
    const { rows, total } = await data.listSessions(filter, offset, size);
    return page(context, 'Sessions', sessionsPage(rows, total, offset, size, raw));
  });

  app.get('/session', async (context) => {
    const key = keyOf(context);
    const sessionHeader = await header(key, { errors: true });
    const at = context.req.query('at');
    const last = Math.max(0, Math.floor((sessionHeader.eventCount - 1) / EVENTS_PER_PAGE) * EVENTS_PER_PAGE);
    const offset =
      at !== undefined && at !== ''
        ? Math.floor(intParam(context, 'at', 0, Math.max(0, sessionHeader.eventCount - 1)) / EVENTS_PER_PAGE) *
          EVENTS_PER_PAGE
        : intParam(context, 'offset', 0, last);
    const events = await needData().events(key, offset, EVENTS_PER_PAGE);
    const callIds = await needData().callIdsOf(key, events);
    return page(
      context,
      `Session ${key.sessionId}`,
      timelinePage(sessionHeader, events, offset, callIds),
      `/api/version${keyQuery(key)}`,
    );
  });

  app.get('/session/rows', async (context) => {
    const key = keyOf(context);
    const from = intParam(context, 'from', 0);
    const events = await needData().events(key, from, 500);
    const callIds = await needData().callIdsOf(key, events);
    return context.html(eventRows(events, key, callIds).value);
  });

  app.get('/api/version', async (context) => {
    const version = await needData().version(keyOf(context));
    if (!version) throw new NotFound('No such session.');
    return context.json(version);
  });

  app.get('/event', async (context) => {
    const key = keyOf(context);
    const sessionHeader = await header(key);
    const seq = intParam(context, 'seq', 0);
    const [event] = await needData().events(key, seq, 1);
    if (!event) throw new NotFound(`Session ${key.sessionId} has no event ${seq}.`);
    return page(context, `Event ${seq}`, eventPage(sessionHeader, event, await needData().callIdsOf(key, [event])));
  });

  addCallRoutes(app, needData, header, page);
  addPageAndContextRoutes(app, needData, header, page);

  addRunRoutes(app, runs, options.runErrors ?? [], page, svg);
  addReplayRoutes(app, options.replays ?? [], options.replayErrors ?? [], page);

  app.notFound((context) => {
    // A "Not found" page with status 200 reads as a page to scripts and link checkers.
    context.status(404);
    return page(context, 'Not found', errorPage(404, 'No such page.'));
  });
  app.onError((error, context) => {
    const status = error instanceof NotFound ? 404 : ConfigurationError.isInstance(error) ? 400 : 500;
    const message =
      status === 500 && !PagewiseError.isInstance(error)
        ? 'The inspector failed on this request; see its console.'
        : error.message;
    if (status === 500) process.stderr.write(`pagewise inspect: ${(error as Error).stack ?? String(error)}\n`);
    context.status(status);
    return context.html(layout('Error', label, errorPage(status, message)));
  });
  return app;
}

/** The `offset` parameter of a page of calls, a multiple of the page size within the session's `total` calls. */
function callsOffset(context: Context, total: number): number {
  const last = Math.max(0, Math.floor((total - 1) / CALLS_PER_PAGE) * CALLS_PER_PAGE);
  return Math.floor(intParam(context, 'offset', 0, last) / CALLS_PER_PAGE) * CALLS_PER_PAGE;
}

/**
 * The 1-based call numbers, among one page of calls (the calls from `offset` on), that follow a compaction: the
 * calls whose request carried a history summary the call before did not. Read from the page's call bodies and the
 * one call before the page, never from the session's events.
 */
async function compactionCalls(
  data: InspectData,
  key: SessionKey,
  calls: readonly CallSummary[],
  offset = 0,
): Promise<number[]> {
  if (calls.length === 0) return [];
  const before = offset > 0 ? (await data.calls(key, { offset: offset - 1, limit: 1 }))[0] : undefined;
  const out: number[] = [];
  let previous = before?.summaryDigest;
  calls.forEach((call, index) => {
    if (call.summaryDigest !== undefined && call.summaryDigest !== previous) out.push(offset + index + 1);
    previous = call.summaryDigest;
  });
  return out;
}

/**
 * Starts the inspector and resolves once it listens.
 *
 * @example
 * const inspector = await startInspector({ store: 'sqlite:./.pagewise/pagewise.db', port: 0 });
 * console.log(`open ${inspector.url}`);
 * // later
 * await inspector.close();
 *
 * @throws ConfigurationError for a store that cannot be opened or a port that is taken.
 */
export async function startInspector(options: InspectorOptions = {}): Promise<Inspector> {
  const host = options.host ?? '127.0.0.1';
  const loopback = LOOPBACK.has(host);
  const token = loopback ? undefined : (options.token ?? randomBytes(18).toString('base64url'));
  if (token !== undefined && !/^[A-Za-z0-9_-]{16,}$/.test(token))
    throw new ConfigurationError('bad-token', 'The inspector token must be at least 16 characters of [A-Za-z0-9_-].');
  const port = options.port ?? 4317;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigurationError('bad-port', `--port must be an integer from 0 to 65535, got ${port}.`);
  if (options.priceAs !== undefined && !DEFAULT_PRICES[options.priceAs])
    throw new ConfigurationError(
      'bad-price',
      `No built-in price for ${options.priceAs}; use one of ${Object.keys(DEFAULT_PRICES).join(', ')}.`,
    );
  let db: InspectDb | undefined;
  if (typeof options.store === 'object') db = options.store;
  else if (options.store) db = openStore(options.store, options.schema);
  else if (existsSync(defaultDatabasePath())) db = openStore(defaultDatabasePath());
  const data = db
    ? new InspectData(db, {
        ...(options.storedMessage ? { storedMessage: options.storedMessage } : {}),
        ...(options.priceAs !== undefined ? { priceAs: options.priceAs } : {}),
      })
    : undefined;
  const { loaded, errors } = await loadRuns(options.runs ?? []);
  const replays = await loadReplays(options.replays ?? []);
  const allowedHosts = loopback ? new Set<string>() : undefined;
  const app = createInspectorApp({
    data,
    runs: loaded,
    runErrors: errors,
    replays: replays.loaded,
    replayErrors: replays.errors,
    ...(token ? { token } : {}),
    ...(allowedHosts ? { allowedHosts } : {}),
  });
  const server: ServerType = await new Promise((resolve, reject) => {
    const httpServer = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(httpServer));
    httpServer.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ConfigurationError(
          'listen-failed',
          `The inspector cannot listen on ${host}:${port}: ${error.message}. Pick another --port (0 picks a free one).`,
          error,
        ),
      ),
    );
  });
  const actual = (server.address() as AddressInfo).port;
  if (allowedHosts)
    for (const loopbackHost of ['127.0.0.1', 'localhost', '[::1]']) allowedHosts.add(`${loopbackHost}:${actual}`);
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${actual}/${token ? `?token=${token}` : ''}`,
    host,
    port: actual,
    token,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await data?.close();
    },
  };
}
