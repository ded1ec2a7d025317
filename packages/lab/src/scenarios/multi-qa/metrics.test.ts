import { describe, expect, it } from 'vitest';
import type { HotpotRecord } from './data.js';
import { evidenceRecall, exactMatch, f1Score, normalizeAnswer, scoreQaAnswers } from './metrics.js';

describe('answer metrics', () => {
  it('normalizes like SQuAD: case, punctuation, articles, whitespace', () => {
    expect(normalizeAnswer('  The  Beatles!  ')).toBe('beatles');
    expect(normalizeAnswer('"Pistol Pete"')).toBe('pistol pete');
    expect(normalizeAnswer('Montreal, Quebec')).toBe('montreal quebec');
    expect(normalizeAnswer('an apple a day')).toBe('apple day');
  });

  it('scores exact match after normalization', () => {
    expect(exactMatch('the Natural Born Citizen clause.', 'natural born citizen clause')).toBe(1);
    expect(exactMatch('Montreal', 'Montreal, Quebec')).toBe(0);
  });

  it('scores token F1 with partial credit, and yes/no only on an exact hit', () => {
    expect(f1Score('Montreal', 'Montreal, Quebec')).toBeCloseTo(2 / 3);
    expect(f1Score('beer and whisky', 'beer and whisky')).toBe(1);
    expect(f1Score('books about beer', 'beer and whisky')).toBeCloseTo((2 * (1 / 3) * (1 / 3)) / (2 / 3));
    expect(f1Score('Paris', 'London')).toBe(0);
    expect(f1Score('yes it is', 'yes')).toBe(0);
    expect(f1Score('No', 'no')).toBe(1);
  });

  it('measures evidence recall as the share of supporting sentences present verbatim', () => {
    const prompt =
      'Lucy Saunders: She wrote about beer. She lives in Wisconsin.\n\nMichael Jackson: He wrote about whisky.';
    expect(evidenceRecall(['She wrote about beer.', 'He wrote about whisky.'], prompt)).toBe(1);
    expect(evidenceRecall(['She wrote about beer.', 'He was born in Leeds.'], prompt)).toBe(0.5);
    expect(evidenceRecall(['she wrote about beer.'], prompt)).toBe(0);
    expect(evidenceRecall([], prompt)).toBe(1);
  });

  it('scores an answer sheet, counting unanswered questions as wrong', () => {
    const record = (answer: string) => ({ answer, id: answer }) as HotpotRecord;
    const score = scoreQaAnswers(
      [record('Paris'), record('beer and whisky'), record('yes')],
      new Map([
        [1, 'paris'],
        [2, 'whisky'],
      ]),
    );
    expect(score.perQuestion.map((p) => p.em)).toEqual([1, 0, 0]);
    expect(score.em).toBeCloseTo(1 / 3);
    expect(score.f1).toBeCloseTo((1 + 0.5) / 3);
    expect(score.answered).toBeCloseTo(2 / 3);
  });
});
