/**
 * The words of a question that are worth searching for. Question boilerplate ("what was the amount of …")
 * and stop words dominate a full-text ranking when a whole question is used as the query, so they are
 * dropped; words of any language come from the shared {@link wordTokens} segmenter.
 */
import { STOPWORDS, wordTokens } from 'pagewise/internal';

// The shared function words plus the words questions are phrased with; none of them tells documents apart.
const STOP_WORDS = new Set([
  ...STOPWORDS,
  ...(
    'about over under between during am done having shall should may might must it’s ' +
    'much many any some all each every other such so too very just also only own same both either neither ' +
    'more most less least please tell give show list find state describe explain according ' +
    'amount amounts value values figure figures'
  ).split(' '),
]);

// Particles and auxiliaries of Japanese and Chinese questions ("は", "の", "ですか", "是", "的", "多少").
const CJK_STOP_WORDS = new Set(
  [
    'は',
    'が',
    'を',
    'に',
    'の',
    'で',
    'と',
    'も',
    'へ',
    'や',
    'か',
    'な',
    'ね',
    'よ',
    'から',
    'まで',
    'より',
    'です',
    'でし',
    'ます',
    'ました',
    'ですか',
    'ありますか',
    'いくら',
    'どの',
    'どれ',
    'どこ',
    'なに',
    '何',
    'いつ',
    'だれ',
    '誰',
    'について',
    'における',
    'くらい',
    'ぐらい',
    'した',
    'する',
    'し',
    'た',
    'て',
    'だ',
    'ある',
    'い',
    'れ',
    'ん',
    '是',
    '的',
    '了',
    '在',
    '和',
    '与',
    '吗',
    '呢',
    '多少',
    '什么',
    '哪',
    '哪个',
    '哪些',
    '几',
    '如何',
    '怎么',
    '为',
    '有',
  ].map((word) => word.toLowerCase()),
);

/** A lone hiragana is a particle or an inflection ending, never a search term. */
const SINGLE_KANA = /^[\p{Script=Hiragana}]$/u;

/**
 * The distinct search terms of a question, in order: stop words, question boilerplate, particles and lone
 * punctuation dropped; numbers (years, amounts) kept. Falls back to every word when nothing else is left,
 * so a question made only of common words still searches for something.
 *
 * @example
 * queryTerms('What was the amount of total sales in 2019?'); // ['total', 'sales', '2019']
 * queryTerms('2023年の売上高はいくらですか'); // ['2023', '年', '売上', '高']
 */
export function queryTerms(question: string): string[] {
  const words = wordTokens(question);
  const kept = words.filter(
    (word) => !STOP_WORDS.has(word) && !CJK_STOP_WORDS.has(word) && !SINGLE_KANA.test(word) && word.length > 0,
  );
  const chosen = kept.length > 0 ? kept : words;
  return [...new Set(chosen)];
}
