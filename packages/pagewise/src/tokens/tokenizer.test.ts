import { describe, expect, it } from 'vitest';
import { seededRandom } from '../util/random.js';
import {
  countTokens,
  countTokensKeepingIds,
  encodeTokens,
  exceedsTokens,
  encodeTokensCached,
  mayHoldLongPiece,
} from './tokenizer.js';
import { LONG_PIECE_CHARS } from './long-pieces.js';

describe('finding 1: special-token text made token counting throw', () => {
  const texts = [
    '<|endoftext|>',
    'a <|im_end|> b',
    '<|im_start|>system\nobey<|im_end|>',
    '<|endofprompt|><|fim_middle|>',
  ];

  it.each(['o200k_base', 'cl100k_base'] as const)('counts special-token strings as plain text with %s', (encoding) => {
    for (const text of texts) {
      const tokens = countTokens(text, encoding);
      // As plain text each marker is several tokens, never the single id of a control token.
      expect(tokens).toBeGreaterThan(1);
      expect(tokens).toBe(encodeTokens(text, encoding).length);
    }
  });

  it('counts long texts with special tokens and long letter runs alike', () => {
    const text = `${'<|endoftext|>'.repeat(50)} ${'a'.repeat(5000)}`;
    expect(countTokens(text)).toBeGreaterThan(50);
  });
});

describe('counting a long text by its lines', () => {
  // Characters around line breaks that the pre-tokenizer treats differently: whitespace of several kinds,
  // `/` (joined to punctuation before a line break), punctuation, digits, letters, marks, CJK.
  const pieces = [
    '\n',
    '\n',
    '\n',
    ' ',
    '  ',
    '\t',
    '\r\n',
    '/',
    '.',
    '|',
    ')',
    '12',
    '345',
    'word',
    'Word',
    "'s",
    'é',
    '\u0301',
    '売上',
    '\u3000',
    '\u00a0',
    '-',
    '```',
    '\n/',
  ];

  it('gives the count of the whole text, line breaks anywhere', () => {
    const random = seededRandom(11);
    for (let round = 0; round < 400; round += 1) {
      const parts = Array.from(
        { length: 150 + Math.floor(random() * 300) },
        () => pieces[Math.floor(random() * pieces.length)],
      );
      // A fresh suffix keeps the text out of the cache, so it is counted, not looked up.
      const text = `${parts.join('')} ${round}-${random()}`;
      expect(countTokens(text)).toBe(encodeTokens(text).length);
    }
  });

  it('gives the count of the whole text, cut after digits', () => {
    // One line, digits beside letters, punctuation, spaces and other numerals (`½`, `٣`): a cut follows an
    // ASCII digit only where an ASCII character other than a digit comes next.
    const parts = [
      '7',
      '42',
      '2024',
      '"',
      '":',
      ',',
      '{',
      '}',
      '[',
      ']',
      'id',
      'Name',
      ' ',
      '.',
      '½',
      '٣',
      '-',
      '_',
      'é',
    ];
    const random = seededRandom(23);
    for (let round = 0; round < 400; round += 1) {
      const text = `${Array.from({ length: 150 + Math.floor(random() * 300) }, () => parts[Math.floor(random() * parts.length)]).join('')} ${round}-${random()}`;
      expect(countTokens(text)).toBe(encodeTokens(text).length);
    }
  });

  it('gives the same count for a text whose lines were counted before', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `Line ${i}: the value was ${i * 7}.`);
    for (const line of lines) countTokens(`${line}\n`);
    const text = lines.filter((_, i) => i % 3 !== 1).join('\n');
    expect(countTokens(text)).toBe(encodeTokens(text).length);
  });
});

describe('the long-run test before counting', () => {
  const run = LONG_PIECE_CHARS / 2 - 4;
  // The definition: a run of that many code points, all whitespace, all other, or all of \r \n /.
  const pattern = new RegExp(`\\S{${run},}|\\s{${run},}|[\\r\\n/]{${run},}`, 'u');
  // Every whitespace kind, the characters beside them, a surrogate pair and lone surrogates.
  const alphabet = [
    'a',
    ' ',
    '\t',
    '\n',
    '\r',
    '/',
    '\u00a0',
    '\u2003',
    '\u3000',
    '\ufeff',
    '\u0085',
    '😀',
    '\ud800',
    '\udc00',
    '-',
  ];

  it('agrees with the regular expression on runs around the limit', () => {
    const random = seededRandom(11);
    for (let round = 0; round < 400; round += 1) {
      // A few long runs of one or two characters, so runs end just below, at and above the limit.
      const parts: string[] = [];
      for (let runIndex = 0; runIndex < 1 + Math.floor(random() * 4); runIndex += 1) {
        const first = alphabet[Math.floor(random() * alphabet.length)]!;
        const second = random() < 0.5 ? first : alphabet[Math.floor(random() * alphabet.length)]!;
        const length = run - 3 + Math.floor(random() * 8);
        parts.push(Array.from({ length }, () => (random() < 0.5 ? first : second)).join(''));
      }
      const text = parts.join(alphabet[Math.floor(random() * alphabet.length)]!);
      expect(mayHoldLongPiece(text), JSON.stringify(text)).toBe(pattern.test(text));
    }
  });

  it('finds a run of spaces, of letters and of line breaks, and none in prose', () => {
    expect(mayHoldLongPiece(' '.repeat(run))).toBe(true);
    expect(mayHoldLongPiece(' '.repeat(run - 1))).toBe(false);
    expect(mayHoldLongPiece('x'.repeat(run))).toBe(true);
    expect(mayHoldLongPiece('😀'.repeat(run - 1))).toBe(false);
    expect(mayHoldLongPiece('/\n'.repeat(run / 2))).toBe(true);
    expect(mayHoldLongPiece('The quick brown fox jumps over the lazy dog. '.repeat(40))).toBe(false);
  });
});

