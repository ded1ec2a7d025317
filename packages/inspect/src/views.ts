/**
 * The inspector's pages, rendered on the server with the escaping template of `html.ts`: every string
 * from a store is text, whatever it contains. Pages stay usable without JavaScript; the one external
 * script only adds live updates.
 */
import {
  itemText,
  latestObservationStart,
  toolDefinitionText,
  parseFencedPages,
  unfenceQuoted,
  summaryBody,
} from 'pagewise/internal';
import { scopeOf, PROMPT_PARTS, countTokens, encodingForModel } from 'pagewise';
import { handleOf } from 'pagewise/compression';
import { isPerStep, type ContextItem, type InstructionSection } from 'pagewise/context';
import type { SessionEvent, SessionKey } from 'pagewise';
import type { BenchRuns, StrategyResult } from '@pagewise/lab';
import type { CallDetail, CallSummary, PageView, SeqEvent, SessionHeader, SessionListRow } from './data.js';
import { html, num, query, time, type SafeHtml } from './html.js';
import { indexPage, listTable, type Column } from './list-table.js';
import { SubstringIndex } from './substring-index.js';
import type { CallCache } from './cache.js';
import {
  CACHE_COLUMNS,
  cacheHeaderCells,
  callCacheCells,
  callCacheSection,
  sessionCacheFigures,
} from './cache-views.js';

/** Events shown per page of a timeline. */
export const EVENTS_PER_PAGE = 100;
/** Characters of an event's text shown in the timeline; the event's own page shows all of it. */
const PREVIEW_CHARS = 1_500;

/** The query parameters that name a session. */
export function keyQuery(key: SessionKey, extra: Record<string, string | number | undefined> = {}): string {
  return query({ a: key.appName, u: key.userId, s: key.sessionId, ...extra });
}

/** A whole page: header, navigation, the body, the stylesheet and the script (both external). */
export function layout(title: string, storeLabel: string, body: SafeHtml, attrs: { live?: string } = {}): string {
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · pagewise inspect</title><link rel="stylesheet" href="/assets/inspect.css"><script src="/assets/inspect.js" defer></script></head><body${attrs.live ? html` data-live="${attrs.live}"` : ''}><header><a class="brand" href="/">pagewise inspect</a><nav><a href="/">Sessions</a><a href="/runs">Benchmark runs</a><a href="/replays">Replays</a></nav><span class="store" title="read-only">${storeLabel} · read-only</span></header><main>${body}</main></body></html>`}`;
}

/** A text block: escaped, whitespace kept, never interpreted. */
function pre(text: string, cls = 't'): SafeHtml {
  return html`<pre class="${cls}">${text}</pre>`;
}

/** A long text: a preview and the rest behind a disclosure. */
function clipped(text: string, limit = PREVIEW_CHARS): SafeHtml {
  if (text.length <= limit) return pre(text);
  return html`${pre(text.slice(0, limit))}
    <p class="more">… ${text.length - limit} more characters on the event's page</p>`;
}

function json(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
}

function pager(base: string, offset: number, total: number, size: number): SafeHtml {
  const last = Math.max(0, Math.floor((total - 1) / size) * size);
  const link = (label: string, to: number, rel: string) =>
    html`<a class="pg" rel="${rel}" href="${base}${base.includes('?') ? '&' : '?'}offset=${to}">${label}</a>`;
  return html`<nav class="pager">
    ${offset > 0 ? [link('« first', 0, 'first'), link('‹ previous', Math.max(0, offset - size), 'prev')] : ''}<span>${total === 0 ? 'none' : `${offset + 1}–${Math.min(total, offset + size)} of ${total.toLocaleString('en-US')}`}</span>${offset + size < total ? [link('next ›', offset + size, 'next'), link('last »', last, 'last')] : ''}
  </nav>`;
}

