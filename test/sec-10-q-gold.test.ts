/**
 * How the sec-10-q benchmark derives gold pages from reference answers, on small synthetic answers and pages (never
 * the dataset's own): which strings are figures, which pages hold them, the label a figure stands beside, the split.
 */
import { describe, expect, it } from 'vitest';
import {
  amountOf,
  answerFigures,
  answerLineAmount,
  goldPages,
  holdsFigureWithLabel,
  labelOf,
  namedDocuments,
  pageHolds,
  sameAmount,
  singleAmount,
  splitOf,
} from '../bench/sec-10-q-gold.js';

const forms = (answer: string) => answerFigures(answer).map((figure) => figure.forms);

describe('answerFigures', () => {
  it('takes grouped, decimal, currency, scaled and percent figures', () => {
    expect(forms('Total net sales were $82,959 million, and 117,154 the quarter after.')).toEqual([
      ['82,959'],
      ['117,154'],
    ]);
    expect(forms('Gross margin was 43.3% of sales.')).toEqual([['43.3']]);
    expect(forms('Capital spending was $300 million.')).toEqual([['300']]);
  });

  it('adds the millions a table prints for a figure in billions', () => {
    expect(forms('Revenue rose to $1.2 billion.')).toEqual([['1.2', '1,200']]);
  });

  it('leaves out years, dates, quarter and note numbers and small bare integers', () => {
    expect(forms('In the quarter ended July 1, 2023 (2023 Q3 AAPL.pdf), see Note 12 and item 2.')).toEqual([]);
    expect(forms('As of 2023-07-01 the count was 12.')).toEqual([]);
  });

  it('lists a figure written twice once', () => {
    expect(forms('$5,001 million in Q1 and again $5,001 million in Q2')).toEqual([['5,001']]);
  });
});

describe('pageHolds', () => {
  const [figure] = answerFigures('$1,577 million');
  it('matches the number printed alone or in parentheses', () => {
    expect(pageHolds('Other income (1,577) 2,001', figure!)).toBe(true);
    expect(pageHolds('Other income $ 1,577', figure!)).toBe(true);
  });
  it('never matches inside a longer number', () => {
    expect(pageHolds('Total 21,577 and 1,577.5', figure!)).toBe(false);
    expect(pageHolds('Total 1,577,000', figure!)).toBe(false);
  });
});

describe('goldPages', () => {
  const pages = [
    { uri: 'q3.pdf#1', body: 'Apple Inc. Form 10-Q\nQuarterly period ended June 25, 2022' },
    {
      uri: 'q3.pdf#4',
      body: 'CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS\nTotal net sales 82,959 83,000\nCost of sales 47,074',
    },
    { uri: 'q3.pdf#9', body: 'Net sales by category\nTotal net sales $ 82,959' },
  ];

  it('gives the pages that hold the most figures, each figure with the label it stands beside', () => {
    const gold = goldPages('Total net sales were $82,959 million and cost of sales $47,074 million.', pages);
    expect(gold.pages).toEqual(['q3.pdf#4']);
    expect(gold.found.map((found) => [found.figure.text, found.label])).toEqual([
      ['$82,959 million', 'total net sales'],
      ['$47,074 million', 'cost of sales'],
    ]);
  });

  it('keeps every page tied for the most figures', () => {
    expect(goldPages('Net sales were $82,959 million.', pages).pages).toEqual(['q3.pdf#4', 'q3.pdf#9']);
  });

  it('gives no gold page when no figure of the answer is on any page', () => {
    const gold = goldPages('Net sales were $99,999 million.', pages);
    expect(gold.figures).toHaveLength(1);
    expect(gold.pages).toEqual([]);
    expect(goldPages('Demand was weak in Greater China.', pages)).toEqual({ figures: [], pages: [], found: [] });
  });
});

