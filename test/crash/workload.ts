/**
 * The crash test's workload, shared by the writer (a child process) and the checker (the parent): which
 * events and pages the writer appends, deterministically by index, so the checker knows exactly what
 * every stored record must be.
 */
import type { SessionEvent, SessionKey } from '../../packages/pagewise/src/session/types.js';

/** The one session the writer appends to. */
export const CRASH_SESSION: SessionKey = { appName: 'crash', userId: 'writer', sessionId: 'crash-session' };
/** The page-store namespace the writer puts pages in. */
export const CRASH_NAMESPACE = 'crash';
/** The most events one append carries. */
export const MAX_BATCH = 3;

/** Events per append at a given session version: mostly one, sometimes a step-sized batch. */
export function batchSizeAt(version: number): number {
  return version % 7 === 3 ? 3 : version % 5 === 1 ? 2 : 1;
}

/** Deterministic text of about `chars` characters, different for every seed. */
function text(seed: number, chars: number): string {
  const words = [
    'revenue',
    'churn',
    'region',
    'quarter',
    'forecast',
    'headcount',
    'margin',
    'segment',
    'growth',
    'risk',
  ];
  const out: string[] = [];
  let length = 0;
  for (let wordIndex = 0; length < chars; wordIndex++) {
    const word = `${words[(seed * 31 + wordIndex * 7) % words.length]}${(seed + wordIndex) % 97}`;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ');
}

/**
 * The event at session index `index`. Sizes vary from a line to several database pages, so a transaction
 * spans pages and a kill can land between their writes. The delta sets `count` to the number of events
 * stored after this one and a shared `user:` key, so state and events can be checked against each other.
 */
export function eventAt(index: number): SessionEvent {
  const base = {
    id: `ev-${index}`,
    invocationId: `inv-${Math.floor(index / 10)}`,
    timestamp: 1_700_000_000_000 + index,
  };
  const delta = { count: index + 1, [`slot:${index % 50}`]: index, 'user:total': index + 1 };
  const size = index % 13 === 0 ? 9000 : 40 + ((index * 389) % 1500);
  switch (index % 3) {
    case 0:
      return { ...base, kind: 'user', author: 'user', text: text(index, size), delta };
    case 1:
      return {
        ...base,
        kind: 'model',
        author: 'agent',
        text: text(index, size),
        toolCalls: [
          { toolCallId: `call-${index}`, toolName: 'lookup', input: { id: index, note: text(index + 1, 60) } },
        ],
        delta,
      };
    default:
      return {
        ...base,
        kind: 'tool-result',
        author: 'agent',
        toolCallId: `call-${index - 1}`,
        toolName: 'lookup',
        output: text(index, size),
        isError: false,
        delta,
      };
  }
}

/** The URI of page `k`. */
export const pageUri = (k: number): string => `page:${k}`;

/**
 * The body of page `pageIndex`: a few hundred bytes to 12 KB, and every fourth page repeats the body of the one
 * before, so the store's one-body-per-hash sharing is exercised by the crashes too.
 */
export function pageBody(pageIndex: number): string {
  const source = pageIndex % 4 === 3 ? pageIndex - 1 : pageIndex;
  return `# Page ${source}\n\n${text(source * 3 + 1, 300 + ((source * 977) % 12_000))}\n`;
}
