/**
 * The prompt-cache parts of the inspector's pages: the session's hit rate and cost in its header, the cache
 * columns of the calls table, and a call's cache section with where its first changed token is. Every text
 * from the store (an excerpt of the request) goes through the escaping template.
 */
import { DEFAULT_PRICES } from 'pagewise/cost';
import {
  describeFirstChange,
  isFreePrice,
  type CallCache,
  type FirstChange,
  type SessionCacheTotals,
} from './cache.js';
import { html, num, type SafeHtml } from './html.js';

/** A share as a percentage, with the raw fraction in `data-n` for tests and scripts. */
export function percent(rate: number): SafeHtml {
  return html`<span class="pct" data-n="${rate}">${(rate * 100).toFixed(1)}%</span>`;
}

/** Dollars with four decimals, the raw figure in `data-usd`. */
/** Price-table entries that bill nothing, named in a call's price line. */
const FREE_KEYS = new Set(
  Object.entries(DEFAULT_PRICES)
    .filter(([, price]) => isFreePrice(price))
    .map(([key]) => key),
);

/** Why a session's cost reads $0 when its calls were priced at a free entry, and how to see it in dollars. */
const FREE_HINT = (keys: readonly string[]) =>
  `${keys.join(', ')} bills nothing; pagewise inspect --price-as openai:gpt-4.1 prices the calls as a provider bills them`;

function usd(amount: number): SafeHtml {
  return html`<span class="usd" data-usd="${amount}">$${amount.toFixed(4)}</span>`;
}

const SOURCE_LABEL: Record<CallCache['source'], string> = {
  recorded: 'recorded by the run',
  computed: 'modelled here from the stored requests',
};

/**
 * The cache figures of a session's header: hit rate and cost with caching over the calls worked out so far (all
 * `logged` calls once the pages of calls have been viewed), or why there are none. `callsHref` is its calls view.
 */
export function sessionCacheFigures(
  totals: SessionCacheTotals | undefined,
  logged: number,
  callsHref: string,
): SafeHtml {
  if (!totals || logged === 0) return html``;
  const covered = totals.calls + totals.withoutFigures;
  if (covered === 0)
    return html`<div>
      <dt>cache hit, cost with caching</dt>
      <dd id="cache-hit"><a class="cache-calls" href="${callsHref}">see the calls</a></dd>
    </div>`;
  const how = `${totals.sources.map((s) => SOURCE_LABEL[s]).join(' and ')}${totals.rules.length ? `, rules ${totals.rules.join(', ')}` : ''}`;
  const over = covered < logged ? `over calls 1–${covered} of ${logged}, the pages viewed` : `over all ${logged} calls`;
  const cost =
    totals.calls === 0
      ? 'no figures'
      : totals.unpriced.length > 0
        ? html`unpriced <small>(no built-in price for ${totals.unpriced.join(', ')})</small>`
        : totals.free.length > 0
          ? html`${usd(totals.costUsd)} <small class="cache-free">${FREE_HINT(totals.free)}</small>`
          : usd(totals.costUsd);
  return html`<div>
      <dt>cache hit</dt>
      <dd id="cache-hit" title="${how}; ${over}">
        ${totals.hitRate === null ? html`<span class="sub">not modelled</span>` : percent(totals.hitRate)}
        ${covered < logged ? html`<small class="cache-over">${over}</small>` : ''}
      </dd>
    </div>
    <div>
      <dt>cost with caching</dt>
      <dd id="cost" title="${how}; ${over}">${cost}</dd>
    </div>`;
}

/** The header cells of the cache columns of the calls table. */
export function cacheHeaderCells(): SafeHtml {
  return html`<th class="r">cache read</th>
    <th class="r">cache write</th>
    <th class="r">uncached</th>
    <th class="r">hit</th>
    <th>first changed token</th>`;
}

const SHORT_BEFORE = 20;
const SHORT_AFTER = 40;

/** Columns the cache cells add to a row. */
export const CACHE_COLUMNS = 5;

/** The excerpt at the first change; `short` for the calls table: a few characters either side. */
function excerptOf(change: FirstChange, short = false): SafeHtml {
  if (!change.excerpt) return html``;
  if (short)
    return html`<span class="excerpt"
      >…${change.excerpt.before.slice(-SHORT_BEFORE)}<mark class="changed"
        >${change.excerpt.after.slice(0, SHORT_AFTER)}</mark
      >…</span
    >`;
  // What stayed the same, then what changed (from the first changed token on), marked.
  return html`<span class="excerpt"
    >…${change.excerpt.before}<mark class="changed">${change.excerpt.after}</mark>…</span
  >`;
}

/** A call's cache cells in the calls table ('–' for a call without figures). */
export function callCacheCells(cache: CallCache | undefined): SafeHtml {
  if (!cache)
    return html`<td class="r">–</td>
      <td class="r">–</td>
      <td class="r">–</td>
      <td class="r">–</td>
      <td class="first-change">not modelled</td>`;
  const change = cache.firstChange;
  return html`<td class="r cache-read">${num(cache.read)}</td>
    <td class="r cache-write">${num(cache.write)}</td>
    <td class="r cache-uncached">${num(cache.uncached)}</td>
    <td class="r cache-hit">${percent(cache.hitRate)}</td>
    <td class="first-change" data-token="${change?.token}" data-status="${change?.status}">
      ${change ? html`${describeFirstChange(change)}<br />${excerptOf(change, true)}` : 'request not stored'}
    </td>`;
}

/**
 * A call's prompt-cache section: the split, the rules, the price, and the first changed token with its text. Without
 * figures, why: not `covered` yet by the session's figures (a link to the page of calls that works them out, at
 * `callsHref`), or not modelled at all.
 */
export function callCacheSection(cache: CallCache | undefined, covered: boolean, callsHref: string): SafeHtml {
  if (!cache)
    return html`<h2>Prompt cache</h2>
      <p class="sub" id="cache">
        ${
          covered
            ? 'Not modelled: the run recorded no cache figures for this call, and its model has no cache rules here.'
            : html`Not worked out yet: the run recorded no cache figures for this call, and modelling them takes the
                stored requests of every call before it.
                <a class="cache-calls" href="${callsHref}">Open its page of calls</a> to work them out.`
        }
      </p>`;
  const change = cache.firstChange;
  return html`<h2>Prompt cache <small>${SOURCE_LABEL[cache.source]} · rules ${cache.rules}</small></h2>
    <table class="list" id="cache">
      <thead>
        <tr>
          <th class="r">read</th>
          <th class="r">written</th>
          <th class="r">uncached</th>
          <th class="r">hit</th>
          <th class="r">cost with caching</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <td class="r cache-read">${num(cache.read)}</td>
          <td class="r cache-write">${num(cache.write)}</td>
          <td class="r cache-uncached">${num(cache.uncached)}</td>
          <td class="r cache-hit">${percent(cache.hitRate)}</td>
          <td class="r cost">
            ${cache.costUsd !== undefined ? html`${usd(cache.costUsd)} <small>as ${cache.price}${cache.price && FREE_KEYS.has(cache.price) ? ', which bills nothing' : ''}</small>` : 'unpriced'}
          </td>
        </tr>
      </tbody>
    </table>
    <p class="first-change" id="first-change" data-token="${change?.token}" data-status="${change?.status}">
      First changed token:
      ${change ? html`<b>${describeFirstChange(change)}</b><br />${excerptOf(change)}` : 'the request is not stored.'}
    </p>`;
}
