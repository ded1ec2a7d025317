/**
 * pagewise's own span export as a trace: spans recorded by a real Runner with content recording on, read
 * from OTLP JSON and from the SDK's plain span objects; without content, an error that says to turn it on;
 * malformed input named by its field.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PagewiseError } from 'pagewise';
import { recordPagewiseSpans } from '../../../../test/support/pagewise-spans.js';
import { TraceFormatError } from './errors.js';
import { detectFormat, parseTraces } from './import.js';
import { replayTraces } from './run.js';
import type { ReplayTrace } from './trace.js';
import { usedLaterValues } from './values.js';

function expectCancelConversation(trace: ReplayTrace): void {
  expect(trace.format).toBe('otel-genai');
  expect(trace.system).toContain('You help customers with their orders.');
  expect(trace.items.map((i) => i.type)).toEqual([
    'user',
    'assistant',
    'tool-result',
    'assistant',
    'tool-result',
    'assistant',
  ]);
  expect(trace.items[0]).toMatchObject({ type: 'user', text: expect.stringContaining('ada@example.org') });
  const found = trace.items[2]!;
  expect(found.type === 'tool-result' && found.toolName).toBe('find_customer');
  expect(found.type === 'tool-result' && found.output).toContain('CU-4821');
  const last = trace.items[5]!;
  expect(last.type === 'assistant' && last.text).toContain('OR-77311 is cancelled');
  // The ids the model wrote into cancel_order came from the find_customer result, not from the user.
  const used = usedLaterValues(trace.items).map((u) => [u.value.raw, u.toolName, u.usedIn]);
  expect(used).toContainEqual(['CU-4821', 'find_customer', 'call cancel_order']);
  expect(used).toContainEqual(['OR-77311', 'find_customer', 'call cancel_order']);
}

function caught(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TraceFormatError);
    expect(PagewiseError.isInstance(error)).toBe(true);
    return error as Error;
  }
  throw new Error('expected a TraceFormatError');
}

describe('pagewise span export', () => {
  it('reads the committed fixture (OTLP JSON of a recorded run) into the conversation', async () => {
    const text = await readFile(path.join(import.meta.dirname, 'testdata', 'pagewise-spans.json'), 'utf8');
    const traces = parseTraces(text, 'spans.json');
    expect(traces).toHaveLength(1);
    expectCancelConversation(traces[0]!);
  });

  it('reads a fresh run in both export forms, detected, into the same trace, and replays it', async () => {
    const run = await recordPagewiseSpans({ recordContent: true });
    expect(run.text).toContain('cancelled');
    expect(detectFormat(run.otlp)).toBe('otel-genai');
    expect(detectFormat(run.plain)).toBe('otel-genai');
    const [fromOtlp] = parseTraces(JSON.stringify(run.otlp), 'otlp.json');
    const [fromPlain] = parseTraces(JSON.stringify(run.plain), 'plain.json');
    expectCancelConversation(fromOtlp!);
    expect(fromPlain!.items).toEqual(fromOtlp!.items);
    expect(fromPlain!.id).toBe(run.spans[0]!.spanContext().traceId);
    const report = await replayTraces([fromOtlp!], {});
    expect(report.uses).toBeGreaterThan(0);
    expect(report.strategies.find((s) => s.name === 'none')!.recall).toBe(1);
  });

  it('reads a collector JSONL file, one export a line, as one trace per trace id across the lines', async () => {
    type Otlp = { resourceSpans: { resource?: unknown; scopeSpans: { scope?: unknown; spans: unknown[] }[] }[] };
    // The file exporter writes each batch it receives as a line: here, one span a line, two runs interleaved.
    const lines = (otlp: Otlp): Otlp[] =>
      otlp.resourceSpans.flatMap((rs) =>
        rs.scopeSpans.flatMap((ss) =>
          ss.spans.map((span) => ({ resourceSpans: [{ ...rs, scopeSpans: [{ ...ss, spans: [span] }] }] })),
        ),
      );
    const first = await recordPagewiseSpans({ recordContent: true });
    const second = await recordPagewiseSpans({ recordContent: true });
    const firstLines = lines(first.otlp as Otlp);
    const secondLines = lines(second.otlp as Otlp);
    expect(firstLines.length).toBeGreaterThan(2);
    const mixed = firstLines
      .flatMap((line, i) => [line, ...(secondLines[i] ? [secondLines[i]] : [])])
      .concat(secondLines.slice(firstLines.length));
    const text = `${mixed.map((line) => JSON.stringify(line)).join('\n')}\n`;
    const traces = parseTraces(text, 'collector.jsonl');
    expect(traces.map((t) => t.id).sort()).toEqual(
      [first.spans[0]!.spanContext().traceId, second.spans[0]!.spanContext().traceId].sort(),
    );
    const [whole] = parseTraces(JSON.stringify(first.otlp), 'otlp.json');
    for (const trace of traces) {
      expectCancelConversation(trace);
      expect(trace.items).toEqual(whole!.items);
    }
    // A malformed line is named by its line number.
    const broken = [...mixed];
    broken[3] = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 7 }] }] }] } as unknown as Otlp;
    expect(caught(() => parseTraces(broken.map((l) => JSON.stringify(l)).join('\n'), 'c.jsonl')).message).toContain(
      'c.jsonl:4',
    );
  });

  it('refuses spans recorded without content, saying to turn content recording on', async () => {
    const run = await recordPagewiseSpans({ recordContent: false });
    for (const value of [run.otlp, run.plain]) {
      const error = caught(() => parseTraces(JSON.stringify(value), 'spans.json'));
      expect(error.message).toContain('no message content');
      expect(error.message).toContain('recordContent: true');
    }
  });

  it('names the span and field of malformed input', async () => {
    const run = await recordPagewiseSpans({ recordContent: true });
    const plain = structuredClone(run.plain) as Record<string, unknown>[];
    plain[2]!.name = 7;
    expect(caught(() => parseTraces(JSON.stringify(plain), 'spans.json')).message).toMatch(
      /spans\.json.*\[2\]\.name/su,
    );

    const badJson = structuredClone(run.plain) as { attributes: Record<string, unknown> }[];
    const chat = badJson.findLastIndex((s) => 'gen_ai.input.messages' in s.attributes);
    badJson[chat]!.attributes['gen_ai.input.messages'] = '[{"role": "user", "parts": [';
    expect(caught(() => parseTraces(JSON.stringify(badJson), 'spans.json')).message).toContain(
      `[${chat}].attributes["gen_ai.input.messages"]: not valid JSON`,
    );

    const otlp = structuredClone(run.otlp) as {
      resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[];
    };
    otlp.resourceSpans[0]!.scopeSpans[0]!.spans[1]!.startTimeUnixNano = 'yesterday';
    expect(caught(() => parseTraces(JSON.stringify(otlp), 'spans.json')).message).toContain(
      'resourceSpans[0].scopeSpans[0].spans[1].startTimeUnixNano',
    );

    // A JSONL export names the line.
    const lines = [JSON.stringify(run.otlp), JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{}] }] }] })];
    expect(caught(() => parseTraces(lines.join('\n'), 'spans.jsonl')).message).toContain('spans.jsonl:2');
  });
});
