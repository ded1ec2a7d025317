import { describe, expect, it } from 'vitest';
import { STEP_BLOCK_HEADER } from '../context/request.js';
import { STEP_BLOCK_MARK } from '../models/step-block.js';
import { countTokens } from '../tokens/tokenizer.js';
import { renderFencedPages } from '../paging/fence.js';
import { measureCallOptions, splitSystem } from './measure.js';

const INSTRUCTION = 'You analyze reports.\nAnswer with figures.';
const pages = [
  { uri: 'reports/a.md', title: 'A', body: 'Revenue grew 12% to 4.1m.' },
  { uri: 'reports/b.md', title: 'B', body: 'Costs fell.' },
];

describe('splitSystem', () => {
  it('splits a rendered system text at the fenced block the paging service writes', () => {
    const block = renderFencedPages(pages).text;
    const parts = splitSystem(`${INSTRUCTION}\n\n${block}`);
    expect(parts.map((p) => p.part)).toEqual(['instruction', 'paged']);
    expect(parts[0]!.text).toBe(INSTRUCTION);
    expect(parts[1]!.text).toBe(block);
  });

  it('keeps a text without a fenced block as instruction, and an empty text as nothing', () => {
    expect(splitSystem(INSTRUCTION)).toEqual([{ part: 'instruction', text: INSTRUCTION }]);
    expect(splitSystem('')).toEqual([]);
  });

  it('counts paged tokens separately from the instruction in an AI SDK request', () => {
    const block = renderFencedPages(pages).text;
    const withPages = measureCallOptions({
      prompt: [
        { role: 'system', content: `${INSTRUCTION}\n\n${block}` },
        { role: 'user', content: [{ type: 'text', text: 'Go.' }] },
      ],
    });
    const without = measureCallOptions({
      prompt: [
        { role: 'system', content: INSTRUCTION },
        { role: 'user', content: [{ type: 'text', text: 'Go.' }] },
      ],
    });
    expect(withPages.parts.paged).toBeGreaterThan(0);
    expect(withPages.parts.instruction).toBe(without.parts.instruction);
    expect(without.parts.paged).toBe(0);
  });

  it('counts the step block after the history as instruction and paged content, not as a user turn', () => {
    const block = renderFencedPages(pages).text;
    const user = { role: 'user' as const, content: [{ type: 'text' as const, text: 'Go.' }] };
    const inSystem = measureCallOptions({
      prompt: [{ role: 'system', content: `${INSTRUCTION}\n\n${block}` }, user],
    });
    const inStepBlock = measureCallOptions({
      prompt: [
        { role: 'system', content: INSTRUCTION },
        user,
        {
          role: 'user',
          content: [{ type: 'text', text: `${STEP_BLOCK_HEADER}\n\n${block}` }],
          providerOptions: STEP_BLOCK_MARK,
        },
      ],
    });
    expect(inStepBlock.parts.paged).toBe(inSystem.parts.paged);
    expect(inStepBlock.parts.history + inStepBlock.parts.observation).toBe(
      inSystem.parts.history + inSystem.parts.observation,
    );
    expect(inStepBlock.parts.instruction).toBe(inSystem.parts.instruction + countTokens(STEP_BLOCK_HEADER));
  });
});
