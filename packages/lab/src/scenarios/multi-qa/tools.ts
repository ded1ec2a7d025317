/**
 * Tools of the multi-objective QA scenario: `search` over every paragraph of the episode's questions
 * (returning whole paragraphs, the verbose observations that make the history grow) and `answer`, which
 * records one answer on the episode's answer sheet for scoring.
 */
import MiniSearch from 'minisearch';
import { z } from 'zod';
import { tool, type AnyTool, type Tool, ModelBehaviorError } from 'pagewise';
import type { HotpotParagraph } from './data.js';
import type { QaEpisode } from './tasks.js';
import { isStopWord } from './text.js';

/** Name of the search tool, as the prompt and the offline policy refer to it. */
export const QA_SEARCH_TOOL = 'search';
/** Name of the answer tool, as the prompt and the offline policy refer to it. */
export const QA_ANSWER_TOOL = 'answer';

/** Arguments of the `search` tool. */
export const qaSearchInput = z.object({
  query: z.string().min(1).describe('Words to look for, e.g. the question or the names in it.'),
  k: z.number().int().min(1).max(10).optional().describe('How many paragraphs to return (1-10, default 3).'),
});
/** Arguments of the `answer` tool. */
export const qaAnswerInput = z.object({
  question_number: z.number().int().min(1).describe('The number of the question, 2 for Q2.'),
  answer: z.string().trim().min(1).describe('A short answer: an entity, a date, a number, or yes/no.'),
});

/** The answers recorded during one episode, by question number (1-based); a later answer replaces an earlier one. */
export type QaAnswerSheet = Map<number, string>;

/** What {@link createQaTools} returns: the tools and the answer sheet they write to. */
export interface QaToolset {
  search: Tool<z.infer<typeof qaSearchInput>>;
  answer: Tool<z.infer<typeof qaAnswerInput>>;
  /** Both tools, in the order to offer them. */
  tools: AnyTool[];
  answers: QaAnswerSheet;
}

/** A paragraph as the search tool shows it: `Title: sentence sentence ...`. */
export function renderParagraph(paragraph: HotpotParagraph): string {
  return `${paragraph.title}: ${paragraph.sentences.filter((s) => s !== '').join(' ')}`;
}

/**
 * Builds the tools of one episode. The search index holds the paragraphs of all its questions (gold and
 * distractors, each title once), so evidence for one question competes with every other question's.
 *
 * @example
 * const { tools, answers } = createQaTools(episode);
 * // run an agent with `tools`, then score `answers` against episode.questions
 */
export function createQaTools(episode: QaEpisode): QaToolset {
  const paragraphs: HotpotParagraph[] = [];
  const seen = new Set<string>();
  for (const question of episode.questions) {
    for (const paragraph of question.paragraphs) {
      if (seen.has(paragraph.title)) continue;
      seen.add(paragraph.title);
      paragraphs.push(paragraph);
    }
  }
  const index = new MiniSearch<{ id: number; title: string; text: string }>({
    fields: ['title', 'text'],
    processTerm: (term) => {
      const lower = term.toLowerCase();
      return isStopWord(lower) ? null : lower;
    },
    searchOptions: { boost: { title: 2 } },
  });
  index.addAll(paragraphs.map((p, id) => ({ id, title: p.title, text: p.sentences.join(' ') })));

  const search = tool({
    name: QA_SEARCH_TOOL,
    description: 'Searches the document collection and returns the best matching paragraphs in full, as "Title: text".',
    inputSchema: qaSearchInput,
    execute: ({ query, k: hitCount = 3 }) => {
      const hits = index.search(query).slice(0, hitCount);
      if (hits.length === 0)
        return `No paragraph matches "${query}". Try other words, such as the names in the question.`;
      return hits.map((hit) => renderParagraph(paragraphs[hit.id as number] as HotpotParagraph)).join('\n\n');
    },
  });

  const answers: QaAnswerSheet = new Map();
  const count = episode.questions.length;
  const answer = tool({
    name: QA_ANSWER_TOOL,
    description: 'Records the answer to one question, by its number (1 for Q1).',
    inputSchema: qaAnswerInput,
    execute: ({ question_number, answer: text }) => {
      if (question_number > count) {
        throw new ModelBehaviorError(
          'invalid-question-number',
          `There is no Q${question_number}: this task has questions Q1 to Q${count}.`,
        );
      }
      answers.set(question_number, text);
      const open = episode.questions.map((_, i) => i + 1).filter((n) => !answers.has(n));
      // "answered Qn" is the same phrase a history summary uses, so the fact survives either way.
      return `answered Q${question_number}: ${JSON.stringify(text)}. ${open.length ? `Still open: ${open.map((n) => `Q${n}`).join(', ')}.` : 'All questions answered.'}`;
    },
  });

  return { search, answer, tools: [search, answer], answers };
}
