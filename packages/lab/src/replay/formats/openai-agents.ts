/**
 * OpenAI Agents SDK items: the protocol items of `result.history` (`message`, `function_call`,
 * `function_call_result`, `reasoning`) or the serialized run items of `result.newItems` (each with its
 * `rawItem`). Items of other types (hosted tools, handoffs) are kept out of the replay.
 */
import { z } from 'zod';
import type { ContextItem } from 'pagewise/context';
import type { ReplayTrace } from '../trace.js';
import { argumentsWarning, contentText, parseArguments, parseAt } from './shared.js';

const AGENT_ITEM_TYPES = new Set(['message', 'function_call', 'function_call_result', 'reasoning']);
const RUN_ITEM_TYPES = new Set(['message_output_item', 'tool_call_item', 'tool_call_output_item', 'reasoning_item']);

const MessageItem = z
  .object({
    type: z.literal('message').optional(),
    role: z.enum(['system', 'user', 'assistant']),
    content: z.union([z.string(), z.array(z.object({ type: z.string() }).loose())]),
  })
  .loose();
const FunctionCall = z
  .object({ type: z.literal('function_call'), callId: z.string(), name: z.string().min(1), arguments: z.string() })
  .loose();
const FunctionResult = z
  .object({ type: z.literal('function_call_result'), callId: z.string(), name: z.string().min(1), output: z.unknown() })
  .loose();

/** The protocol item of an entry: its `rawItem` for a run item, the entry itself otherwise. */
function rawOf(entry: unknown): unknown {
  const item = entry as { type?: unknown; rawItem?: unknown } | null;
  return item && typeof item.type === 'string' && RUN_ITEM_TYPES.has(item.type) && item.rawItem !== undefined
    ? item.rawItem
    : entry;
}

/** Whether `value` is an Agents SDK item list: every entry a protocol item or a run item, a function call among them. */
export function isAgentsItems(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  let calls = 0;
  for (const entry of value) {
    const type = (entry as { type?: unknown } | null)?.type;
    if (typeof type !== 'string') return false;
    if (!AGENT_ITEM_TYPES.has(type) && !RUN_ITEM_TYPES.has(type)) return false;
    const rawType = (rawOf(entry) as { type?: unknown } | null)?.type;
    if (rawType === 'function_call' || rawType === 'function_call_result') calls += 1;
  }
  return calls > 0;
}

/** Reads Agents SDK items (already parsed) into a trace. */
export function readOpenAiAgents(
  entries: unknown,
  meta: { id: string; source: string; reward?: number; success?: boolean },
  prefix = 'items',
): ReplayTrace {
  const list = parseAt(z.array(z.unknown()), entries, meta.source, prefix);
  const items: ContextItem[] = [];
  const system: string[] = [];
  let assistant: Extract<ContextItem, { type: 'assistant' }> | undefined;
  const warnings: string[] = [];
  list.forEach((entry, index) => {
    const raw = rawOf(entry);
    const at = raw === entry ? `${prefix}[${index}]` : `${prefix}[${index}].rawItem`;
    const type = (raw as { type?: unknown } | null)?.type;
    if (type === 'function_call') {
      const call = parseAt(FunctionCall, raw, meta.source, at);
      // Calls of one model response follow its message; consecutive calls belong to one response.
      if (!assistant) {
        assistant = { type: 'assistant', text: '', toolCalls: [] };
        items.push(assistant);
      }
      const input = parseArguments(call.arguments, (reason) =>
        warnings.push(argumentsWarning(meta.source, `${at}.arguments`, `${call.callId} of ${call.name}`, reason)),
      );
      assistant.toolCalls.push({ toolCallId: call.callId, toolName: call.name, input });
      return;
    }
    if (type === 'function_call_result') {
      const result = parseAt(FunctionResult, raw, meta.source, at);
      items.push({
        type: 'tool-result',
        toolCallId: result.callId,
        toolName: result.name,
        output: contentText(result.output),
        isError: false,
      });
      assistant = undefined;
      return;
    }
    if (type === 'message' || type === undefined) {
      const message = parseAt(MessageItem, raw, meta.source, at);
      const text = contentText(message.content);
      if (message.role === 'system') system.push(text);
      else if (message.role === 'user') {
        items.push({ type: 'user', text });
        assistant = undefined;
      } else {
        assistant = { type: 'assistant', text, toolCalls: [] };
        items.push(assistant);
      }
      return;
    }
    // Reasoning and other item types carry nothing the replay counts.
  });
  return {
    id: meta.id,
    format: 'openai-agents',
    source: meta.source,
    system: system.join('\n\n'),
    items,
    ...(meta.reward !== undefined ? { reward: meta.reward } : {}),
    ...(meta.success !== undefined ? { success: meta.success } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
