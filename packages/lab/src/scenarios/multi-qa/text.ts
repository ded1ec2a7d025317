/**
 * Word-level helpers shared by the search index and the offline policy of the multi-objective QA
 * scenario, so both agree on what counts as a topical word.
 */

// Function words carry no topic; dropping them keeps BM25 and overlap scores from counting "the" and "of".
const STOP_WORDS = new Set(
  (
    'a after also among an and are as at be been before being both by can could did do does during for from had has have he her ' +
    'him his how in into is it its of on or she since than that the their them then there these they this those to until was were ' +
    'what when where which while who whom whose why will with would'
  ).split(' '),
);

/** True for a function word that says nothing about the topic. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}

/** The lowercased letter-and-digit runs of a text. */
export function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) as string[];
}

/** The topical words of a text: lowercased, without function words and single letters. */
export function contentWords(text: string): Set<string> {
  return new Set(words(text).filter((w) => w.length > 1 && !STOP_WORDS.has(w)));
}
