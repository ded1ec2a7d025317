import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../../pagewise/src/errors.js';
import type { HotpotRecord } from './data.js';
import { generateQaEpisodes } from './tasks.js';

function records(count: number): HotpotRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `r${index}`,
    question: `What is item ${index}?`,
    answer: `item ${index}`,
    type: 'bridge' as const,
    paragraphs: [{ title: `Item ${index}`, sentences: [`Item ${index} is a thing.`] }],
    supporting: [{ title: `Item ${index}`, sentenceIndex: 0, sentence: `Item ${index} is a thing.` }],
  }));
}

describe('generateQaEpisodes', () => {
  it('numbers the k questions Q1..Qk in the prompt and names both tools', () => {
    const [episode] = generateQaEpisodes(records(10), { k: 3, episodes: 1, seed: 1 });
    expect(episode?.questions).toHaveLength(3);
    const lines = episode?.prompt.split('\n').filter((l) => /^Q\d+: /.test(l));
    expect(lines).toEqual(episode?.questions.map((q, i) => `Q${i + 1}: ${q.question}`));
    expect(episode?.prompt).toContain('`search`');
    expect(episode?.prompt).toContain('`answer`');
  });

  it('defaults to 4 questions an episode', () => {
    expect(generateQaEpisodes(records(10), { episodes: 2, seed: 3 }).map((e) => e.questions.length)).toEqual([4, 4]);
  });

  it('is deterministic by seed, never repeats a question within an episode, and differs across seeds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer(),
        (recordCount, questionCount, episodes, seed) => {
          fc.pre(questionCount <= recordCount);
          const generated = generateQaEpisodes(records(recordCount), { k: questionCount, episodes, seed });
          expect(generateQaEpisodes(records(recordCount), { k: questionCount, episodes, seed })).toEqual(generated);
          expect(generated).toHaveLength(episodes);
          for (const episode of generated) expect(new Set(episode.questions.map((q) => q.id)).size).toBe(questionCount);
        },
      ),
    );
    const ids = (seed: number) =>
      generateQaEpisodes(records(50), { k: 4, episodes: 3, seed }).flatMap((e) => e.questions.map((q) => q.id));
    expect(ids(1)).not.toEqual(ids(2));
  });

  it('refuses a k it cannot fill', () => {
    expect(() => generateQaEpisodes(records(3), { k: 4, episodes: 1, seed: 1 })).toThrow(ConfigurationError);
    expect(() => generateQaEpisodes(records(3), { k: 0, episodes: 1, seed: 1 })).toThrow(/k \(questions per episode\)/);
    expect(() => generateQaEpisodes(records(3), { k: 2, episodes: -1, seed: 1 })).toThrow(/episodes/);
  });
});
