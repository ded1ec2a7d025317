/**
 * A scripted OpenAI-compatible server's prompt cache, written from OpenAI's published rule and nothing of
 * pagewise's cache model: it tokenizes each chat-completions body it receives (tools, then messages, each
 * text on its own, tool JSON and arguments with sorted keys), keeps every earlier prompt of 1,024 tokens
 * or more, and reports as `usage.prompt_tokens_details.cached_tokens` the longest common prefix with one
 * of them, rounded down to a multiple of 128, when that is 1,024 or more.
 */
import { encodeTokens } from '../../packages/pagewise/src/tokens/tokenizer.js';
import { completion, type FakeToolCall, type Handler } from '../security/openai-server.js';

const MIN_TOKENS = 1024;
const BLOCK_TOKENS = 128;

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const fields = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${sortedJson(record[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value);
}

interface WireMessage {
  role: string;
  content?: string | null | { type: string; text?: string }[];
  tool_calls?: { function: { name: string; arguments: string } }[];
}

interface WireTool {
  function: { name: string; description?: string; parameters: unknown };
}

/** The token ids of a chat-completions body, in the order the prompt is built. */
export function wireTokens(body: Record<string, unknown>): number[] {
  const texts: string[] = [];
  for (const tool of (body.tools as WireTool[] | undefined) ?? [])
    texts.push(
      sortedJson({
        name: tool.function.name,
        description: tool.function.description ?? '',
        parameters: tool.function.parameters,
      }),
    );
  for (const message of body.messages as WireMessage[]) {
    const content = message.content;
    if (typeof content === 'string') {
      if (content) texts.push(content);
    } else if (Array.isArray(content)) {
      for (const part of content) if (part.type === 'text' && part.text !== undefined) texts.push(part.text);
    }
    for (const call of message.tool_calls ?? [])
      texts.push(call.function.name + sortedJson(JSON.parse(call.function.arguments)));
  }
  return texts.flatMap((text) => encodeTokens(text));
}

/** The server's cache: every earlier prompt long enough to be cached. */
export class ServerPrefixCache {
  private readonly prompts: number[][] = [];

  /** The cached tokens of a prompt by OpenAI's rule; the prompt is then cached itself. */
  cachedTokens(tokens: number[]): number {
    let longest = 0;
    if (tokens.length >= MIN_TOKENS)
      for (const earlier of this.prompts) {
        let length = 0;
        while (length < earlier.length && length < tokens.length && earlier[length] === tokens[length]) length += 1;
        longest = Math.max(longest, length);
      }
    if (tokens.length >= MIN_TOKENS) this.prompts.push(tokens);
    const cached = Math.floor(longest / BLOCK_TOKENS) * BLOCK_TOKENS;
    return cached >= MIN_TOKENS ? cached : 0;
  }
}

/** Handler: a completion whose usage carries the prompt's token count and the cached tokens of `cache`. */
export function cachingAnswer(
  cache: ServerPrefixCache,
  answer: { text?: string; toolCalls?: FakeToolCall[] },
): Handler {
  return (request, response) => {
    const tokens = wireTokens(request.body);
    const cached = cache.cachedTokens(tokens);
    const body = {
      ...completion(answer),
      usage: {
        prompt_tokens: tokens.length,
        completion_tokens: 3,
        total_tokens: tokens.length + 3,
        prompt_tokens_details: { cached_tokens: cached },
      },
    };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
}
