/**
 * OpenTelemetry GenAI spans, one trace per trace id, from an OTLP JSON export
 * (`resourceSpans[].scopeSpans[].spans[]`, as the collector's file exporter writes it) or a plain array of
 * spans as the JavaScript SDK's exporters give them (`traceId`, `id` or `spanId`, `name`, `timestamp` in
 * microseconds or `startTime` as `[seconds, nanoseconds]`, `attributes` as an object). A replay needs
 * content, which the GenAI conventions record only when content capture is on: a `chat` span's
 * `gen_ai.input.messages` / `gen_ai.output.messages` (messages of `parts`: `text`, `tool_call`,
 * `tool_call_response`) with `gen_ai.system_instructions`, or an `execute_tool` span's
 * `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`. pagewise's own telemetry records them with
 * `pagewiseTelemetry({ recordContent: true })`; its spans without content are refused with an error that
 * says to turn that on.
 */
import { z } from 'zod';
import type { ContextItem } from 'pagewise/context';
import { TraceFormatError } from '../errors.js';
import type { ReplayTrace } from '../trace.js';
import { argumentsWarning, contentText, parseArguments, parseAt } from './shared.js';

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
const PlainSpan = z
  .object({
    traceId: z.string().optional(),
    spanContext: z.object({ traceId: z.string(), spanId: z.string() }).loose().optional(),
    id: z.string().optional(),
    spanId: z.string().optional(),
    name: z.string(),
    timestamp: z.number().optional(),
    startTime: z.tuple([z.number(), z.number()]).optional(),
    attributes: z.record(z.string(), z.unknown()).optional(),
  })
  .loose()
  .refine((s) => s.traceId !== undefined || s.spanContext !== undefined, {
    message: 'a span needs a traceId (or a spanContext with one)',
    path: ['traceId'],
  });
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

/** Whether `value` is a plain array of SDK spans: objects with an attributes object and a trace id. */
export function isSpanArray(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => {
      const span = item as Record<string, unknown> | null;
      return (
        typeof span === 'object' &&
        span !== null &&
        typeof span.attributes === 'object' &&
        span.attributes !== null &&
        !Array.isArray(span.attributes) &&
        ('traceId' in span || 'spanContext' in span)
      );
    })
  );
}

function attributeValue(value: unknown): unknown {
  const typed = value as Record<string, unknown>;
  if (typeof typed.stringValue === 'string') return typed.stringValue;
  if (typed.intValue !== undefined) return Number(typed.intValue);
  if (typed.doubleValue !== undefined) return typed.doubleValue;
  if (typed.boolValue !== undefined) return typed.boolValue;
  return undefined;
}

/** One span, whichever form it came in: its ids, start (nanoseconds), attributes and where it was. */
type SpanRecord = { traceId: string; spanId: string; start: bigint; attrs: Map<string, unknown>; at: string };

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

const SystemParts = z.array(z.object({ type: z.string(), content: z.unknown().optional() }).loose());

/** The text of a chat span's `gen_ai.system_instructions` (a JSON list of parts). */
function systemOf(record: SpanRecord, source: string): string[] {
  const raw = record.attrs.get('gen_ai.system_instructions');
  if (raw === undefined) return [];
  const key = 'gen_ai.system_instructions';
  let parsed: unknown;
  try {
    parsed = typeof raw === 'string' ? JSON.parse(raw) : raw;
  } catch {
    throw new TraceFormatError(source, `${record.at}.attributes["${key}"]: not valid JSON`);
  }
  const parts = parseAt(SystemParts, parsed, source, `${record.at}.attributes["${key}"]`);
  return parts.filter((p) => p.type === 'text').map((p) => String(p.content ?? ''));
}

function itemsOfMessages(
  messages: z.output<typeof Messages>,
  system: string[],
  warn: (call: string, reason: string) => void,
): ContextItem[] {
  const items: ContextItem[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    const text = contentText(message.parts.filter((p) => p.type === 'text').map((p) => String(p.content ?? '')));
    if (message.role === 'system') system.push(text);
    else if (message.role === 'user') items.push({ type: 'user', text });
    else if (message.role === 'assistant') {
      const toolCalls = message.parts
        .filter((p) => p.type === 'tool_call')
        .map((part, index) => {
          const id = part.id ?? `call-${items.length}-${index}`;
          names.set(id, part.name ?? 'tool');
          const toolName = part.name ?? 'tool';
          const input =
            typeof part.arguments === 'string'
              ? parseArguments(part.arguments, (reason) => warn(`${id} of ${toolName}`, reason))
              : part.arguments;
          return { toolCallId: id, toolName, input };
        });
      items.push({ type: 'assistant', text, toolCalls });
    }
    for (const part of message.parts.filter((part) => part.type === 'tool_call_response')) {
      const id = part.id ?? '';
      items.push({
        type: 'tool-result',
        toolCallId: id,
        toolName: names.get(id) ?? 'tool',
        output: contentText(part.response),
        isError: false,
      });
    }
  }
  return items;
}

/** Reads an OTLP JSON export (already parsed) into one trace per trace id. */
export function readOtelGenAi(value: unknown, meta: { source: string }): ReplayTrace[] {
  return tracesOfSpans(otlpSpanRecords(value, meta.source), meta.source);
}

/**
 * Reads the lines of an OTLP JSON Lines file (the OpenTelemetry Collector's file exporter writes one export
 * per line, and a trace's spans can be spread over several) into one trace per trace id across all lines.
 * `lines` are the parsed lines with the location each error names.
 */
