/**
 * Evidence test on real data: does the extractive compressor keep the sentences a HotpotQA question
 * needs? Each observation is a question's 10 context paragraphs (2 gold, 8 distractors); at τ = 0.5
 * the output must stay within half the tokens and keep ≥ 90% of the supporting-fact sentences
 * verbatim. Baselines are measured at the same ratio and printed, for comparison: the text baselines,
 * and the context strategies' counterparts on one observation (FIFO keeps the end, as truncate-tail;
 * the prompting baseline's offline stand-in keeps each paragraph's first sentence; clearing drops the
 * whole result).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findDataPath, missingDataHint } from '../packages/lab/src/util/data-path.js';
import {
  randomUnits,
  tokenDropLingua,
  truncateHead,
  truncateTail,
} from '../packages/pagewise/src/compression/baselines-text.js';
import { compressExtractive } from '../packages/pagewise/src/compression/extractive.js';
import { firstSentence } from '../packages/pagewise/src/compression/offline-summarizer.js';
import { DEFAULT_OBSERVATION_RULES } from '../packages/pagewise/src/compression/rules.js';
import { headWithinTokens, tokenBudget } from '../packages/pagewise/src/compression/token-budget.js';
import { countTokens } from '../packages/pagewise/src/tokens/tokenizer.js';

const DATA = findDataPath('hotpotqa/dev.jsonl');
const RATIO = 0.5;
const present = existsSync(DATA);
if (!present) console.log(`hotpotqa-evidence: skipped, no HotpotQA data at ${DATA}. ${missingDataHint('hotpotqa')}`);

const QuestionSchema = z.object({
  _id: z.string(),
  question: z.string(),
  // [title, [sentence, ...]]
  context: z.array(z.tuple([z.string(), z.array(z.string())])),
  // [title, [sentence indices], [the paragraph's sentences], {retrieved doc}]
  supporting_facts: z.array(
    z.tuple([z.string(), z.array(z.number().int().nonnegative()), z.array(z.string())], z.unknown()),
  ),
});
type Question = z.infer<typeof QuestionSchema>;

function loadQuestions(): Question[] {
  return readFileSync(DATA, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      const parsed = QuestionSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${DATA}:${index + 1}: ${parsed.error.message}`);
      return parsed.data;
    });
}

/** The observation a retrieval tool would return: one `Title: sentence sentence ...` paragraph each. */
function observationOf(question: Question): string {
  return question.context
    .map(([title, sentences]) => `${title}: ${sentences.map((s) => s.trim()).join(' ')}`)
    .join('\n\n');
}

function supportingSentences(question: Question): string[] {
  return question.supporting_facts.flatMap(([title, indices, sentences]) =>
    indices.map((index) => {
      const sentence = sentences[index];
      if (sentence === undefined)
        throw new Error(`${question._id}: supporting fact ${title}[${index}] is out of range`);
      return sentence.trim();
    }),
  );
}

interface Tally {
  kept: number;
  total: number;
  ratios: number[];
}

describe.skipIf(!present)(`HotpotQA evidence recall at τ = ${RATIO}`, () => {
  it('the extractive compressor keeps ≥ 90% of supporting sentences within the ratio; baselines are printed', () => {
    const questions = loadQuestions();
    expect(questions).toHaveLength(100);
    const methods: Record<string, (observation: string, q: Question, n: number) => string> = {
      extractive: (observation, question) =>
        compressExtractive(observation, { query: question.question, rules: DEFAULT_OBSERVATION_RULES }).text,
      'truncate-head': (observation) => truncateHead(observation, RATIO),
      'truncate-tail (= FIFO)': (observation) => truncateTail(observation, RATIO),
      'random-units': (observation, _q, n) => randomUnits(observation, RATIO, n + 1),
      'token-drop-lingua': (observation) => tokenDropLingua(observation, RATIO),
      'prompting, naive stand-in': (observation) =>
        headWithinTokens(
          observation
            .split('\n\n')
            .map((paragraph) => firstSentence(paragraph))
            .join('\n'),
          tokenBudget(countTokens(observation), RATIO),
        ),
      'clear-tool-results': () => '',
    };
    expect(DEFAULT_OBSERVATION_RULES.ratio).toBe(RATIO);
    const tallies = new Map<string, Tally>(
      Object.keys(methods).map((name) => [name, { kept: 0, total: 0, ratios: [] }]),
    );

    questions.forEach((question, position) => {
      const observation = observationOf(question);
      const inputTokens = countTokens(observation);
      const evidence = supportingSentences(question);
      for (const [name, compress] of Object.entries(methods)) {
        const tally = tallies.get(name);
        if (!tally) continue;
        const output = compress(observation, question, position);
        const ratio = countTokens(output) / inputTokens;
        expect(ratio, `${name} on ${question._id}`).toBeLessThanOrEqual(RATIO);
        tally.ratios.push(ratio);
        for (const sentence of evidence) {
          tally.total += 1;
          if (output.includes(sentence)) tally.kept += 1;
        }
      }
    });

    const rows = [...tallies].map(([name, tally]) => ({
      method: name,
      'sentence recall': Number((tally.kept / tally.total).toFixed(3)),
      'mean ratio': Number((tally.ratios.reduce((a, b) => a + b, 0) / tally.ratios.length).toFixed(3)),
      'max ratio': Number(Math.max(...tally.ratios).toFixed(3)),
    }));
    const extractive = tallies.get('extractive');
    console.log(
      `HotpotQA evidence at τ = ${RATIO} (${questions.length} questions, ${extractive?.total ?? 0} supporting sentences; ` +
        'sentence recall = supporting sentences kept verbatim; token-drop rewrites sentences, so it keeps none verbatim):',
    );
    console.table(rows);
    expect((extractive?.kept ?? 0) / (extractive?.total ?? 1)).toBeGreaterThanOrEqual(0.9);
  });
});
