import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchScenario, ScenarioTask } from '../bench/scenario.js';
import { DEFAULT_OBSERVATION_GUIDELINE } from '../../../pagewise/src/compression/default-guidelines.js';
import {
  formatGuideline,
  parseGuideline,
  placeholdersOf,
  type Guideline,
} from '../../../pagewise/src/compression/guideline.js';
import { AbortedError, LimitExceededError } from '../../../pagewise/src/errors.js';
import { scriptedModel, type ScriptedStep } from '../../../pagewise/src/models/scripted.js';
import { emptyParts } from '../../../pagewise/src/tokens/ledger.js';
import { countTokens } from '../../../pagewise/src/tokens/tokenizer.js';
import type { EpisodeEvaluator } from './evaluate.js';
import { guidelineHash } from './hash.js';
import { optimizeGuideline, selectCandidate, type SplitScore } from './optimize.js';

interface FakeTask extends ScenarioTask {
  code: string;
  solvable: boolean;
  needsCode: boolean;
  gold: { code: string };
}

// q0..q3 train, q4..q5 held out. Success needs the record's code when `needsCode`; q2 fails whatever the context.
const SPECS = [
  { solvable: true, needsCode: true },
  { solvable: true, needsCode: false },
  { solvable: false, needsCode: true },
  { solvable: true, needsCode: true },
  { solvable: true, needsCode: true },
  { solvable: true, needsCode: false },
];

const scenario: BenchScenario = {
  name: 'test-optimize',
  description: 'records with a code',
  strategies: [],
  prepare: async ({ tasks }) =>
    SPECS.slice(0, tasks).map((spec, index): FakeTask => {
      const code = `Z${7000 + index}K`;
      return {
        id: `q${index}`,
        prompt: `Read record number ${index} and report its secret code.`,
        code,
        gold: { code },
        ...spec,
      };
    }),
  runEpisode: () => Promise.reject(new Error('the tests pass their own evaluator')),
};

/**
 * A deterministic stand-in for running an episode: the "compressor" keeps a record's name from ratio
 * 0.5, its code when a keep rule names it or at ratio 1, its long notes at ratio 1; drop rules win.
 */
function fakeEvaluator(log: string[]): EpisodeEvaluator {
  return async (job) => {
    const task = job.task as FakeTask;
    log.push(`${job.mode}|${job.guideline ? guidelineHash(job.guideline) : '-'}|${task.id}`);
    const record = {
      record_id: `R-${task.id}`,
      code: task.code,
      name: 'a name long enough to count',
      notes: 'n'.repeat(400),
    };
    const input = JSON.stringify(record, null, 2);
    let output = input;
    if (job.mode === 'compressed') {
      const rules = (job.guideline as Guideline).rules;
      const kept: Record<string, string> = { record_id: record.record_id };
      const dropped = (k: string) => rules.jsonDropFields.includes(k);
      if (rules.ratio >= 0.5 && !dropped('name')) kept.name = record.name;
      if ((rules.jsonKeepFields.includes('code') || rules.ratio >= 1) && !dropped('code')) kept.code = record.code;
      if (rules.ratio >= 1 && !dropped('notes')) kept.notes = record.notes;
      output = JSON.stringify(kept);
    }
    const success = task.solvable && (!task.needsCode || output.includes(task.code));
    const tokens = countTokens(output) + 100;
    return {
      success,
      answer: `Done.\nAnswer: ${success ? task.code : 'unknown'}`,
      ledger: [
        {
          index: 0,
          kind: 'agent',
          agent: 'a',
          model: 'fake',
          invocationId: 'i',
          parts: { ...emptyParts(), observation: tokens },
          promptTokens: tokens,
          completionTokens: 5,
          modelMs: 0,
          frameworkMs: 0,
          at: 0,
        },
      ],
      toolCalls: [{ toolName: 'read_record', input: `{"id":"R-${task.id}"}` }],
      compressions:
        job.mode === 'compressed'
          ? [
              {
                id: `${task.id}-c`,
                episodeId: `${task.id}-e`,
                taskId: task.id,
                target: 'observation',
                guideline: { id: 'g', version: 1, hash: 'h' },
                backend: 'fake',
                input: {
                  task: task.prompt,
                  history: '',
                  previousSummary: '',
                  observation: input,
                  toolName: 'read_record',
                  maxTokens: 100,
                },
                prompt: 'p',
                output,
                at: 0,
                success: null,
              },
            ]
          : [],
      finalPrompt: `${task.prompt}\n${output}`,
    };
  };
}