describe('encoding with the cache, by lines', () => {
  const alphabet = ['a', 'b', ' ', '  ', '\n', '\n\n', '/', '\t', 'é', '1', '.', '{"k": 2}', '\r\n', 'word'];

  it('gives the ids of encoding the whole text, for texts cut by lines and texts reused in longer ones', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 200; round += 1) {
      let text = '';
      const length = 50 + Math.floor(random() * 600);
      while (text.length < length) text += alphabet[Math.floor(random() * alphabet.length)];
      for (const variant of [text, `${text}\nmore ${round}`, `start\n${text}`]) {
        expect(Array.from(encodeTokensCached(variant))).toEqual(encodeTokens(variant));
        expect(Array.from(encodeTokensCached(variant, 'cl100k_base'))).toEqual(encodeTokens(variant, 'cl100k_base'));
      }
    }
  });

  it('stands a long pre-token in by as many ids as it has tokens, equal only for the same piece', () => {
    const run = (letter: string) => `intro\n${letter.repeat(LONG_PIECE_CHARS * 4)}\nend`;
    const ids = encodeTokensCached(run('x'));
    expect(ids.length).toBe(countTokens(run('x')));
    expect(Array.from(ids.slice(0, 2))).toEqual(encodeTokens('intro\n').slice(0, 2));
    expect(Array.from(encodeTokensCached(run('y')))).not.toEqual(Array.from(ids));
  });
});

describe('countTokensKeepingIds', () => {
  it('counts as countTokens does and leaves the ids for the next encoding, on random texts', () => {
    const random = seededRandom(41);
    const alphabet = ['a', 'é', ' ', '\n', '{', '"', '1', '日', 'tool', 'result'];
    for (let round = 0; round < 200; round += 1) {
      let text = `${round}:`;
      const length = Math.floor(random() * 80);
      for (let index = 0; index < length; index += 1) text += alphabet[Math.floor(random() * alphabet.length)];
      const kept = countTokensKeepingIds(text);
      expect(kept).toBe(countTokens(text));
      const ids = encodeTokensCached(text);
      expect(Array.from(ids)).toEqual(encodeTokens(text));
    }
  });

  it('keeps the ids of a text counted before without them', () => {
    const text = `counted first ${Math.random()}`;
    const count = countTokens(text);
    expect(countTokensKeepingIds(text)).toBe(count);
    expect(encodeTokensCached(text).length).toBe(count);
  });
});

describe('exceedsTokens', () => {
  // Code units that take the most bytes per unit: CJK and other three-byte characters, astral pairs (emoji,
  // rare Han), lone surrogates (replaced by three bytes), combining marks, control characters.
  const heavy = ['売', 'ꙮ', '𠀋', '😀', '\ud800', '\udfff', '\u0301', '\u0000', 'ﷺ', '\u200b', 'a', ' ', '\n'];

  it('never counts more than three tokens per code unit', () => {
    const random = seededRandom(5);
    for (let round = 0; round < 400; round++) {
      const length = 1 + Math.floor(random() * 40);
      const text = Array.from({ length }, () => heavy[Math.floor(random() * heavy.length)]).join('');
      expect(countTokens(text)).toBeLessThanOrEqual(3 * text.length);
      expect(countTokens(text, 'cl100k_base')).toBeLessThanOrEqual(3 * text.length);
    }
  });

  it('answers as the count does, at every limit around it', () => {
    const random = seededRandom(6);
    for (let round = 0; round < 200; round++) {
      const length = Math.floor(random() * 60);
      const text = Array.from({ length }, () => heavy[Math.floor(random() * heavy.length)]).join('');
      const tokens = countTokens(text);
      for (const limit of [0, tokens - 1, tokens, tokens + 1, 3 * text.length - 1, 3 * text.length])
        expect(exceedsTokens(text, limit)).toBe(tokens > limit);
    }
  });
});
