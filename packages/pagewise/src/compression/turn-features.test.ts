import { describe, expect, it } from 'vitest';
import { HISTORY_TURN_WEIGHTS } from './history-params.js';
import {
  checkTurnWeights,
  isQuestionOnly,
  novelShare,
  rankKey,
  rareWordScore,
  TURN_FEATURE_NAMES,
  TURN_FEATURES_VERSION,
  turnScore,
  type TurnWeights,
} from './turn-features.js';

const weights = (costExponent: number, values: number[] = TURN_FEATURE_NAMES.map(() => 1)): TurnWeights => ({
  version: TURN_FEATURES_VERSION,
  features: TURN_FEATURE_NAMES,
  weights: values,
  costExponent,
  fittedOn: [],
});

describe('rareWordScore', () => {
  it('counts a word said once fully and a word most messages hold barely', () => {
    const holding = new Map([
      ['lh', 1],
      ['1432', 1],
      ['maya', 40],
    ]);
    const of = (word: string): number => holding.get(word) ?? 1;
    const onceSaid = rareWordScore(['1432'], of);
    const common = rareWordScore(['maya'], of);
    expect(onceSaid).toBeGreaterThan(common * 10);
    expect(rareWordScore([], of)).toBe(0);
  });

  it('counts a word once however often the unit repeats it, and stays within 1', () => {
    const of = (): number => 4;
    expect(rareWordScore(['code', 'code', 'code'], of)).toBe(rareWordScore(['code'], of));
    expect(rareWordScore(['a1', 'b2', 'c3', 'd4', 'e5', 'f6'], () => 1)).toBe(1);
  });
});

describe('novelShare', () => {
  it('is the share of content words no other message uses, stopwords left out', () => {
    const holding = new Map([
      ['weather', 9],
      ['today', 12],
    ]);
    const of = (word: string): number => holding.get(word) ?? 1;
    const fact = ['my', 'daughter', 'is', 'allergic', 'to', 'buckwheat', 'today'];
    const chatter = ['the', 'weather', 'was', 'grey', 'today'];
    expect(novelShare(fact, of)).toBeGreaterThan(novelShare(chatter, of));
    expect(novelShare(['weather', 'today'], of)).toBe(0);
    expect(novelShare(['the', 'and', 'of'], of)).toBe(0);
    expect(novelShare(['buckwheat', 'buckwheat'], of)).toBe(1);
  });
});

describe('isQuestionOnly', () => {
  it('is true of a message that only asks, in any script', () => {
    expect(isQuestionOnly('Can you suggest a recipe? Something quick?')).toBe(true);
    expect(isQuestionOnly('何時に出発しますか？')).toBe(true);
  });

  it('is false of a message that states something as well, or of nothing', () => {
    expect(isQuestionOnly('My flight is LH 1432. Can you plan the trip to the airport?')).toBe(false);
    expect(isQuestionOnly('Thanks, that is perfect.')).toBe(false);
    expect(isQuestionOnly('   ')).toBe(false);
  });
});

describe('turn scores and rank keys', () => {
  it('add up weighted features', () => {
    const values = TURN_FEATURE_NAMES.map((_, index) => index / 10);
    const vector = TURN_FEATURE_NAMES.map((_, index) => (index % 2 === 0 ? 1 : 0));
    const expected = values.reduce((sum, value, index) => sum + value * (vector[index] ?? 0), 0);
    expect(turnScore(weights(0, values), vector)).toBeCloseTo(expected, 12);
  });

  it('rank by score alone at exponent 0 and by score per token at exponent 1', () => {
    // A long unit worth a little more than a short one.
    const [long, short] = [
      { score: 1.2, tokens: 120 },
      { score: 1, tokens: 20 },
    ];
    const byScore = weights(0);
    const perToken = weights(1);
    expect(rankKey(byScore, long.score, long.tokens)).toBeGreaterThan(rankKey(byScore, short.score, short.tokens));
    expect(rankKey(perToken, long.score, long.tokens)).toBeLessThan(rankKey(perToken, short.score, short.tokens));
  });

  it('rank a unit worth nothing below every unit worth something, the cheaper first', () => {
    const perToken = weights(0.5);
    const nothing = [rankKey(perToken, -2, 5), rankKey(perToken, 0, 50)];
    expect(Math.max(...nothing)).toBeLessThan(rankKey(perToken, 0.1, 200));
    expect(nothing[0]).toBeGreaterThan(nothing[1] ?? 0);
  });
});

describe('checkTurnWeights', () => {
  it('accepts the shipped weights', () => {
    expect(checkTurnWeights(HISTORY_TURN_WEIGHTS)).toBe(HISTORY_TURN_WEIGHTS);
  });

  it('refuses weights of another version, other features, a missing weight or an exponent outside [0, 1]', () => {
    const good = weights(0.5);
    expect(() => checkTurnWeights({ ...good, version: TURN_FEATURES_VERSION + 1 })).toThrow(/version/u);
    expect(() => checkTurnWeights({ ...good, features: [...good.features].reverse() })).toThrow(/features/u);
    expect(() => checkTurnWeights({ ...good, weights: good.weights.slice(1) })).toThrow(/weight/u);
    expect(() => checkTurnWeights({ ...good, weights: good.weights.map(() => Number.NaN) })).toThrow(/weight/u);
    expect(() => checkTurnWeights({ ...good, costExponent: 1.5 })).toThrow(/costExponent/u);
  });
});
