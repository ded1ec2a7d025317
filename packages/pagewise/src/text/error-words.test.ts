import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasErrorWord, startsWithErrorWord } from './error-words.js';

// The expressions the word lists replaced: the lists must read every text as these did.
const ERROR_TEXT =
  /\b(?:error|exception|fail(?:ed|ure|s)?|fatal|panic|traceback|denied|refused|invalid|not found|unauthori[sz]ed|forbidden|timed? ?out)\b/iu;
const ERROR_LINE = /^\W{0,3}(?:error|exception|fatal|traceback|panic)\b/iu;

// Texts built from the listed words, their near misses and the characters that sit around words.
const pieces = fc.constantFrom(
  'error',
  'Errors',
  'ERROR',
  'exception',
  'fail',
  'fails',
  'failed',
  'failure',
  'failing',
  'fatal',
  'panic',
  'traceback',
  'denied',
  'refused',
  'invalid',
  'not',
  'found',
  'unauthorized',
  'Unauthorised',
  'forbidden',
  'time',
  'timed',
  'out',
  'timeout',
  'TimedOut',
  'order',
  'ok',
  '_',
  '2',
  ' ',
  '  ',
  '\t',
  '\n',
  ':',
  '-',
  '[',
  '**',
  '!',
  '🔥',
  'é',
  'ſ',
  'K',
  'İ',
  'ERROR_CODE',
);
const texts = fc.array(pieces, { maxLength: 8 }).map((parts) => parts.join(''));

describe('error words', () => {
  it('find an error word wherever the expression they replaced did, and nowhere else', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(hasErrorWord(text)).toBe(ERROR_TEXT.test(text));
      }),
      {
        numRuns: 3000,
      },
    );
  });

  it('find an error line opening wherever the expression they replaced did, and nowhere else', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(startsWithErrorWord(text)).toBe(ERROR_LINE.test(text));
      }),
      {
        numRuns: 3000,
      },
    );
  });

  it('read whole words and one-space phrases in any case', () => {
    expect(hasErrorWord('Request FAILED after 3 tries')).toBe(true);
    expect(hasErrorWord('the page was not found')).toBe(true);
    expect(hasErrorWord('the page was not  found')).toBe(false);
    expect(hasErrorWord('the request timed out')).toBe(true);
    expect(hasErrorWord('errors: 0, error_count: 0')).toBe(false);
    expect(hasErrorWord('all good')).toBe(false);
  });

  it('take an error line after at most three leading marks, counted by character', () => {
    expect(startsWithErrorWord('** Error: disk full')).toBe(true);
    expect(startsWithErrorWord('[!] Error: disk full')).toBe(false);
    expect(startsWithErrorWord('🔥🔥 fatal: out of memory')).toBe(true);
    expect(startsWithErrorWord('!!!! error')).toBe(false);
    expect(startsWithErrorWord('Errors were found')).toBe(false);
  });
});
