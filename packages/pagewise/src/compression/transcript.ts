/**
 * Text forms the compressors share: history items rendered as a plain transcript (what a compressor
 * reads), and the fence that marks compressor output as quoted tool content. Compressed observations
 * and summaries quote untrusted tool output, so they are delimited like paged content: a random
 * boundary, and marker text inside neutralized by the paging fence's own rule.
 */
import type { ContextItem } from '../context/request.js';
import { fenceBoundary, neutralize } from '../paging/fence.js';
import { toolPageUri } from '../paging/result-pages.js';
import { isAsciiWordCode, isDigits } from '../text/characters.js';

/** Renders one history item as transcript lines. */
export function itemTranscript(item: ContextItem): string {
  switch (item.type) {
    case 'user':
      return `[user] ${item.text}`;
    case 'summary':
      return `[summary of earlier steps] ${item.text}`;
    case 'assistant': {
      const lines = item.text ? [`[assistant] ${item.text}`] : [];
      for (const call of item.toolCalls) lines.push(`[call ${call.toolName}] ${argumentText(call.input)}`);
      return lines.join('\n');
    }
    case 'tool-result':
      return `[${item.isError ? 'error from' : 'result of'} ${item.toolName}] ${item.output}`;
  }
}

/** Renders history items as a transcript, one block per item. */
export function renderTranscript(items: readonly ContextItem[]): string {
  return items
    .map(itemTranscript)
    .filter((t) => t !== '')
    .join('\n');
}

/** Tool-call arguments as compact text: JSON for values, the raw text for unparsed arguments. */
export function argumentText(input: unknown): string {
  return typeof input === 'string' ? input : (JSON.stringify(input) ?? '');
}

/**
 * The boundary of a compressed-text fence: the paging fence's boundary (21 random digits, about 70 bits,
 * 7 tokens). Marker text inside is neutralized anyway, so the boundary only has to be unguessable.
 */
export function shortBoundary(): string {
  return fenceBoundary();
}

const OPEN = '<<<QUOTED';
const CLOSE = '<<<END';
// Fewest characters of a fence boundary, each of [0-9a-zA-Z_-].
const MIN_BOUNDARY_CHARS = 8;
// A fence's opening line, anywhere in a text; group 1 is its boundary.
const OPEN_LINE = new RegExp(`^${OPEN} ([0-9a-zA-Z_-]{${MIN_BOUNDARY_CHARS},})>>>$`, 'mu');

function isBoundary(boundary: string): boolean {
  if (boundary.length < MIN_BOUNDARY_CHARS) return false;
  for (let at = 0; at < boundary.length; at += 1) {
    const code = boundary.charCodeAt(at);
    if (!isAsciiWordCode(code) && boundary[at] !== '-') return false;
  }
  return true;
}

/**
 * Wraps compressor output in a fence: an opening line, the neutralized body, a closing line. The body
 * cannot close or forge the fence.
 *
 * @example
 * fenceQuoted(text, shortBoundary());
 */
export function fenceQuoted(body: string, boundary: string = shortBoundary()): string {
  if (!isBoundary(boundary)) throw new RangeError('A fence boundary must be at least 8 characters of [0-9a-zA-Z_-].');
  return `${OPEN} ${boundary}>>>\n${neutralize(body, boundary)}\n${CLOSE} ${boundary}>>>`;
}

/** The body of the first fence in `text`, as written by {@link fenceQuoted}; undefined when there is none. */
export function unfenceQuoted(text: string): string | undefined {
  const open = OPEN_LINE.exec(text);
  if (!open) return undefined;
  const start = open.index + open[0].length + 1;
  const close = text.indexOf(`\n${CLOSE} ${open[1]}>>>`, start - 1);
  return close < 0 ? undefined : text.slice(start, close);
}

/**
 * The line a compressed observation ends with: how large the original was and the handle that pages
 * it back in.
 */
