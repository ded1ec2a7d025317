import { describe, expect, it } from 'vitest';
import { seededRandom } from '../util/random.js';
import { caseInsensitiveTest } from './ascii-fold.js';

const PATTERNS = [
  String.raw`\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b|\b(?:jan|sep(?:t)?|dec)\.?\s+\d{1,4}\b|\b\d{1,2}\s+(?:jan|sep|dec)\b|\b\d{1,2}:\d{2}\b`,
  String.raw`\bhttps?:\/\/\S+|\bwww\.\S+`,
  String.raw`\b(?:error|fail(?:ed|s)?|timed? ?out|ok)\b`,
];

describe('caseInsensitiveTest', () => {
  it('matches as the same pattern with the u and i flags, ſ and the Kelvin sign included', () => {
    const pieces = [
      'ſ',
      'K',
      'k',
      'K',
      's',
      'S',
      'ep',
      'Sep',
      'jan',
      'DEC',
      ' ',
      '  ',
      '\n',
      '1',
      '12',
      '2024',
      '-',
      '/',
      '.',
      ':',
      'www',
      'http',
      'error',
      'Fail',
      'ſ12',
      'ok',
      'é',
      '😀',
      '_',
      'timed out',
    ];
    const random = seededRandom(5);
    const testers = PATTERNS.map((p) => [caseInsensitiveTest(p), new RegExp(p, 'iu')] as const);
    for (let trial = 0; trial < 5000; trial += 1) {
      const text = Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join('');
      for (const [fast, reference] of testers) expect(fast(text)).toBe(reference.test(text));
    }
  });

  it('folds ſ and the Kelvin sign as the u flag does', () => {
    expect(caseInsensitiveTest(String.raw`\bsep\s+\d`)('ſep 12')).toBe(true);
    expect(caseInsensitiveTest(String.raw`\bok\b`)('oK')).toBe(true);
    expect(caseInsensitiveTest(String.raw`\bok\b`)('ok\u017f')).toBe(false);
  });

  it('refuses patterns that are not ASCII', () => {
    expect(() => caseInsensitiveTest(String.raw`\p{L}`)).toThrow(RangeError);
    expect(() => caseInsensitiveTest('é')).toThrow(RangeError);
  });
});