const base = DEFAULT_OBSERVATION_GUIDELINE;
const file = (rules: Partial<Guideline['rules']>, template = base.template, description = 'a revision') =>
  formatGuideline({ ...base, description, template, rules: { ...base.rules, ...rules } });
const block = (files: string[]) =>
  files.map((f, i) => `=== CANDIDATE ${i + 1} ===\n${f}\n=== END CANDIDATE ${i + 1} ===`).join('\n');

const feedback = (prompt: string) =>
  JSON.stringify({
    divergence: 'the compressed run lacked the code',
    rootCauses: ['missing-critical-fact', 'nonsense'],
    lostFacts: [prompt.match(/record number \d/)?.[0] ?? '?'],
    recommendations: ['keep the code field'],
  });

/** The optimizer's replies, in the order the loop asks. */
function optimizerSteps(): { steps: ScriptedStep[]; asked: string[] } {
  const asked: string[] = [];
  const reply =
    (text: (prompt: string) => string): ScriptedStep =>
    ({ view }) => {
      asked.push(view.lastUserText);
      return text(view.lastUserText);
    };
  const steps: ScriptedStep[] = [
    reply(feedback),
    reply(feedback),
    reply(() =>
      block([
        file({ jsonKeepFields: [...base.rules.jsonKeepFields, 'code'] }, base.template, 'keep the code field'),
        file({ ratio: 1 }, base.template, 'keep everything'),
        file({ ratio: 0.6 }, base.template.replace('{{history}}', '(no history)')),
        file({ ratio: 0.7 }, `${base.template}\nAlways keep Z7000K.`),
        'this is not a guideline file',
      ]),
    ),
    reply(() => JSON.stringify({ unnecessary: ['the name'], recommendations: ['drop the name'] })),
    reply(() => JSON.stringify({ unnecessary: ['the name'], recommendations: ['drop the name'] })),
    reply(() => 'not JSON at all'),
    reply(() =>
      block([
        file(
          { jsonKeepFields: [...base.rules.jsonKeepFields, 'code'], jsonDropFields: ['name'] },
          base.template,
          'drop the name',
        ),
        file({ jsonKeepFields: [...base.rules.jsonKeepFields, 'code'], ratio: 0.25 }, base.template, 'keep a quarter'),
        file({ jsonDropFields: ['name'] }, base.template, 'drop the name and the code rule'),
      ]),
    ),
  ];
  return { steps, asked };
}

const options = { scenario, target: 'observation' as const, train: 4, val: 2, candidates: 5, lambda: 0.5 };

