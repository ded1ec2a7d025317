/**
 * What the inspector reads from a store: sessions with their call-log aggregates, events a page at a
 * time, recorded calls, pages, and the compressions found in a session. Every stored JSON text is
 * validated as it is read; a row that does not parse is shown as unreadable, never trusted.
 */
import { z } from 'zod';
import { PROMPT_PARTS, type LedgerEntry } from 'pagewise';
import { CALL_LOG_SCHEMA, decodeEvent, parseStoredState, storedEventId, hashBody } from 'pagewise/store-kit';
import type { JsonValue, SessionEvent, SessionKey, ToolCallRecord } from 'pagewise';
import type { ContextRequest } from 'pagewise/context';
import { parseFencedPages } from 'pagewise/internal';
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import type { InspectDb } from './db.js';
import {
  eventLayoutOf,
  idColumnIn,
  identityOf,
  rowEvents,
  sessionEvents,
  sessionIdsJoin,
  type EventLayout,
} from './event-scope.js';
import {
  SessionCacheReplay,
  type SessionCacheOptions,
  type CacheCallInput,
  type CallCache,
  type SessionCacheTotals,
} from './cache.js';

/** Filters of the session list; every field optional. */
export interface SessionFilter {
  /** Matched against session, user and app ids. */
  q?: string;
  app?: string;
  user?: string;
  agent?: string;
  model?: string;
  /** A `strategy` tag of the call log. */
  strategy?: string;
  /** Sessions created at or after / before these epoch milliseconds. */
  from?: number;
  to?: number;
  /** Exactly this session id. */
  id?: string;
}

/**
 * How a session's last invocation ended, read from its last event: `failed` when the runner recorded a run
 * error there, `answered` on a final answer or an escalation, `unfinished` otherwise (stopped without an
 * answer or an error recorded: a crash, a run still going, or a store written before run errors were
 * recorded), `empty` with no event.
 */
export type SessionStatus = 'answered' | 'failed' | 'unfinished' | 'empty';

/** One row of the session list. */
export interface SessionListRow extends SessionKey {
  status: SessionStatus;
  /** The run error of a `failed` session: its code and message. */
  failure?: { code: string; message: string; seq: number };
  /**
   * Error events (failed runs, failed compressions) and tool results marked as errors, counted from the
   * stored text (an event written as an object by other code may be missed). Undefined where not counted: the
   * session list and the timeline count (the first time, over every stored event of the session; later, over the
   * events appended since), other views do not.
   */
  errors?: number;
  /** The start of the session's first message, when its first event is one. */
  preview: string;
  version: number;
  createdAt: number;
  updatedAt: number;
  eventCount: number;
  /** Recorded agent calls; 0 when the run kept no call log. */
  calls: number;
  peakPromptTokens: number;
  cumulativePromptTokens: number;
  agents: string[];
  models: string[];
  tags: string[];
}

/** A session's header: identity, state and the counts of the session list. */
export interface SessionHeader extends SessionListRow {
  state: Record<string, JsonValue>;
  /** The prompt cache of its logged calls (see {@link InspectData.sessionCache}), when the view reads it. */
  cache?: SessionCacheTotals;
}

/** The prompt cache of a session's logged calls: per call, by call id, and the totals. */
export interface SessionCacheView {
  totals: SessionCacheTotals;
  calls: ReadonlyMap<number, CallCache>;
}

interface SessionCacheMemo {
  replay: SessionCacheReplay;
  calls: Map<number, CallCache>;
  lastId: number;
  read: number;
  running?: Promise<void>;
}

/** An event with its position in the session. */
export interface SeqEvent {
  seq: number;
  event: SessionEvent | undefined;
  /** Why the stored row could not be read, when it could not. */
  error?: string;
}

/** A recorded call's list entry. */
export interface CallSummary {
  id: number;
  eventId: string;
  invocationId: string;
  agent: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  createdAt: number;
  entry: LedgerEntry | undefined;
  /** URIs of the pages in the instruction (the working set) at this call. */
  pagedUris: string[];
  /**
   * A digest of the history summary the call's request carried (its last summary item), when it carried one: a
   * call whose digest differs from the call before it is the first to read a new compaction.
   */
  summaryDigest?: string;
}

/** A recorded call with the request as sent. */
export interface CallDetail extends CallSummary {
  request: ContextRequest;
  response: { text: string; toolCalls: ToolCallRecord[]; finishReason?: string };
}

/** A stored page. */
export interface PageView {
  namespace: string;
  uri: string;
  title: string;
  mediaType: string;
  body: string;
  tokens: number;
  bytes: number;
  meta: Record<string, unknown>;
  /**
   * Whether the body still hashes to the page's recorded SHA-256. `altered`: the store would refuse it
   * with an IntegrityError (changed or damaged at rest), so the inspector shows it under a warning.
   */
  integrity?: 'verified' | 'altered';
}