describe('labelOf and holdsFigureWithLabel', () => {
  const [figure] = answerFigures('$2,345 million');
  it('takes the label from the nearest line above when the figure stands alone on its line', () => {
    expect(labelOf('Purchases of property, plant\nand equipment\n(2,345) (1,987)', figure!)).toBe('and equipment');
  });
  it('takes at most six words before the figure on its line', () => {
    expect(labelOf('As of June 24, 2023 we had issued and outstanding notes of $2,345 million in total', figure!)).toBe(
      'had issued and outstanding notes of',
    );
    expect(labelOf('Prior line\nCost of sales 1,200 2,345', figure!)).toBe('cost of sales');
  });
  it('needs the figure and every word of its label in the text', () => {
    const found = { figure: figure!, uri: 'a.pdf#3', label: 'cost of sales' };
    expect(holdsFigureWithLabel('Cost of sales: 2,345 (in millions)', found)).toBe(true);
    expect(holdsFigureWithLabel('Sales were 2,345', found)).toBe(false);
    expect(holdsFigureWithLabel('Cost of sales was 2,346', found)).toBe(false);
  });
});

describe('splitOf and namedDocuments', () => {
  it('splits by the question text alone, into both splits', () => {
    const questions = Array.from({ length: 40 }, (_, index) => `What was the revenue of company ${index}?`);
    const splits = questions.map(splitOf);
    expect(new Set(splits)).toEqual(new Set(['tuning', 'test']));
    expect(questions.map(splitOf)).toEqual(splits);
    expect(splitOf(`  ${questions[0]!} `)).toBe(splits[0]);
  });
  it('matches Source Docs globs against file names', () => {
    const files = ['2022 Q3 AAPL.pdf', '2023 Q3 AAPL.pdf', '2023 Q3 AMZN.pdf'];
    expect(namedDocuments('*AAPL*', files)).toEqual(['2022 Q3 AAPL.pdf', '2023 Q3 AAPL.pdf']);
    expect(namedDocuments('*2023 Q3 AMZN*', files)).toEqual(['2023 Q3 AMZN.pdf']);
    expect(namedDocuments('2023 Q3 AMZN.pdf', files)).toEqual(['2023 Q3 AMZN.pdf']);
  });
});

describe('single-value questions and answer lines', () => {
  it('takes the one amount with a currency sign and a scale word, and no other', () => {
    expect(singleAmount('The cash generated was $98,024 million. SOURCE(S): 2022 Q3 AAPL.pdf')?.value).toBe(98_024e6);
    expect(singleAmount('Net cash of $23.198 billion for the quarter.')).toEqual({ value: 23.198e9, tolerance: 0.5e6 });
    expect(singleAmount('Revenue of $13,507 million and gross profit of $9,462 million.')).toBeUndefined();
    expect(singleAmount('The effective tax rate was 15.7%.')).toBeUndefined();
    // The same amount written twice is still one.
    expect(singleAmount('$5,001 million in Q1, that is $5,001 million.')?.value).toBe(5_001e6);
  });

  it('reads the value and scale an answer line states, sign aside', () => {
    const line =
      'Answer: Acme Purchases of property and equipment, Nine Months Ended June 25, 2022: (1,577) million (ACME.pdf#7)';
    expect(answerLineAmount(`Extractive answer.\n${line}\n1. [ACME.pdf#7] …`)).toEqual({
      value: 1_577e6,
      tolerance: 0.5e6,
    });
    expect(answerLineAmount('Answer: Acme 2022 Revenue: $2.48 (ACME.pdf#3)')?.value).toBe(2.48);
    expect(answerLineAmount('No answer line here')).toBeUndefined();
  });

  it('matches amounts within the rounding the reference is written to', () => {
    const reference = singleAmount('Cash flow from operations was $7.7 billion.')!;
    expect(sameAmount(amountOf('7,687', 'million')!, reference)).toBe(true);
    expect(sameAmount(amountOf('7,787', 'million')!, reference)).toBe(false);
    // A value stated without its scale is a thousandth or a millionth of the reference: wrong.
    expect(sameAmount(amountOf('98,024', undefined)!, singleAmount('$98,024 million')!)).toBe(false);
  });
});
