import type { LanguageModelV3FunctionTool, LanguageModelV3Message } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { promptCacheRulesFor } from './cache-rules.js';
import { PromptCache } from './prompt-cache.js';
import { locatePromptToken } from './prompt-locate.js';
import { promptSegments } from './prompt-segments.js';
import { countTokens } from './tokenizer.js';

const TOOLS: LanguageModelV3FunctionTool[] = [
  { type: 'function', name: 'lookup', description: 'Looks up an order.', inputSchema: { type: 'object' } },
  { type: 'function', name: 'save', description: 'Saves a result.', inputSchema: { type: 'object' } },
];

const history = (answer: string): LanguageModelV3Message[] => [
  { role: 'system', content: 'You answer questions about orders. '.repeat(20) },
  { role: 'user', content: [{ type: 'text', text: 'Which orders shipped late?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Looking ' },
      { type: 'text', text: 'them up.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { id: 'o1' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'lookup', input: { id: 'o2' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'text', value: 'o1: on time' } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'lookup', output: { type: 'text', value: answer } },
    ],
  },
];

describe('locatePromptToken', () => {
  it('names the tool, message and part of every segment start, as promptSegments lays them out', () => {
    const prompt = history('o2: late by two days');
    const segments = promptSegments(prompt, TOOLS);
    const starts: number[] = [];
    let at = 0;
    for (const segment of segments) {
      starts.push(at);
      at += segment.tokens.length;
    }
    const where = starts.map((start) => {
      const located = locatePromptToken(prompt, TOOLS, start);
      return [
        located.kind,
        located.index,
        located.role ?? '',
        located.part,
        located.partIndex,
        located.name ?? '',
        located.offset,
        located.text,
      ];
    });
    expect(where).toEqual([
      ['tool', 0, '', 'tool', -1, 'lookup', 0, segments[0]!.text],
      ['tool', 1, '', 'tool', -1, 'save', 0, segments[1]!.text],
      ['message', 0, 'system', 'system', -1, '', 0, segments[2]!.text],
      ['message', 1, 'user', 'text', 0, '', 0, 'Which orders shipped late?'],
      ['message', 2, 'assistant', 'text', 0, '', 0, 'Looking them up.'],
      ['message', 2, 'assistant', 'tool-call', 2, 'lookup', 0, segments[5]!.text],
      ['message', 2, 'assistant', 'tool-call', 3, 'lookup', 0, segments[6]!.text],
      ['message', 3, 'tool', 'tool-result', 0, 'lookup', 0, 'o1: on time'],
      ['message', 3, 'tool', 'tool-result', 1, 'lookup', 0, 'o2: late by two days'],
    ]);
    const end = locatePromptToken(prompt, TOOLS, at);
    expect([end.kind, end.part, end.segmentStart, end.offset]).toEqual(['end', 'end', at, 0]);
  });

  it('locates the first token the prompt-cache model says changed, and the character it starts at', () => {
    const cache = new PromptCache(promptCacheRulesFor('openai', 'gpt-4.1')!);
    cache.observePrompt('s', history('o2: late by two days, said the carrier'), TOOLS, 0);
    const changed = history('o2: late by two weeks, said the carrier');
    const usage = cache.observePrompt('s', changed, TOOLS, 1);
    const where = locatePromptToken(changed, TOOLS, usage.firstChangedToken);
    expect([where.kind, where.index, where.part, where.partIndex]).toEqual(['message', 3, 'tool-result', 1]);
    expect(where.text.slice(where.charOffset)).toBe(' weeks, said the carrier');
    // The offset in the segment is the tokens of the text before that character.
    expect(where.offset).toBe(countTokens(where.text.slice(0, where.charOffset)));
  });

  it('refuses a position that is not a non-negative integer', () => {
    expect(() => locatePromptToken(history('x'), TOOLS, -1)).toThrow(/non-negative integer/);
    expect(() => locatePromptToken(history('x'), TOOLS, 1.5)).toThrow(/non-negative integer/);
  });
});
