import { describe, expect, it } from 'vitest';
import { findPassages } from './passages.js';
import { canonicalTerm, searchQuery, understandQuestion } from './query.js';

describe('understandQuestion', () => {
  it('takes terms from the question, not from the role and format instructions around it', () => {
    const q = understandQuestion(
      'Assume that you are a public equities analyst. Answer the following question by primarily using information that is shown in the cash flow statement: what is the FY2022 capital expenditure amount for 3M? Answer in USD millions.',
    );
    expect(q.terms).toEqual(['cash', 'flow', 'statement', '2022', 'capital', 'expenditure', '3m']);
    for (const boilerplate of ['assume', 'public', 'equities', 'analyst', 'answer', 'usd', 'million'])
      expect(q.terms).not.toContain(boilerplate);
    expect(q.entities).toEqual(['3m']);
    expect(q.years).toEqual(['2022']);
  });

  it('reads names, periods and form types in their usual spellings', () => {
    const amex = understandQuestion("What is AmEx's operating margin in fiscal 2021 per its 10-K?");
    expect(amex.entities).toEqual(['amex']);
    expect(amex.years).toEqual(['2021']);
    expect(amex.formType).toBe('10-K');
    expect(amex.terms).toContain('amex');
    expect(understandQuestion('Did Activision Blizzard grow revenue in FY19?')).toMatchObject({
      entities: ['activision', 'blizzard'],
      years: ['2019'],
    });
    expect(searchQuery(understandQuestion('Revenue for FY2022'))).toBe('revenue 2022 fy2022');
    // Names keep their spelling, plural ones too, so the search reading the query again knows them for names.
    expect(searchQuery(understandQuestion('What currencies does Quillstone Systems use?'))).toBe(
      'currencie Quillstone Systems use',
    );
  });

  it('writes periods and numbers in one form', () => {
    expect(['FY2022', 'fy22', '2022', "FY'22"].map(canonicalTerm)).toEqual(['2022', '2022', '2022', '2022']);
    expect(canonicalTerm('1,577')).toBe('1577');
    expect(canonicalTerm("Acme's")).toBe('acme');
    expect(canonicalTerm('Sales')).toBe('sale');
  });

  it('finds a passage that writes the period differently from the question', () => {
    const found = findPassages(
      'Assume you are an equities analyst. What was capital expenditure in FY2022?',
      [
        { uri: 'a.pdf#3', body: 'The analyst community assumed public equities would rise.' },
        { uri: 'a.pdf#4', body: 'Capital expenditure was $1,577 million in 2022.' },
      ],
      2,
    );
    expect(found.map((p) => p.citation)).toEqual(['a.pdf#4']);
    // Every term, and two of the question's four word pairs with a term ("capital expenditure", "in 2022").
    expect(found[0]!.score).toBe(1.05);
  });
});
