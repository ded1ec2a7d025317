/**
 * The one list of function words the project's text scoring leaves out: words that occur in every text
 * and say nothing about what a sentence, field or question is about. Relevance ranking, word-dropping
 * baselines and summarizers all read it from here, so a word is a stopword everywhere or nowhere.
 */

/** English function words, lower-case. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have he her hers him his how i ' +
    'if in into is it its me my no nor not of on or our ours per she so such than that the their theirs them then ' +
    'there these they this those to too us very was we were what when where which while who whom whose why will ' +
    'with would you your yours'
  ).split(' '),
);

// Japanese particles and endings (の, は, です, ました) are short runs of hiragana and carry no topic, as
// English function words do not; content words are mostly written in kanji or katakana.
const FUNCTION_WORD = /^\p{Script=Hiragana}{1,3}$/u;

/** Whether a lower-cased word is a function word: in {@link STOPWORDS}, or a short run of hiragana. */
export function isStopword(word: string): boolean {
  // Hiragana starts at U+3041 (and astral letters at a surrogate): the expression need not run below it.
  return STOPWORDS.has(word) || (word.charCodeAt(0) >= 0x3041 && FUNCTION_WORD.test(word));
}