const PartsSchema = z.object(
  Object.fromEntries(PROMPT_PARTS.map((p) => [p, z.number()])) as Record<(typeof PROMPT_PARTS)[number], z.ZodNumber>,
);
const EntrySchema = z.looseObject({
  index: z.number(),
  kind: z.enum(['agent', 'compressor']),
  agent: z.string(),
  model: z.string(),
  invocationId: z.string(),
  parts: PartsSchema,
  promptTokens: z.number(),
  completionTokens: z.number(),
  providerPromptTokens: z.number().optional(),
  providerCompletionTokens: z.number().optional(),
  modelMs: z.number(),
  frameworkMs: z.number(),
  at: z.number(),
});
const ToolCallSchema = z.object({ toolCallId: z.string(), toolName: z.string(), input: z.unknown() });
const ItemSchema = z.union([
  z.object({ type: z.literal('user'), text: z.string(), eventId: z.string().optional() }),
  z.object({
    type: z.literal('assistant'),
    text: z.string(),
    toolCalls: z.array(ToolCallSchema),
    eventId: z.string().optional(),
  }),
  z.object({
    type: z.literal('tool-result'),
    toolCallId: z.string(),
    toolName: z.string(),
    output: z.string(),
    isError: z.boolean(),
    eventId: z.string().optional(),
  }),
  z.object({ type: z.literal('summary'), text: z.string(), eventId: z.string().optional() }),
]);
const CallBodySchema = z.object({
  entry: EntrySchema,
  request: z.object({
    instruction: z.array(
      z.object({
        part: z.enum(['instruction', 'paged']),
        text: z.string(),
        source: z.string().optional(),
        perStep: z.boolean().optional(),
      }),
    ),
    items: z.array(ItemSchema),
    tools: z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.looseObject({}) })),
  }),
  response: z.object({
    text: z.string(),
    toolCalls: z.array(ToolCallSchema),
    finishReason: z.string().optional(),
  }),
});
type CallBody = z.infer<typeof CallBodySchema>;

/** A row of the `model_calls` table. */
export interface CallRow {
  id: number | string;
  event_id: string;
  invocation_id: string;
  agent: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  created_at: number | string;
  body: string;
  schema_version: number;
}

/** URIs of the fenced pages in a call's paged sections (read by the fence parser: headers cannot be forged). */
export function pagedUris(request: Pick<ContextRequest, 'instruction'>): string[] {
  return request.instruction.flatMap((section) =>
    section.part === 'paged' ? parseFencedPages(section.text).pages.map((p) => p.uri) : [],
  );
}

function parseBody(row: CallRow): CallBody | undefined {
  if (row.schema_version !== CALL_LOG_SCHEMA) return undefined;
  try {
    return CallBodySchema.parse(JSON.parse(row.body));
  } catch {
    return undefined;
  }
}

/**
 * A row of the call log as the prompt-cache figures read it: its model, time, ledger entry and request (the last
 * two undefined when its body is unreadable or of another schema).
 */
export function cacheInputOf(row: CallRow): CacheCallInput {
  const body = parseBody(row);
  const entry = body?.entry as LedgerEntry | undefined;
  return {
    model: row.model,
    at: entry?.at ?? Number(row.created_at),
    entry,
    request: body?.request as ContextRequest | undefined,
  };
}

