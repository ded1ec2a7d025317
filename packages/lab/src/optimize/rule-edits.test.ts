import { describe, expect, it } from 'vitest';
import { DEFAULT_OBSERVATION_GUIDELINE } from '../../../pagewise/src/compression/default-guidelines.js';
import { parseGuideline, formatGuideline } from '../../../pagewise/src/compression/guideline.js';
import { guidelineHash } from './hash.js';
import { compressionEdits, utilityEdits } from './rule-edits.js';

const weight = (rule: string, score: number) => ({
  rule,
  weight: score,
  lostInFailed: 1,
  lostInSucceeded: 0,
  factLoss: 0,
  variableLoss: 0,
});

describe('utilityEdits', () => {
  it('proposes K distinct rule edits that keep the heaviest fields first, template untouched', () => {
    const drafts = utilityEdits(
      DEFAULT_OBSERVATION_GUIDELINE,
      [
        weight('items.price', 3),
        weight('orders', 2),
        weight('line:numeric', 1),
        weight('zip', 0.5),
        weight('status', 0.4),
      ],
      5,
    );
    expect(drafts).toHaveLength(5);
    expect(drafts[0]?.edit).toBe('keep items.price, orders, zip');
    expect(drafts[0]?.guideline?.rules.jsonKeepFields).toEqual([
      'error',
      'errors',
      'message',
      'status',
      'items.price',
      'orders',
      'zip',
    ]);
    const hashes = drafts.map((d) => guidelineHash(d.guideline!));
    expect(new Set([...hashes, guidelineHash(DEFAULT_OBSERVATION_GUIDELINE)]).size).toBe(6);
    for (const draft of drafts) {
      expect(draft.guideline?.template).toBe(DEFAULT_OBSERVATION_GUIDELINE.template);
      // Every draft is a valid guideline file.
      expect(parseGuideline(formatGuideline(draft.guideline!))).toEqual(draft.guideline);
    }
  });

  it('still proposes share-kept edits when no field stands out', () => {
    expect(utilityEdits(DEFAULT_OBSERVATION_GUIDELINE, [], 5).map((d) => d.edit)).toEqual([
      'ratio 0.5 → 0.75',
      'ratio 0.5 → 1',
    ]);
  });
});

describe('compressionEdits', () => {
  it('drops unneeded fields, and makes needed ones explicit when it raises minScore', () => {
    const incumbent = { ...DEFAULT_OBSERVATION_GUIDELINE, rules: { ...DEFAULT_OBSERVATION_GUIDELINE.rules, ratio: 1 } };
    const drafts = compressionEdits(
      incumbent,
      {
        unneeded: [
          { rule: 'address', tokens: 40 },
          { rule: 'email', tokens: 5 },
        ],
        needed: ['items.price', 'status'],
      },
      5,
    );
    expect(drafts.map((d) => d.edit)).toEqual([
      'drop address, email',
      'keep items.price; drop address, email; minScore none → 0.5',
      'keep items.price; drop address, email; minScore none → 1',
      'keep items.price; drop address, email; ratio 1 → 0.75',
      'drop address, email; minScore none → 0.5',
    ]);
    expect(drafts[1]?.guideline?.rules).toMatchObject({ minScore: 0.5, jsonDropFields: ['address', 'email'] });
    expect(drafts[1]?.guideline?.rules.jsonKeepFields).toContain('items.price');
  });
});
