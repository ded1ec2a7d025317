import { describe, expect, it } from 'vitest';
import {
  DEFAULT_HISTORY_GUIDELINE,
  DEFAULT_OBSERVATION_GUIDELINE,
} from '../../../pagewise/src/compression/default-guidelines.js';
import { jointPartner } from './evaluate.js';

describe('jointPartner', () => {
  it('gives the other compressor the default template of its target with the rules under test', () => {
    const learned = {
      ...DEFAULT_OBSERVATION_GUIDELINE,
      id: 'obs-learned',
      version: 3,
      rules: { ...DEFAULT_OBSERVATION_GUIDELINE.rules, jsonKeepFields: ['price'], ratio: 0.4 },
    };
    const history = jointPartner(learned);
    expect(history.target).toBe('history');
    expect(history.template).toBe(DEFAULT_HISTORY_GUIDELINE.template);
    expect(history.rules).toEqual(learned.rules);
    expect(history.id).toBe('obs-learned-history');
    expect(jointPartner(history).target).toBe('observation');
    expect(jointPartner(history).template).toBe(DEFAULT_OBSERVATION_GUIDELINE.template);
  });
});
