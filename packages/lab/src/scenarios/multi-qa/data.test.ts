import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../../../pagewise/src/errors.js';
import {
  defaultHotpotPath,
  hotpotDataMissing,
  HOTPOTQA_PATH_ENV,
  hotpotAvailable,
  loadHotpot,
  type HotpotRecord,
} from './data.js';

const available = hotpotAvailable();
if (!available) console.log(`multi-qa data tests skipped: ${hotpotDataMissing()}`);

// A made-up record in the redistributed format, with the leading spaces the real context sentences have.
const handMade = {
  _id: 'x1',
  question: 'Who founded Zorblatt?',
  answer: 'Mira Quell',
  type: 'bridge',
  level: 'easy',
  context: [
    ['Zorblatt', ['Zorblatt is a company.', ' It was founded by Mira Quell.']],
    ['Quell', ['Quell is a surname.']],
  ],
  supporting_facts: [['Zorblatt', [0, 1], ['Zorblatt is a company.', 'It was founded by Mira Quell.'], null]],
};

function writeTemp(lines: string[]): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'pagewise-hotpot-')), 'dev.jsonl');
  writeFileSync(file, lines.join('\n'));
  return file;
}

describe('loadHotpot (hand-made files)', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('normalizes a record: trimmed sentences, supporting facts resolved to their sentences', async () => {
    const [record] = await loadHotpot(writeTemp([JSON.stringify(handMade), '']));
    expect(record).toEqual({
      id: 'x1',
      question: 'Who founded Zorblatt?',
      answer: 'Mira Quell',
      type: 'bridge',
      paragraphs: [
        { title: 'Zorblatt', sentences: ['Zorblatt is a company.', 'It was founded by Mira Quell.'] },
        { title: 'Quell', sentences: ['Quell is a surname.'] },
      ],
      supporting: [
        { title: 'Zorblatt', sentenceIndex: 0, sentence: 'Zorblatt is a company.' },
        { title: 'Zorblatt', sentenceIndex: 1, sentence: 'It was founded by Mira Quell.' },
      ],
    } satisfies HotpotRecord);
  });

  it('also reads the original HotpotQA form [title, index] of supporting facts', async () => {
    const original = {
      ...handMade,
      supporting_facts: [
        ['Zorblatt', 1],
        ['Quell', 0],
      ],
    };
    const [record] = await loadHotpot(writeTemp([JSON.stringify(original)]));
    expect(record?.supporting.map((s) => s.sentence)).toEqual(['It was founded by Mira Quell.', 'Quell is a surname.']);
  });

  it('takes its default path from the environment variable', async () => {
    vi.stubEnv(HOTPOTQA_PATH_ENV, writeTemp([JSON.stringify(handMade)]));
    expect(hotpotAvailable()).toBe(true);
    expect(await loadHotpot()).toHaveLength(1);
  });

  it('says where the file was expected and which variable to set when it is missing', async () => {
    const missing = path.join(tmpdir(), 'no-such-dir-pagewise', 'dev.jsonl');
    expect(hotpotAvailable(missing)).toBe(false);
    const error = await loadHotpot(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain(missing);
    expect((error as Error).message).toContain(HOTPOTQA_PATH_ENV);
  });

  it('names the file and line of a record that does not parse or points at no sentence', async () => {
    const badJson = writeTemp([JSON.stringify(handMade), '{oops']);
    await expect(loadHotpot(badJson)).rejects.toThrow(`${badJson}:2 is not valid JSON`);
    const badShape = writeTemp([JSON.stringify({ ...handMade, type: 'riddle' })]);
    await expect(loadHotpot(badShape)).rejects.toThrow(`${badShape}:1 is not a HotpotQA record`);
    const badIndex = writeTemp([JSON.stringify({ ...handMade, supporting_facts: [['Quell', [3]]] })]);
    await expect(loadHotpot(badIndex)).rejects.toThrow(
      `${badIndex}:1: supporting fact ["Quell", 3] points at no sentence`,
    );
  });
});

describe.skipIf(!available)('loadHotpot (shared HotpotQA dev set)', () => {
  let records: HotpotRecord[] = [];
  beforeAll(async () => {
    records = await loadHotpot();
  });

  it('loads 100 questions of both kinds with 10 paragraphs each', () => {
    expect(records).toHaveLength(100);
    expect(new Set(records.map((r) => r.id)).size).toBe(100);
    expect(new Set(records.map((r) => r.type))).toEqual(new Set(['bridge', 'comparison']));
    for (const record of records) expect(record.paragraphs).toHaveLength(10);
  });

  it('resolves every supporting fact to a sentence of its paragraph, as the file lists it', () => {
    const raw = readFileSync(defaultHotpotPath(), 'utf8').trim().split('\n');
    records.forEach((record, index) => {
      const listed = (JSON.parse(raw[index] ?? '{}') as { supporting_facts: [string, number[], string[]][] })
        .supporting_facts;
      expect(record.supporting.length).toBeGreaterThanOrEqual(2);
      for (const fact of record.supporting) {
        const paragraph = record.paragraphs.find((p) => p.title === fact.title);
        expect(paragraph?.sentences[fact.sentenceIndex]).toBe(fact.sentence);
        // The file repeats the paragraph's sentences beside the indices; they must agree with the context.
        const entry = listed.find(([title]) => title === fact.title);
        expect(entry?.[2][fact.sentenceIndex]?.trim()).toBe(fact.sentence);
      }
    });
  });
});
