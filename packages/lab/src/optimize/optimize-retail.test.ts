import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getScenario } from '../bench/index.js';
import { DEFAULT_OBSERVATION_GUIDELINE } from '../../../pagewise/src/compression/default-guidelines.js';
import { placeholdersOf } from '../../../pagewise/src/compression/guideline.js';
import { retailDataMissing, retailDataAvailable } from '../scenarios/retail/index.js';
import { InMemoryCompressorCallStore } from '../../../pagewise/src/compression/call-store.js';
import { guidelineText, leakedValues } from './candidate-check.js';
import { ChatExampleSchema, exportDistillJsonl } from './distill.js';
import { optimizeGuideline } from './optimize.js';
import { retailTaskValues } from '../scenarios/retail/task-values.js';
import { registerStandardBench } from '../bench/standard.js';

registerStandardBench();

const available = retailDataAvailable();
if (!available) console.log(`offline optimization tests on retail skipped: ${retailDataMissing()}`);

describe.runIf(available)('offline optimization on retail-tool-use', () => {
  it('repairs a guideline that drops needed fields, on held-out tasks, without a task value in any candidate', async () => {
    const store = new InMemoryCompressorCallStore();
    const scenario = getScenario('retail-tool-use');
    // The default guideline solves these held-out tasks already; a hand-written one that drops the names and
    // prices (fields the answers need) fails most, which only contrastive failures can show the optimizer.
    const weak = {
      ...DEFAULT_OBSERVATION_GUIDELINE,
      id: 'observation-without-names',
      rules: { ...DEFAULT_OBSERVATION_GUIDELINE.rules, jsonDropFields: ['price', 'name'] },
    };
    const result = await optimizeGuideline({
      scenario,
      target: 'observation',
      start: weak,
      train: 4,
      val: 4,
      candidates: 3,
      store,
    });
    const val = (label: string) => result.report.rows.find((r) => r.split === 'val' && r.label === label);
    const start = val('start');
    const final = val('final');
    expect(final!.score.success).toBeGreaterThan(start!.score.success);
    expect(final!.selection).toBeGreaterThan(start!.selection);
    expect(result.report.verdict.improved).toBe(true);

    const tasks = await scenario.prepare({ tasks: 4, seed: 1 });
    const forbidden = tasks.flatMap((t) => retailTaskValues(t).forbidden);
    for (const candidate of result.candidates)
      if (candidate.guideline) expect(leakedValues(guidelineText(candidate.guideline), forbidden)).toEqual([]);
    expect(placeholdersOf(result.chosen.template)).toEqual(placeholdersOf(result.start.template));

    // Every compressor call was recorded and scored; the successful ones export as chat examples.
    const calls = await store.list();
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.success === 0 || c.success === 1)).toBe(true);
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'pagewise-distill-retail-')), 'obs.jsonl');
    const exported = await exportDistillJsonl({ store, target: 'observation', out });
    expect(exported.written).toBeGreaterThan(0);
    for (const line of readFileSync(out, 'utf8').trim().split('\n')) ChatExampleSchema.parse(JSON.parse(line));
  });
});
