/**
 * ADK `Content` lists read as pagewise history and written back: a model content is one assistant turn
 * (its text and function calls), each function response of a user content is one tool result.
 */
import type { LlmRequest } from '@google/adk';
import type { ContextItem } from 'pagewise/context';
import type { ToolCallRecord } from 'pagewise';
import type { BridgeCodec, SourcedEvent } from 'pagewise/adapter-kit';

/** One ADK content (the genai `Content` type, as ADK's requests carry it). */
export type AdkContent = LlmRequest['contents'][number];
type Part = NonNullable<AdkContent['parts']>[number];

/** The text a function response carries: its `result` when that is a string, else its JSON. */
export function functionResponseText(response: unknown): {
  text: string;
  isError: boolean;
} {
  // A tool's own return value reaches afterToolCallback unwrapped; ADK wraps it in { result } later.
  if (typeof response === 'string') return { text: response, isError: false };
  if (!response || typeof response !== 'object') return { text: JSON.stringify(response ?? ''), isError: false };
  const record = response as Record<string, unknown>;
  if (typeof record.result === 'string' && Object.keys(record).length === 1)
    return { text: record.result, isError: false };
  if (typeof record.error === 'string') return { text: record.error, isError: true };
  return { text: JSON.stringify(response), isError: false };
}

const textOf = (parts: readonly Part[]): string =>
  parts
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text)
    .join('');

/** Reads contents as history events, from content `from` on (indices stay those of the whole list). */
export function readContents(contents: readonly AdkContent[], from = 0): SourcedEvent[] {
  const out: SourcedEvent[] = [];
  for (let contentIndex = from; contentIndex < contents.length; contentIndex++) {
    const content = contents[contentIndex]!;
    const parts = content.parts ?? [];
    if (content.role === 'model') {
      const toolCalls: ToolCallRecord[] = parts
        .filter((p) => p.functionCall)
        .map((part, partIndex) => ({
          toolCallId: part.functionCall!.id ?? `${contentIndex}.${partIndex}`,
          toolName: part.functionCall!.name ?? '',
          input: part.functionCall!.args ?? {},
        }));
      const text = textOf(parts);
      if (text || toolCalls.length) out.push({ event: { kind: 'model', text, toolCalls }, sources: [contentIndex] });
      continue;
    }
    const text = textOf(parts);
    if (text) out.push({ event: { kind: 'user', text }, sources: [contentIndex] });
    parts.forEach((part, partIndex) => {
      const functionResponse = part.functionResponse;
      if (!functionResponse) return;
      const { text: output, isError } = functionResponseText(functionResponse.response);
      out.push({
        event: {
          kind: 'tool-result',
          toolCallId: functionResponse.id ?? `${contentIndex}.${partIndex}`,
          toolName: functionResponse.name ?? '',
          output,
          isError,
        },
        sources: [contentIndex],
      });
    });
  }
  return out;
}

/**
 * What a content's events are read from (see `BridgeCodec.fields`): its role and, per part, its text, whether it
 * is a thought, its function call and its function response. ADK builds the contents anew from its events at
 * every call (deep copies), so these are compared by value.
 */
function contentFields(content: AdkContent): readonly unknown[] {
  const fields: unknown[] = [content.role];
  for (const part of content.parts ?? [])
    fields.push(
      part.text,
      part.thought,
      part.functionCall,
      part.functionResponse?.id,
      part.functionResponse?.name,
      part.functionResponse?.response,
    );
  return fields;
}

/** The codec of ADK contents for the history bridge. */
export const contentsCodec: BridgeCodec<AdkContent> = {
  read: (contents) => readContents(contents),
  readFrom: readContents,
  fields: contentFields,
  summary: (text) => ({ role: 'user', parts: [{ text }] }),
  rebuild(item: ContextItem): AdkContent[] {
    switch (item.type) {
      case 'user':
      case 'summary':
        return [{ role: 'user', parts: [{ text: item.text }] }];
      case 'assistant':
        return [
          {
            role: 'model',
            parts: [
              ...(item.text ? [{ text: item.text }] : []),
              ...item.toolCalls.map((call) => ({
                functionCall: { id: call.toolCallId, name: call.toolName, args: call.input as Record<string, unknown> },
              })),
            ],
          },
        ];
      case 'tool-result':
        return [
          {
            role: 'user',
            parts: [
              {
                functionResponse: {
                  id: item.toolCallId,
                  name: item.toolName,
                  response: item.isError ? { error: item.output } : { result: item.output },
                },
              },
            ],
          },
        ];
    }
  },
};
