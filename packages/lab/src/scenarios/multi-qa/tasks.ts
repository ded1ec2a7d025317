/**
 * Episodes of the multi-objective QA scenario: k HotpotQA questions asked in one request, so the history
 * of searches for the early questions is still in context while the later ones are worked on.
 */
import { ConfigurationError } from 'pagewise';
import type { HotpotRecord } from './data.js';
import { seededRandom } from 'pagewise/internal';
import { seededShuffle } from '../../util/seeded-shuffle.js';

/** One episode: the questions in the order they are numbered (Q1 is `questions[0]`) and the user's request. */
export interface QaEpisode {
  id: string;
  questions: HotpotRecord[];
  /** The user message that starts the episode. */
  prompt: string;
}

/** Options of {@link generateQaEpisodes}. */
export interface QaEpisodeOptions {
  /** Questions per episode; 4 by default. */
  k?: number;
  /** How many episodes to generate. */
  episodes: number;
  /** Seed of the question sampling; the same seed gives the same episodes. */
  seed: number;
}

/** The user request of an episode: the numbered questions and how to report the answers. */
export function renderQaPrompt(questions: readonly HotpotRecord[]): string {
  return [
    `Please answer the following ${questions.length} questions. Search the document collection with the \`search\` tool for evidence.`,
    'Record the answer to each question with the `answer` tool (question_number and a short answer: an entity, a date, a number, or yes/no) before you move on to the next one.',
    'When every question has an answer, reply with a final message that lists your answers.',
    '',
    // One line a question, since the questions are read back by their "Qn:" prefix.
    ...questions.map((q, i) => `Q${i + 1}: ${q.question.replace(/\s+/g, ' ')}`),
  ].join('\n');
}

/**
 * Samples episodes of `k` distinct questions each. Questions are drawn without replacement from a seeded
 * shuffle; when more are needed than there are records, a new shuffle starts, so questions repeat only
 * across episodes, never within one.
 *
 * @throws ConfigurationError when `k` or `episodes` is not a positive integer or `k` exceeds the records.
 * @example
 * const [episode] = generateQaEpisodes(await loadHotpot(), { k: 4, episodes: 1, seed: 7 });
 */
export function generateQaEpisodes(records: readonly HotpotRecord[], options: QaEpisodeOptions): QaEpisode[] {
  const questionCount = options.k ?? 4;
  if (!Number.isInteger(questionCount) || questionCount < 1 || questionCount > records.length) {
    throw new ConfigurationError(
      'invalid-option',
      `k (questions per episode) must be an integer from 1 to ${records.length} (the records given), got ${questionCount}.`,
    );
  }
  if (!Number.isInteger(options.episodes) || options.episodes < 0) {
    throw new ConfigurationError('invalid-option', `episodes must be a non-negative integer, got ${options.episodes}.`);
  }
  const random = seededRandom(options.seed);
  let pool: HotpotRecord[] = [];
  const out: QaEpisode[] = [];
  for (let episode = 0; episode < options.episodes; episode++) {
    if (pool.length < questionCount) pool = seededShuffle(records, random);
    const questions = pool.splice(0, questionCount);
    out.push({
      id: `multi-qa-s${options.seed}-k${questionCount}-${episode}`,
      questions,
      prompt: renderQaPrompt(questions),
    });
  }
  return out;
}