export function handleLine(uri: string, originalTokens: number): string {
  return `[pagewise] Compressed from ${originalTokens} tokens; the full result: page_in uris ${JSON.stringify([uri])}`;
}

const UNREACHABLE_HEAD = '[pagewise] Compressed from ';
const UNREACHABLE_TAIL = ' tokens; the full result is not available to you in this call.';

/**
 * The line a compressed observation ends with when nothing can follow a handle (the agent has no
 * `page_in`): how large the original was, and no pointer to a tool the model does not have.
 */
export function unreachableHandleLine(originalTokens: number): string {
  return `${UNREACHABLE_HEAD}${originalTokens}${UNREACHABLE_TAIL}`;
}

/** Whether `line` is an {@link unreachableHandleLine}, of any token count. */
function isUnreachableHandleLine(line: string): boolean {
  return (
    line.startsWith(UNREACHABLE_HEAD) &&
    line.endsWith(UNREACHABLE_TAIL) &&
    isDigits(line.slice(UNREACHABLE_HEAD.length, line.length - UNREACHABLE_TAIL.length))
  );
}

const HANDLE_LINE =
  /^\[pagewise\] Compressed from (\d+) tokens; the full result: page_in uris \["((?:[^"\\]|\\.)+)"\]$/u;

/** The last line of a text: where a compressed observation's handle line is, after its fence. */
function lastLine(text: string): { head: string; line: string } {
  const cut = text.lastIndexOf('\n') + 1;
  return { head: text.slice(0, cut), line: text.slice(cut) };
}

/**
 * The handle URI of a compressed observation (see {@link handleLine}), or undefined. Only the last line
 * counts: a handle line quoted inside the fence is a document's text, not the compressor's.
 */
export function handleOf(text: string): string | undefined {
  const match = HANDLE_LINE.exec(lastLine(text).line)?.[2];
  if (match === undefined) return undefined;
  try {
    return JSON.parse(`"${match}"`) as string;
  } catch {
    return undefined;
  }
}

const HANDLE_LINE_GLOBAL = new RegExp(HANDLE_LINE.source, 'gmu');

/**
 * The compressed observation with its handle line reduced to what the model can act on when no tool
 * follows handles: how large the original was, and no call to a tool it does not have. Every handle line
 * is reduced, a summary's quoted ones too.
 */
export function withoutHandle(text: string): string {
  return text.replace(HANDLE_LINE_GLOBAL, (_line, tokens: string) => unreachableHandleLine(Number(tokens)));
}

/**
 * The body of a tool result that has the observation compressor's whole shape: the text is one fence and
 * then its handle line, and the handle is this call's (`tool://<tool>/<call id>`, or a page under it). A
 * document that wraps itself in fence lines does not know the call id its result gets, so it is not taken
 * for a compressed observation; undefined when the shape does not hold. Without a handle (an agent with no
 * `page_in`) only the shape is checked.
 */
export function compressedObservationBody(
  output: string,
  result: { toolName: string; toolCallId: string },
): string | undefined {
  const cut = output.lastIndexOf('\n');
  const [fenced, last] = [output.slice(0, cut), output.slice(cut + 1)];
  // The fence's opening line is the text's first.
  const open = OPEN_LINE.exec(fenced);
  const opensText = open !== null && open.index === 0 && fenced[open[0].length] === '\n';
  if (cut < 0 || !open || !opensText || !fenced.endsWith(`\n${CLOSE} ${open[1]}>>>`)) return undefined;
  const handle = handleOf(output);
  const own = toolPageUri(result.toolName, result.toolCallId);
  if (handle === undefined ? !isUnreachableHandleLine(last) : handle !== own && !handle.startsWith(`${own}/`))
    return undefined;
  const body = fenced.slice(open[0].length + 1, fenced.length - `\n${CLOSE} ${open[1]}>>>`.length);
  // The compressor neutralized what it fenced: a marker left in the body was not written by it.
  return neutralize(body, open[1]!) === body ? body : undefined;
}
