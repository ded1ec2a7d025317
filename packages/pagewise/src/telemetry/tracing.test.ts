/**
 * Spans of a pagewise run, recorded by the OpenTelemetry SDK's in-memory exporter: names, nesting,
 * GenAI attributes, and token figures equal to the ledger's.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agents/agent.js';
import { Runner } from '../agents/runner.js';
import { tool } from '../agents/tool.js';
import { observationCompressor } from '../compression/observation.js';
import { handleOf } from '../compression/transcript.js';
import { ScriptedModel } from '../models/scripted.js';
import { PagingService } from '../paging/service.js';
import { createPagingTools } from '../paging/tools.js';
import { pagedInstruction } from '../paging/instruction.js';
import { pagewiseTelemetry } from './tracing.js';

function setup() {
  const big = Array.from({ length: 300 }, (_, i) => `row ${i}: value ${i * 13} in region ${i % 7}`).join('\n');
  const paging = new PagingService();
  const fetchRows = tool({
    name: 'fetch_rows',
    description: 'All rows.',
    inputSchema: z.object({}),
    execute: () => big,
  });
  const compressorModel = new ScriptedModel(['row 0: value 0 in region 0 (and 299 more rows)'], { modelId: 'squeeze' });
  const cObs = observationCompressor({ service: paging, compressor: compressorModel, thresholdTokens: 200 });
  const model = new ScriptedModel(
    [
      { toolCalls: [{ toolName: 'fetch_rows', input: {} }] },
      ({ view }) => {
        const last = view.turns.at(-1)!;
        const handle = last.role === 'tool' ? handleOf(last.results[0]!.output) : undefined;
        return { toolCalls: [{ toolName: 'page_in', input: { uris: [handle ?? 'missing'] } }] };
      },
      { text: 'done', usage: { inputTokens: 1234, outputTokens: 5 } },
    ],
    { modelId: 'main' },
  );
  const agent = new Agent({
    name: 'clerk',
    instruction: pagedInstruction({ base: 'Read the rows.', service: paging }),
    tools: [fetchRows, createPagingTools(paging).page_in],
    observationProcessors: [cObs],
  });
  return { agent, model, compressorModel, cObs };
}

describe('pagewiseTelemetry', () => {
  it('one span per invocation, model call, tool call, processor, compressor call and page-in, nested, with the ledger tokens', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const { agent, model, compressorModel, cObs } = setup();
    const runner = new Runner({ agent, model, telemetry: pagewiseTelemetry({ tracer: provider.getTracer('test') }) });
    const result = await runner.run({ userId: 'u', message: 'How many rows?' });
    model.assertComplete();
    compressorModel.assertComplete();
    expect(result.text).toBe('done');

    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const parentOf = (s: ReadableSpan) => spans.find((p) => p.spanContext().spanId === s.parentSpanContext?.spanId);

    const [root] = byName('invoke_agent clerk');
    expect(root).toBeDefined();
    expect(root!.parentSpanContext).toBeUndefined();
    expect(root!.attributes['gen_ai.operation.name']).toBe('invoke_agent');
    expect(root!.attributes['gen_ai.conversation.id']).toBe(result.session.sessionId);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);

    // Model calls: one chat span per ledger entry, tokens equal to the ledger's.
    const agentEntries = result.ledger.entries.filter((e) => e.kind === 'agent');
    const chats = spans.filter((s) => s.attributes['pagewise.call.kind'] === 'agent');
    expect(chats).toHaveLength(3);
    chats.forEach((chat, index) => {
      const entry = agentEntries[index]!;
      expect(chat.name).toBe(`chat ${entry.model}`);
      expect(parentOf(chat)).toBe(root);
      expect(chat.attributes['gen_ai.operation.name']).toBe('chat');
      expect(chat.attributes['gen_ai.request.model']).toBe(entry.model);
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBe(entry.promptTokens);
      expect(chat.attributes['gen_ai.usage.output_tokens']).toBe(entry.completionTokens);
      expect(chat.attributes['pagewise.tokens.paged']).toBe(entry.parts.paged);
    });
    expect(chats[2]!.attributes['pagewise.usage.provider_input_tokens']).toBe(1234);
    // The page-in made the last request carry paged tokens.
    expect(chats[2]!.attributes['pagewise.tokens.paged']).toBeGreaterThan(0);

    // Tool calls under the invocation; the page-in under its tool call.
    const [fetch] = byName('execute_tool fetch_rows');
    const [pageIn] = byName('execute_tool page_in');
    expect(parentOf(fetch!)).toBe(root);
    expect(parentOf(pageIn!)).toBe(root);
    expect(fetch!.attributes['gen_ai.tool.call.id']).toBeTypeOf('string');
    const [paged] = byName('pagewise.page_in');
    expect(parentOf(paged!)).toBe(pageIn);

    // Observation processor spans (one per tool call), the compressor's model call nested in the first.
    const processors = byName(`pagewise.process ${cObs.name}`);
    expect(processors).toHaveLength(2);
    for (const processor of processors) expect(parentOf(processor)).toBe(root);
    const compressorEntries = result.ledger.entries.filter((e) => e.kind === 'compressor');
    expect(compressorEntries).toHaveLength(1);
    const compressions = spans.filter((s) => s.attributes['pagewise.call.kind'] === 'compressor');
    expect(compressions).toHaveLength(1);
    expect(processors).toContain(parentOf(compressions[0]!));
    expect(compressions[0]!.attributes['gen_ai.usage.input_tokens']).toBe(compressorEntries[0]!.promptTokens);
    expect(compressions[0]!.attributes['gen_ai.usage.output_tokens']).toBe(compressorEntries[0]!.completionTokens);

    // Children lie within their parents in time.
    for (const span of spans) {
      const parent = parentOf(span);
      if (!parent) continue;
      const millis = (x: [number, number]) => x[0] * 1e3 + x[1] / 1e6;
      expect(millis(span.startTime)).toBeGreaterThanOrEqual(millis(parent.startTime) - 1);
      expect(millis(span.endTime)).toBeLessThanOrEqual(millis(parent.endTime) + 1);
    }
  });

  it('marks a failed invocation and is a no-op without a registered provider', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const agent = new Agent({ name: 'a', instruction: 'x' });
    const failing = new Runner({
      agent,
      model: new ScriptedModel([new Error('provider down')]),
      telemetry: pagewiseTelemetry({ tracer: provider.getTracer('t') }),
      retry: { maxRetries: 0 },
    });
    await expect(failing.run({ userId: 'u', message: 'hi' })).rejects.toThrow('provider down');
    const [root] = exporter.getFinishedSpans();
    expect(root!.name).toBe('invoke_agent a');
    expect(root!.status.code).toBe(2);

    // The global API with no provider: spans are no-ops, the run is unchanged.
    const { agent: clerk, model } = setup();
    const result = await new Runner({ agent: clerk, model, telemetry: pagewiseTelemetry() }).run({
      userId: 'u',
      message: 'How many rows?',
    });
    expect(result.text).toBe('done');
  });

  describe('recordContent', () => {
    afterEach(() => vi.unstubAllEnvs());

    async function run(recordContent: boolean | undefined, message = 'How many rows?') {
      const exporter = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
      const { agent, model } = setup();
      const telemetry = pagewiseTelemetry({
        tracer: provider.getTracer('t'),
        ...(recordContent === undefined ? {} : { recordContent }),
      });
      const result = await new Runner({ agent, model, telemetry }).run({ userId: 'u', message });
      const spans = exporter.getFinishedSpans();
      return { result, spans, chats: spans.filter((s) => s.attributes['pagewise.call.kind'] === 'agent') };
    }
    const parsed = (span: ReadableSpan, key: string) => JSON.parse(String(span.attributes[key])) as unknown;

    it('is off by default: no span carries message content', async () => {
      const { spans } = await run(undefined);
      const keys = spans.flatMap((s) => Object.keys(s.attributes));
      expect(keys).not.toContain('gen_ai.input.messages');
      expect(keys).not.toContain('gen_ai.output.messages');
      expect(keys).not.toContain('gen_ai.system_instructions');
    });

    it("puts each agent call's request and response on its chat span, as the model saw them", async () => {
      const { spans, chats } = await run(true);
      expect(chats).toHaveLength(3);
      // The first call: the user's message in, a call of fetch_rows out.
      expect(parsed(chats[0]!, 'gen_ai.input.messages')).toEqual([
        { role: 'user', parts: [{ type: 'text', content: 'How many rows?' }] },
      ]);
      const firstOut = parsed(chats[0]!, 'gen_ai.output.messages') as {
        parts: { type: string; name?: string; id?: string }[];
      }[];
      expect(firstOut[0]!.parts.map((p) => [p.type, p.name])).toEqual([['tool_call', 'fetch_rows']]);
      const system = parsed(chats[0]!, 'gen_ai.system_instructions') as { content: string }[];
      expect(system[0]!.content).toContain('Read the rows.');
      // The second call sees the tool result as the run stored it (compressed: the model never saw the raw rows).
      const input = parsed(chats[1]!, 'gen_ai.input.messages') as {
        role: string;
        parts: { type: string; id?: string; response?: unknown }[];
      }[];
      const response = input.flatMap((m) => m.parts).find((p) => p.type === 'tool_call_response')!;
      expect(response.id).toBe(firstOut[0]!.parts[0]!.id);
      expect(JSON.stringify(response.response)).toContain('row 0: value 0');
      expect(String(response.response)).not.toContain('row 299');
      // The last call answers with text; compressor calls carry no content.
      expect(parsed(chats[2]!, 'gen_ai.output.messages')).toEqual([
        { role: 'assistant', parts: [{ type: 'text', content: 'done' }], finish_reason: expect.any(String) },
      ]);
      const compressions = spans.filter((s) => s.attributes['pagewise.call.kind'] === 'compressor');
      expect(compressions.length).toBeGreaterThan(0);
      for (const compression of compressions) expect(compression.attributes['gen_ai.input.messages']).toBeUndefined();
    });

    it('redacts the secrets of the environment from the recorded content', async () => {
      vi.stubEnv('EXAMPLE_SERVICE_API_KEY', 'sk-test-0123456789abcdef');
      const { chats } = await run(true, 'My key is sk-test-0123456789abcdef, how many rows?');
      const text = String(chats[0]!.attributes['gen_ai.input.messages']);
      expect(text).not.toContain('sk-test-0123456789abcdef');
      expect(text).toContain('[redacted EXAMPLE_SERVICE_API_KEY]');
    });
  });
});
