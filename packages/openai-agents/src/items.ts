/**
 * OpenAI Agents SDK input items read as pagewise history and written back: an assistant turn is its
 * message and function-call items together, each `function_call_result` one tool result. Items pagewise
 * does not model (reasoning, hosted tool calls) travel with the turn they belong to.
 */
import type { AgentInputItem } from '@openai/agents';
import { STEP_BLOCK_HEADER, type ContextItem } from 'pagewise/context';
import type { ToolCallRecord } from 'pagewise';
import type { BridgeCodec, SourcedEvent } from 'pagewise/adapter-kit';

type Item = AgentInputItem;
type ResultItem = Extract<Item, { type: 'function_call_result' }>;

/** The text of a function call result's output. */
export function resultOutputText(output: ResultItem['output']): string {
  if (typeof output === 'string') return output;
  const parts = Array.isArray(output) ? output : [output];
  return parts.map((p) => ('text' in p && typeof p.text === 'string' ? p.text : `[${p.type}]`)).join('\n');
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: { type?: string; text?: string }) => (typeof p.text === 'string' ? p.text : `[${p.type ?? 'part'}]`))
    .join('');
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The step block as an input item: a user message after the history with the part of the instruction that
 * changes per step (see `splitInstruction` in `pagewise/context`). Built anew at every model call.
 */
export function stepBlockItem(text: string): Item {
  return { role: 'user', content: text };
}

/** Whether `item` is a step block (a user message that starts with the step block's header). */
export function isStepBlockItem(item: Item): boolean {
  if (!('role' in item) || item.role !== 'user') return false;
  if ('type' in item && item.type !== undefined && item.type !== 'message') return false;
  return messageText((item as { content: unknown }).content).startsWith(STEP_BLOCK_HEADER);
}

/**
 * Reads input items as history events, from item `from` on (the first item of an event of the whole list;
 * indices stay those of the whole list).
 */
export function readItems(items: readonly Item[], from = 0): SourcedEvent[] {
  const out: SourcedEvent[] = [];
  let turn: { text: string; toolCalls: ToolCallRecord[]; sources: number[] } | undefined;
  let loose: number[] = [];
  const flush = () => {
    if (turn) out.push({ event: { kind: 'model', text: turn.text, toolCalls: turn.toolCalls }, sources: turn.sources });
    turn = undefined;
  };
  const open = () => (turn ??= { text: '', toolCalls: [], sources: [] });
  for (let index = from; index < items.length; index++) {
    const item = items[index]!;
    const type = 'type' in item ? item.type : 'message';
    const role = 'role' in item ? item.role : undefined;
    if ((type === 'message' || type === undefined) && role === 'system') continue;
    if ((type === 'message' || type === undefined) && role === 'user') {
      flush();
      out.push({
        event: { kind: 'user', text: messageText((item as { content: unknown }).content) },
        sources: [...loose, index],
      });
      loose = [];
      continue;
    }
    if ((type === 'message' || type === undefined) && role === 'assistant') {
      const current = open();
      current.text += messageText((item as { content: unknown }).content);
      current.sources.push(...loose, index);
      loose = [];
      continue;
    }
    if (type === 'function_call') {
      const call = item as Extract<Item, { type: 'function_call' }>;
      const current = open();
      current.toolCalls.push({ toolCallId: call.callId, toolName: call.name, input: parseArgs(call.arguments) });
      current.sources.push(...loose, index);
      loose = [];
      continue;
    }
    if (type === 'function_call_result') {
      flush();
      const result = item as ResultItem;
      out.push({
        event: {
          kind: 'tool-result',
          toolCallId: result.callId,
          toolName: result.name,
          output: resultOutputText(result.output),
          isError: false,
        },
        sources: [...loose, index],
      });
      loose = [];
      continue;
    }
    // Reasoning, hosted tools and the like: kept with the turn around them.
    if (turn) turn.sources.push(index);
    else loose.push(index);
  }
  flush();
  if (loose.length && out.length) out[out.length - 1]!.sources.push(...loose);
  return out;
}

/**
 * What an item's events are read from (see `BridgeCodec.fields`): its type, role, content, call id, name,
 * arguments and output. The SDK hands the filter deep copies of its items at every call, so these are compared
 * by value.
 */
function itemFields(item: Item): readonly unknown[] {
  const fields = item as {
    type?: unknown;
    role?: unknown;
    content?: unknown;
    callId?: unknown;
    name?: unknown;
    arguments?: unknown;
    output?: unknown;
  };
  return [fields.type, fields.role, fields.content, fields.callId, fields.name, fields.arguments, fields.output];
}

/** The codec of OpenAI Agents input items for the history bridge. */
export const itemsCodec: BridgeCodec<Item> = {
  read: (items) => readItems(items),
  readFrom: readItems,
  fields: itemFields,
  pinned: (items) => items.flatMap((it, i) => ('role' in it && it.role === 'system' ? [i] : [])),
  summary: (text) => ({ type: 'message', role: 'user', content: text }),
  rebuild(item: ContextItem): Item[] {
    switch (item.type) {
      case 'user':
      case 'summary':
        return [{ type: 'message', role: 'user', content: item.text }];
      case 'assistant':
        return [
          ...(item.text
            ? [
                {
                  type: 'message' as const,
                  role: 'assistant' as const,
                  status: 'completed' as const,
                  content: [{ type: 'output_text' as const, text: item.text }],
                },
              ]
            : []),
          ...item.toolCalls.map((call) => ({
            type: 'function_call' as const,
            callId: call.toolCallId,
            name: call.toolName,
            arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
            status: 'completed' as const,
          })),
        ];
      case 'tool-result':
        return [
          {
            type: 'function_call_result',
            callId: item.toolCallId,
            name: item.toolName,
            status: 'completed',
            output: item.output,
          },
        ];
    }
  },
};
