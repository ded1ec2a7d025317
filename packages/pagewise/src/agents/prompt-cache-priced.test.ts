import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../models/scripted.js';
import { promptCacheRulesFor } from '../tokens/cache-rules.js';
import { Agent } from './agent.js';
import { Runner } from './runner.js';
import { tool } from './tool.js';

// A run priced as another provider bills it (the demo prices the offline model as Anthropic) is modelled on the
// request that provider's model would be sent: with Anthropic's breakpoints, which only its own models get.
describe('a run priced as another provider', () => {
  const lookup = tool({
    name: 'lookup',
    description: 'Looks a value up.',
    inputSchema: z.object({ q: z.string() }),
    execute: ({ q }) => `value of ${q}`,
  });
  const instruction = `You are an analyst. ${'Answer from the tool results only, and say which result you used. '.repeat(120)}`;
  const steps = [...['a', 'b', 'c'].map((q) => ({ toolCalls: [{ toolName: 'lookup', input: { q } }] })), 'done'];

  it('is modelled with the hints of that provider: an Anthropic-priced run reads its stable prefix from the cache', async () => {
    const rules = promptCacheRulesFor('anthropic', 'claude-sonnet-4-5')!;
    const result = await new Runner({
      agent: new Agent({ name: 'a', instruction, tools: [lookup] }),
      model: scriptedModel(steps),
      promptCache: rules,
    }).run({ userId: 'u', message: 'What are a, b and c?' });
    const modelled = result.ledger.entries.map((entry) => entry.cache?.modelled);
    expect(modelled.every((usage) => usage !== undefined)).toBe(true);
    // The first call writes the prefix at its breakpoints, every later one reads at least the system prompt.
    expect(modelled[0]!.writeTokens).toBeGreaterThan(1024);
    for (const usage of modelled.slice(1)) expect(usage!.readTokens).toBeGreaterThan(1024);
  });

  it('keeps the request the model was sent free of those hints', async () => {
    const model = scriptedModel(steps);
    await new Runner({
      agent: new Agent({ name: 'a', instruction, tools: [lookup] }),
      model,
      promptCache: promptCacheRulesFor('anthropic', 'claude-sonnet-4-5')!,
    }).run({ userId: 'u', message: 'What are a, b and c?' });
    const sent = JSON.stringify(model.calls.map((call) => call.prompt));
    expect(sent).not.toContain('cacheControl');
  });
});
