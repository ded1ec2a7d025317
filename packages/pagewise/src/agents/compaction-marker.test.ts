import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { historyCompressor } from '../compression/history.js';
import { scriptedModel } from '../models/scripted.js';
import { promptCacheRulesFor } from '../tokens/cache-rules.js';
import { DEFAULT_PRICES } from '../tokens/prices.js';
import { callCostUsd, prefixRewriteCostUsd } from '../tokens/ledger.js';
import { Agent } from './agent.js';
import { Runner } from './runner.js';
import { tool } from './tool.js';

// A call whose request was compacted rewrote its prompt from the summary on: the ledger marks it, so the
// cost of the rewrite is visible beside the cache figures.
describe('ledger entries of compacted requests', () => {
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a record up.',
    inputSchema: z.object({ q: z.string() }),
    execute: ({ q }) => `record ${q}: ${'field value '.repeat(150)}`,
  });
  const instruction = `You look records up. ${'Quote the record you used. '.repeat(200)}`;
  const queries = Array.from({ length: 12 }, (_, i) => `q${i}`);
  const steps = [...queries.map((q) => ({ toolCalls: [{ toolName: 'lookup', input: { q } }] })), 'done'];

  it('marks exactly the calls whose request a compaction rewrote, and only those lose the cache past the instruction', async () => {
    const result = await new Runner({
      agent: new Agent({
        name: 'a',
        instruction,
        tools: [lookup],
        processors: [historyCompressor({ thresholdTokens: 1500, keepLastTurns: 1 })],
      }),
      model: scriptedModel(steps),
      promptCache: promptCacheRulesFor('openai', 'gpt-4.1')!,
    }).run({ userId: 'u', message: 'Look up q0 to q11.' });
    const entries = result.ledger.entries.filter((e) => e.kind === 'agent');
    const marked = entries.filter((e) => e.compactions !== undefined);
    const compactions = result.session.events.filter((e) => e.kind === 'compaction');
    expect(compactions.length).toBeGreaterThan(0);
    expect(marked.reduce((sum, e) => sum + (e.compactions ?? 0), 0)).toBe(compactions.length);
    // Batched: far fewer rewrites than calls past the threshold.
    expect(marked.length).toBeLessThan(entries.length / 2);
    const price = DEFAULT_PRICES['openai:gpt-4.1']!;
    entries.forEach((entry, index) => {
      const previous = entries[index - 1]?.cache!.modelled.promptTokens;
      const changed = entry.cache!.modelled.firstChangedToken;
      if (entry.compactions) {
        // The prompt changed inside the previous request, not past its end.
        expect(changed).toBeLessThan(previous!);
        expect(prefixRewriteCostUsd(entry, price)).toBeGreaterThan(0);
        expect(prefixRewriteCostUsd(entry, price)).toBeLessThanOrEqual(callCostUsd(entry, price));
      } else {
        expect(prefixRewriteCostUsd(entry, price)).toBe(0);
        if (index > 0) expect(changed).toBe(previous);
      }
    });
  });
});