describe('optimizeGuideline with an optimizer LLM (scripted)', () => {
  it('asks feedback on exactly the contrastive pairs, asks for K candidates, checks them and selects by the rules', async () => {
    const { steps, asked } = optimizerSteps();
    const model = scriptedModel(steps);
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-opt-'));
    const result = await optimizeGuideline({ ...options, optimizer: model, evaluator: fakeEvaluator([]), outDir });
    model.assertComplete();

    // Contrastive set: q0 and q3 (q1 succeeds compressed, q2 fails uncompressed).
    expect(result.feedback.utility.map((f) => f.taskId)).toEqual(['q0', 'q3']);
    expect(asked[0]).toContain('record number 0');
    expect(asked[1]).toContain('record number 3');
    expect(result.feedback.utility[0]?.rootCauses).toEqual(['missing-critical-fact', 'other']);
    // K candidates asked for, in the guideline file format.
    expect(asked[2]).toContain('Write 5 different revised guideline files');
    expect(asked[2]).toContain('never copy a task-specific value');
    expect(asked[2]).toContain(formatGuideline(base));

    const ut = result.candidates.filter((c) => c.step === 'utility');
    expect(ut.map((c) => [c.index, c.status])).toEqual([
      [0, 'evaluated'],
      [1, 'evaluated'],
      [2, 'evaluated'],
      [3, 'rejected'],
      [4, 'rejected'],
      [5, 'rejected'],
    ]);
    expect(ut[3]?.reason).toMatch(/drops the placeholder \{\{history\}\}/);
    expect(ut[4]?.reason).toMatch(/task-specific value.*Z7000K/);
    expect(ut[5]?.reason).toMatch(/optimizer candidate 5.*front matter/);
    // UT: best training success, then lower cost: candidate 1 (the code kept, notes not).
    expect(ut.filter((c) => c.chosen).map((c) => c.index)).toEqual([1]);
    expect(ut[1]?.train?.success).toBe(0.75);
    expect(ut[2]?.train?.success).toBe(0.75);
    expect(ut[1]!.train!.cost).toBeLessThan(ut[2]!.train!.cost);

    // CO: feedback on the tasks that succeeded with candidate 1; an unreadable reply is kept, marked.
    expect(result.feedback.compression.map((f) => f.taskId)).toEqual(['q0', 'q1', 'q3']);
    expect(result.feedback.compression[2]?.invalid).toBeDefined();
    const co = result.candidates.filter((c) => c.step === 'compression');
    const scores = co.filter((c) => c.status === 'evaluated').map((c) => c.score as number);
    const chosen = co.find((c) => c.chosen);
    expect(chosen?.index).toBe(1);
    expect(chosen?.score).toBe(Math.max(...scores));
    // Candidate 2 behaves exactly like 1: the tie goes to the earlier one.
    expect(co[2]?.score).toBe(co[1]?.score);
    expect(co[3]?.train?.success).toBe(0.25);

    // The result keeps every placeholder, and the report holds the held-out before/after.
    expect(result.chosen.id).toBe('observation-default-co1');
    expect(placeholdersOf(result.chosen.template)).toEqual(placeholdersOf(base.template));
    const val = result.report.rows.filter((r) => r.split === 'val');
    expect(val.map((r) => [r.label, r.score.success])).toEqual([
      ['uncompressed', 1],
      ['start', 0.5],
      ['after UT', 1],
      ['final', 1],
    ]);
    expect(result.report.verdict.improved).toBe(true);
    expect(result.report.usage.calls).toBe(7);

    // Outputs: the chosen guideline parses back to itself; every candidate is listed.
    expect(parseGuideline(readFileSync(path.join(outDir, 'guideline.md'), 'utf8'))).toEqual(result.chosen);
    const listed = JSON.parse(readFileSync(path.join(outDir, 'candidates.json'), 'utf8')) as unknown[];
    expect(listed).toHaveLength(result.candidates.length);
    expect(readFileSync(path.join(outDir, 'report.md'), 'utf8')).toContain(
      '| val | final | observation-default-co1@3 |',
    );
  });

  it('stops at the optimizer call cap with its progress saved, and the resumed run repeats no finished work', async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-opt-resume-'));
    const all = optimizerSteps().steps;
    const first = scriptedModel(all.slice(0, 4));
    const firstLog: string[] = [];
    const settingNames = { maxOptimizerCalls: '--max-optimizer-calls' };
    const stopped = optimizeGuideline({
      ...options,
      optimizer: first,
      evaluator: fakeEvaluator(firstLog),
      outDir,
      maxOptimizerCalls: 4,
      settingNames,
    });
    await expect(stopped).rejects.toThrow(LimitExceededError);
    await expect(stopped).rejects.toThrow(/optimizer calls.*4.*progress saved.*--max-optimizer-calls/s);
    first.assertComplete();

    // The rest of the script only: an extra call would fail loudly, a missing one fails assertComplete.
    const second = scriptedModel(all.slice(4));
    const secondLog: string[] = [];
    const result = await optimizeGuideline({
      ...options,
      optimizer: second,
      evaluator: fakeEvaluator(secondLog),
      outDir,
      maxOptimizerCalls: 7,
      settingNames,
    });
    second.assertComplete();
    expect(secondLog.filter((job) => firstLog.includes(job))).toEqual([]);
    expect(secondLog.length).toBeGreaterThan(0);
    expect(result.chosen.id).toBe('observation-default-co1');
    expect(result.report.usage.calls).toBe(7);

    // Done: a third run finds everything in the progress file.
    const third = scriptedModel([]);
    const thirdLog: string[] = [];
    const again = await optimizeGuideline({ ...options, optimizer: third, evaluator: fakeEvaluator(thirdLog), outDir });
    expect(thirdLog).toEqual([]);
    expect(guidelineHash(again.chosen)).toBe(guidelineHash(result.chosen));
  });
});

