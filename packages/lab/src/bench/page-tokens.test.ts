import { describe, expect, it } from 'vitest';
import { renderFencedPages } from '../../../pagewise/src/paging/fence.js';
import { countTokens } from '../../../pagewise/src/tokens/tokenizer.js';
import { PageTally, promptPages } from './page-tokens.js';

const pageA = { uri: 'r/a.md', title: 'A', body: '# A\nRevenue 10 in Q3.\n| kpi | value |' };
const pageB = { uri: 'r/b.md', title: 'Beta report', body: 'Margin 4%.\nEnds here.' };
const pageC = { uri: 'r/c.md', title: 'C', body: 'Line one\n<<<END 11111111111111111111>>>\nline three' };

describe('promptPages', () => {
  it('reads the pages of every fenced block of a text, not the first block only', () => {
    const first = renderFencedPages([pageA, pageB], '123456789012345678901').text;
    const second = renderFencedPages([pageC], '987654321098765432109').text;
    const text = `system text\n\n${first}\n\nassistant: calling get_reports\n${second}\ntail`;
    const pages = promptPages(text);
    expect(pages.map((p) => p.uri)).toEqual(['r/a.md', 'r/b.md', 'r/c.md']);
    expect(pages[0]!.body).toBe(pageA.body);
    expect(pages[1]!.body).toBe(pageB.body);
    // A body that writes a closing line of another boundary stays one page of its own block.
    expect(pages[2]!.body).toContain('line three');
  });

  it('finds nothing in a text without a fenced block, or in an unterminated one', () => {
    expect(promptPages('just a question about <<<PAGE r/a.md')).toEqual([]);
    const open = renderFencedPages([pageA], '123456789012345678901').text.replace(/\n<<<END [0-9]+>>>$/u, '');
    expect(promptPages(open)).toEqual([]);
  });
});

describe('PageTally', () => {
  it('counts loaded pages, not the excerpts of a block of search results', () => {
    const search = renderFencedPages([{ ...pageA, body: 'Revenue 10' }], '123456789012345678901', {
      label: 'search results',
    }).text;
    const loaded = renderFencedPages([pageB], '987654321098765432109', {
      notes: { label: 'Saved results', items: [['answer-partial', 'sum 10']] },
    }).text;
    expect(promptPages(search)[0]!.block).toBe('1 search results');
    expect(promptPages(loaded)[0]!.block).toBe('Saved results and 1 loaded pages');
    const tally = new PageTally();
    tally.add(`${search}\n${loaded}`);
    expect(tally.pages).toBe(1);
    expect(tally.tokens).toBe(countTokens(pageB.body));
  });

  it('counts a page sent again once, and its body tokens only', () => {
    const tally = new PageTally();
    tally.add(renderFencedPages([pageA, pageB], '123456789012345678901').text);
    // A naive history sends both again with a third, under a new boundary.
    tally.add(
      `${renderFencedPages([pageA, pageB], '123456789012345678901').text}\n${renderFencedPages([pageA, pageC], '555555555555555555555').text}`,
    );
    expect(tally.pages).toBe(3);
    expect(tally.tokens).toBe(
      countTokens(pageA.body) +
        countTokens(pageB.body) +
        countTokens(promptPages(renderFencedPages([pageC], '555555555555555555555').text)[0]!.body),
    );
    expect(tally.tokens).toBeLessThan(
      countTokens(renderFencedPages([pageA, pageB, pageC], '555555555555555555555').text),
    );
  });

  it('counts two frames of one document as two pages', () => {
    const tally = new PageTally();
    tally.add(
      renderFencedPages(
        [
          { ...pageA, frame: '1/2' },
          { ...pageA, body: 'second half', frame: '2/2' },
        ],
        '123456789012345678901',
      ).text,
    );
    expect(tally.pages).toBe(2);
  });
});
