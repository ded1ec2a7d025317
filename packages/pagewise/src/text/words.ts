/**
 * Words of any language, for search and relevance scoring. `Intl.Segmenter` finds word boundaries with the
 * platform's ICU dictionaries, so Japanese and Chinese text (no spaces) splits into words as English does.
 */

// A letter outside the scripts that separate words by spaces: only ICU's dictionaries can split it.
const NEEDS_DICTIONARY = /[^\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}\p{Script=Inherited}]/u;
// A word as ICU finds it in such text: letters and digits, joined by an apostrophe or a point, or by a
// comma between digits (`don't`, `e.g`, `12.5`, `1,234`).
const SPACED_WORD = /[\p{L}\p{M}\p{N}_]+(?:['’.][\p{L}\p{M}\p{N}_]+|,\p{N}+)*/gu;

// Segmenters are costly to build and safe to reuse; one per locale.
const segmenters = new Map<string, Intl.Segmenter>();

function wordSegmenter(locale: string | undefined): Intl.Segmenter {
  const key = locale ?? '';
  let segmenter = segmenters.get(key);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(locale, { granularity: 'word' });
    segmenters.set(key, segmenter);
  }
  return segmenter;
}

/**
 * Whether `text` has a letter of a script written without spaces between words (only ICU's dictionaries split
 * it); text without one splits into {@link wordTokens} by a regular expression, never across a line break.
 */
export function needsDictionary(text: string): boolean {
  return NEEDS_DICTIONARY.test(text);
}

/**
 * The word-like segments of `text`, lower-cased, in order. Numbers stay whole (`12.5`, `1,234`); punctuation and
 * spaces are dropped.
 *
 * @param locale a BCP 47 tag to segment with; by default the platform's, whose dictionaries cover CJK text anyway.
 * @example
 * wordTokens('売上高は12.5%増'); // ['売上', '高', 'は', '12.5', '増']
 */
export function wordTokens(text: string, locale?: string): string[] {
  // Scripts written with spaces split the same by a regular expression, many times faster than ICU;
  // compressors tokenize every unit of a long history.
  if (!NEEDS_DICTIONARY.test(text)) return (text.match(SPACED_WORD) ?? []).map((w) => w.toLowerCase());
  const out: string[] = [];
  for (const segment of wordSegmenter(locale).segment(text)) {
    if (segment.isWordLike) out.push(segment.segment.toLowerCase());
  }
  return out;
}

// Runs of one script: Han, Katakana, Hiragana, Hangul, or letters and digits of spaced scripts (with the joins of
// SPACED_WORD). Script changes are word boundaries in Japanese (a kanji stem, its hiragana ending, a katakana
// loanword), so only long runs of Han and Katakana need the dictionary. The group a run matched says its script:
// `dictionary` for Han and Katakana, `hiragana` for Hiragana (an alternative never starts with a character an
// earlier one matches, so a run starts with its group's script).
const SPACED_LETTER = '[\\p{N}_\\p{M}\\p{Script=Latin}\\p{Script=Greek}\\p{Script=Cyrillic}]';
const SCRIPT_RUN = new RegExp(
  `(?<dictionary>\\p{Script=Han}+|\\p{Script=Katakana}[\\p{Script=Katakana}ー]*)|(?<hiragana>\\p{Script=Hiragana}+)|\\p{Script=Hangul}+|${SPACED_LETTER}+(?:['’.]${SPACED_LETTER}+|,\\p{N}+)*`,
  'gu',
);
// Runs up to this length are taken as one word without asking the dictionary (most kanji words have two).
const DICTIONARY_RUN = 2;

/**
 * Terms for indexing and scoring long text, lower-cased, in order: the words of {@link wordTokens}, found more
 * cheaply. Text in scripts written with spaces splits as in {@link wordTokens}; in text without spaces, runs of
 * one script are cut apart first, runs of Han or Katakana longer than two characters are split into words by
 * `Intl.Segmenter`, and runs of Hiragana (Japanese particles, endings and okurigana, which carry no topic) are
 * left out. Segmenting a whole page costs several times more, and an extractive compressor scores every unit of
 * every page it sees. Use the same function for the query and the documents.
 *
 * @example
 * indexTerms('売上高は12.5%増加しました'); // ['売上', '高', '12.5', '増加']
 */
export function indexTerms(text: string, locale?: string): string[] {
  if (!NEEDS_DICTIONARY.test(text)) return (text.match(SPACED_WORD) ?? []).map((w) => w.toLowerCase());
  const out: string[] = [];
  for (const match of text.matchAll(SCRIPT_RUN)) {
    const run = match[0];
    if (match.groups?.hiragana !== undefined) continue;
    if (run.length <= DICTIONARY_RUN || match.groups?.dictionary === undefined) {
      out.push(run.toLowerCase());
      continue;
    }
    out.push(...dictionaryWords(run, locale));
  }
  return out;
}

// Each call of `Intl.Segmenter.segment` sets up an ICU break iterator, which costs more than a short run's
// words: runs recur (売上高, 営業利益), so their words are kept, per locale, up to a bound.
const runWords = new Map<string, string[]>();
const RUN_CACHE_LIMIT = 50_000;

function dictionaryWords(run: string, locale: string | undefined): string[] {
  const key = locale === undefined ? run : `${locale}\u0000${run}`;
  let words = runWords.get(key);
  if (!words) {
    words = [];
    for (const segment of wordSegmenter(locale).segment(run)) {
      if (segment.isWordLike) words.push(segment.segment.toLowerCase());
    }
    if (runWords.size >= RUN_CACHE_LIMIT) runWords.clear();
    runWords.set(key, words);
  }
  return words;
}

// Han, Hiragana, Katakana, Hangul: scripts written without spaces between words.
export { hasCjk } from './characters.js';