function summaryOf(row: CallRow, body: CallBody | undefined): CallSummary {
  const summary = body?.request.items.findLast((it) => it.type === 'summary');
  return {
    ...(summary ? { summaryDigest: createHash('sha256').update(summary.text).digest('base64url') } : {}),
    id: Number(row.id),
    eventId: row.event_id,
    invocationId: row.invocation_id,
    agent: row.agent,
    model: row.model,
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
    createdAt: Number(row.created_at),
    entry: body?.entry as LedgerEntry | undefined,
    pagedUris: body ? pagedUris(body.request as ContextRequest) : [],
  };
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The inspector's queries over one store. */
export class InspectData {
  private hasCallLog: boolean | undefined;
  private layout: Promise<EventLayout> | undefined;
  /** Error counts of the sessions viewed last, least recently used first, with the last event each covers. */
  private readonly errorCounts = new Map<string, { seq: number; count: number }>();
  private readonly storedMessage: (message: string) => string;
  private readonly cacheOptions: SessionCacheOptions;
  /** The prompt cache of the sessions viewed last, least recently used first, with the last call each covers. */
  private readonly cacheMemos = new Map<string, SessionCacheMemo>();
  /**
   * `options.storedMessage` rewrites the message of each stored error event before a view shows it: the CLI's
   * inspector passes one that names its flags (`--window`) where the runtime named a library option.
   * `options.priceAs` prices every call as that entry of the built-in price table (see `SessionCacheOptions`):
   * how a session of the offline model, which bills nothing, reads in a provider's dollars.
   */
  constructor(
    readonly db: InspectDb,
    options: { storedMessage?: (message: string) => string; priceAs?: string } = {},
  ) {
    this.storedMessage = options.storedMessage ?? ((message) => message);
    this.cacheOptions = options.priceAs !== undefined ? { priceAs: options.priceAs } : {};
  }

  /** A stored event, its error message in the words of this inspector's audience. */
  private readEvent(seq: number, body: string | Uint8Array, identity?: unknown): SeqEvent {
    const read = readEvent(seq, body, identity);
    if (read.event?.kind !== 'error') return read;
    return { ...read, event: { ...read.event, message: this.storedMessage(read.event.message) } };
  }

  private async callLogPresent(): Promise<boolean> {
    if (this.hasCallLog === undefined) {
      const sql =
        this.db.dialect === 'sqlite'
          ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'model_calls'"
          : "SELECT to_regclass('model_calls')::text AS name";
      const rows = await this.db.all<{ name: string | null }>(sql);
      this.hasCallLog = rows.length > 0 && rows[0]!.name !== null;
    }
    return this.hasCallLog;
  }

  /**
   * How the store keeps its event rows, read once: a file migrated to the keyed layout while the inspector has it
   * open is still read correctly, through the `events` view.
   */
  private eventLayout(): Promise<EventLayout> {
    this.layout ??= eventLayoutOf(this.db);
    return this.layout;
  }

  /** One session's events as SQL (see {@link sessionEvents}). */
  private async scope(key: SessionKey) {
    return sessionEvents(await this.eventLayout(), key);
  }

  private where(filter: SessionFilter, withCalls: boolean): { sql: string; params: unknown[] } {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (filter.q) {
      clauses.push(
        "(s.session_id LIKE ? ESCAPE '\\' OR s.user_id LIKE ? ESCAPE '\\' OR s.app_name LIKE ? ESCAPE '\\')",
      );
      const pattern = `%${likeEscape(filter.q)}%`;
      params.push(pattern, pattern, pattern);
    }
    const add = (clause: string, value: unknown) => {
      clauses.push(clause);
      params.push(value);
    };
    if (filter.app) add('s.app_name = ?', filter.app);
    if (filter.user) add('s.user_id = ?', filter.user);
    if (filter.id) add('s.session_id = ?', filter.id);
    if (filter.from !== undefined) add('s.created_at >= ?', filter.from);
    if (filter.to !== undefined) add('s.created_at < ?', filter.to);
    const callFilter = (column: string, value: string, like: boolean) => {
      clauses.push(
        `EXISTS (SELECT 1 FROM model_calls m WHERE m.app_name = s.app_name AND m.user_id = s.user_id AND m.session_id = s.session_id AND m.${column} ${like ? "LIKE ? ESCAPE '\\'" : '= ?'})`,
      );
      params.push(value);
    };
    if (withCalls) {
      if (filter.agent) callFilter('agent', filter.agent, false);
      if (filter.model) callFilter('model', filter.model, false);
      if (filter.strategy)
        callFilter(
          'tags',
          `%${likeEscape(JSON.stringify('strategy'))}:${likeEscape(JSON.stringify(filter.strategy))}%`,
          true,
        );
    } else if (filter.agent || filter.model || filter.strategy) clauses.push('1 = 0');
    return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
  }

  /** A page of the session list, newest first, with the total matching. */
  async listSessions(
    filter: SessionFilter,
    offset: number,
    limit: number,
    options: { errors?: boolean } = {},
  ): Promise<{ rows: SessionListRow[]; total: number }> {
    const withCalls = await this.callLogPresent();
    const { sql: where, params } = this.where(filter, withCalls);
    const agg = (col: string) =>
      this.db.dialect === 'sqlite' ? `group_concat(DISTINCT ${col})` : `string_agg(DISTINCT ${col}, ',')`;
    // One session's page aggregates its own calls only, not the whole log.
    const one = filter.id !== undefined && filter.app !== undefined && filter.user !== undefined;
    const callWhere = one ? 'WHERE app_name = ? AND user_id = ? AND session_id = ?' : '';
    const calls = withCalls
      ? `LEFT JOIN (SELECT app_name, user_id, session_id, COUNT(*) AS calls, MAX(prompt_tokens) AS peak, SUM(prompt_tokens) AS cumulative, ${agg('agent')} AS agents, ${agg('model')} AS models, ${agg('tags')} AS tags FROM model_calls ${callWhere} GROUP BY app_name, user_id, session_id) c ON c.app_name = s.app_name AND c.user_id = s.user_id AND c.session_id = s.session_id`
      : '';
    const callParams = withCalls && one ? [filter.app, filter.user, filter.id] : [];
    const cols = withCalls ? 'c.calls, c.peak, c.cumulative, c.agents, c.models, c.tags' : '0 AS calls';
    const layout = await this.eventLayout();
    const scope = rowEvents(layout);
    const own = `FROM ${scope.from} WHERE ${scope.where}`;
    // Stores number a session's events 0, 1, 2, … as they append them: the count is the last number plus one, read
    // from the key in constant time where COUNT(*) would walk every event of the session.
    // The first and the last event of each listed session (one row each by the key), and its errors.
    const last = `(SELECT ${scope.seq} ${own} ORDER BY ${scope.order} DESC LIMIT 1)`;
    const ends = `(SELECT e.body ${own} ORDER BY ${scope.order} LIMIT 1) AS first_body, (SELECT ${scope.identity} ${own} ORDER BY ${scope.order} LIMIT 1) AS first_identity, (SELECT e.body ${own} ORDER BY ${scope.order} DESC LIMIT 1) AS last_body, (SELECT ${scope.identity} ${own} ORDER BY ${scope.order} DESC LIMIT 1) AS last_identity, ${last} AS last_seq`;
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT s.app_name, s.user_id, s.session_id, s.version, s.created_at, s.updated_at, COALESCE(${last} + 1, 0) AS event_count, ${ends}, ${cols} FROM sessions s ${sessionIdsJoin(layout)} ${calls} ${where} ORDER BY s.updated_at DESC, s.session_id LIMIT ? OFFSET ?`,
      [...callParams, ...params, limit, offset],
    );
    const total = await this.db.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM sessions s ${where}`, params);
    const list = rows.map((r) => this.listRow(r));
    if (options.errors !== false)
      for (const [index, row] of list.entries())
        row.errors = await this.errorCount(row, Number(rows[index]!.last_seq ?? -1));
    return { rows: list, total: Number(total[0]?.n ?? 0) };
  }

  /**
   * How many of the session's events up to `lastSeq` are errors (see {@link SessionListRow.errors}). Events are only
   * ever appended, so the count is kept per session with the last event it covers, and a later view counts only the
   * events appended since: a session's events are scanned once, not on every view.
   */
  private async errorCount(key: SessionKey, lastSeq: number): Promise<number> {
    const id = JSON.stringify([key.appName, key.userId, key.sessionId]);
    let known = this.errorCounts.get(id);
    // A session deleted and created again under the same id starts over.
    if (!known || known.seq > lastSeq) known = { seq: -1, count: 0 };
    if (known.seq < lastSeq) {
      const scope = await this.scope(key);
      const rows = await this.db.all<{ n: number | string }>(
        `SELECT COUNT(*) AS n FROM ${scope.from} WHERE ${scope.where} AND ${scope.seqIs('>')} AND ${scope.seqIs('<=')} AND (${errorMatch(this.db.dialect)})`,
        [...scope.params, known.seq, lastSeq],
      );
      known = { seq: lastSeq, count: known.count + Number(rows[0]?.n ?? 0) };
    }
    this.errorCounts.delete(id);
    this.errorCounts.set(id, known);
    if (this.errorCounts.size > KEPT_ERROR_COUNTS) this.errorCounts.delete(this.errorCounts.keys().next().value!);
    return known.count;
  }

  private listRow(row: Record<string, unknown>): SessionListRow {
    const list = (v: unknown) => (typeof v === 'string' && v ? [...new Set(v.split(','))] : []);
    const tags = new Set<string>();
    // Tags are JSON objects joined by commas; read them back one object at a time.
    for (const match of String(row.tags ?? '').matchAll(/\{[^{}]*\}/g)) {
      try {
        for (const [key, value] of Object.entries(JSON.parse(match[0]) as Record<string, unknown>))
          tags.add(`${key}=${String(value)}`);
      } catch {
        // An unreadable tag is left out.
      }
    }
    const first =
      row.first_body === null || row.first_body === undefined
        ? undefined
        : this.readEvent(0, bodyOf(row.first_body), row.first_identity);
    const lastSeq = Number(row.last_seq ?? -1);
    const last =
      row.last_body === null || row.last_body === undefined
        ? undefined
        : this.readEvent(lastSeq, bodyOf(row.last_body), row.last_identity);
    const { status, failure } = statusOf(last);
    return {
      appName: String(row.app_name),
      userId: String(row.user_id),
      sessionId: String(row.session_id),
      status,
      ...(failure ? { failure } : {}),
      preview: first?.event?.kind === 'user' ? first.event.text.slice(0, PREVIEW_CHARS) : '',
      version: Number(row.version),
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
      eventCount: Number(row.event_count ?? 0),
      calls: Number(row.calls ?? 0),
      peakPromptTokens: Number(row.peak ?? 0),
      cumulativePromptTokens: Number(row.cumulative ?? 0),
      agents: list(row.agents),
      models: list(row.models),
      tags: [...tags],
    };
  }

  /**
   * A session's header, or undefined when it does not exist; with `errors`, its errors counted (which reads every
   * event of the session).
   */
  async session(key: SessionKey, options: { errors?: boolean } = {}): Promise<SessionHeader | undefined> {
    const { rows } = await this.listSessions({ app: key.appName, user: key.userId, id: key.sessionId }, 0, 1, {
      errors: options.errors === true,
    });
    const row = rows[0];
    if (!row) return undefined;
    const state = await this.db.all<{ state: string }>(
      'SELECT state FROM sessions WHERE app_name = ? AND user_id = ? AND session_id = ?',
      [key.appName, key.userId, key.sessionId],
    );
    let parsed: Record<string, JsonValue> = {};
    try {
      parsed = parseStoredState(state[0]?.state ?? '{}');
    } catch {
      parsed = { '(unreadable state)': null };
    }
    return { ...row, state: parsed };
  }

  /** The version and event count of a session, for live updates. */
  async version(key: SessionKey): Promise<{ version: number; eventCount: number } | undefined> {
    const scope = await this.scope(key);
    const rows = await this.db.all<{ version: number; n: number | string }>(
      `SELECT s.version, COALESCE((SELECT ${scope.seq} FROM ${scope.from} WHERE ${scope.where} ORDER BY ${scope.order} DESC LIMIT 1) + 1, 0) AS n FROM sessions s WHERE s.app_name = ? AND s.user_id = ? AND s.session_id = ?`,
      [...scope.params, key.appName, key.userId, key.sessionId],
    );
    return rows[0] ? { version: Number(rows[0].version), eventCount: Number(rows[0].n) } : undefined;
  }

  /** Events `offset ..< offset + limit` in order (events are numbered 0, 1, 2, … as they are appended). */
  async events(key: SessionKey, offset: number, limit: number): Promise<SeqEvent[]> {
    const scope = await this.scope(key);
    const rows = await this.db.all<EventQueryRow>(
      `SELECT ${scope.seq} AS seq, e.body, ${scope.identity} AS identity FROM ${scope.from} WHERE ${scope.where} AND ${scope.seqIs('>=')} ORDER BY ${scope.order} LIMIT ?`,
      [...scope.params, offset, limit],
    );
    return rows.map((r) => this.readEvent(Number(r.seq), r.body, r.identity));
  }

  /**
   * The events whose stored text contains one of `needles` (a coarse SQL filter; callers check each), in order;
   * with `window`, only that slice of them, so a view reads the bodies it shows and no others.
   */
  async eventsMatching(
    key: SessionKey,
    needles: readonly string[],
    window: { offset: number; limit: number } = { offset: 0, limit: Number.MAX_SAFE_INTEGER },
    ids: readonly string[] = [],
  ): Promise<SeqEvent[]> {
    const scope = await this.scope(key);
    const byId = idColumnIn(await this.eventLayout(), ids);
    const match = byId ? `(${matchClause(needles)} OR ${byId.sql})` : matchClause(needles);
    const rows = await this.db.all<EventQueryRow>(
      `SELECT ${scope.seq} AS seq, e.body, ${scope.identity} AS identity FROM ${scope.from} WHERE ${scope.where} AND ${match} ORDER BY ${scope.order} LIMIT ? OFFSET ?`,
      [...scope.params, ...likePatterns(needles), ...(byId?.params ?? []), window.limit, window.offset],
    );
    return rows.map((r) => this.readEvent(Number(r.seq), r.body, r.identity));
  }

  /** How many events contain one of `needles` (the same coarse filter), all of them or those before `beforeSeq`. */
  async countMatching(key: SessionKey, needles: readonly string[], beforeSeq?: number): Promise<number> {
    const scope = await this.scope(key);
    const before = beforeSeq === undefined ? '' : ` AND ${scope.seqIs('<')}`;
    const rows = await this.db.all<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM ${scope.from} WHERE ${scope.where} AND ${matchClause(needles)}${before}`,
      [...scope.params, ...likePatterns(needles), ...(beforeSeq === undefined ? [] : [beforeSeq])],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * The events from the one with id `fromEventId` to the one with id `toEventId`, both included, or undefined when
   * either is missing; the two are found by their id column, then only the events between them are read.
   */
  async eventRange(key: SessionKey, fromEventId: string, toEventId: string): Promise<SeqEvent[] | undefined> {
    // Found by the id column where rows have one, else by the id inside the stored body: a coarse SQL filter
    // on the id as it is written, then each candidate decoded and its own id compared.
    const needles = [...new Set([fromEventId, toEventId].flatMap((id) => [`"${id}"`, `"${storedEventId(id)}"`]))];
    const candidates = await this.eventsMatching(key, needles, undefined, [fromEventId, toEventId]);
    const seqOf = (id: string) => candidates.find((c) => c.event?.id === id)?.seq;
    const from = seqOf(fromEventId);
    const to = seqOf(toEventId);
    if (from === undefined || to === undefined || to < from) return undefined;
    const scope = await this.scope(key);
    const rows = await this.db.all<EventQueryRow>(
      `SELECT ${scope.seq} AS seq, e.body, ${scope.identity} AS identity FROM ${scope.from} WHERE ${scope.where} AND ${scope.seqIs('>=')} AND ${scope.seqIs('<=')} ORDER BY ${scope.order}`,
      [...scope.params, from, to],
    );
    return rows.map((r) => this.readEvent(Number(r.seq), r.body, r.identity));
  }

  /**
   * The recorded calls of a session in order, all of them or the window `offset ..< offset + limit`: only the
   * bodies of the calls in the window are read and parsed, a few at a time between turns of the event loop.
   */
  async calls(
    key: SessionKey,
    window: { offset: number; limit: number } = { offset: 0, limit: Number.MAX_SAFE_INTEGER },
  ): Promise<CallSummary[]> {
    if (!(await this.callLogPresent())) return [];
    const rows = await this.db.all<CallRow>(
      'SELECT * FROM model_calls WHERE app_name = ? AND user_id = ? AND session_id = ? ORDER BY id LIMIT ? OFFSET ?',
      [key.appName, key.userId, key.sessionId, window.limit, window.offset],
    );
    const out: CallSummary[] = [];
    for (let index = 0; index < rows.length; index++) {
      if (index > 0 && index % PARSE_CHUNK === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      out.push(summaryOf(rows[index]!, parseBody(rows[index]!)));
    }
    return out;
  }

  /**
   * Where call `id` stands among the session's calls (1-based) and the ids before and after it, read from the
   * ids alone: showing one call reads one call's body.
   */
  async callNeighbours(
    key: SessionKey,
    id: number,
  ): Promise<{ position: number; prev: number | undefined; next: number | undefined }> {
    const keyClause = 'app_name = ? AND user_id = ? AND session_id = ?';
    const keyParams = [key.appName, key.userId, key.sessionId];
    const rows = await this.db.all<{ position: number | string; prev: number | null; next: number | null }>(
      `SELECT (SELECT COUNT(*) FROM model_calls WHERE ${keyClause} AND id <= ?) AS position, (SELECT MAX(id) FROM model_calls WHERE ${keyClause} AND id < ?) AS prev, (SELECT MIN(id) FROM model_calls WHERE ${keyClause} AND id > ?) AS next`,
      [...keyParams, id, ...keyParams, id, ...keyParams, id],
    );
    const row = rows[0];
    return {
      position: Number(row?.position ?? 0),
      prev: row?.prev === null || row?.prev === undefined ? undefined : Number(row.prev),
      next: row?.next === null || row?.next === undefined ? undefined : Number(row.next),
    };
  }

  /** One recorded call with its request, or undefined. */
  async call(key: SessionKey, id: number): Promise<CallDetail | undefined> {
    if (!(await this.callLogPresent())) return undefined;
    const rows = await this.db.all<CallRow>(
      'SELECT * FROM model_calls WHERE app_name = ? AND user_id = ? AND session_id = ? AND id = ?',
      [key.appName, key.userId, key.sessionId, id],
    );
    const row = rows[0];
    if (!row) return undefined;
    const body = parseBody(row);
    if (!body) return undefined;
    return { ...summaryOf(row, body), request: body.request as ContextRequest, response: body.response };
  }

  /**
   * The prompt cache of a session's logged calls (see `SessionCacheReplay`): the ledger's figures where the run
   * recorded them, else modelled from the stored requests in call order, so a call's figures need every call
   * before it. Worked out as far as views have asked and kept per session: with `through`, the first `through`
   * calls are worked out (reading only the bodies of those not yet read, a page at a time between turns of the
   * event loop); without it nothing is read and the figures are those worked out so far. `totals.calls +
   * totals.withoutFigures` says how many calls they cover.
   */
  async sessionCache(key: SessionKey, through = 0): Promise<SessionCacheView> {
    const id = JSON.stringify([key.appName, key.userId, key.sessionId]);
    let memo = this.cacheMemos.get(id);
    this.cacheMemos.delete(id);
    if (through > 0 && (await this.callLogPresent())) {
      if (memo && memo.read > 0) {
        // A session deleted and logged again under the same id starts over.
        const kept = await this.db.all<{ id: number | string }>(
          'SELECT id FROM model_calls WHERE app_name = ? AND user_id = ? AND session_id = ? AND id = ?',
          [key.appName, key.userId, key.sessionId, memo.lastId],
        );
        if (kept.length === 0) memo = undefined;
      }
      memo ??= { replay: new SessionCacheReplay(key, this.cacheOptions), calls: new Map(), lastId: -Infinity, read: 0 };
      while (memo.running) await memo.running;
      if (memo.read < through) {
        memo.running = this.extendCache(key, memo, through);
        try {
          await memo.running;
        } finally {
          delete memo.running;
        }
      }
    }
    memo ??= { replay: new SessionCacheReplay(key, this.cacheOptions), calls: new Map(), lastId: -Infinity, read: 0 };
    this.cacheMemos.set(id, memo);
    if (this.cacheMemos.size > KEPT_CACHE_SESSIONS) this.cacheMemos.delete(this.cacheMemos.keys().next().value!);
    return { totals: memo.replay.totals, calls: memo.calls };
  }

  /**
   * The prompt cache of one call from its own body, when the run recorded it: what the call view shows of a call the
   * session's figures do not cover yet. Undefined when the call carries no recorded figures (they would need every
   * call before it).
   */
  async recordedCallCache(key: SessionKey, call: CallDetail): Promise<CallCache | undefined> {
    if (!call.entry?.cache) return undefined;
    const earlier = await this.db.all<{ id: number | string }>(
      'SELECT id FROM model_calls WHERE app_name = ? AND user_id = ? AND session_id = ? AND model = ? AND id < ? LIMIT 1',
      [key.appName, key.userId, key.sessionId, call.model, call.id],
    );
    const replay = new SessionCacheReplay(key, this.cacheOptions);
    if (earlier.length > 0) replay.assumeEarlier(call.model);
    return replay.next({ model: call.model, at: call.entry.at, entry: call.entry, request: call.request });
  }

  private async extendCache(key: SessionKey, memo: SessionCacheMemo, through: number): Promise<void> {
    while (memo.read < through) {
      const limit = Math.min(PARSE_CHUNK, through - memo.read);
      const rows = await this.db.all<CallRow>(
        `SELECT * FROM model_calls WHERE app_name = ? AND user_id = ? AND session_id = ?${memo.read > 0 ? ' AND id > ?' : ''} ORDER BY id LIMIT ?`,
        [key.appName, key.userId, key.sessionId, ...(memo.read > 0 ? [memo.lastId] : []), limit],
      );
      for (const row of rows) {
        const figures = memo.replay.next(cacheInputOf(row));
        if (figures) memo.calls.set(Number(row.id), figures);
        memo.lastId = Number(row.id);
        memo.read += 1;
      }
      if (rows.length < limit) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** The logged call of each model event among `events`, by event id. */
  async callIdsOf(key: SessionKey, events: readonly SeqEvent[]): Promise<Map<string, number>> {
    const ids = events.flatMap((e) => (e.event?.kind === 'model' ? [e.event.id] : []));
    if (ids.length === 0 || !(await this.callLogPresent())) return new Map();
    const rows = await this.db.all<{ id: number; event_id: string }>(
      `SELECT id, event_id FROM model_calls WHERE app_name = ? AND user_id = ? AND session_id = ? AND event_id IN (${ids.map(() => '?').join(', ')})`,
      [key.appName, key.userId, key.sessionId, ...ids],
    );
    return new Map(rows.map((r) => [r.event_id, Number(r.id)]));
  }

  /** A stored page, or undefined. Looked up in `namespaces` in order (a session's own pages first). */
  async page(namespaces: readonly string[], uri: string): Promise<PageView | undefined> {
    for (const ns of namespaces) {
      const rows = await this.db
        .all<{
          namespace: string;
          uri: string;
          title: string;
          media_type: string;
          meta: string;
          body: string | Buffer;
          bytes: number;
          tokens: number;
          hash: string;
        }>(
          'SELECT p.namespace, p.uri, p.title, p.media_type, p.meta, p.hash, b.body, b.bytes, b.tokens FROM pages p JOIN page_bodies b ON b.hash = p.hash WHERE p.namespace = ? AND p.uri = ?',
          [ns, uri],
        )
        .catch(() => []);
      const row = rows[0];
      if (!row) continue;
      let meta: Record<string, unknown> = {};
      try {
        meta = z.record(z.string(), z.unknown()).parse(JSON.parse(row.meta));
      } catch {
        meta = {};
      }
      const body = typeof row.body === 'string' ? row.body : row.body.toString('utf8');
      return {
        namespace: row.namespace,
        uri: row.uri,
        title: row.title,
        mediaType: row.media_type,
        body,
        integrity: hashBody(body) === row.hash ? 'verified' : 'altered',
        bytes: Number(row.bytes),
        tokens: Number(row.tokens),
        meta,
      };
    }
    return undefined;
  }

  /** Namespaces that hold a page with this URI (the corpus namespace is not recorded with the call). */
  async namespacesOf(uri: string): Promise<string[]> {
    const rows = await this.db
      .all<{ namespace: string }>('SELECT namespace FROM pages WHERE uri = ? ORDER BY namespace', [uri])
      .catch(() => []);
    return rows.map((r) => r.namespace);
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

/** Sessions whose error count the inspector keeps between views. */
const KEPT_ERROR_COUNTS = 1_000;

/** Sessions whose prompt cache the inspector keeps between views. */
const KEPT_CACHE_SESSIONS = 20;

/** Call bodies parsed between two turns of the event loop. */
const PARSE_CHUNK = 25;

/** Characters of a session's first message shown in the session list. */
const PREVIEW_CHARS = 160;

/**
 * The stored events that are errors, as a coarse SQL test of the stored text (constants only, no input):
 * error events in the compact form (`["x",…`) or as an object, and tool results whose `isError` is true (in
 * the compact form the flag follows the output string, last or before the trailing fields; an output written
 * raw after the row leaves a 0 in its place, and the row is then the text's first line).
 */
function errorMatch(dialect: 'sqlite' | 'postgres'): string {
  const row =
    dialect === 'sqlite' ? `substr(e.body, 1, instr(e.body, char(10)) - 1)` : `split_part(e.body, chr(10), 1)`;
  return [
    `e.body LIKE '["x",%'`,
    `(e.body LIKE '{%' AND e.body LIKE '%"kind":"error"%')`,
    `(e.body LIKE '["r",%' AND (e.body LIKE '%",1]' OR e.body LIKE '%",1,{%' OR e.body LIKE '%",1,null,%'))`,
    `(e.body LIKE '["r",%' AND (${row} LIKE '%,0,1]' OR ${row} LIKE '%,0,1,{%' OR ${row} LIKE '%,0,1,null,%'))`,
    `(e.body LIKE '{%' AND e.body LIKE '%"kind":"tool-result"%' AND e.body LIKE '%"isError":true%')`,
  ].join(' OR ');
}

function bodyOf(value: unknown): string | Uint8Array {
  return value instanceof Uint8Array ? value : String(value);
}

/** The status of a session from its last event (see {@link SessionStatus}). */
export function statusOf(last: SeqEvent | undefined): Pick<SessionListRow, 'status' | 'failure'> {
  const event = last?.event;
  if (!last) return { status: 'empty' };
  if (event?.kind === 'error' && event.scope === 'run')
    return { status: 'failed', failure: { code: event.code, message: event.message, seq: last.seq } };
  if (
    event?.kind === 'escalate' ||
    (event?.kind === 'model' && event.toolCalls.length === 0 && event.text.trim() !== '')
  )
    return { status: 'answered' };
  return { status: 'unfinished' };
}

/** A coarse SQL test that the stored text contains one of `needles`, with {@link likePatterns} as its parameters. */
function matchClause(needles: readonly string[]): string {
  return `(${needles.map(() => "e.body LIKE ? ESCAPE '\\'").join(' OR ')})`;
}

function likePatterns(needles: readonly string[]): string[] {
  return needles.map((n) => `%${likeEscape(n)}%`);
}

/** A stored event as the event queries select it: its number, body and identity text (see {@link identityOf}). */
interface EventQueryRow {
  seq: number;
  body: string | Uint8Array;
  identity: unknown;
}

function readEvent(seq: number, body: string | Uint8Array, identity: unknown): SeqEvent {
  try {
    // Either stored form (compact or JSON object), deflated when the store compressed it, with the identity
    // its row keeps beside it, if any.
    const text = typeof body === 'string' ? body : inflateRawSync(body).toString('utf8');
    return { seq, event: decodeEvent(text, identityOf(identity)) };
  } catch (error) {
    return { seq, event: undefined, error: (error as Error).message.slice(0, 300) };
  }
}
