/**
 * What `pagewise replay` says of the recorded runs' prompt cache: for a session database, each session's
 * calls as its call log holds them (the ledger's cache figures, or modelled from the stored requests in call
 * order), with the cache hit rate and the cost in dollars with caching beside the prompt tokens. Trace files
 * hold the conversation, not each request as it was sent, so for them the figures are said to be unavailable.
 */
import { stat } from 'node:fs/promises';
import { ConfigurationError } from 'pagewise';
import { DEFAULT_PRICES, PRICES_CHECKED } from 'pagewise/cost';
import { isSqliteFile } from '@pagewise/lab/replay';

/** One recorded session's prompt cache, as `pagewise replay` reports it. */
export interface RecordedCacheRow {
  session: string;
  calls: number;
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Cache reads ÷ prompt tokens; null when no call has figures. */
  cacheHitRate: number | null;
  /** USD with caching; null when a call's model has no built-in price (see `unpriced`). */
  costUsd: number | null;
  unpriced: string[];
  /** The cache rules, and whether the figures were recorded by the run or modelled from its requests. */
  rules: string[];
  sources: string[];
}

/** The recorded runs' prompt cache: per session and over all, or why it is unavailable. */
export type RecordedCache =
  | { available: true; priceAs?: string; pricesChecked: string; sessions: RecordedCacheRow[]; all: RecordedCacheRow }
  | { available: false; reason: string };

/** Checks `--price-as`: an entry of the built-in price table. */
export function checkPriceAs(spec: string | undefined): string | undefined {
  if (spec !== undefined && !DEFAULT_PRICES[spec])
    throw new ConfigurationError(
      'bad-arguments',
      `--price-as ${spec} has no built-in price; use one of ${Object.keys(DEFAULT_PRICES).join(', ')}.`,
    );
  return spec;
}

function sum(rows: readonly RecordedCacheRow[]): RecordedCacheRow {
  const promptTokens = rows.reduce((n, r) => n + r.promptTokens, 0);
  const read = rows.reduce((n, r) => n + r.cacheReadTokens, 0);
  const unpriced = [...new Set(rows.flatMap((r) => r.unpriced))];
  return {
    session: 'all',
    calls: rows.reduce((n, r) => n + r.calls, 0),
    promptTokens,
    cacheReadTokens: read,
    cacheWriteTokens: rows.reduce((n, r) => n + r.cacheWriteTokens, 0),
    cacheHitRate: promptTokens > 0 ? read / promptTokens : null,
    costUsd: unpriced.length > 0 ? null : rows.reduce((n, r) => n + (r.costUsd ?? 0), 0),
    unpriced,
    rules: [...new Set(rows.flatMap((r) => r.rules))],
    sources: [...new Set(rows.flatMap((r) => r.sources))],
  };
}

/**
 * The prompt cache of the recorded runs `target` holds: its call log when it is a session database (of app
 * `appName` when given), priced as each call's model or as `priceAs`; unavailable for trace files.
 */
export async function recordedCache(
  target: string,
  options: { appName?: string; priceAs?: string } = {},
): Promise<RecordedCache> {
  if (!((await stat(target)).isFile() && (await isSqliteFile(target))))
    return {
      available: false,
      reason:
        'the traces hold each conversation, not each request as it was sent (tools, instruction, history as cut), so the cache cannot be modelled from them',
    };
  // Loaded only for a session database: the call-log reader, without the inspector's web server.
  const { storeCallLogCache } = await import('@pagewise/inspect/cache');
  const sessions = await storeCallLogCache(`sqlite:${target}`, {
    ...(options.appName !== undefined ? { appName: options.appName } : {}),
    ...(options.priceAs !== undefined ? { priceAs: options.priceAs } : {}),
  });
  if (sessions.length === 0)
    return { available: false, reason: 'the database has no call log (model_calls): its runs kept no requests' };
  const rows = sessions.map((session): RecordedCacheRow => ({
    session: `${session.appName}/${session.userId}/${session.sessionId}`,
    calls: session.totals.calls,
    promptTokens: session.totals.promptTokens,
    cacheReadTokens: session.totals.read,
    cacheWriteTokens: session.totals.write,
    cacheHitRate: session.totals.hitRate,
    costUsd: session.totals.unpriced.length > 0 || session.totals.calls === 0 ? null : session.totals.costUsd,
    unpriced: session.totals.unpriced,
    rules: session.totals.rules,
    sources: session.totals.sources,
  }));
  return {
    available: true,
    ...(options.priceAs !== undefined ? { priceAs: options.priceAs } : {}),
    pricesChecked: PRICES_CHECKED,
    sessions: rows,
    all: sum(rows),
  };
}

const fmt = (n: number) => n.toLocaleString('en-US');
const pct = (rate: number | null) => (rate === null ? 'not modelled' : `${(rate * 100).toFixed(1)}%`);
const usd = (row: RecordedCacheRow) =>
  row.costUsd !== null
    ? `$${row.costUsd.toFixed(4)}`
    : row.unpriced.length > 0
      ? `unpriced (${row.unpriced.join(', ')})`
      : 'unavailable';

/** The recorded runs' prompt cache as the lines `pagewise replay` prints under its table. */
export function recordedCacheText(cache: RecordedCache): string {
  if (!cache.available) return `\nRecorded runs: cache hit and cost with caching unavailable: ${cache.reason}.`;
  const priced = cache.priceAs ? `as ${cache.priceAs}` : "as each call's model";
  const lines = [
    '',
    `Recorded runs (the call log), priced ${priced} at list prices of ${cache.pricesChecked} with prompt caching:`,
    '| session | calls | prompt tokens | cache read | cache hit | cost (USD, cached) |',
    '|---|---:|---:|---:|---:|---:|',
    ...[...cache.sessions, cache.all].map(
      (row) =>
        `| ${row.session} | ${fmt(row.calls)} | ${fmt(row.promptTokens)} | ${fmt(row.cacheReadTokens)} | ${pct(row.cacheHitRate)} | ${usd(row)} |`,
    ),
    `Cache figures ${cache.all.sources.map((s) => (s === 'recorded' ? 'as the runs recorded them' : 'modelled from the stored requests')).join(' and ')}${cache.all.rules.length ? ` (rules ${cache.all.rules.join(', ')})` : ''}; tokens are counted without the cache.`,
  ];
  return lines.join('\n');
}
