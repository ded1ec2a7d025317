/**
 * Where a token position of a serialized request falls: which tool or message, which part of it, and about
 * which character of its text. The prompt-cache model gives the first token that changed since a session's
 * previous request as a position in the request's segments (`promptSegments`); this says what that position
 * is, so a reader can see which part of the request broke the cached prefix.
 */
import type { LanguageModelV3FunctionTool, LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { CacheSegment } from './prompt-cache.js';
import { messageSegments, toolSegments } from './prompt-segments.js';
import { preTokenPattern } from './long-pieces.js';
import { countTokens, type EncodingName } from './tokenizer.js';

/** The kind of request part a position falls in. */
export type LocatedPart = 'tool' | 'system' | 'text' | 'tool-call' | 'tool-result' | 'other' | 'end';

/** A token position of a request, located (see {@link locatePromptToken}). */
export interface PromptTokenLocation {
  /** The position located. */
  token: number;
  /** In a tool definition, in a message, or at the end of the request (the position is its length or past it). */
  kind: 'tool' | 'message' | 'end';
  /** The index of the tool (in the tools) or of the message (in the prompt); -1 at the end. */
  index: number;
  /** The message's role (kind `message`). */
  role?: LanguageModelV3Message['role'];
  /**
   * The part: a tool definition, a system message, a text (an assistant's text parts are one segment, located at
   * the first), a tool call, a tool result; `other` when the message's segments could not be matched to its parts.
   */
  part: LocatedPart;
  /** The index of the part in the message's content; -1 for a tool, a system message, or the end. */
  partIndex: number;
  /** The tool's name: of the tool definition, or of the tool call or result. */
  name?: string;
  /** The token offset where the part's segment starts in the request. */
  segmentStart: number;
  /** The position's offset within the segment. */
  offset: number;
  /** The segment's text as serialized (the empty string at the end). */
  text: string;
  /**
   * The character of `text` where the located token starts: exact when the token starts a pre-token (a word, a
   * number, a run of spaces or punctuation, as the tokenizer splits the text), proportional within a longer one.
   */
  charOffset: number;
}

interface PartOf {
  part: LocatedPart;
  partIndex: number;
  name?: string;
}

/** The parts of a message in the order `messageSegments` serializes them, one per segment. */
function messageParts(message: LanguageModelV3Message): PartOf[] {
  switch (message.role) {
    case 'system':
      return [{ part: 'system', partIndex: -1 }];
    case 'user':
      return message.content.flatMap((p, i) => (p.type === 'text' ? [{ part: 'text' as const, partIndex: i }] : []));
    case 'assistant': {
      const texts = message.content.flatMap((p, i) => (p.type === 'text' ? [{ text: p.text, i }] : []));
      const joined = texts.map((t) => t.text).join('');
      return [
        ...(joined ? [{ part: 'text' as const, partIndex: texts[0]!.i }] : []),
        ...message.content.flatMap((contentPart, position) =>
          contentPart.type === 'tool-call'
            ? [{ part: 'tool-call' as const, partIndex: position, name: contentPart.toolName }]
            : [],
        ),
      ];
    }
    case 'tool':
      return message.content.flatMap((contentPart, position) =>
        contentPart.type === 'tool-result'
          ? [{ part: 'tool-result' as const, partIndex: position, name: contentPart.toolName }]
          : [],
      );
  }
}

const patterns: Partial<Record<EncodingName, RegExp>> = {};

/**
 * The character of `text` where its token `tokens` starts. Tokens never cross a pre-token (the tokenizer's split
 * of the text into words, numbers, spaces and punctuation, each merged on its own), so the pre-tokens are counted
 * one by one up to the one that holds the token: exact at a pre-token's start, proportional within a long one.
 */
function charOffsetOf(text: string, tokens: number, encoding: EncodingName): number {
  if (tokens <= 0) return 0;
  // A copy of the shared pattern: its lastIndex is this walk's own.
  const shared = preTokenPattern(encoding);
  const pattern = (patterns[encoding] ??= new RegExp(shared.source, shared.flags));
  pattern.lastIndex = 0;
  let count = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const piece = match[0];
    if (piece.length === 0) {
      pattern.lastIndex += 1;
      continue;
    }
    const pieceTokens = countTokens(piece, encoding);
    if (count + pieceTokens > tokens) return match.index + Math.round((piece.length * (tokens - count)) / pieceTokens);
    count += pieceTokens;
  }
  return text.length;
}

/**
 * Locates token position `token` in a request given as the AI SDK prompt and tools a provider receives,
 * serialized as `promptSegments` serializes it (tools, then the messages, each part a segment).
 *
 * @example
 * const usage = cache.observePrompt(key, prompt, tools, Date.now());
 * const where = locatePromptToken(prompt, tools, usage.firstChangedToken);
 * where.kind === 'message' && where.role; // 'system' when the system message broke the prefix
 */
export function locatePromptToken(
  prompt: LanguageModelV3Prompt,
  tools: readonly LanguageModelV3FunctionTool[],
  token: number,
  encoding: EncodingName = 'o200k_base',
): PromptTokenLocation {
  if (!Number.isInteger(token) || token < 0)
    throw new RangeError(`locatePromptToken: the position must be a non-negative integer, got ${token}.`);
  let start = 0;
  const found = (segment: CacheSegment, where: Omit<PromptTokenLocation, keyof LocatedTail>): PromptTokenLocation => {
    const offset = token - start;
    return {
      ...where,
      token,
      segmentStart: start,
      offset,
      text: segment.text,
      charOffset: charOffsetOf(segment.text, offset, encoding),
    };
  };
  const segments: CacheSegment[] = [];
  toolSegments(tools, encoding, segments);
  for (const [index, segment] of segments.entries()) {
    if (token < start + segment.tokens.length)
      return found(segment, { kind: 'tool', index, part: 'tool', partIndex: -1, name: tools[index]!.name });
    start += segment.tokens.length;
  }
  for (const [index, message] of prompt.entries()) {
    segments.length = 0;
    messageSegments(message, encoding, segments);
    const parts = messageParts(message);
    const matched = parts.length === segments.length;
    for (const [position, segment] of segments.entries()) {
      if (token < start + segment.tokens.length) {
        const part = matched ? parts[position]! : { part: 'other' as const, partIndex: -1 };
        return found(segment, { kind: 'message', index, role: message.role, ...part });
      }
      start += segment.tokens.length;
    }
  }
  return {
    token,
    kind: 'end',
    index: -1,
    part: 'end',
    partIndex: -1,
    segmentStart: start,
    offset: token - start,
    text: '',
    charOffset: 0,
  };
}

type LocatedTail = Pick<PromptTokenLocation, 'token' | 'segmentStart' | 'offset' | 'text' | 'charOffset'>;
