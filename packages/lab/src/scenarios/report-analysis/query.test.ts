import { describe, expect, it } from 'vitest';
import { findPassages } from './passages.js';
import { canonicalTerm, inflectionStem, quartersOf, searchQuery, spelledTerm, understandQuestion } from './query.js';

describe('understandQuestion', () => {
  it('takes terms from the question, not from the role and format instructions around it', () => {
    const understood = understandQuestion(
      'Assume that you are a public equities analyst. Answer the following question by primarily using information that is shown in the cash flow statement: what is the FY2022 capital expenditure amount for 3M? Answer in USD millions.',
    );
    expect(understood.words).toEqual(['cash', 'flow', 'statement', '2022', 'capital', 'expenditure', '3m']);
    expect(understood.terms).toEqual(['cash', 'flow', 'statement', '2022', 'capital', 'expenditur', '3m']);
    for (const boilerplate of ['assume', 'public', 'equities', 'analyst', 'answer', 'usd', 'million'])
      expect(understood.terms).not.toContain(boilerplate);
    expect(understood.entities).toEqual(['3m']);
    expect(understood.years).toEqual(['2022']);
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

  it('reads a quarter with its year in the ways questions name it, and no quarter without a year', () => {
    for (const question of [
      'In the first quarter of 2023, how much did Apple spend?',
      "What was Apple's revenue in Q1 2023?",
      'Apple Q1 FY2023 revenue',
      'the first fiscal quarter of fiscal 2023',
      "Apple's 2023 Q1 10-Q",
    ])
      expect(understandQuestion(question)).toMatchObject({ quarters: ['2023 Q1'], years: ['2023'] });
    expect(quartersOf('Q3 2022 and the third quarter of 2023')).toEqual(['2022 Q3', '2023 Q3']);
    expect(quartersOf('revenue in 2023 across the quarters; Q4 results')).toEqual([]);
  });

  it('writes periods and numbers in one form', () => {
    expect(['FY2022', 'fy22', '2022', "FY'22"].map(canonicalTerm)).toEqual(['2022', '2022', '2022', '2022']);
    expect(canonicalTerm('1,577')).toBe('1577');
    expect(spelledTerm("Acme's")).toBe('acme');
    expect(spelledTerm('Sales')).toBe('sale');
    expect(canonicalTerm("Acme's")).toBe(canonicalTerm('Acme'));
    expect(canonicalTerm('Sales')).toBe(canonicalTerm('sale'));
  });

  it('takes the inflections off English words, and only those', () => {
    expect(['decrease', 'decreased', 'decreases', 'decreasing'].map(inflectionStem)).toEqual(Array(4).fill('decreas'));
    expect(['incur', 'incurred', 'incurring'].map(inflectionStem)).toEqual(['incur', 'incur', 'incur']);
    expect(['company', 'companies', 'applied', 'apply'].map(inflectionStem)).toEqual([
      'company',
      'company',
      'apply',
      'apply',
    ]);
    expect(inflectionStem('expenses')).toBe(inflectionStem('expense'));
    expect(inflectionStem('losses')).toBe('loss');
    expect(inflectionStem('passed')).toBe('pass');
    // Derivations stay apart; short words, numbers and other letters are left as they are.
    expect(inflectionStem('operation')).not.toBe(inflectionStem('operating'));
    expect(inflectionStem('financial')).not.toBe(inflectionStem('finance'));
    expect(['used', 'red', '2019', 'straße', 'string'].map(inflectionStem)).toEqual([
      'used',
      'red',
      '2019',
      'straße',
      'string',
    ]);
    // A question's verb meets the document's, while search and the answer keep the question's word.
    const understood = understandQuestion('Why did operating income decrease in 2019?');
    expect(understood.terms).toContain(canonicalTerm('decreased'));
    expect(understood.words).toContain('decrease');
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
    // Every term, two of the question's four word pairs with a term ("capital expenditure", "in 2022"), and the
    // page as the best one read for its terms.
    expect(found[0]!.score).toBe(1.15);
  });
});
