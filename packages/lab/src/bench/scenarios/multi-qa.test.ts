import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hotpotDataMissing,
  hotpotAvailable,
  MAX_SEARCHES_PER_QUESTION,
  QA_SEARCH_TOOL,
  type HotpotRecord,
} from '../../scenarios/multi-qa/index.js';
import { runBench, type CapturedCall } from '../harness.js';
import { registerStrategy, unregisterStrategy } from '../strategies.js';
import { createMultiQaScenario, episodeEvidenceRecall, MULTI_QA_SCENARIO, multiQaMaxSteps } from './multi-qa.js';
import { registerStandardBench } from '../standard.js';

registerStandardBench();

const available = hotpotAvailable();
if (!available) console.log(`multi-objective-qa bench tests skipped: ${hotpotDataMissing()}`);

const question = (id: string, sentences: string[]): HotpotRecord => ({
  id,
  question: `question ${id}?`,
  answer: 'x',
  type: 'bridge',
  paragraphs: [],
  supporting: sentences.map((sentence, i) => ({ title: 'T', sentenceIndex: i, sentence })),
});

const call = (promptText: string, answers: { question_number: number; answer?: string }[]): CapturedCall => ({
  params: { prompt: [{ role: 'user', content: [{ type: 'text', text: promptText }] }] satisfies LanguageModelV3Prompt },
  text: '',
  toolCalls: answers.map((answer, index) => ({
    toolCallId: `c${index}`,
    toolName: 'answer',
    input: JSON.stringify({ answer: 'x', ...answer }),
  })),
});

describe('episodeEvidenceRecall', () => {
  const questions = [question('a', ['Alpha is red.', 'Alpha is big.']), question('b', ['Beta is blue.'])];

  it('reads the prompt of the call that answered each question; an unanswered question scores 0', () => {
    expect(episodeEvidenceRecall(questions, [call('Alpha is red. Beta is blue.', [{ question_number: 1 }])])).toBe(
      (0.5 + 0) / 2,
    );
  });

  it('uses the last answer to a question, as the answer sheet does', () => {
    const calls = [
      call('Alpha is red. Alpha is big.', [{ question_number: 1 }]),
      call('nothing here', [{ question_number: 1 }]),
      call('Beta is blue.', [{ question_number: 2 }]),
    ];
    expect(episodeEvidenceRecall(questions, calls)).toBe((0 + 1) / 2);
  });

  it('ignores answers the answer tool would refuse', () => {
    const calls = [
      call('Alpha is red. Alpha is big. Beta is blue.', [{ question_number: 3 }, { question_number: 2, answer: '  ' }]),
    ];
    expect(episodeEvidenceRecall(questions, calls)).toBe(0);
  });

  it('gives room for a real model but stops a loop', () => {
    expect(multiQaMaxSteps(4)).toBe(2 * 4 * (MAX_SEARCHES_PER_QUESTION + 1) + 2);
  });
});

describe.runIf(available)('multi-objective-qa scenario', () => {
  const scenario = createMultiQaScenario();
  beforeAll(() =>
    registerStrategy(
      'test-hide-search',
      () => ({
        processors: [
          {
            name: 'hide-search',
            process(request) {
              request.items = request.items.map((item) =>
                item.type === 'tool-result' && item.toolName === QA_SEARCH_TOOL
                  ? { ...item, output: '[removed]' }
                  : item,
              );
            },
          },
        ],
      }),
      { scenarios: [MULTI_QA_SCENARIO] },
    ),
  );
  afterAll(() => unregisterStrategy('test-hide-search'));

  it('grades by exact match of every answer, with evidence recall as a diagnostic', async () => {
    const report = await runBench({ scenario, strategies: ['none', 'test-hide-search'], n: 2, tasks: 6, seed: 1 });
    const [none, hidden] = report.results;
    expect(none?.evidenceRecall).toBeGreaterThan(0.5);
    expect(hidden?.evidenceRecall).toBe(0);
    expect(hidden?.successRate).toBe(0);
    expect(hidden?.exactMatch).toBe(0);
    expect(none?.exactMatch).not.toBeNull();
    expect(none?.f1).not.toBeNull();
    // An episode succeeds only when every one of its answers is an exact match.
    for (const episode of report.runs.episodes.filter((x) => x.strategy === 'none'))
      expect(episode.success).toBe(episode.exactMatch === 1 && episode.error === undefined);
  });

  it('takes N as the number of questions per episode', async () => {
    const [two, four] = await Promise.all([
      scenario.prepare({ n: 2, tasks: 1, seed: 1 }),
      scenario.prepare({ tasks: 1, seed: 1 }),
    ]);
    expect(two[0]?.questions).toHaveLength(2);
    expect(four[0]?.questions).toHaveLength(4);
  });
});
