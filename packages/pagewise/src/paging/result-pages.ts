/**
 * The pages behind handles, kept as a ledger of what a processor showed in place of a tool result. The raw
 * text is written once, under the result's handle (its tool name and call id), with the hash of the text
 * shown instead. A processor that meets a result again asks the ledger first, so a result is compressed
 * once: its own output is recognised by call id and content hash, never by markers in the text, which a
 * document could forge.
 */
import { hashBody, TOOL_PAGE_SCHEME, type PageInfo } from './page-store.js';
import type { PagingService } from './service.js';

/** The URI of the page that holds a tool call's result: its handle. */
export function toolPageUri(toolName: string, toolCallId: string): string {
  return `${TOOL_PAGE_SCHEME}${toolName}/${encodeURIComponent(toolCallId)}`;
}

/** The page meta key that holds the sha256 of the text shown in place of the raw result. */
const SHOWN_HASH = 'shownHash';

/** What the ledger knows of a tool result's text. */
export type ResultPageLookup =
  /** Not seen: process it, then {@link keepResultPage} under `uri`. */
  | { status: 'new'; uri: string }
  /** The raw text of a result already kept under `uri` (a history filter meets it on every model call). */
  | { status: 'raw'; uri: string; page: PageInfo; shown?: string }
  /** What a processor showed in place of a result: leave it as it is. */
  | { status: 'shown' };

// Per paging service: hashes of shown texts by call id (so a processor recognises its output even when the
// session it is filed under differs), and the texts shown for raw pages, bounded, oldest first.
const MAX_REMEMBERED = 4096;
const remembered = new WeakMap<PagingService, { shown: Set<string>; texts: Map<string, string> }>();

function memoryOf(service: PagingService): { shown: Set<string>; texts: Map<string, string> } {
  let memory = remembered.get(service);
  if (!memory) {
    memory = { shown: new Set(), texts: new Map() };
    remembered.set(service, memory);
  }
  return memory;
}

function bounded<T>(collection: Set<T> | Map<T, unknown>): void {
  if (collection.size > MAX_REMEMBERED) collection.delete(collection.keys().next().value as T);
}

const shownKey = (toolCallId: string, hash: string): string => `${toolCallId}\0${hash}`;

/**
 * Looks a tool result's text up in the ledger of `service`, in the session's namespace. A call id that came
 * back with another result (a framework that reuses ids) gets its own handle, the first one's suffixed with
 * the content hash, so neither page is rewritten.
 */
export async function findResultPage(
  service: PagingService,
  sessionId: string,
  result: { toolName: string; toolCallId: string; output: string },
): Promise<ResultPageLookup> {
  const hash = hashBody(result.output);
  const memory = memoryOf(service);
  if (memory.shown.has(shownKey(result.toolCallId, hash))) return { status: 'shown' };
  const handle = toolPageUri(result.toolName, result.toolCallId);
  const namespace = service.namespaceOf(handle, sessionId);
  const first = await service.pageStore.info(namespace, handle);
  if (!first) return { status: 'new', uri: handle };
  const known = (page: PageInfo): ResultPageLookup | undefined => {
    if (page.meta[SHOWN_HASH] === hash) return { status: 'shown' };
    if (page.hash !== hash) return undefined;
    const shown = memory.texts.get(`${namespace}\0${page.uri}`);
    return { status: 'raw', uri: page.uri, page, ...(shown !== undefined && { shown }) };
  };
  const atFirst = known(first);
  if (atFirst) return atFirst;
  // The call id was used before for another result: its other results are the pages under `handle/`.
  const variant = `${handle}/${hash.slice(0, 16)}`;
  for (const page of await service.pageStore.list(namespace)) {
    if (!page.uri.startsWith(`${handle}/`)) continue;
    const atVariant = known(page);
    if (atVariant) return atVariant;
  }
  return { status: 'new', uri: variant };
}

/**
 * Keeps a result's raw text as the page at `uri` (written once; see `PageStore.put`), recording the hash of
 * the text shown in its place, and remembers the shown text for this service.
 */
export async function keepResultPage(
  service: PagingService,
  sessionId: string,
  page: { uri: string; toolCallId: string; raw: string; shown: string; title: string; meta: Record<string, unknown> },
): Promise<void> {
  const namespace = service.namespaceOf(page.uri, sessionId);
  const shownHash = hashBody(page.shown);
  const stored = await service.pageStore.put({
    namespace,
    uri: page.uri,
    title: page.title,
    body: page.raw,
    mediaType: 'text/plain',
    meta: { ...page.meta, [SHOWN_HASH]: shownHash },
  });
  rememberShown(service, page.toolCallId, page.shown);
  // A page kept before (by another processor, or another process) keeps its first record.
  if (stored.meta[SHOWN_HASH] === shownHash) {
    const memory = memoryOf(service);
    memory.texts.set(`${namespace}\0${page.uri}`, page.shown);
    bounded(memory.texts);
  }
}

/** Remembers a text shown in place of a result (for a raw page whose first record is another text). */
export function rememberShown(service: PagingService, toolCallId: string, shown: string): void {
  const memory = memoryOf(service);
  memory.shown.add(shownKey(toolCallId, hashBody(shown)));
  bounded(memory.shown);
}

/** Whether `output` is what a processor on `service` showed in place of this call's result (see {@link findResultPage}). */
export async function isShownResult(
  service: PagingService,
  sessionId: string,
  result: { toolName: string; toolCallId: string; output: string },
): Promise<boolean> {
  return (await findResultPage(service, sessionId, result)).status === 'shown';
}
