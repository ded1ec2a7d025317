/**
 * OpenAI Chat Completions messages: `system`/`developer`, `user`, `assistant` with `tool_calls`, and
 * `tool` messages that answer a call by `tool_call_id`.
 */
import { z } from 'zod';
import type { ContextItem } from 'pagewise/context';
import { TraceFormatError } from '../errors.js';
import type { ReplayTrace } from '../trace.js';
import { argumentsWarning, contentText, parseArguments, parseAt } from './shared.js';

const TextPart = z.object({ type: z.string(), text: z.string().optional() }).loose();
const Content = z.union([z.string(), z.array(TextPart), z.null()]).optional();

const ToolCall = z.object({
  id: z.string(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const ChatMessage = z.discriminatedUnion('role', [
  z.object({ role: z.enum(['system', 'developer']), content: Content }).loose(),
  z.object({ role: z.literal('user'), content: Content }).loose(),
  z.object({ role: z.literal('assistant'), content: Content, tool_calls: z.array(ToolCall).optional() }).loose(),
  z.object({ role: z.literal('tool'), content: Content, tool_call_id: z.string() }).loose(),
]);

/** Whether `value` looks like one Chat Completions message. */
export function isChatMessage(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  if (!['system', 'developer', 'user', 'assistant', 'tool'].includes(String(message.role))) return false;
  if (Array.isArray(message.content) && message.content.some((p) => isAiSdkPart(p))) return false;
  return 'content' in message || 'tool_calls' in message;
}

function isAiSdkPart(part: unknown): boolean {
  const type = (part as { type?: unknown } | null)?.type;
  return type === 'tool-call' || type === 'tool-result';
}

/** Reads Chat Completions messages (already parsed) into a trace. */
export function readOpenAiChat(
  messages: unknown,
  meta: { id: string; source: string; reward?: number; success?: boolean },
  prefix = 'messages',
): ReplayTrace {
  const list = parseAt(z.array(z.unknown()), messages, meta.source, prefix);
  const items: ContextItem[] = [];
  const system: string[] = [];
  const callNames = new Map<string, string>();
  const warnings: string[] = [];
  list.forEach((raw, index) => {
    const message = parseAt(ChatMessage, raw, meta.source, `${prefix}[${index}]`);
    const text = contentText(message.content);
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(text);
        break;
      case 'user':
        items.push({ type: 'user', text });
        break;
      case 'assistant': {
        const toolCalls = (message.tool_calls ?? []).map((call, callIndex) => {
          callNames.set(call.id, call.function.name);
          const field = `${prefix}[${index}].tool_calls[${callIndex}].function.arguments`;
          const input = parseArguments(call.function.arguments, (reason) =>
            warnings.push(argumentsWarning(meta.source, field, `${call.id} of ${call.function.name}`, reason)),
          );
          return { toolCallId: call.id, toolName: call.function.name, input };
        });
        items.push({ type: 'assistant', text, toolCalls });
        break;
      }
      case 'tool': {
        const toolName = callNames.get(message.tool_call_id);
        if (toolName === undefined)
          throw new TraceFormatError(
            meta.source,
            `${prefix}[${index}].tool_call_id: no earlier assistant tool call has id "${message.tool_call_id}"`,
          );
        items.push({ type: 'tool-result', toolCallId: message.tool_call_id, toolName, output: text, isError: false });
        break;
      }
    }
  });
  return {
    id: meta.id,
    format: 'openai-chat',
    source: meta.source,
    system: system.join('\n\n'),
    items,
    ...(meta.reward !== undefined ? { reward: meta.reward } : {}),
    ...(meta.success !== undefined ? { success: meta.success } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
