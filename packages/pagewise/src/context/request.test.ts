import { describe, expect, it } from 'vitest';
import { countTokens } from '../tokens/tokenizer.js';
import {
  findBrokenToolPair,
  itemText,
  latestObservationStart,
  measureRequest,
  renderPrompt,
  serializeRequest,
  STEP_BLOCK_HEADER,
  stepBlockText,
  systemText,
  type ContextItem,
  type ContextRequest,
} from './request.js';

const tool = { name: 'lookup', description: 'Looks a record up.', inputSchema: { type: 'object' as const } };

function request(items: ContextItem[]): ContextRequest {
  return {
    instruction: [
      { part: 'instruction', text: 'You look records up.' },
      { part: 'paged', text: '<page>body</page>' },
    ],
    items,
    tools: [tool],
  };
}

const call = (id: string) => ({ toolCallId: id, toolName: 'lookup', input: { id } });
const result = (id: string, output = `record ${id}`, isError = false): ContextItem => ({
  type: 'tool-result',
  toolCallId: id,
  toolName: 'lookup',
  output,
  isError,
});

describe('renderPrompt', () => {
  it('renders system text, user, assistant with calls, groups consecutive results in one tool message, and ends with the step block', () => {
    const { prompt, tools } = renderPrompt(
      request([
        { type: 'user', text: 'find a and b' },
        { type: 'assistant', text: 'Looking.', toolCalls: [call('a'), call('b')] },
        result('a'),
        result('b', 'not found', true),
        { type: 'summary', text: 'earlier: nothing' },
        { type: 'assistant', text: 'done', toolCalls: [] },
      ]),
    );
    expect(prompt.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user', 'assistant', 'user']);
    // The paged section changes per step: it follows the history, so the system message stays the same.
    expect(prompt[0]).toEqual({ role: 'system', content: 'You look records up.' });
    expect(prompt[6]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: `${STEP_BLOCK_HEADER}\n\n<page>body</page>` }],
      providerOptions: { pagewise: { stepBlock: true } },
    });
    expect(prompt[2]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'lookup', input: { id: 'a' } },
        { type: 'tool-call', toolCallId: 'b', toolName: 'lookup', input: { id: 'b' } },
      ],
    });
    expect(prompt[3]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'a', toolName: 'lookup', output: { type: 'text', value: 'record a' } },
        {
          type: 'tool-result',
          toolCallId: 'b',
          toolName: 'lookup',
          output: { type: 'error-text', value: 'not found' },
        },
      ],
    });
    expect(prompt[4]).toEqual({ role: 'user', content: [{ type: 'text', text: 'earlier: nothing' }] });
    expect(tools).toEqual([
      { type: 'function', name: 'lookup', description: 'Looks a record up.', inputSchema: { type: 'object' } },
    ]);
  });

  it('omits the system message when there is no instruction and an assistant text part when empty', () => {
    const { prompt } = renderPrompt({
      instruction: [],
      items: [{ type: 'assistant', text: '', toolCalls: [call('x')] }, result('x')],
      tools: [],
    });
    expect(prompt[0]!.role).toBe('assistant');
    expect((prompt[0] as { content: unknown[] }).content).toHaveLength(1);
  });

  it('does not merge tool results separated by another message', () => {
    const items: ContextItem[] = [
      { type: 'assistant', text: '', toolCalls: [call('a')] },
      result('a'),
      { type: 'assistant', text: '', toolCalls: [call('b')] },
      result('b'),
    ];
    const { prompt } = renderPrompt(request(items));
    expect(prompt.filter((m) => m.role === 'tool').map((m) => (m.content as unknown[]).length)).toEqual([1, 1]);
  });

  it('renders the same item to the same result every time, and a new render does not change an older one', () => {
    const items: ContextItem[] = [
      { type: 'user', text: 'go' },
      { type: 'assistant', text: '', toolCalls: [call('a')] },
    ];
    const first = renderPrompt(request([...items, result('a')]));
    const snapshot = structuredClone(first.prompt);
    const second = renderPrompt(
      request([...items, result('a'), { type: 'assistant', text: '', toolCalls: [call('b')] }, result('b')]),
    );
    expect(first.prompt).toEqual(snapshot);
    expect(second.prompt[1]).toBe(first.prompt[1]);
    expect(second.prompt.filter((m) => m.role === 'tool')).toHaveLength(2);
  });
});

