/**
 * OpenTelemetry GenAI spans as OTLP JSON (`resourceSpans[].scopeSpans[].spans[]`), one trace per trace
 * id. A replay needs content, which the GenAI conventions record only when content capture is on:
 * a `chat` span's `gen_ai.input.messages` / `gen_ai.output.messages` (messages of `parts`: `text`,
 * `tool_call`, `tool_call_response`), or an `execute_tool` span's `gen_ai.tool.call.arguments` and
 * `gen_ai.tool.call.result`. pagewise's own telemetry records token counts, not content, so its spans
 * alone are refused with an error that says so.
 */
import { z } from 'zod';
import type { ContextItem } from 'pagewise';
import { TraceFormatError } from '../errors.js';
import type { ReplayTrace } from '../trace.js';
import { contentText, parseArguments, parseAt } from './shared.js';

const AnyValue: z.ZodType<unknown> = z.lazy(() =>
  z
    .object({
      stringValue: z.string().optional(),
      intValue: z.union([z.string(), z.number()]).optional(),
      doubleValue: z.number().optional(),
      boolValue: z.boolean().optional(),
      arrayValue: z.object({ values: z.array(AnyValue).optional() }).optional(),
    })
    .loose(),
);
const Span = z
  .object({
    traceId: z.string(),
    spanId: z.string(),
    name: z.string(),
    startTimeUnixNano: z.union([z.string(), z.number()]).optional(),
    attributes: z.array(z.object({ key: z.string(), value: AnyValue })).optional(),
  })
  .loose();
const Otlp = z.object({
  resourceSpans: z.array(
    z.object({ scopeSpans: z.array(z.object({ spans: z.array(z.unknown()) }).loose()).optional() }).loose(),
  ),
});

const Part = z
  .object({
    type: z.string(),
    content: z.unknown().optional(),
    id: z.string().optional().nullable(),
    name: z.string().optional(),
    arguments: z.unknown().optional(),
    response: z.unknown().optional(),
  })
  .loose();
const Messages = z.array(z.object({ role: z.string(), parts: z.array(Part) }).loose());

/** Whether `value` is an OTLP JSON span export. */
export function isOtlp(value: unknown): boolean {
  return Array.isArray((value as { resourceSpans?: unknown } | null)?.resourceSpans);
}

function attributeValue(value: unknown): unknown {
  const v = value as Record<string, unknown>;
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return undefined;
}

type SpanRecord = { span: z.output<typeof Span>; attrs: Map<string, unknown>; at: string };

function messagesOf(record: SpanRecord, key: string, source: string): z.output<typeof Messages> {
  const raw = record.attrs.get(key);
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = typeof raw === 'string' ? JSON.parse(raw) : raw;
  } catch {
    throw new TraceFormatError(source, `${record.at}.attributes["${key}"]: not valid JSON`);
  }
  return parseAt(Messages, parsed, source, `${record.at}.attributes["${key}"]`);
}

function itemsOfMessages(messages: z.output<typeof Messages>, system: string[]): ContextItem[] {
  const items: ContextItem[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    const text = contentText(message.parts.filter((p) => p.type === 'text').map((p) => String(p.content ?? '')));
    if (message.role === 'system') system.push(text);
    else if (message.role === 'user') items.push({ type: 'user', text });
    else if (message.role === 'assistant') {
      const toolCalls = message.parts
        .filter((p) => p.type === 'tool_call')
        .map((p, i) => {
          const id = p.id ?? `call-${items.length}-${i}`;
          names.set(id, p.name ?? 'tool');
          return {
            toolCallId: id,
            toolName: p.name ?? 'tool',
            input: typeof p.arguments === 'string' ? parseArguments(p.arguments) : p.arguments,
          };
        });
      items.push({ type: 'assistant', text, toolCalls });
    }
    for (const p of message.parts.filter((part) => part.type === 'tool_call_response')) {
      const id = p.id ?? '';
      items.push({
        type: 'tool-result',
        toolCallId: id,
        toolName: names.get(id) ?? 'tool',
        output: contentText(p.response),
        isError: false,
      });
    }
  }
  return items;
}

/** Reads an OTLP JSON export (already parsed) into one trace per trace id. */
export function readOtelGenAi(value: unknown, meta: { source: string }): ReplayTrace[] {
  const otlp = parseAt(Otlp, value, meta.source);
  const byTrace = new Map<string, SpanRecord[]>();
  otlp.resourceSpans.forEach((rs, r) =>
    (rs.scopeSpans ?? []).forEach((ss, s) =>
      ss.spans.forEach((raw, i) => {
        const at = `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`;
        const span = parseAt(Span, raw, meta.source, at);
        const attrs = new Map((span.attributes ?? []).map((a) => [a.key, attributeValue(a.value)]));
        const list = byTrace.get(span.traceId) ?? [];
        list.push({ span, attrs, at });
        byTrace.set(span.traceId, list);
      }),
    ),
  );
  const traces: ReplayTrace[] = [];
  for (const [traceId, spans] of byTrace) {
    spans.sort((a, b) => Number(BigInt(a.span.startTimeUnixNano ?? 0) - BigInt(b.span.startTimeUnixNano ?? 0)));
    const system: string[] = [];
    // The last chat span with content holds the whole conversation up to it; its output is the last response.
    const chats = spans.filter(
      (s) => s.attrs.get('gen_ai.operation.name') === 'chat' && s.attrs.has('gen_ai.input.messages'),
    );
    let items: ContextItem[] = [];
    const last = chats[chats.length - 1];
    if (last) {
      items = itemsOfMessages(
        [
          ...messagesOf(last, 'gen_ai.input.messages', meta.source),
          ...messagesOf(last, 'gen_ai.output.messages', meta.source),
        ],
        system,
      );
    } else {
      const tools = spans.filter((s) => s.attrs.has('gen_ai.tool.call.result'));
      for (const tool of tools) {
        const toolCallId = String(tool.attrs.get('gen_ai.tool.call.id') ?? tool.span.spanId);
        const toolName = String(tool.attrs.get('gen_ai.tool.name') ?? 'tool');
        const args = tool.attrs.get('gen_ai.tool.call.arguments');
        items.push({
          type: 'assistant',
          text: '',
          toolCalls: [{ toolCallId, toolName, input: typeof args === 'string' ? parseArguments(args) : (args ?? {}) }],
        });
        items.push({
          type: 'tool-result',
          toolCallId,
          toolName,
          output: String(tool.attrs.get('gen_ai.tool.call.result')),
          isError: false,
        });
      }
    }
    if (items.length === 0)
      throw new TraceFormatError(
        meta.source,
        `trace ${traceId}: its spans carry no message content (no gen_ai.input.messages on a chat span, no ` +
          'gen_ai.tool.call.result on an execute_tool span); token counts alone cannot be replayed. Export with ' +
          "content capture on, or replay the run's stored session instead (pagewise-session).",
      );
    traces.push({ id: traceId, format: 'otel-genai', source: meta.source, system: system.join('\n\n'), items });
  }
  return traces;
}