export function readOtelGenAiLines(lines: readonly { value: unknown; at: string }[], source: string): ReplayTrace[] {
  return tracesOfSpans(
    lines.flatMap((line) => otlpSpanRecords(line.value, line.at)),
    source,
  );
}

function otlpSpanRecords(value: unknown, source: string): SpanRecord[] {
  const meta = { source };
  const otlp = parseAt(Otlp, value, meta.source);
  const records: SpanRecord[] = [];
  otlp.resourceSpans.forEach((rs, resourceIndex) =>
    (rs.scopeSpans ?? []).forEach((ss, scopeIndex) =>
      ss.spans.forEach((raw, spanIndex) => {
        const at = `resourceSpans[${resourceIndex}].scopeSpans[${scopeIndex}].spans[${spanIndex}]`;
        const span = parseAt(Span, raw, meta.source, at);
        records.push({
          traceId: span.traceId,
          spanId: span.spanId,
          start: nanos(span.startTimeUnixNano, meta.source, `${at}.startTimeUnixNano`),
          attrs: new Map((span.attributes ?? []).map((a) => [a.key, attributeValue(a.value)])),
          at,
        });
      }),
    ),
  );
  return records;
}

/** Reads a plain array of SDK spans (already parsed) into one trace per trace id. */
export function readOtelSpanArray(value: unknown, meta: { source: string }): ReplayTrace[] {
  if (!Array.isArray(value)) throw new TraceFormatError(meta.source, 'expected an array of spans');
  const records = value.map((raw, index): SpanRecord => {
    const at = `[${index}]`;
    const span = parseAt(PlainSpan, raw, meta.source, at);
    const start =
      span.startTime !== undefined
        ? BigInt(Math.trunc(span.startTime[0])) * 1_000_000_000n + BigInt(Math.trunc(span.startTime[1]))
        : BigInt(Math.round((span.timestamp ?? 0) * 1000));
    return {
      traceId: span.traceId ?? span.spanContext!.traceId,
      spanId: span.id ?? span.spanId ?? span.spanContext?.spanId ?? at,
      start,
      attrs: new Map(Object.entries(span.attributes ?? {})),
      at,
    };
  });
  return tracesOfSpans(records, meta.source);
}

function nanos(value: string | number | undefined, source: string, at: string): bigint {
  if (value === undefined) return 0n;
  try {
    return BigInt(value);
  } catch {
    throw new TraceFormatError(source, `${at}: expected an integer of nanoseconds, got ${JSON.stringify(value)}`);
  }
}

function tracesOfSpans(records: readonly SpanRecord[], source: string): ReplayTrace[] {
  const meta = { source };
  const byTrace = new Map<string, SpanRecord[]>();
  for (const record of records) {
    const list = byTrace.get(record.traceId) ?? [];
    list.push(record);
    byTrace.set(record.traceId, list);
  }
  const traces: ReplayTrace[] = [];
  for (const [traceId, spans] of byTrace) {
    spans.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    const system: string[] = [];
    // The last chat span with content holds the whole conversation up to it; its output is the last response.
    const chats = spans.filter(
      (s) => s.attrs.get('gen_ai.operation.name') === 'chat' && s.attrs.has('gen_ai.input.messages'),
    );
    let items: ContextItem[] = [];
    const warnings: string[] = [];
    const last = chats[chats.length - 1];
    if (last) {
      system.push(...systemOf(last, meta.source));
      items = itemsOfMessages(
        [
          ...messagesOf(last, 'gen_ai.input.messages', meta.source),
          ...messagesOf(last, 'gen_ai.output.messages', meta.source),
        ],
        system,
        (call, reason) =>
          warnings.push(argumentsWarning(meta.source, `${last.at}: a tool_call's arguments`, call, reason)),
      );
    } else {
      const tools = spans.filter((s) => s.attrs.has('gen_ai.tool.call.result'));
      for (const tool of tools) {
        const toolCallId = String(tool.attrs.get('gen_ai.tool.call.id') ?? tool.spanId);
        const toolName = String(tool.attrs.get('gen_ai.tool.name') ?? 'tool');
        const args = tool.attrs.get('gen_ai.tool.call.arguments');
        const field = `${tool.at}.attributes["gen_ai.tool.call.arguments"]`;
        const input =
          typeof args === 'string'
            ? parseArguments(args, (reason) =>
                warnings.push(argumentsWarning(meta.source, field, `${toolCallId} of ${toolName}`, reason)),
              )
            : (args ?? {});
        items.push({ type: 'assistant', text: '', toolCalls: [{ toolCallId, toolName, input }] });
        items.push({
          type: 'tool-result',
          toolCallId,
          toolName,
          output: String(tool.attrs.get('gen_ai.tool.call.result')),
          isError: false,
        });
      }
    }
    if (items.length === 0) {
      const pagewise = spans.some((span) => span.attrs.has('pagewise.call.kind'));
      throw new TraceFormatError(
        meta.source,
        `trace ${traceId}: its spans carry no message content (no gen_ai.input.messages on a chat span, no ` +
          'gen_ai.tool.call.result on an execute_tool span); token counts alone cannot be replayed. ' +
          (pagewise
            ? 'These are pagewise spans: turn on content recording with pagewiseTelemetry({ recordContent: true }) ' +
              "and export again, or replay the run's stored session instead (pagewise-session)."
            : "Export with content capture on, or replay the run's stored session instead (pagewise-session)."),
      );
    }
    traces.push({
      id: traceId,
      format: 'otel-genai',
      source: meta.source,
      system: system.join('\n\n'),
      items,
      ...(warnings.length > 0 ? { warnings } : {}),
    });
  }
  return traces;
}
