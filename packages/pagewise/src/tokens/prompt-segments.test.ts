import type { LanguageModelV3FunctionTool, LanguageModelV3Message } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { promptCacheRulesFor } from './cache-rules.js';
import { PromptCache } from './prompt-cache.js';
import { promptSegments, stableJson } from './prompt-segments.js';
import { encodeTokens } from './tokenizer.js';

const TOOL: LanguageModelV3FunctionTool = {
  type: 'function',
  name: 'lookup',
  description: 'Looks up.',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
};
const ephemeral = (ttl?: '1h') => ({ anthropic: { cacheControl: { type: 'ephemeral', ...(ttl ? { ttl } : {}) } } });

describe('promptSegments', () => {
  it('serializes tools, then the system, then the messages, JSON with sorted keys', () => {
    const prompt: LanguageModelV3Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Find o1.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking' },
          { type: 'text', text: ' it up.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { z: 1, a: [{ y: 2, b: 3 }] } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'json', value: { ok: true } } },
        ],
      },
    ];
    const segments = promptSegments(prompt, [TOOL]);
    expect(segments.map((s) => s.text)).toEqual([
      '{"description":"Looks up.","name":"lookup","parameters":{"properties":{"id":{"type":"string"}},"type":"object"}}',
      'Be brief.',
      'Find o1.',
      'Looking it up.',
      'lookup{"a":[{"b":3,"y":2}],"z":1}',
      '{"ok":true}',
    ]);
    for (const segment of segments) expect(Array.from(segment.tokens)).toEqual(encodeTokens(segment.text));
    expect(stableJson({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
  });

  it('reads Anthropic cacheControl options of tools, parts and messages as breakpoints', () => {
    const prompt: LanguageModelV3Message[] = [
      { role: 'system', content: 'Static.', providerOptions: ephemeral('1h') },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b', providerOptions: ephemeral() },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'c' },
          { type: 'text', text: 'd' },
        ],
        providerOptions: ephemeral(),
      },
    ];
    const segments = promptSegments(prompt, [{ ...TOOL, providerOptions: ephemeral() }]);
    expect(segments.map((s) => s.breakpoint)).toEqual(['short', 'long', undefined, 'short', undefined, 'short']);
  });
});

describe('PromptCache.observePrompt', () => {
  it('gives what observe gives on the segments, as Anthropic breakpoints move along a growing history', () => {
    const rules = promptCacheRulesFor('anthropic', 'claude-sonnet-4-5')!;
    const byMessage = new PromptCache(rules);
    const bySegment = new PromptCache(rules);
    const manual = Array.from({ length: 400 }, (_, index) => `rule ${index}: keep the ids`).join('\n');
    const history: LanguageModelV3Message[] = [];
    for (let turn = 0; turn < 12; turn += 1) {
      history.push({
        role: 'user',
        content: [{ type: 'text', text: `question ${turn} ${'detail '.repeat(turn * 7)}` }],
      });
      // The breakpoint sits on the last message, so it moves forward at every turn, as a caller sets it.
      const last = history.length - 1;
      const prompt: LanguageModelV3Message[] = [
        { role: 'system', content: manual, providerOptions: ephemeral() },
        ...history.map((message, index) => (index === last ? { ...message, providerOptions: ephemeral() } : message)),
      ];
      const at = turn * 1000;
      const modelled = bySegment.observe('s', promptSegments(prompt, [TOOL]), at);
      expect(byMessage.observePrompt('s', prompt, [TOOL], at)).toEqual(modelled);
      if (turn > 0) expect(modelled.readTokens).toBeGreaterThan(0);
      history.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${turn}` }] });
    }
  });
});
