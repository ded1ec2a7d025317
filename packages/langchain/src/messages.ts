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

function kindOf(message: BaseMessage): 'system' | 'human' | 'ai' | 'tool' | 'other' {
  if (SystemMessage.isInstance(message)) return 'system';
  if (HumanMessage.isInstance(message)) return 'human';
  if (AIMessage.isInstance(message)) return 'ai';
  if (ToolMessage.isInstance(message)) return 'tool';
  return 'other';
}

function readMessages(messages: readonly BaseMessage[], from = 0): SourcedEvent[] {
  const out: SourcedEvent[] = [];
  for (let index = from; index < messages.length; index++) {
    const message = messages[index]!;
    switch (kindOf(message)) {
      case 'human':
        out.push({ event: { kind: 'user', text: contentText(message.content) }, sources: [index] });
        break;
      case 'ai': {
        const toolCalls: ToolCallRecord[] = ((message as AIMessage).tool_calls ?? []).map((call) => ({
          toolCallId: call.id ?? '',
          toolName: call.name,
          input: call.args,
        }));
        out.push({ event: { kind: 'model', text: contentText(message.content), toolCalls }, sources: [index] });
        break;
      }
      case 'tool': {
        const toolMessage = message as ToolMessage;
        out.push({
          event: {
            kind: 'tool-result',
            toolCallId: toolMessage.tool_call_id,
            toolName: toolMessage.name ?? '',
            output: contentText(toolMessage.content),
            isError: toolMessage.status === 'error',
          },
          sources: [index],
        });
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/**
 * What a message's events are read from (see `BridgeCodec.fields`): its kind, its text, its tool calls, and a
 * tool message's call id, name and status. A content or tool call list replaced is seen; one changed inside
 * while kept is compared by identity.
 */
function messageFields(message: BaseMessage): readonly unknown[] {
  const fields = message as { tool_calls?: unknown; tool_call_id?: unknown; status?: unknown };
  return [
    kindOf(message),
    typeof message.content === 'string' ? message.content : contentText(message.content),
    fields.tool_calls,
    fields.tool_call_id,
    message.name,
    fields.status,
  ];
}

/** The codec of LangChain messages: system messages are pinned, summaries become human messages. */
export const langchainMessagesCodec: BridgeCodec<BaseMessage> = {
  read: (messages) => readMessages(messages),
  readFrom: readMessages,
  fields: messageFields,
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
            tool_calls: item.toolCalls.map((call) => ({
              id: call.toolCallId,
              name: call.toolName,
              args: (call.input ?? {}) as Record<string, unknown>,
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

function toolSchema(tool: LangChainToolLike): Record<string, unknown> {
  if (tool.schema === undefined || tool.schema === null) return { type: 'object', properties: {} };
  try {
    const schema = { ...(toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0]) as Record<string, unknown>) };
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
  for (const message of request.messages) {
    switch (kindOf(message)) {
      case 'system':
        prompt.push({ role: 'system', content: contentText(message.content) });
        break;
      case 'human': {
        const text = contentText(message.content);
        // The instruction middleware's step block: the last message, after the history, marked as the runner marks it.
        const stepBlock =
          message === request.messages[request.messages.length - 1] && text.startsWith(STEP_BLOCK_HEADER);
        prompt.push({
          role: 'user',
          content: [{ type: 'text', text }],
          ...(stepBlock ? { providerOptions: STEP_BLOCK_MARK } : {}),
        });
        break;
      }
      case 'ai': {
        const text = contentText(message.content);
        prompt.push({
          role: 'assistant',
          content: [
            ...(text ? [{ type: 'text' as const, text }] : []),
            ...((message as AIMessage).tool_calls ?? []).map((call) => ({
              type: 'tool-call' as const,
              toolCallId: call.id ?? '',
              toolName: call.name,
              input: call.args,
            })),
          ],
        });
        break;
      }
      case 'tool': {
        const toolMessage = message as ToolMessage;
        const value = contentText(toolMessage.content);
        prompt.push({
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: toolMessage.tool_call_id,
              toolName: toolMessage.name ?? '',
              output: toolMessage.status === 'error' ? { type: 'error-text', value } : { type: 'text', value },
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
    .map((tool) => ({
      type: 'function' as const,
      name: tool.name!,
      description: tool.description ?? '',
      inputSchema: toolSchema(tool) as never,
    }));
  return { prompt, ...(tools.length ? { tools } : {}) };
}
