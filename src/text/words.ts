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

// Han, Hiragana, Katakana, Hangul: scripts written without spaces between words.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Whether `text` contains characters of a script written without spaces (Chinese, Japanese, Korean). */
export function hasCjk(text: string): boolean {
  return CJK.test(text);
}
