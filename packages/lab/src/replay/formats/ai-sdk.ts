/**
 * AI SDK `ModelMessage[]`: string or part contents; assistant `tool-call` parts and `tool` messages with
 * `tool-result` parts (output `{ type: 'text' | 'json' | 'error-text' | 'error-json' | 'content', value }`).
 */
import { z } from 'zod';
import type { ContextItem } from 'pagewise/context';
import type { ReplayTrace } from '../trace.js';
import { contentText, parseAt } from './shared.js';

const Part = z.object({ type: z.string() }).loose();
const ToolCallPart = z
  .object({ type: z.literal('tool-call'), toolCallId: z.string(), toolName: z.string().min(1), input: z.unknown() })
  .loose();
const ToolResultPart = z
  .object({
    type: z.literal('tool-result'),
    toolCallId: z.string(),
    toolName: z.string().min(1),
    output: z.object({ type: z.string(), value: z.unknown().optional(), reason: z.string().optional() }).loose(),
  })
  .loose();

const Message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }).loose(),
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(Part)]) }).loose(),
  z.object({ role: z.literal('assistant'), content: z.union([z.string(), z.array(Part)]) }).loose(),
  z.object({ role: z.literal('tool'), content: z.array(Part) }).loose(),
]);

/** Whether `value` is a message array with at least one AI SDK tool part (the mark of the format). */
export function isAiSdkMessages(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.some(
      (message) =>
        typeof message === 'object' &&
        message !== null &&
        Array.isArray((message as { content?: unknown }).content) &&
        (message as { content: unknown[] }).content.some((part) => {
          const type = (part as { type?: unknown } | null)?.type;
          return type === 'tool-call' || type === 'tool-result';
        }),
    )
  );
}

function outputText(output: { type: string; value?: unknown; reason?: string | undefined }): {
  text: string;
  isError: boolean;
} {
  const isError = output.type === 'error-text' || output.type === 'error-json' || output.type === 'execution-denied';
  if (output.type === 'execution-denied')
    return { text: `execution denied${output.reason ? `: ${output.reason}` : ''}`, isError };
  if (output.type === 'text' || output.type === 'error-text') return { text: String(output.value ?? ''), isError };
  if (output.type === 'content') return { text: contentText(output.value), isError };
  return { text: JSON.stringify(output.value ?? null), isError };
}

/** Reads an AI SDK message array (already parsed) into a trace. */
export function readAiSdk(
  messages: unknown,
  meta: { id: string; source: string; reward?: number; success?: boolean },
  prefix = 'messages',
): ReplayTrace {
  const list = parseAt(z.array(z.unknown()), messages, meta.source, prefix);
  const items: ContextItem[] = [];
  const system: string[] = [];
  list.forEach((raw, index) => {
    const at = `${prefix}[${index}]`;
    const message = parseAt(Message, raw, meta.source, at);
    if (message.role === 'system') {
      system.push(message.content);
      return;
    }
    const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (message.role === 'user') {
      items.push({ type: 'user', text: contentText(parts.filter((p) => p.type === 'text')) });
    } else if (message.role === 'assistant') {
      const toolCalls = parts
        .map((rawPart, partIndex) =>
          rawPart.type === 'tool-call'
            ? parseAt(ToolCallPart, rawPart, meta.source, `${at}.content[${partIndex}]`)
            : undefined,
        )
        .filter((p) => p !== undefined)
        .map((p) => ({ toolCallId: p.toolCallId, toolName: p.toolName, input: p.input }));
      items.push({ type: 'assistant', text: contentText(parts.filter((p) => p.type === 'text')), toolCalls });
    } else {
      parts.forEach((rawPart, partIndex) => {
        if (rawPart.type !== 'tool-result') return;
        const part = parseAt(ToolResultPart, rawPart, meta.source, `${at}.content[${partIndex}]`);
        const { text, isError } = outputText(part.output);
        items.push({
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: text,
          isError,
        });
      });
    }
  });
  return {
    id: meta.id,
    format: 'ai-sdk',
    source: meta.source,
    system: system.join('\n\n'),
    items,
    ...(meta.reward !== undefined ? { reward: meta.reward } : {}),
    ...(meta.success !== undefined ? { success: meta.success } : {}),
  };
}