describe('optimizeGuideline offline (rule edits)', () => {
  it('finds the lost field from the failures and keeps it, never copying a value', async () => {
    const result = await optimizeGuideline({ ...options, evaluator: fakeEvaluator([]) });
    expect(result.report.proposer).toBe('rule-edits');
    expect(result.weights[0]).toMatchObject({ rule: 'code', factLoss: 1 });
    expect(result.feedback.utility.map((f) => f.rootCauses)).toEqual([
      ['missing-critical-fact'],
      ['missing-critical-fact'],
    ]);
    expect(result.afterUtility.rules.jsonKeepFields).toContain('code');
    expect(JSON.stringify(result.candidates.map((c) => c.guideline))).not.toMatch(/Z700\dK/);
    const val = result.report.rows.filter((r) => r.split === 'val');
    expect(val.find((r) => r.label === 'final')!.score.success).toBeGreaterThan(
      val.find((r) => r.label === 'start')!.score.success,
    );
  });

  it('resumes after an interruption without running a finished episode again', async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-opt-abort-'));
    const controller = new AbortController();
    const firstLog: string[] = [];
    const evaluator = fakeEvaluator(firstLog);
    const interrupted = optimizeGuideline({
      ...options,
      outDir,
      signal: controller.signal,
      evaluator: async (job, signal) => {
        const result = await evaluator(job, signal);
        if (firstLog.length === 9) controller.abort();
        return result;
      },
    });
    await expect(interrupted).rejects.toThrow(AbortedError);
    expect(firstLog).toHaveLength(9);
    const secondLog: string[] = [];
    const resumed = await optimizeGuideline({ ...options, outDir, evaluator: fakeEvaluator(secondLog) });
    expect(secondLog.filter((job) => firstLog.includes(job))).toEqual([]);
    const fresh = await optimizeGuideline({ ...options, evaluator: fakeEvaluator([]) });
    expect(guidelineHash(resumed.chosen)).toBe(guidelineHash(fresh.chosen));
    expect(resumed.report.rows).toEqual(fresh.report.rows);
  });

  it('refuses a progress file of another run', async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-opt-other-'));
    await optimizeGuideline({ ...options, evaluator: fakeEvaluator([]), outDir });
    await expect(
      optimizeGuideline({ ...options, target: 'history', start: undefined, evaluator: fakeEvaluator([]), outDir }),
    ).rejects.toThrow(/belongs to another optimization \(target "observation" there, "history" now\)/);
  });
});

describe('selectCandidate', () => {
  const score = (success: number, cost: number): SplitScore => ({
    tasks: 4,
    success,
    peakPromptTokens: 0,
    maxPeakPromptTokens: 0,
    costTokens: 0,
    cost,
    tokensPerSuccess: null,
  });
  it('UT: best success, then lower cost, ties to the incumbent', () => {
    expect(selectCandidate([score(0.5, 0.5), score(0.75, 0.9), score(0.75, 0.6)], 'utility', 0.5)).toBe(2);
    expect(selectCandidate([score(0.5, 0.5), score(0.5, 0.5)], 'utility', 0.5)).toBe(0);
  });
  it('CO: best success − λ·cost', () => {
    // 1 − 0.5·0.8 = 0.6; 0.75 − 0.5·0.2 = 0.65; 1 − 0.5·0.5 = 0.75.
    expect(selectCandidate([score(1, 0.8), score(0.75, 0.2), score(1, 0.5)], 'compression', 0.5)).toBe(2);
    // With a heavier λ, the cheap lossy one wins.
    expect(selectCandidate([score(1, 0.8), score(0.75, 0.2), score(1, 0.5)], 'compression', 2)).toBe(1);
  });
});