/** The session list with its filter form. */
export function sessionsPage(
  rows: readonly SessionListRow[],
  total: number,
  offset: number,
  size: number,
  filter: Record<string, string | undefined>,
): SafeHtml {
  const field = (name: string, label: string, type = 'text') =>
    html`<label>${label} <input type="${type}" name="${name}" value="${filter[name] ?? ''}" /></label>`;
  const base = `/${query(filter)}`;
  return html`<h1>Sessions</h1>
    <form class="filters" method="get" action="/">
      ${field('q', 'search')}${field('app', 'app')}${field('user', 'user')}${field('agent', 'agent')}${field('model', 'model')}${field('strategy', 'strategy')}${field('from', 'from', 'date')}${field('to', 'to', 'date')}<button
        type="submit"
      >
        Filter
      </button>
    </form>
    ${pager(base, offset, total, size)}
    <div class="scroll-x">
      <table class="list" id="sessions">
        <thead>
          <tr>
            <th>status</th>
            <th>session</th>
            <th>first message</th>
            <th>app</th>
            <th>user</th>
            <th>agents</th>
            <th>models</th>
            <th>tags</th>
            <th>updated</th>
            <th class="r">events</th>
            <th class="r">errors</th>
            <th class="r">calls</th>
            <th class="r">peak prompt</th>
            <th class="r">cumulative prompt</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (row) =>
              html`<tr data-session="${row.sessionId}" class="status-${row.status}">
                <td class="status">${statusBadge(row)}</td>
                <td><a class="session" href="/session${keyQuery(row)}">${row.sessionId}</a></td>
                <td class="preview">${row.preview}</td>
                <td>${row.appName}</td>
                <td>${row.userId}</td>
                <td>${row.agents.join(', ')}</td>
                <td>${row.models.join(', ')}</td>
                <td>${row.tags.join(', ')}</td>
                <td>${time(row.updatedAt)}</td>
                <td class="r events">${num(row.eventCount)}</td>
                <td class="${row.errors ? 'r errors err' : 'r errors'}">${num(row.errors ?? 0)}</td>
                <td class="r calls">${num(row.calls)}</td>
                <td class="r peak">${num(row.peakPromptTokens)}</td>
                <td class="r cumulative">${num(row.cumulativePromptTokens)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${rows.length === 0 ? html`<p class="empty">No sessions match.</p>` : ''}`;
}

const STATUS_LABEL: Record<SessionListRow['status'], string> = {
  answered: 'answered',
  failed: 'failed',
  unfinished: 'no answer',
  empty: 'empty',
};

/** A session's status as a badge; a failure names its error code and carries the message as a tooltip. */
function statusBadge(row: Pick<SessionListRow, 'status' | 'failure'>): SafeHtml {
  return html`<span class="badge badge-${row.status}" title="${row.failure?.message ?? ''}"
    >${STATUS_LABEL[row.status]}${row.failure ? html` · <code>${row.failure.code}</code>` : ''}</span
  >`;
}

/** What went wrong in a session, above its views: the run error with its message, and the count of errors. */
function statusBanner(header: SessionHeader): SafeHtml {
  const errors =
    header.errors !== undefined && header.errors > 0
      ? html` · ${num(header.errors)} error ${header.errors === 1 ? 'event' : 'events'} (failed runs, failed
        compressions, tool errors)`
      : '';
  if (header.failure)
    return html`<div class="banner banner-failed" id="status">
      <p>
        ${statusBadge(header)} The last run failed at
        <a href="/session${keyQuery(header, { at: header.failure.seq })}#e${header.failure.seq}"
          >event ${header.failure.seq}</a
        >${errors}
      </p>
      ${pre(header.failure.message, 't error-message')}
    </div>`;
  return html`<div
    class="${header.status === 'answered' && !header.errors ? 'banner' : 'banner banner-warn'}"
    id="status"
  >
    <p>
      ${statusBadge(header)}
      ${header.status === 'unfinished' ? ' The last invocation has no final answer and no recorded error (stopped, crashed, or still running).' : ''}${errors}
    </p>
  </div>`;
}

function sessionNav(key: SessionKey, current: string): SafeHtml {
  const tab = (path: string, label: string) =>
    html`<a class="${current === path ? 'tab on' : 'tab'}" href="${path}${keyQuery(key)}">${label}</a>`;
  return html`<nav class="tabs">
    ${tab('/session', 'Timeline')}${tab('/calls', 'Calls')}${tab('/context', 'Context over time')}${tab('/compression', 'Compression')}
  </nav>`;
}

/** The figures of a session's header. */
function sessionFigures(header: SessionHeader): SafeHtml {
  return html`<dl class="figures">
    <div>
      <dt>events</dt>
      <dd data-live-count>${num(header.eventCount)}</dd>
    </div>
    <div>
      <dt>model calls (logged)</dt>
      <dd id="calls">${num(header.calls)}</dd>
    </div>
    <div>
      <dt>peak prompt tokens</dt>
      <dd id="peak">${num(header.peakPromptTokens)}</dd>
    </div>
    <div>
      <dt>cumulative prompt tokens</dt>
      <dd id="cumulative">${num(header.cumulativePromptTokens)}</dd>
    </div>
    ${sessionCacheFigures(header.cache, header.calls, `/calls${keyQuery(header)}`)}
    <div>
      <dt>version</dt>
      <dd>${header.version}</dd>
    </div>
    <div>
      <dt>updated</dt>
      <dd>${time(header.updatedAt)}</dd>
    </div>
  </dl>`;
}

function sessionTitle(header: SessionHeader, what: string): SafeHtml {
  return html`<h1>${what} <small>session ${header.sessionId}</small></h1>
    <p class="sub">
      app ${header.appName} · user
      ${header.userId}${header.agents.length ? ` · agents ${header.agents.join(', ')}` : ''}${header.tags.length ? ` · ${header.tags.join(', ')}` : ''}
    </p>
    ${statusBanner(header)}`;
}

function scopeBadge(key: string): SafeHtml {
  const scope = scopeOf(key);
  return html`<span class="scope scope-${scope}">${scope === 'session' ? 'session' : `${scope}:`}</span>`;
}

function deltaCell(event: SessionEvent | undefined): SafeHtml {
  if (!event) return html``;
  const rows = Object.entries(event.delta ?? {}).map(
    ([key, value]) =>
      html`<li>
        ${scopeBadge(key)} <code>${key}</code> =
        <code>${value === null ? '(deleted)' : json(value).slice(0, 300)}</code>
      </li>`,
  );
  const inc = Object.entries(event.increments ?? {}).map(
    ([k, v]) => html`<li>${scopeBadge(k)} <code>${k}</code> += <code>${v}</code></li>`,
  );
  return rows.length || inc.length
    ? html`<ul class="delta">
        ${rows}${inc}
      </ul>`
    : html``;
}

function eventBody(
  event: SessionEvent,
  seq: number,
  key: SessionKey,
  callIds: ReadonlyMap<string, number>,
  full: boolean,
): SafeHtml {
  const text = (t: string) => (full ? pre(t) : clipped(t));
  switch (event.kind) {
    case 'user':
      return text(event.text);
    case 'model': {
      const call = callIds.get(event.id);
      const usage = event.usage
        ? html`<span class="usage"
            >prompt
            ${num(event.usage.promptTokens)}${event.usage.providerPromptTokens !== undefined ? html` (provider ${num(event.usage.providerPromptTokens)})` : ''}
            · completion ${num(event.usage.completionTokens)}</span
          >`
        : '';
      return html`${event.text ? text(event.text) : ''}${event.toolCalls.map((c) => html`<div class="toolcall">→ <b>${c.toolName}</b>${pre(json(c.input).slice(0, full ? Infinity : PREVIEW_CHARS), 'args')}</div>`)}
        <div class="meta">
          ${usage}${call !== undefined ? html` <a class="call-link" href="/call${keyQuery(key, { call })}">the call as sent</a>` : ''}
        </div>`;
    }
    case 'tool-result': {
      const handle = handleOf(event.output);
      return html`<div class="meta">
          <b>${event.toolName}</b
          >${event.isError ? html` <span class="err">error</span>` : ''}${handle ? html` <a href="/compression${keyQuery(key, { at: seq })}#h-${encodeURIComponent(event.toolCallId)}">compressed</a>` : ''}
        </div>
        ${text(event.output)}`;
    }
    case 'transfer':
      return html`<div class="handover">hand-over <b>${event.from}</b> → <b>${event.to}</b></div>`;
    case 'escalate':
      return html`<div class="handover">escalate</div>
        ${text(event.reason)}`;
    case 'compaction':
      return html`<div class="meta">
          compaction of ${event.fromEventId} …
          ${event.toEventId}${event.guideline ? ` · guideline ${event.guideline}` : ''}
          <a href="/compression${keyQuery(key, { at: seq })}#c-${seq}">raw and summary</a>
        </div>
        ${text(summaryBody(event.summary))}`;
    case 'error':
      return html`<div class="err error-head">
          ${event.scope === 'run' ? 'run failed' : 'compression failed (the run went on without it)'} ·
          <code class="error-code">${event.code}</code>${event.fault ? ` · fault: ${event.fault}` : ''}
        </div>
        ${text(event.message)}`;
  }
}

/** Rows of the timeline, also sent alone for live updates. */
export function eventRows(
  events: readonly SeqEvent[],
  key: SessionKey,
  callIds: ReadonlyMap<string, number>,
): SafeHtml {
  return html`${events.map(({ seq, event, error }) =>
    event
      ? html`<tr
          id="e${seq}"
          class="ev ev-${event.kind}${event.kind === 'tool-result' && event.isError ? ' ev-tool-error' : ''}${event.kind === 'error' ? ` ev-error-${event.scope}` : ''}"
          data-seq="${seq}"
        >
          <td class="r"><a href="/event${keyQuery(key, { seq })}">${seq}</a></td>
          <td class="kind">${event.kind}</td>
          <td>${event.author}</td>
          <td class="body">${eventBody(event, seq, key, callIds, false)}</td>
          <td>${deltaCell(event)}</td>
          <td class="when">${time(event.timestamp)}</td>
        </tr>`
      : html`<tr id="e${seq}" class="ev ev-bad" data-seq="${seq}">
          <td class="r">${seq}</td>
          <td class="kind">unreadable</td>
          <td></td>
          <td class="body">${pre(error ?? '')}</td>
          <td></td>
          <td></td>
        </tr>`,
  )}`;
}

/** A session's timeline: figures, state, and one page of events. */
export function timelinePage(
  header: SessionHeader,
  events: readonly SeqEvent[],
  offset: number,
  callIds: ReadonlyMap<string, number>,
): SafeHtml {
  const tail = offset + events.length >= header.eventCount;
  const state = Object.entries(header.state);
  return html`${sessionTitle(header, 'Timeline')}${sessionNav(header, '/session')}${sessionFigures(header)}
    <details class="state">
      <summary>state now (${state.length} keys; temp: keys are never stored)</summary>
      <ul class="delta">
        ${state.map(
          ([k, v]) => html`<li>${scopeBadge(k)} <code>${k}</code> = <code>${json(v).slice(0, 500)}</code></li>`,
        )}
      </ul>
    </details>
    <form class="jump" method="get" action="/session">
      <input type="hidden" name="a" value="${header.appName}" /><input
        type="hidden"
        name="u"
        value="${header.userId}"
      /><input type="hidden" name="s" value="${header.sessionId}" /><label
        >go to event <input type="number" name="at" min="0" max="${Math.max(0, header.eventCount - 1)}" /></label
      ><button type="submit">Go</button>
    </form>
    ${pager(`/session${keyQuery(header)}`, offset, header.eventCount, EVENTS_PER_PAGE)}
    <p class="live-note" id="live-note" hidden></p>
    <table class="timeline">
      <thead>
        <tr>
          <th>#</th>
          <th>kind</th>
          <th>author</th>
          <th>content</th>
          <th>state delta</th>
          <th>time</th>
        </tr>
      </thead>
      <tbody
        id="events"
        data-first="${offset}"
        data-next="${offset + events.length}"
        data-tail="${tail ? '1' : '0'}"
        data-rows="/session/rows${keyQuery(header)}"
      >
        ${eventRows(events, header, callIds)}
      </tbody>
    </table>
    ${pager(`/session${keyQuery(header)}`, offset, header.eventCount, EVENTS_PER_PAGE)}`;
}

/** One event in full. */
export function eventPage(header: SessionHeader, entry: SeqEvent, callIds: ReadonlyMap<string, number>): SafeHtml {
  const back = `/session${keyQuery(header, { offset: Math.floor(entry.seq / EVENTS_PER_PAGE) * EVENTS_PER_PAGE })}#e${entry.seq}`;
  return html`${sessionTitle(header, `Event ${entry.seq}`)}${sessionNav(header, '')}
    <p><a href="${back}">back to the timeline</a></p>
    ${
      entry.event
        ? html`<p class="sub">
              ${entry.event.kind} · ${entry.event.author} · invocation ${entry.event.invocationId} ·
              ${time(entry.event.timestamp)}
            </p>
            <div class="event-full">${eventBody(entry.event, entry.seq, header, callIds, true)}</div>
            <h2>State delta</h2>
            ${deltaCell(entry.event)}`
        : pre(entry.error ?? 'unreadable')
    }`;
}

function partsRow(
  label: string,
  call: CallSummary,
  key: SessionKey,
  cache: ReadonlyMap<number, CallCache> | undefined,
): SafeHtml {
  const parts = call.entry?.parts;
  return html`<tr data-call="${call.id}">
    <td><a class="call" href="/call${keyQuery(key, { call: call.id })}">${label}</a></td>
    <td>${call.agent}</td>
    ${PROMPT_PARTS.map((part) => html`<td class="r part-${part}">${parts ? num(parts[part]) : '–'}</td>`)}
    <td class="r total">${num(call.promptTokens)}</td>
    <td class="r">${call.entry?.providerPromptTokens !== undefined ? num(call.entry.providerPromptTokens) : '–'}</td>
    <td class="r">${num(call.completionTokens)}</td>
    <td class="r pages">${call.pagedUris.length}</td>
    ${cache ? callCacheCells(cache.get(call.id)) : ''}
    <td class="when">${time(call.createdAt)}</td>
  </tr>`;
}

/** Calls shown per page of the calls and context views (and their charts). */
export const CALLS_PER_PAGE = 100;

/** The calls table; with `cache` (each call's prompt cache by id), its cache columns. */
function callsTable(
  calls: readonly CallSummary[],
  key: SessionKey,
  peak: number,
  offset: number,
  cache?: ReadonlyMap<number, CallCache>,
): SafeHtml {
  return html`<table class="list calls" id="calls-table">
    <thead>
      <tr>
        <th>call</th>
        <th>agent</th>
        ${PROMPT_PARTS.map((p) => html`<th class="r">${p}</th>`)}
        <th class="r">prompt</th>
        <th class="r">provider prompt</th>
        <th class="r">completion</th>
        <th class="r">pages in RAM</th>
        ${cache ? cacheHeaderCells() : ''}
        <th>time</th>
      </tr>
    </thead>
    <tbody>
      ${calls.map(
        (call, index) =>
          html`${
            call.promptTokens === peak
              ? html`<tr class="peak-mark">
                  <td colspan="${13 + (cache ? CACHE_COLUMNS : 0)}">peak ↓</td>
                </tr>`
              : ''
          }${partsRow(`#${offset + index + 1}`, call, key, cache)}`,
      )}
    </tbody>
  </table>`;
}

/**
 * One page of a session's logged calls: `calls` are the calls from `offset` on, of `h.calls` in all; with `cache`,
 * each call's prompt cache (by call id) in columns of its own.
 */
export function callsPage(
  header: SessionHeader,
  calls: readonly CallSummary[],
  offset = 0,
  cache?: ReadonlyMap<number, CallCache>,
): SafeHtml {
  const paged = pager(`/calls${keyQuery(header)}`, offset, header.calls, CALLS_PER_PAGE);
  return html`${sessionTitle(header, 'Model calls')}${sessionNav(header, '/calls')}${sessionFigures(header)}${
    calls.length
      ? html`${paged}${callsTable(calls, header, header.peakPromptTokens, offset, cache)}${paged}`
      : html`<p class="empty">
          This session has no call log: run it with a <code>callLog</code> (for example
          <code>new SqliteCallLog({ database })</code>) to record each call as sent.
        </p>`
  }`;
}

/**
 * Context over time: the two charts, compactions, and the per-call figures, for one page of calls (`calls` from
 * `offset` on, of `h.calls`); the charts show the same page.
 */
export function contextPage(
  header: SessionHeader,
  calls: readonly CallSummary[],
  compactions: readonly number[],
  offset = 0,
): SafeHtml {
  const paged = pager(`/context${keyQuery(header)}`, offset, header.calls, CALLS_PER_PAGE);
  return html`${sessionTitle(header, 'Context over time')}${sessionNav(header, '/context')}${sessionFigures(header)}${
    calls.length
      ? html`${paged}
          <figure>
            <img
              class="chart"
              id="context-chart"
              alt="prompt tokens per call by part"
              src="/chart/context.svg${keyQuery(header, { offset })}"
            />
          </figure>
          <figure>
            <img
              class="chart"
              id="working-set-chart"
              alt="working set per call"
              src="/chart/working-set.svg${keyQuery(header, { offset })}"
            />
          </figure>
          <p class="sub">
            ${compactions.length ? `Compactions before calls ${compactions.join(', ')} (red ticks on the axis).` : 'No compactions.'}
          </p>
          ${callsTable(calls, header, header.peakPromptTokens, offset)}${paged}`
      : html`<p class="empty">This session has no call log, so there is nothing to chart.</p>`
  }`;
}

function segmentTokens(text: string, model: string): number {
  return countTokens(text, encodingForModel(model.split(':').pop() ?? model));
}

/**
 * One call exactly as sent: ledger figures, its prompt cache (with `cache`), system sections, history, the step block
 * with its paged pages, tools, response.
 */
export function callPage(
  header: SessionHeader,
  call: CallDetail,
  position: number,
  neighbours: { prev?: number; next?: number },
  cache?: { call: CallCache | undefined; covered: boolean },
): SafeHtml {
  const entry = call.entry;
  const obsStart = latestObservationStart(call.request.items);
  const item = (it: ContextItem, index: number) => {
    const part = index >= obsStart ? 'observation' : 'history';
    const label =
      it.type === 'tool-result'
        ? `tool result · ${it.toolName}${it.isError ? ' (error)' : ''}`
        : it.type === 'assistant'
          ? 'assistant'
          : it.type;
    return html`<li class="item item-${it.type} part-${part}">
      <div class="meta">${label} · ${part} · ${num(segmentTokens(itemText(it), call.model))} tokens</div>
      ${pre(itemText(it))}
    </li>`;
  };
  const section = (block: InstructionSection, si: number) => {
    const pages = block.part === 'paged' ? parseFencedPages(block.text).pages : [];
    return html`<li class="section part-${block.part}">
      <div class="meta">
        ${block.part}${block.source ? ` · ${block.source}` : ''} · ${num(segmentTokens(block.text, call.model))}
        tokens${pages.length ? ` · ${pages.length} pages` : ''}
      </div>
      ${
        pages.length
          ? html`<ul class="pages">
                ${pages.map((p, pi) => html`<li><a class="paged-page" href="/page${keyQuery(header, { call: call.id, section: si, i: pi })}">${p.title || p.uri}</a> <code>${p.uri}</code>${p.frame ? ` frame ${p.frame}` : ''}</li>`)}
              </ul>
              <details>
                <summary>the section as sent (fences included)</summary>
                ${pre(block.text)}
              </details>`
          : pre(block.text)
      }
    </li>`;
  };
  // As sent: the sections that stay the same in the system message, the ones that change per step after the history.
  const indexed = call.request.instruction.map((s, si) => ({ s, si }));
  const inSystem = indexed.filter(({ s }) => !isPerStep(s));
  const inStepBlock = indexed.filter(({ s }) => isPerStep(s));
  return html`${sessionTitle(header, `Call #${position}`)}${sessionNav(header, '')}
    <p class="sub">
      agent ${call.agent} · model ${call.model} · invocation ${call.invocationId} · ${time(call.createdAt)}
      ${neighbours.prev !== undefined ? html`· <a rel="prev" href="/call${keyQuery(header, { call: neighbours.prev })}">previous call</a>` : ''}
      ${neighbours.next !== undefined ? html`· <a rel="next" href="/call${keyQuery(header, { call: neighbours.next })}">next call</a>` : ''}
    </p>
    <h2>Tokens (ledger)</h2>
    <table class="list" id="ledger">
      <thead>
        <tr>
          ${PROMPT_PARTS.map((p) => html`<th class="r">${p}</th>`)}
          <th class="r">prompt (local)</th>
          <th class="r">prompt (provider)</th>
          <th class="r">completion (local)</th>
          <th class="r">completion (provider)</th>
          <th class="r">model ms</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          ${PROMPT_PARTS.map((p) => html`<td class="r part-${p}">${entry ? num(entry.parts[p]) : '–'}</td>`)}
          <td class="r total">${num(call.promptTokens)}</td>
          <td class="r provider">
            ${entry?.providerPromptTokens !== undefined ? num(entry.providerPromptTokens) : 'not reported'}
          </td>
          <td class="r">${num(call.completionTokens)}</td>
          <td class="r">
            ${entry?.providerCompletionTokens !== undefined ? num(entry.providerCompletionTokens) : 'not reported'}
          </td>
          <td class="r">${entry ? Math.round(entry.modelMs) : '–'}</td>
        </tr>
      </tbody>
    </table>
    ${cache ? callCacheSection(cache.call, cache.covered, `/calls${keyQuery(header, { offset: Math.floor((position - 1) / CALLS_PER_PAGE) * CALLS_PER_PAGE })}`) : ''}
    <h2>Instruction <small>system message · ${inSystem.length} sections</small></h2>
    <ol class="sections">
      ${inSystem.map(({ s, si }) => section(s, si))}
    </ol>
    <h2>History <small>${call.request.items.length} items</small></h2>
    <ol class="items">
      ${call.request.items.map(item)}
    </ol>
    ${
      inStepBlock.length
        ? html`<h2>
              Step block <small>after the history, re-rendered at every call · ${inStepBlock.length} sections</small>
            </h2>
            <ol class="sections step-block">
              ${inStepBlock.map(({ s, si }) => section(s, si))}
            </ol>`
        : ''
    }
    <h2>Tools <small>${call.request.tools.length}</small></h2>
    <ul class="tools">
      ${call.request.tools.map(
        (tool) =>
          html`<li>
            <details>
              <summary>
                <b>${tool.name}</b> · ${num(segmentTokens(toolDefinitionText(tool), call.model))} tokens
              </summary>
              ${pre(tool.description)}${pre(JSON.stringify(tool.inputSchema, null, 2), 'args')}
            </details>
          </li>`,
      )}
    </ul>
    <h2>Response</h2>
    <div class="response">
      ${call.response.text ? pre(call.response.text) : html`<p class="sub">no text</p>`}${call.response.toolCalls.map((tc) => html`<div class="toolcall">→ <b>${tc.toolName}</b>${pre(json(tc.input), 'args')}</div>`)}
      <p class="sub">finish reason: ${call.response.finishReason ?? 'not given'}</p>
    </div>`;
}

/** A page's text, from the store or as it was fenced into a call. */
export function pagePage(
  header: SessionHeader,
  page: Pick<PageView, 'uri' | 'title' | 'body'> & Partial<PageView>,
  origin: string,
): SafeHtml {
  return html`${sessionTitle(header, 'Page')}${sessionNav(header, '')}
    <p class="sub">${origin}</p>
    <dl class="figures">
      <div>
        <dt>title</dt>
        <dd>${page.title}</dd>
      </div>
      <div>
        <dt>uri</dt>
        <dd><code>${page.uri}</code></dd>
      </div>
      ${
        page.namespace
          ? html`<div>
              <dt>namespace</dt>
              <dd>${page.namespace}</dd>
            </div>`
          : ''
      }${
        page.tokens !== undefined
          ? html`<div>
              <dt>tokens</dt>
              <dd>${num(page.tokens)}</dd>
            </div>`
          : ''
      }${
        page.mediaType
          ? html`<div>
              <dt>media type</dt>
              <dd>${page.mediaType}</dd>
            </div>`
          : ''
      }${
        page.integrity
          ? html`<div>
              <dt>integrity</dt>
              <dd>
                ${page.integrity === 'verified' ? 'body matches its SHA-256' : 'ALTERED: body does not match its SHA-256'}
              </dd>
            </div>`
          : ''
      }
    </dl>
    ${
      page.meta && Object.keys(page.meta).length
        ? html`<details>
            <summary>meta</summary>
            ${pre(JSON.stringify(page.meta, null, 2))}
          </details>`
        : ''
    }
    ${
      page.integrity === 'altered'
        ? html`<p class="err" id="integrity">
            Integrity: this body does not match the SHA-256 recorded for the page. It was changed or damaged at rest;
            the page store refuses it (IntegrityError), so no agent reads it.
          </p>`
        : ''
    }
    <h2>Text <small>shown as text, never as HTML</small></h2>
    ${pre(page.body, 't page-body')}`;
}

/** Lines of a raw text highlighted between two turns of the event loop (see {@link highlightKeptYielding}). */
const HIGHLIGHT_CHUNK_LINES = 2_000;

/** A raw text with each line marked: kept by the compressed text, dropped by it, or neither (too short to tell). */
interface Highlighted {
  html: SafeHtml;
  kept: number;
  dropped: number;
}

/**
 * Marks `lines[from ..< to]` into `out`. Lines are compared without whitespace and a trailing comma, so a
 * value kept from pretty-printed JSON in a minified form counts; a line of three characters or fewer (a
 * brace, a blank) is neither kept nor dropped.
 */
function markLines(
  lines: readonly string[],
  kept: SubstringIndex,
  from: number,
  to: number,
  out: { parts: SafeHtml[]; kept: number; dropped: number },
): void {
  for (let lineIndex = from; lineIndex < to; lineIndex++) {
    const line = lines[lineIndex]!;
    const unit = line.replace(/\s+/g, '').replace(/,$/, '');
    const sep = lineIndex ? '\n' : '';
    if (unit.length <= 3) out.parts.push(html`${sep}${line}`);
    else if (kept.has(unit)) {
      out.kept += 1;
      out.parts.push(html`${sep}<mark>${line}</mark>`);
    } else {
      out.dropped += 1;
      out.parts.push(html`${sep}<del>${line}</del>`);
    }
  }
}

function highlighted(out: { parts: SafeHtml[]; kept: number; dropped: number }): Highlighted {
  // The newline after <pre> is dropped by the HTML parser, so a raw text that starts with an empty line keeps it.
  return { html: html`<pre class="t raw">${'\n'}${out.parts}</pre>`, kept: out.kept, dropped: out.dropped };
}

/**
 * A raw text with the lines the compressed text kept in `<mark>` and the lines it dropped in `<del>`. Linear in
 * both texts: one index of the kept text, then each line looked up in time of its own length.
 */
export function highlightKept(raw: string, compressed: string): SafeHtml {
  const lines = raw.split('\n');
  const out = { parts: [] as SafeHtml[], kept: 0, dropped: 0 };
  markLines(lines, new SubstringIndex(compressed.replace(/\s+/g, '')), 0, lines.length, out);
  return highlighted(out).html;
}

/**
 * {@link highlightKept} that gives the event loop a turn every {@link HIGHLIGHT_CHUNK_LINES} lines, so other
 * requests are answered while a large raw page is marked; also counts the kept and dropped lines.
 */
export async function highlightKeptYielding(raw: string, compressed: string): Promise<Highlighted> {
  const lines = raw.split('\n');
  await yieldToEventLoop();
  const index = await SubstringIndex.build(compressed.replace(/\s+/g, ''));
  const out = { parts: [] as SafeHtml[], kept: 0, dropped: 0 };
  for (let from = 0; from < lines.length; from += HIGHLIGHT_CHUNK_LINES) {
    if (from > 0) await yieldToEventLoop();
    markLines(lines, index, from, Math.min(lines.length, from + HIGHLIGHT_CHUNK_LINES), out);
  }
  return highlighted(out);
}

/** Lets pending I/O (other requests) run before the caller goes on. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One compression: raw and compressed side by side. */
export interface CompressionView {
  kind: 'observation' | 'history';
  anchor: string;
  title: string;
  raw: string | undefined;
  compressed: string;
  guideline: string | undefined;
  backend?: string;
  handle?: string;
  rawTokens: number | undefined;
  compressedTokens: number;
  seq: number;
  /** The raw text marked (kept and dropped lines), when the raw text is known. */
  marked?: Highlighted;
}

/** How many compressions one page of the compression view shows. */
export const COMPRESSIONS_PER_PAGE = 20;

/** The compressions of a session, a page at a time (`offset` of `total`). */
export function compressionPage(
  header: SessionHeader,
  list: readonly CompressionView[],
  offset = 0,
  total = list.length,
): SafeHtml {
  const paged =
    total > COMPRESSIONS_PER_PAGE ? pager(`/compression${keyQuery(header)}`, offset, total, COMPRESSIONS_PER_PAGE) : '';
  return html`${sessionTitle(header, 'Compression')}${sessionNav(header, '/compression')}${paged}
  ${total === 0 ? html`<p class="empty">No compressed observation or history compaction in this session.</p>` : ''}
  ${list.map((compression) => {
    const guideline = compression.guideline ?? 'not recorded';
    const backend = compression.backend ? ` · backend ${compression.backend}` : '';
    const ratio = compression.rawTokens ? (compression.compressedTokens / compression.rawTokens).toFixed(3) : '–';
    return html`<section class="compression compression-${compression.kind}" id="${compression.anchor}">
      <h2>
        ${compression.title}
        <small>event <a href="/event${keyQuery(header, { seq: compression.seq })}">${compression.seq}</a></small>
      </h2>
      <p class="sub">
        guideline
        <b class="guideline">${guideline}</b>${backend} · ratio
        <b class="ratio">${ratio}</b>
        (${compression.compressedTokens} of ${compression.rawTokens ?? '?'}
        tokens)${compression.handle ? html` · handle <a class="handle" href="/page${keyQuery(header, { uri: compression.handle })}"><code>${compression.handle}</code></a>` : ''}
      </p>
      <div class="diff">
        <div>
          <h3>raw</h3>
          ${
            compression.raw === undefined
              ? html`<p class="empty">The raw text is not in this store (the run kept its pages elsewhere).</p>`
              : (() => {
                  const marked = compression.marked ?? {
                    html: highlightKept(compression.raw, compression.compressed),
                    kept: -1,
                    dropped: -1,
                  };
                  return html`${
                    marked.kept >= 0
                      ? html`<p class="sub legend">
                          <span class="legend-kept">kept</span>
                          <span class="kept-lines">${num(marked.kept)}</span> lines ·
                          <span class="legend-dropped">dropped</span>
                          <span class="dropped-lines">${num(marked.dropped)}</span> lines
                        </p>`
                      : ''
                  }${marked.html}`;
                })()
          }
        </div>
        <div>
          <h3>compressed</h3>
          ${pre(compression.compressed, 't compressed')}
        </div>
      </div>
    </section>`;
  })}`;
}

/**
 * Builds the compression list from the matching events and the stored pages. `range` loads the events a compaction
 * summarized (from and to its bounding event ids), so only those are read, never the whole session.
 */
export async function collectCompressions(
  header: SessionHeader,
  matching: readonly SeqEvent[],
  range: (fromEventId: string, toEventId: string) => Promise<readonly SeqEvent[] | undefined>,
  page: (uri: string) => Promise<PageView | undefined>,
): Promise<CompressionView[]> {
  const out: CompressionView[] = [];
  for (const { seq, event } of matching) {
    // Each step of a large compression (count, index, mark) runs between turns of the event loop.
    await yieldToEventLoop();
    if (event?.kind === 'tool-result') {
      const handle = handleOf(event.output);
      // A result compressed for an agent without page_in has no handle, but it is a compression all the same.
      if (!handle && !event.compression && originalTokensOf(event.output) === undefined) continue;
      const stored = handle ? await page(handle) : undefined;
      const compressed = unfenceQuoted(event.output) ?? event.output;
      const compressedTokens = countTokens(event.output);
      await yieldToEventLoop();
      out.push({
        kind: 'observation',
        anchor: `h-${encodeURIComponent(event.toolCallId)}`,
        title: `Observation of ${event.toolName}`,
        raw: stored?.body,
        compressed,
        // The event records how it was compressed; the page's meta says the same for sessions recorded before it did.
        guideline:
          event.compression?.guideline ??
          (typeof stored?.meta.guideline === 'string' ? stored.meta.guideline : undefined),
        ...(event.compression
          ? { backend: event.compression.backend }
          : typeof stored?.meta.compressedBy === 'string'
            ? { backend: stored.meta.compressedBy }
            : {}),
        ...(handle ? { handle } : {}),
        // The page store counted the body when it stored it: no need to count a large raw page again.
        rawTokens: stored ? stored.tokens : (event.compression?.originalTokens ?? originalTokensOf(event.output)),
        compressedTokens,
        seq,
        ...(stored ? { marked: await highlightKeptYielding(stored.body, compressed) } : {}),
      });
    } else if (event?.kind === 'compaction') {
      const events = await range(event.fromEventId, event.toEventId);
      const raw = events
        ?.map(({ event: x }) => (x ? `[${x.kind} · ${x.author}] ${eventText(x)}` : '[unreadable]'))
        .join('\n');
      const compressed = summaryBody(event.summary);
      out.push({
        kind: 'history',
        anchor: `c-${seq}`,
        title: `History compaction of ${events ? events.length : '?'} events`,
        raw,
        compressed,
        guideline: event.guideline,
        rawTokens: raw === undefined ? undefined : countTokens(raw),
        compressedTokens: countTokens(event.summary),
        seq,
        ...(raw !== undefined ? { marked: await highlightKeptYielding(raw, compressed) } : {}),
      });
    }
  }
  return out;
}

/** The size of the original a compressed observation's handle line states, for sessions recorded without it. */
function originalTokensOf(output: string): number | undefined {
  const stated = /^\[pagewise\] Compressed from (\d+) tokens;/m.exec(output)?.[1];
  return stated === undefined ? undefined : Number(stated);
}

function eventText(event: SessionEvent): string {
  switch (event.kind) {
    case 'user':
      return event.text;
    case 'model':
      return [event.text, ...event.toolCalls.map((c) => `${c.toolName} ${json(c.input)}`)].filter(Boolean).join(' ');
    case 'tool-result':
      return event.output;
    case 'transfer':
      return `${event.from} → ${event.to}`;
    case 'escalate':
      return event.reason;
    case 'compaction':
      return summaryBody(event.summary);
    case 'error':
      return `${event.scope} error ${event.code}: ${event.message}`;
  }
}

/** A benchmark output folder as loaded. */
export interface LoadedRuns {
  dir: string;
  runs: BenchRuns;
  results: StrategyResult[];
  charts: string[];
}

const RUNS_COLUMNS: readonly Column<LoadedRuns>[] = [
  { head: 'folder', cell: (r, i) => html`<a class="run" href="/runs/${i}">${r.dir}</a>` },
  { head: 'scenario', cell: (r) => r.runs.scenario },
  { head: 'model', cell: (r) => r.runs.model },
  { head: 'episodes', numeric: true, cell: (r) => r.runs.episodes.length },
  { head: 'started', cell: (r) => r.runs.startedAt },
];

/** The list of opened benchmark folders. */
export function runsIndexPage(all: readonly LoadedRuns[], errors: readonly string[]): SafeHtml {
  return indexPage('Benchmark runs', errors, all, RUNS_COLUMNS, {
    what: 'benchmark folder',
    open: '--runs ./bench-out',
    takes: html`a <code>pagewise bench --out</code> folder`,
  });
}

const wholePct = (x: number): string => `${(x * 100).toFixed(0)}%`;

const RESULT_COLUMNS: readonly Column<StrategyResult>[] = [
  { head: 'strategy', cell: (s) => s.strategy },
  { head: 'N', numeric: true, cell: (s) => s.n ?? '' },
  { head: 'runs', numeric: true, cell: (s) => s.runs },
  { head: 'success', numeric: true, cell: (s) => wholePct(s.successRate) },
  { head: 'peak prompt', numeric: true, cell: (s) => num(s.peakPromptTokens) },
  { head: 'cumulative prompt', numeric: true, cell: (s) => num(s.cumulativePromptTokens) },
  { head: 'calls', numeric: true, cell: (s) => s.modelCalls.toFixed(1) },
  { head: 'compressor tokens', numeric: true, cell: (s) => num(s.compressorTokens) },
  { head: 'window failures', numeric: true, cell: (s) => s.windowFailures },
  { head: 'errors', numeric: true, cell: (s) => s.errors },
];

/** One benchmark folder: results table, charts, and the strategy × task grid. */
export function runsPage(index: number, folder: LoadedRuns): SafeHtml {
  const tasks = [...new Set(folder.runs.episodes.map((e) => e.taskId))];
  const strategies = folder.runs.params.strategies;
  return html`<h1>${folder.runs.scenario} <small>${folder.runs.model}</small></h1>
    <p class="sub">
      ${folder.dir} · ${folder.runs.episodes.length} episodes · seed ${folder.runs.params.seed} ·
      ${folder.runs.startedAt}
    </p>
    <h2>Results</h2>
    ${listTable(folder.results, RESULT_COLUMNS, { id: 'results' })}
    <h2>Charts</h2>
    ${folder.charts.map((c) => html`<figure><img class="chart" alt="${c}" src="/runs/${index}/chart/${c}.svg" /></figure>`)}
    <h2>Episodes <small>strategy × task</small></h2>
    <table class="list grid" id="grid">
      <thead>
        <tr>
          <th>task</th>
          ${strategies.map((s) => html`<th>${s}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${tasks.map(
          (task) =>
            html`<tr>
              <td>${task}</td>
              ${strategies.map((strategy) => {
                const cells = folder.runs.episodes
                  .map((episode, at) => ({ episode, at }))
                  .filter(({ episode }) => episode.taskId === task && episode.strategy === strategy);
                return html`<td>
                  ${cells.map(({ episode, at }) => {
                    const peak = Math.max(
                      0,
                      ...episode.ledger.filter((x) => x.kind === 'agent').map((x) => x.promptTokens),
                    );
                    return html`<a
                      class="${episode.success ? 'cell ok' : 'cell fail'}"
                      href="/runs/${index}/episode/${at}"
                      >${episode.success ? '✓' : '✗'}
                      ${peak.toLocaleString('en-US')}${episode.n !== null ? ` (N ${episode.n})` : ''}</a
                    > `;
                  })}
                </td>`;
              })}
            </tr>`,
        )}
      </tbody>
    </table>`;
}

type LedgerRow = LoadedRuns['runs']['episodes'][number]['ledger'][number];

const EPISODE_CALL_COLUMNS: readonly Column<LedgerRow>[] = [
  { head: '#', cell: (x) => x.index },
  { head: 'kind', cell: (x) => x.kind },
  { head: 'agent', cell: (x) => x.agent },
  ...PROMPT_PARTS.map((part): Column<LedgerRow> => ({
    head: part,
    numeric: true,
    cellClass: `part-${part}`,
    cell: (x) => num(x.parts[part]),
  })),
  { head: 'prompt', numeric: true, cellClass: 'total', cell: (x) => num(x.promptTokens) },
  {
    head: 'provider prompt',
    numeric: true,
    cell: (x) => (x.providerPromptTokens !== undefined ? num(x.providerPromptTokens) : '–'),
  },
  { head: 'completion', numeric: true, cell: (x) => num(x.completionTokens) },
  { head: 'model ms', numeric: true, cell: (x) => Math.round(x.modelMs) },
];

/** One episode of a benchmark: its answer and the ledger of its calls. */
export function episodePage(index: number, run: LoadedRuns, episodeIndex: number): SafeHtml {
  const episode = run.runs.episodes[episodeIndex]!;
  return html`<h1>Episode ${episodeIndex} <small>${episode.strategy} · ${episode.taskId}</small></h1>
    <p><a href="/runs/${index}">back to ${run.runs.scenario}</a></p>
    <p class="sub">
      ${episode.success ? 'success' : 'failure'}${episode.windowFailure ? ' · context window exceeded' : ''} ·
      ${Math.round(episode.wallMs)} ms${episode.n !== null ? ` · N ${episode.n}` : ''}
    </p>
    ${
      episode.error
        ? html`<h2>Error</h2>
            ${pre(episode.error)}`
        : ''
    }
    <h2>Answer</h2>
    ${pre(episode.answer)}
    <h2>Calls <small>${episode.ledger.length}</small></h2>
    ${listTable(episode.ledger, EPISODE_CALL_COLUMNS, { id: 'episode-calls', rowClass: (x) => `kind-${x.kind}` })}`;
}

/** An error page. */
export function errorPage(status: number, message: string): SafeHtml {
  return html`<h1>${status === 404 ? 'Not found' : status === 400 ? 'Bad request' : 'Error'}</h1>
    ${pre(message)}
    <p><a href="/">back to the sessions</a></p>`;
}