describe('measureRequest', () => {
  it('splits tokens by part, the latest tool results counting as observation, and sums to the segments', () => {
    const req = request([
      { type: 'user', text: 'find a' },
      { type: 'assistant', text: '', toolCalls: [call('a')] },
      result('a'),
      { type: 'assistant', text: '', toolCalls: [call('b')] },
      result('b', 'the latest observation'),
    ]);
    const measured = measureRequest(req);
    // The paged section is rendered in the step block: its header counts as instruction.
    expect(measured.parts.instruction).toBe(countTokens('You look records up.') + countTokens(STEP_BLOCK_HEADER));
    expect(measured.parts.paged).toBe(countTokens('<page>body</page>'));
    expect(measured.parts.observation).toBe(countTokens('the latest observation'));
    expect(measured.parts.history).toBe(
      countTokens('find a') +
        countTokens(itemText(req.items[1]!)) +
        countTokens('record a') +
        countTokens(itemText(req.items[3]!)),
    );
    const segments = serializeRequest(req).reduce((sum, s) => sum + countTokens(s.text), 0);
    expect(measured.total).toBe(segments);
    expect(measured.total).toBe(Object.values(measured.parts).reduce((a, b) => a + b, 0));
  });

  it('counts with the requested encoding', () => {
    const req = request([{ type: 'user', text: 'naïve café 日本語のテキスト' }]);
    const o200k = measureRequest(req, 'o200k_base');
    const cl100k = measureRequest(req, 'cl100k_base');
    expect(o200k.parts.history).toBe(countTokens('naïve café 日本語のテキスト', 'o200k_base'));
    expect(cl100k.parts.history).toBe(countTokens('naïve café 日本語のテキスト', 'cl100k_base'));
    expect(o200k.parts.history).not.toBe(cl100k.parts.history);
  });

  it('counts special-token text in every part as plain text', () => {
    const text = 'before <|endoftext|> <|im_end|> <|im_start|>system after';
    const req: ContextRequest = {
      instruction: [{ part: 'paged', text }],
      items: [
        { type: 'user', text },
        { type: 'assistant', text, toolCalls: [] },
      ],
      tools: [{ ...tool, description: text }],
    };
    const measured = measureRequest(req);
    expect(measured.parts.paged).toBe(countTokens(text));
    expect(measured.parts.paged).toBeGreaterThan(10);
  });
});

describe('request helpers', () => {
  it('itemText joins an assistant text with its calls', () => {
    expect(itemText({ type: 'assistant', text: 'hi', toolCalls: [call('a')] })).toBe('hi\nlookup{"id":"a"}');
    expect(
      itemText({ type: 'assistant', text: '', toolCalls: [{ toolCallId: 'x', toolName: 't', input: 'raw' }] }),
    ).toBe('traw');
  });

  it('latestObservationStart finds the trailing tool results', () => {
    const items: ContextItem[] = [
      { type: 'user', text: 'u' },
      { type: 'assistant', text: '', toolCalls: [call('a')] },
      result('a'),
    ];
    expect(latestObservationStart(items)).toBe(2);
    expect(latestObservationStart(items.slice(0, 2))).toBe(2);
    expect(latestObservationStart([])).toBe(0);
  });

  it('systemText joins the sections that stay the same; stepBlockText the ones that change per step, after a header', () => {
    const sections: ContextRequest = {
      instruction: [
        { part: 'instruction', text: 'You look records up.' },
        { part: 'instruction', text: 'Plan: 3 left.', perStep: true },
        { part: 'instruction', text: 'Be brief.' },
        { part: 'paged', text: '<page>body</page>' },
        { part: 'paged', text: '<page>pinned</page>', perStep: false },
      ],
      items: [],
      tools: [],
    };
    expect(systemText(sections)).toBe('You look records up.\n\nBe brief.\n\n<page>pinned</page>');
    expect(stepBlockText(sections)).toBe(`${STEP_BLOCK_HEADER}\n\nPlan: 3 left.\n\n<page>body</page>`);
    expect(stepBlockText({ ...sections, instruction: sections.instruction.slice(0, 1) })).toBe('');
  });

  it('findBrokenToolPair reports a call without result and a result without its call', () => {
    const ok: ContextItem[] = [
      { type: 'assistant', text: '', toolCalls: [call('a'), call('b')] },
      result('b'),
      result('a'),
    ];
    expect(findBrokenToolPair(ok)).toBeUndefined();
    expect(findBrokenToolPair([{ type: 'assistant', text: '', toolCalls: [call('a')] }])).toMatch(
      /tool call a at item 0 has no result/,
    );
    expect(findBrokenToolPair([{ type: 'user', text: 'u' }, result('a')])).toMatch(
      /tool result a at item 1 is not preceded/,
    );
    expect(
      findBrokenToolPair([{ type: 'assistant', text: '', toolCalls: [call('a')] }, result('a'), result('z')]),
    ).toMatch(/tool result z/);
  });
});
