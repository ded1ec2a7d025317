import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agents/agent.js';
import { Runner } from '../agents/runner.js';
import { tool } from '../agents/tool.js';
import { measureRequest, STEP_BLOCK_HEADER, type ContextRequest } from '../context/request.js';
import { scriptedModel } from '../models/scripted.js';
import { billedPromptTokens, callCostUsd, summarizeLedger, type LedgerEntry } from './ledger.js';
import { DEFAULT_PRICES } from './prices.js';
import { countTokens, encodingForModel } from './tokenizer.js';

const request: ContextRequest = {
  instruction: [
    { part: 'instruction', text: 'You are an analyst. Answer briefly.' },
    { part: 'paged', text: '<page uri="a">Revenue grew 12% in 2025-Q3 to $4,200k.</page>' },
  ],
  items: [
    { type: 'user', text: 'What was the revenue?' },
    {
      type: 'assistant',
      text: 'Let me look.',
      toolCalls: [{ toolCallId: 'c1', toolName: 'lookup', input: { q: 'revenue', n: 3 } }],
    },
    {
      type: 'tool-result',
      toolCallId: 'c1',
      toolName: 'lookup',
      output: '{"revenue": 4200, "unit": "kUSD"}',
      isError: false,
    },
  ],
  tools: [
    {
      name: 'lookup',
      description: 'Looks a value up.',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    },
  ],
};

describe('token ledger', () => {
  it('counts a fixed request exactly as gpt-tokenizer counts its serialized segments', () => {
    // The serialization, written out by hand: each instruction section, each item as the model reads it,
    // each tool definition as JSON. The paged section goes in the step block after the history, whose
    // header line counts as instruction.
    const segments = {
      instruction: ['You are an analyst. Answer briefly.', STEP_BLOCK_HEADER],
      paged: ['<page uri="a">Revenue grew 12% in 2025-Q3 to $4,200k.</page>'],
      history: ['What was the revenue?', 'Let me look.\nlookup{"q":"revenue","n":3}'],
      observation: ['{"revenue": 4200, "unit": "kUSD"}'],
      tools: [
        '{"name":"lookup","description":"Looks a value up.","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}',
      ],
    };
    const expected = Object.fromEntries(
      Object.entries(segments).map(([k, v]) => [k, v.reduce((s, t) => s + encode(t).length, 0)]),
    );
    const measured = measureRequest(request);
    expect(measured.parts).toEqual(expected);
    expect(measured.total).toBe(Object.values(expected).reduce((a, b) => a + b, 0));
    // cl100k differs from o200k and is honoured when chosen.
    const cl = measureRequest(request, 'cl100k_base');
    expect(cl.parts.instruction).toBe(
      encodeCl100k(segments.instruction[0]!).length + encodeCl100k(segments.instruction[1]!).length,
    );
  });

  it('the runner records the same count for the request it sends', async () => {
    const lookup = tool({
      name: 'lookup',
      description: 'Looks a value up.',
      inputSchema: z.object({ q: z.string() }),
      execute: () => 'x',
    });
    const model = scriptedModel(['fine']);
    const result = await new Runner({
      agent: new Agent({ name: 'a', instruction: 'Be brief.', tools: [lookup] }),
      model,
    }).run({ userId: 'u', message: 'hello there' });
    const entry = result.ledger.entries[0]!;
    const toolJson = JSON.stringify({
      name: 'lookup',
      description: 'Looks a value up.',
      parameters:
        model.calls[0]!.tools![0]!.type === 'function'
          ? (model.calls[0]!.tools![0] as { inputSchema: unknown }).inputSchema
          : null,
    });
    expect(entry.parts.instruction).toBe(encode('Be brief.').length);
    expect(entry.parts.observation + entry.parts.history).toBe(encode('hello there').length);
    expect(entry.parts.tools).toBe(encode(toolJson).length);
    expect(entry.completionTokens).toBe(encode('fine').length);
  });

  it('chooses encodings per model', () => {
    expect(encodingForModel('gpt-4')).toBe('cl100k_base');
    expect(encodingForModel('gpt-3.5-turbo')).toBe('cl100k_base');
    expect(encodingForModel('gpt-4o-mini')).toBe('o200k_base');
    expect(encodingForModel('gpt-4.1')).toBe('o200k_base');
    expect(encodingForModel('claude-sonnet-4-5')).toBe('o200k_base');
  });

  it('caches counts by content and returns the same numbers', () => {
    const text = 'cached '.repeat(1000);
    expect(countTokens(text)).toBe(encode(text).length);
    expect(countTokens(text)).toBe(encode(text).length);
  });

  it('summarizes a hand-checked ledger: peak, cumulative, dependency, compressor cost', () => {
    const base = { agent: 'a', model: 'm', invocationId: 'i', modelMs: 0, at: 0 };
    const parts = (history: number, instruction: number) => ({
      instruction,
      paged: 0,
      history,
      observation: 0,
      tools: 0,
    });
    const entries: LedgerEntry[] = [
      {
        ...base,
        index: 0,
        kind: 'agent',
        parts: parts(60, 40),
        promptTokens: 100,
        completionTokens: 10,
        frameworkMs: 1,
      },
      {
        ...base,
        index: 1,
        kind: 'compressor',
        parts: parts(500, 0),
        promptTokens: 500,
        completionTokens: 50,
        frameworkMs: 0,
      },
      {
        ...base,
        index: 2,
        kind: 'agent',
        parts: parts(160, 40),
        promptTokens: 200,
        completionTokens: 20,
        frameworkMs: 3,
      },
    ];
    const summary = summarizeLedger(entries);
    expect(summary.modelCalls).toBe(3);
    expect(summary.compressorCalls).toBe(1);
    expect(summary.peakPromptTokens).toBe(200);
    expect(summary.peakPromptTokensNoSystem).toBe(160);
    expect(summary.cumulativePromptTokens).toBe(300);
    expect(summary.completionTokens).toBe(30);
    expect(summary.compressorTokens).toBe(550);
    // (100 + 2*10)*10/2 + (200 + 2*20)*20/2 = 600 + 2400
    expect(summary.dependency).toBe(3000);
    expect(summary.medianFrameworkMs).toBe(2);
  });
});

