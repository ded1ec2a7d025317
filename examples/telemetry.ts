/**
 * OpenTelemetry spans of a pagewise run on the GenAI semantic conventions: the invocation, each model
 * call with its token usage from the ledger, each tool call, processor and page-in. The spans are
 * collected in memory and printed as a tree; in production register your own provider and exporter.
 * The model is scripted (not an LLM), so this runs offline: npx tsx examples/telemetry.ts
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Agent, Runner } from 'pagewise';
import { pagedInstruction, PagingService, createPagingTools } from 'pagewise/paging';
import { pagewiseTelemetry } from 'pagewise/telemetry';
import { generateReports, inMemoryCorpus } from '@pagewise/lab/scenarios/report-analysis';
import { ScriptedModel } from 'pagewise/testing';

const reports = generateReports(6, 2);
const paging = new PagingService({ source: inMemoryCorpus(reports).source });
const tools = createPagingTools(paging);
const agent = new Agent({
  name: 'reader',
  instruction: pagedInstruction({ base: 'Read the reports.', service: paging }),
  tools: [tools.page_in, tools.save_result],
});
const model = new ScriptedModel([
  { toolCalls: [{ toolName: 'page_in', input: { uris: reports.map((r) => r.uri) } }] },
  { toolCalls: [{ toolName: 'save_result', input: { task_id: 'count', result: '6 reports' } }] },
  'I read 6 reports.',
]);

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const runner = new Runner({ agent, model, telemetry: pagewiseTelemetry({ tracer: provider.getTracer('example') }) });
await runner.run({ userId: 'me', message: 'How many reports?' });

const spans = exporter.getFinishedSpans();
const children = (parent: ReadableSpan | undefined) =>
  spans.filter((s) => s.parentSpanContext?.spanId === parent?.spanContext().spanId);
function print(span: ReadableSpan, depth: number): void {
  const attributes = span.attributes;
  const tokens =
    attributes['gen_ai.usage.input_tokens'] !== undefined
      ? ` in=${attributes['gen_ai.usage.input_tokens']} out=${attributes['gen_ai.usage.output_tokens']} paged=${attributes['pagewise.tokens.paged']}`
      : '';
  console.log(`${'  '.repeat(depth)}${span.name}${tokens}`);
  for (const child of children(span)) print(child, depth + 1);
}
for (const root of spans.filter((s) => !s.parentSpanContext)) print(root, 0);
