/**
 * AI SDK `ModelMessage` lists read as pagewise history and written back, for the history bridge: an
 * assistant message is one turn (text and tool calls), each tool result of a tool message one result.
 */
import type { ModelMessage } from 'ai';
import type { ContextItem } from '../../context/request.js';
import type { ToolCallRecord } from '../../session/types.js';
import type { BridgeCodec, SourcedEvent } from '../history-bridge.js';

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;
type ToolOutput = Extract<ToolMessage['content'][number], { type: 'tool-result' }>['output'];

/** The text of a tool result output and whether it is an error. */
export function toolOutputText(output: ToolOutput): { text: string; isError: boolean } {
  switch (output.type) {
    case 'text':
      return { text: output.value, isError: false };
    case 'json':
      return { text: JSON.stringify(output.value), isError: false };
    case 'error-text':
      return { text: output.value, isError: true };
    case 'error-json':
      return { text: JSON.stringify(output.value), isError: true };
    case 'execution-denied':
      return { text: `execution denied${output.reason ? `: ${output.reason}` : ''}`, isError: true };
    case 'content':
      return { text: output.value.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n'), isError: false };
  }
}

function readMessages(messages: readonly ModelMessage[], from = 0): SourcedEvent[] {
  const out: SourcedEvent[] = [];
  for (let index = from; index < messages.length; index++) {
    const message = messages[index]!;
    switch (message.role) {
      case 'system':
        break;
      case 'user': {
        const text =
          typeof message.content === 'string'
            ? message.content
            : message.content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('');
        out.push({ event: { kind: 'user', text }, sources: [index] });
        break;
      }
      case 'assistant': {
        if (typeof message.content === 'string') {
          out.push({ event: { kind: 'model', text: message.content, toolCalls: [] }, sources: [index] });
          break;
        }
        let text = '';
        const toolCalls: ToolCallRecord[] = [];
        for (const part of message.content) {
          if (part.type === 'text') text += part.text;
          else if (part.type === 'tool-call')
            toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        }
        out.push({ event: { kind: 'model', text, toolCalls }, sources: [index] });
        break;
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type !== 'tool-result') continue;
          const { text, isError } = toolOutputText(part.output);
          out.push({
            event: { kind: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: text, isError },
            sources: [index],
          });
        }
        break;
    }
  }
  return out;
}

/**
 * What a message's events are read from (see `BridgeCodec.fields`): its role and, per part, its type, text, tool
 * call id and name, input and output, the output's kind and value taken out, so an output replaced in place is
 * seen.
 */
function messageFields(message: ModelMessage): readonly unknown[] {
  const fields: unknown[] = [message.role];
  if (typeof message.content === 'string') {
    fields.push(message.content);
    return fields;
  }
  for (const part of message.content as readonly Record<string, unknown>[]) {
    const output = part.output as { type?: unknown; value?: unknown; reason?: unknown } | undefined;
    fields.push(
      part.type,
      part.text,
      part.toolCallId,
      part.toolName,
      part.input,
      output?.type,
      output?.value,
      output?.reason,
    );
  }
  return fields;
}

/** The codec of AI SDK model messages. */
export const modelMessagesCodec: BridgeCodec<ModelMessage> = {
  read: (messages) => readMessages(messages),
  readFrom: readMessages,
  fields: messageFields,
  pinned: (messages) => messages.flatMap((m, i) => (m.role === 'system' ? [i] : [])),
  summary: (text) => ({ role: 'user', content: [{ type: 'text', text }] }),
  rebuild(item: ContextItem): ModelMessage[] {
    switch (item.type) {
      case 'user':
      case 'summary':
        return [{ role: 'user', content: [{ type: 'text', text: item.text }] }];
      case 'assistant':
        return [
          {
            role: 'assistant',
            content: [
              ...(item.text ? [{ type: 'text' as const, text: item.text }] : []),
              ...item.toolCalls.map((call) => ({
                type: 'tool-call' as const,
                toolCallId: call.toolCallId,
                toolName: call.toolName,
                input: call.input,
              })),
            ],
          },
        ];
      case 'tool-result':
        return [
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: item.toolCallId,
                toolName: item.toolName,
                output: item.isError
                  ? { type: 'error-text', value: item.output }
                  : { type: 'text', value: item.output },
              },
            ],
          },
        ];
    }
  },
};