describe('cost with the prompt cache', () => {
  const base: LedgerEntry = {
    index: 0,
    kind: 'agent',
    agent: 'a',
    model: 'm',
    invocationId: 'i',
    parts: { instruction: 0, paged: 0, history: 10_000, observation: 0, tools: 0 },
    promptTokens: 10_000,
    completionTokens: 1_000,
    modelMs: 0,
    frameworkMs: 0,
    at: 0,
  };
  const modelled = {
    rules: 'anthropic-1024',
    promptTokens: 10_000,
    readTokens: 6_000,
    writeTokens: 3_000,
    writeLongTtlTokens: 1_000,
    uncachedTokens: 1_000,
    firstChangedToken: 6_100,
  };
  const sonnet = DEFAULT_PRICES['anthropic:claude-sonnet-4-5']!;

  it('prices reads, short and long writes and uncached tokens each at their own price', () => {
    const usd = callCostUsd({ ...base, cache: { modelled } }, sonnet);
    // 1k uncached at $3, 6k read at $0.30, 2k written for 5 min at $3.75, 1k for 1 h at $6, 1k out at $15.
    expect(usd).toBeCloseTo((1_000 * 3 + 6_000 * 0.3 + 2_000 * 3.75 + 1_000 * 6 + 1_000 * 15) / 1e6, 12);
  });

  it('bills what the provider reported over the model, and every token at the input price without either', () => {
    const reported = { ...base, providerPromptTokens: 10_200, cache: { modelled, reported: { readTokens: 9_000 } } };
    expect(billedPromptTokens(reported)).toEqual({ read: 9_000, write: 0, writeLong: 0, uncached: 1_200 });
    expect(billedPromptTokens(base)).toEqual({ read: 0, write: 0, writeLong: 0, uncached: 10_000 });
    expect(callCostUsd(base, { inputPerMTok: 2, outputPerMTok: 8 })).toBeCloseTo((10_000 * 2 + 1_000 * 8) / 1e6, 12);
  });

  it('reads an old price table (no cache prices) as cache reads and writes at the input price', () => {
    const old = { inputPerMTok: 3, outputPerMTok: 15 };
    expect(callCostUsd({ ...base, cache: { modelled } }, old)).toBeCloseTo(callCostUsd(base, old), 12);
  });

  it('gives the hit rate over the agent calls that carry cache figures', () => {
    const summary = summarizeLedger([
      { ...base, cache: { modelled } },
      {
        ...base,
        index: 1,
        cache: {
          modelled: { ...modelled, readTokens: 0, writeTokens: 0, writeLongTtlTokens: 0, uncachedTokens: 10_000 },
        },
      },
      { ...base, index: 2, kind: 'compressor' },
    ]);
    expect(summary.cacheHitRate).toBeCloseTo(6_000 / 20_000, 12);
    expect(summary.cacheReadTokens).toBe(6_000);
    expect(summary.cacheWriteTokens).toBe(3_000);
    expect(summarizeLedger([base]).cacheHitRate).toBeNull();
  });
});
