/**
 * The ledger summary reads alike wherever a user meets it: `result.ledger.summary` of a run and
 * `compression.ledger.summary` of the AI SDK middleware are both properties, and both count the compressions
 * made, the extractive ones (which make no model call) included.
 */
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool as aiTool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agents/agent.js';
import { Runner } from '../agents/runner.js';
import { tool } from '../agents/tool.js';
import { scriptedModel } from '../models/scripted.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import { Ledger } from '../tokens/ledger.js';
import { countTokens } from '../tokens/tokenizer.js';
import { compressionMiddleware } from './middleware.js';
import { observationCompressor } from './observation.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const step = (content: LanguageModelV3GenerateResult['content']): LanguageModelV3GenerateResult => ({
  content,
  finishReason: { unified: content.some((p) => p.type === 'tool-call') ? 'tool-calls' : 'stop', raw: undefined },
  usage,
  warnings: [],
});

// A report of about two thousand tokens: sentences a question picks from.
const REPORT = Array.from(
  { length: 90 },
  (_, index) =>
    `Region ${index} reported revenue of ${1_000 + index * 7} thousand and a margin of ${index % 9}.5% in the quarter.`,
).join('\n');

describe('the ledger summary', () => {
  it('AI SDK middleware: an extractive compression is counted in compressions, read as a property', async () => {
    expect(countTokens(REPORT)).toBeGreaterThan(1_500);
    const compression = compressionMiddleware({ history: false });
    const model = new MockLanguageModelV3({
      doGenerate: [
        step([{ type: 'tool-call', toolCallId: 'c1', toolName: 'get_report', input: '{}' }]),
        step([{ type: 'text', text: 'done' }]),
      ],
    });
    await generateText({
      model: wrapLanguageModel({ model, middleware: compression }),
      tools: {
        get_report: aiTool({ description: 'The report.', inputSchema: z.object({}), execute: async () => REPORT }),
      },
      prompt: 'What was the margin of region 7?',
      stopWhen: stepCountIs(3),
    });
    const summary = compression.ledger.summary;
    expect(summary.compressions).toBe(1);
    // The extractive backend made no model call.
    expect(summary.compressorCalls).toBe(0);
    expect(compression.ledger.compressions).toEqual([
      expect.objectContaining({ target: 'observation', backend: 'extractive', inputTokens: countTokens(REPORT) }),
    ]);
    expect(compression.ledger.compressions[0]!.outputTokens).toBeLessThan(countTokens(REPORT));
  });

  it('runner: result.ledger.summary and the shared ledger count the same compressions', async () => {
    const shared = new Ledger();
    const report = tool({
      name: 'get_report',
      description: 'The report.',
      inputSchema: z.object({}),
      execute: () => REPORT,
    });
    const runner = new Runner({
      agent: new Agent({ name: 'analyst', tools: [report] }),
      model: scriptedModel([{ toolCalls: [{ toolName: 'get_report', input: {} }] }, 'done']),
      store: new InMemorySessionStore(),
      ledger: shared,
      observationProcessors: [observationCompressor({ compressor: 'extractive' })],
    });
    const result = await runner.run({
      userId: 'u',
      sessionId: 's',
      message: 'Margin of region 7?',
    });
    expect(result.ledger.summary.compressions).toBe(1);
    expect(result.ledger.summary.compressorCalls).toBe(0);
    expect(shared.summary.compressions).toBe(1);
    expect(shared.summary.modelCalls).toBe(result.ledger.summary.modelCalls);
  });

  it('a Ledger summary is a property that serializes as the plain summary; the old call still works', () => {
    const ledger = new Ledger();
    ledger.recordCompression({
      target: 'history',
      backend: 'extractive',
      agent: 'a',
      invocationId: 'i',
      inputTokens: 900,
      outputTokens: 300,
      at: 0,
    });
    const plain = JSON.parse(JSON.stringify({ summary: ledger.summary })) as { summary: Record<string, unknown> };
    expect(plain.summary).toEqual({ ...ledger.summary });
    expect(plain.summary.compressions).toBe(1);
    expect(plain.summary.modelCalls).toBe(0);
    // Deprecated for one release: `ledger.summary()` returns the same figures.
    expect(ledger.summary()).toEqual({ ...ledger.summary });
  });
});
