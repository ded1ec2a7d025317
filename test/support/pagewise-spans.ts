/**
 * Fixture generator for the span importer: runs a pagewise Runner (a scripted model, two tools, one of
 * them returning a record the model uses later) with `pagewiseTelemetry` over the SDK's in-memory span
 * exporter, and gives the finished spans in the two export forms the importer reads: OTLP JSON, as the
 * OTLP exporters and the collector's file exporter write it, and the plain span objects the SDK's console
 * exporter prints. The data is the script's own, no third party's.
 *
 * Regenerate the committed fixture (packages/lab/src/replay/testdata/pagewise-spans.json) with:
 *   npx tsx --conditions=@pagewise/source test/support/pagewise-spans.ts <out.json>
 */
import { writeFileSync } from 'node:fs';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { Agent, InMemorySessionStore, Runner, tool } from 'pagewise';
import { pagewiseTelemetry } from 'pagewise/telemetry';
import { ScriptedModel } from 'pagewise/testing';

/** An SDK `[seconds, nanoseconds]` time in microseconds, as the console exporter prints it. */
const micros = (time: readonly [number, number]): number => time[0] * 1e6 + time[1] / 1e3;

/** What {@link recordPagewiseSpans} returns. */
export interface RecordedSpans {
  spans: ReadableSpan[];
  /** The spans as OTLP JSON (`{ resourceSpans }`). */
  otlp: unknown;
  /** The spans as the SDK's console exporter prints them (`traceId`, `id`, `timestamp`, `attributes`, ...). */
  plain: unknown[];
  /** The run's final text. */
  text: string;
}

/** Runs the scripted support conversation once and returns its spans. */
export async function recordPagewiseSpans(options: { recordContent: boolean }): Promise<RecordedSpans> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const findCustomer = tool({
    name: 'find_customer',
    description: 'Finds a customer by email.',
    inputSchema: z.object({ email: z.string() }),
    execute: ({ email }) => ({ customer_id: 'CU-4821', email, tier: 'gold', open_orders: ['OR-77310', 'OR-77311'] }),
  });
  const cancelOrder = tool({
    name: 'cancel_order',
    description: 'Cancels an order.',
    inputSchema: z.object({ customer_id: z.string(), order_id: z.string() }),
    execute: ({ order_id }) => ({ order_id, status: 'cancelled', refund: 42.5 }),
  });
  const model = new ScriptedModel(
    [
      { toolCalls: [{ toolName: 'find_customer', input: { email: 'ada@example.org' } }] },
      { toolCalls: [{ toolName: 'cancel_order', input: { customer_id: 'CU-4821', order_id: 'OR-77311' } }] },
      { text: 'Order OR-77311 is cancelled; 42.50 will be refunded.' },
    ],
    { modelId: 'scripted' },
  );
  const agent = new Agent({
    name: 'support',
    instruction: 'You help customers with their orders.',
    tools: [findCustomer, cancelOrder],
  });
  const runner = new Runner({
    agent,
    model,
    store: new InMemorySessionStore(),
    telemetry: pagewiseTelemetry({ tracer: provider.getTracer('pagewise'), recordContent: options.recordContent }),
  });
  const result = await runner.run({
    userId: 'u1',
    message: 'Please cancel my second open order, my email is ada@example.org.',
  });
  const spans = [...exporter.getFinishedSpans()];
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error('the OTLP serializer returned nothing');
  const otlp = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  const plain = spans.map((span) => ({
    resource: { attributes: span.resource.attributes },
    instrumentationScope: span.instrumentationScope,
    traceId: span.spanContext().traceId,
    parentSpanContext: span.parentSpanContext,
    name: span.name,
    id: span.spanContext().spanId,
    kind: span.kind,
    timestamp: micros(span.startTime),
    duration: micros(span.duration),
    attributes: span.attributes,
    status: span.status,
    events: span.events,
    links: span.links,
  }));
  return { spans, otlp, plain: JSON.parse(JSON.stringify(plain)) as unknown[], text: result.text };
}

const invokedDirectly = process.argv[1]?.endsWith('pagewise-spans.ts');
if (invokedDirectly) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: npx tsx test/support/pagewise-spans.ts <out.json>');
  const { otlp } = await recordPagewiseSpans({ recordContent: true });
  writeFileSync(out, JSON.stringify(otlp, null, 2) + '\n');
}
