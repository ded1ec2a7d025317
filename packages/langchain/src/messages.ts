/**
 * LangChain messages read as pagewise history and written back, for the history bridge (an AI message is
 * one turn, each tool message one result), and a LangChain model request as AI SDK call options, so the
 * project's ledger and test views measure it the way they measure every other framework's requests.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Message } from '@ai-sdk/provider';
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
  type MessageContent,
} from '@langchain/core/messages';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import type { ToolCallRecord } from 'pagewise';
import { STEP_BLOCK_HEADER, STEP_BLOCK_MARK, type ContextItem } from 'pagewise/context';
import type { BridgeCodec, SourcedEvent } from 'pagewise/adapter-kit';

/** The text of a message content: text parts joined, other parts named by their type. */
export function contentText(content: MessageContent): string {
  if (typeof content === 'string') return content;
  return content
    .map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : `[${String(p.type)}]`))
    .join('');
}

function kindOf(m: BaseMessage): 'system' | 'human' | 'ai' | 'tool' | 'other' {
  if (SystemMessage.isInstance(m)) return 'system';
  if (HumanMessage.isInstance(m)) return 'human';
  if (AIMessage.isInstance(m)) return 'ai';
  if (ToolMessage.isInstance(m)) return 'tool';
  return 'other';
}

function readMessages(messages: readonly BaseMessage[]): SourcedEvent[] {
  const out: SourcedEvent[] = [];
  messages.forEach((m, i) => {
    switch (kindOf(m)) {
      case 'human':
        out.push({ event: { kind: 'user', text: contentText(m.content) }, sources: [i] });
        return;
      case 'ai': {
        const toolCalls: ToolCallRecord[] = ((m as AIMessage).tool_calls ?? []).map((c) => ({
          toolCallId: c.id ?? '',
          toolName: c.name,
          input: c.args,
        }));
        out.push({ event: { kind: 'model', text: contentText(m.content), toolCalls }, sources: [i] });
        return;
      }
      case 'tool': {
        const t = m as ToolMessage;
        out.push({
          event: {
            kind: 'tool-result',
            toolCallId: t.tool_call_id,
            toolName: t.name ?? '',
            output: contentText(t.content),
            isError: t.status === 'error',
          },
          sources: [i],
        });
        return;
      }
      default:
        return;
    }
  });
  return out;
}

/** The codec of LangChain messages: system messages are pinned, summaries become human messages. */
export const langchainMessagesCodec: BridgeCodec<BaseMessage> = {
  read: readMessages,
  pinned: (messages) => messages.flatMap((m, i) => (kindOf(m) === 'system' ? [i] : [])),
  summary: (text) => new HumanMessage(text),
  rebuild(item: ContextItem): BaseMessage[] {
    switch (item.type) {
      case 'user':
      case 'summary':
        return [new HumanMessage(item.text)];
      case 'assistant':
        return [
          new AIMessage({
            content: item.text,
            tool_calls: item.toolCalls.map((c) => ({
              id: c.toolCallId,
              name: c.toolName,
              args: (c.input ?? {}) as Record<string, unknown>,
              type: 'tool_call' as const,
            })),
          }),
        ];
      case 'tool-result':
        return [
          new ToolMessage({
            content: item.output,
            tool_call_id: item.toolCallId,
            name: item.toolName,
            status: item.isError ? 'error' : 'success',
          }),
        ];
    }
  },
};

/** A tool as LangChain offers it to a model: a name, a description and a schema (zod or JSON). */
export interface LangChainToolLike {
  name?: string;
  description?: string;
  schema?: unknown;
}

function toolSchema(t: LangChainToolLike): Record<string, unknown> {
  if (t.schema === undefined || t.schema === null) return { type: 'object', properties: {} };
  try {
    const schema = { ...(toJsonSchema(t.schema as Parameters<typeof toJsonSchema>[0]) as Record<string, unknown>) };
    delete schema.$schema;
    return schema;
  } catch {
    return { type: 'object', properties: {} };
  }
}

/**
 * A LangChain request (system message, messages, tools) as AI SDK call options: what the ledger
 * measures, and what pagewise's prompt view reads in tests.
 */
export function langchainRequestToCallOptions(request: {
  systemMessage?: BaseMessage;
  messages: readonly BaseMessage[];
  tools?: readonly unknown[];
}): LanguageModelV3CallOptions {
  const prompt: LanguageModelV3Message[] = [];
  const system = request.systemMessage ? contentText(request.systemMessage.content) : '';
  if (system) prompt.push({ role: 'system', content: system });
  for (const m of request.messages) {
    switch (kindOf(m)) {
      case 'system':
        prompt.push({ role: 'system', content: contentText(m.content) });
        break;
      case 'human': {
        const text = contentText(m.content);
        // The instruction middleware's step block: the last message, after the history, marked as the runner marks it.
        const stepBlock = m === request.messages[request.messages.length - 1] && text.startsWith(STEP_BLOCK_HEADER);
        prompt.push({
          role: 'user',
          content: [{ type: 'text', text }],
          ...(stepBlock ? { providerOptions: STEP_BLOCK_MARK } : {}),
        });
        break;
      }
      case 'ai': {
        const text = contentText(m.content);
        prompt.push({
          role: 'assistant',
          content: [
            ...(text ? [{ type: 'text' as const, text }] : []),
            ...((m as AIMessage).tool_calls ?? []).map((c) => ({
              type: 'tool-call' as const,
              toolCallId: c.id ?? '',
              toolName: c.name,
              input: c.args,
            })),
          ],
        });
        break;
      }
      case 'tool': {
        const t = m as ToolMessage;
        const value = contentText(t.content);
        prompt.push({
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: t.tool_call_id,
              toolName: t.name ?? '',
              output: t.status === 'error' ? { type: 'error-text', value } : { type: 'text', value },
            },
          ],
        });
        break;
      }
      default:
        break;
    }
  }
  const tools = (request.tools ?? [])
    .map((t) => t as LangChainToolLike)
    .filter((t) => typeof t.name === 'string')
    .map((t) => ({
      type: 'function' as const,
      name: t.name!,
      description: t.description ?? '',
      inputSchema: toolSchema(t) as never,
    }));
  return { prompt, ...(tools.length ? { tools } : {}) };
}
