import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchScenario, ScenarioTask } from '../bench/scenario.js';
import { PagewiseError, type LedgerEntry } from 'pagewise';
import { DEFAULT_OBSERVATION_GUIDELINE, formatGuideline } from 'pagewise/compression';
import { scriptedModel, type ScriptedStep } from 'pagewise/testing';
import { emptyParts } from 'pagewise/internal';
import type { EpisodeEvaluator } from './evaluate.js';
import { parseCandidates } from './llm-proposer.js';
import { CANDIDATE_REPLY_ATTEMPTS, optimizeGuideline } from './optimize.js';

const scenario: BenchScenario = {
  name: 'test-optimize-faults',
  description: 'two tasks that succeed uncompressed and fail compressed',
  strategies: [],
  prepare: async ({ tasks }) =>
    Array.from({ length: tasks }, (_, i): ScenarioTask => ({ id: `t${i}`, prompt: `Task ${i}.`, gold: {} })),
  runEpisode: () => Promise.reject(new Error('the tests pass their own evaluator')),
};

const agentCall: LedgerEntry = {
  index: 0,
  kind: 'agent',
  agent: 'a',
  model: 'fake',
  invocationId: 'i',
  parts: { ...emptyParts(), observation: 100 },
  promptTokens: 100,
  completionTokens: 5,
  modelMs: 0,
  frameworkMs: 0,
  at: 0,
};

/** A compressor fallback after a provider failure, as the observation compressor records it. */
const outage: LedgerEntry = {
  ...agentCall,
  index: 1,
  kind: 'compressor',
  promptTokens: 0,
  completionTokens: 0,
  parts: emptyParts(),
  error: {
    code: 'provider-server-error',
    message: 'HTTP 500',
    fault: 'system',
    retryable: true,
    fallback: 'raw-observation',
  },
};

/** Uncompressed episodes succeed, compressed ones fail; `outages(job)` says how many ledgers carry an outage. */
function evaluator(calls: string[], outages: (key: string) => boolean): EpisodeEvaluator {
  return async (job) => {
    const key = `${job.mode}|${job.task.id}`;
    calls.push(key);
    const down = outages(key);
    return {
      success: job.mode === 'uncompressed',
      answer: 'Answer: x',
      ledger: down ? [agentCall, outage] : [agentCall],
      toolCalls: [],
      compressions: [],
      finalPrompt: '',
    };
  };
}

const options = { scenario, target: 'observation' as const, train: 2, val: 0, candidates: 2 };
const outDir = () => mkdtempSync(path.join(os.tmpdir(), 'pagewise-opt-faults-'));

describe('optimize: a provider outage is not blamed on the guideline', () => {
  it('an episode whose compressor met an outage is run again; the clean run is the one counted', async () => {
    const calls: string[] = [];
    const seen = new Map<string, number>();
    // Each compressed episode meets an outage on its first attempt only.
    const flaky = (key: string) => {
      const attempt = (seen.get(key) ?? 0) + 1;
      seen.set(key, attempt);
      return key.startsWith('compressed') && attempt === 1;
    };
    await optimizeGuideline({ ...options, evaluator: evaluator(calls, flaky), outDir: outDir() });
    expect(calls.filter((c) => c === 'compressed|t0').length).toBeGreaterThanOrEqual(2);
  });

  it('issue 28.7: an episode whose agent model met an outage (after its retries) is run again, not blamed on the guideline', async () => {
    const calls: string[] = [];
    const seen = new Map<string, number>();
    const base = evaluator(calls, () => false);
    const agentDown: EpisodeEvaluator = async (job, signal) => {
      const result = await base(job, signal);
      const key = `${job.mode}|${job.task.id}`;
      const attempt = (seen.get(key) ?? 0) + 1;
      seen.set(key, attempt);
      // The uncompressed run of t0 fails on its first attempt because the provider is down.
      return key === 'uncompressed|t0' && attempt === 1
        ? { ...result, success: false, answer: 'HTTP 503', error: 'HTTP 503', errorFault: 'system' }
        : result;
    };
    const run = await optimizeGuideline({ ...options, evaluator: agentDown, outDir: outDir() });
    expect(calls.filter((c) => c === 'uncompressed|t0')).toHaveLength(2);
    // Counted as the clean run: t0 succeeds uncompressed, so both tasks are contrastive failures.
    const row = run.report.rows.find((r) => r.label === 'uncompressed' && r.split === 'train');
    expect(row?.score.success).toBe(1);
  });

  it('an episode the agent model failed for a reason of its own (a full window) is counted as a failure', async () => {
    const calls: string[] = [];
    const base = evaluator(calls, () => false);
    const windowFull: EpisodeEvaluator = async (job, signal) => {
      const result = await base(job, signal);
      return job.mode === 'uncompressed' && job.task.id === 't0'
        ? { ...result, success: false, error: 'context window exceeded', errorFault: 'model' }
        : result;
    };
    const run = await optimizeGuideline({ ...options, evaluator: windowFull, outDir: outDir() });
    expect(calls.filter((c) => c === 'uncompressed|t0')).toHaveLength(1);
    const row = run.report.rows.find((r) => r.label === 'uncompressed' && r.split === 'train');
    expect(row?.score.success).toBe(0.5);
  });

  it('an outage on every attempt stops the run with a retryable error and caches nothing for that episode', async () => {
    const dir = outDir();
    const calls: string[] = [];
    const error = await optimizeGuideline({
      ...options,
      evaluator: evaluator(calls, (key) => key === 'compressed|t1'),
      outDir: dir,
    }).catch((e: unknown) => e);
    expect(PagewiseError.isInstance(error) && error.code).toBe('optimize-infrastructure');
    expect((error as PagewiseError).retryable).toBe(true);
    expect(calls.filter((c) => c === 'compressed|t1')).toHaveLength(3);
    // Resumed with the provider back: the failed episode runs again, the cached ones do not.
    const again: string[] = [];
    await optimizeGuideline({ ...options, evaluator: evaluator(again, () => false), outDir: dir });
    expect(again).toContain('compressed|t1');
    expect(again).not.toContain('uncompressed|t0');
  });
});

const base = DEFAULT_OBSERVATION_GUIDELINE;
const feedback = JSON.stringify({
  divergence: 'lost a field',
  rootCauses: ['missing-critical-fact'],
  lostFacts: [],
  recommendations: ['keep ids'],
});

describe('optimize: candidates the optimizer model writes', () => {
  it('a candidate wrapped in a ```markdown fence inside the markers is read', () => {
    const body = formatGuideline({ ...base, description: 'fenced', rules: { ...base.rules, ratio: 0.6 } });
    const drafts = parseCandidates(
      `=== CANDIDATE 1 ===\n\`\`\`markdown\n${body}\n\`\`\`\n=== END CANDIDATE 1 ===\n=== CANDIDATE 2 ===\n\`\`\`\n${body}\n\`\`\`\n=== END CANDIDATE 2 ===`,
      2,
    );
    expect(drafts.map((d) => d.error)).toEqual([undefined, undefined]);
    expect(drafts[0]?.guideline?.rules.ratio).toBe(0.6);
  });

  it('a reply with no readable candidate is asked again, saying why; after the last attempt the step keeps its incumbent and the run finishes', async () => {
    const asked: string[] = [];
    const garbage: ScriptedStep = ({ view }) => {
      asked.push(view.lastUserText);
      return 'I would rather not write files today.';
    };
    const broken =
      '=== CANDIDATE 1 ===\nnot a guideline\n=== END CANDIDATE 1 ===\n=== CANDIDATE 2 ===\nneither\n=== END CANDIDATE 2 ===';
    const optimizer = scriptedModel([
      feedback,
      feedback,
      broken,
      ...Array.from({ length: CANDIDATE_REPLY_ATTEMPTS - 1 }, () => garbage),
    ]);
    const dir = outDir();
    const result = await optimizeGuideline({
      ...options,
      optimizer,
      evaluator: evaluator([], () => false),
      outDir: dir,
    });
    optimizer.assertComplete();
    expect(result.chosen).toEqual(result.start);
    const failed = result.candidates.filter((c) => c.attempt !== undefined);
    expect(failed.map((c) => [c.attempt, c.status])).toEqual(
      Array.from({ length: CANDIDATE_REPLY_ATTEMPTS }, (_, i) => [i + 1, 'rejected']),
    );
    expect(failed[0]?.reason).toMatch(/could not be read \(.*optimizer candidate 1.*\); asked again/);
    expect(failed.at(-1)?.reason).toMatch(/holds no "=== CANDIDATE n ===" block.*no attempt left/);
    expect(asked.every((prompt) => prompt.includes('Your previous reply to this request could not be read'))).toBe(
      true,
    );
    expect(result.report.notes.join('\n')).toMatch(
      new RegExp(`Utility step skipped: none of the ${CANDIDATE_REPLY_ATTEMPTS} replies .* could be read`),
    );
    expect(result.report.usage.calls).toBe(2 + CANDIDATE_REPLY_ATTEMPTS);

    // Run again with a model that follows the format: the feedback comes from the progress file, the
    // unreadable replies were not kept, so the candidates are asked for again and tried.
    const good = formatGuideline({ ...base, description: 'keep more', rules: { ...base.rules, ratio: 0.9 } });
    const working = scriptedModel([`=== CANDIDATE 1 ===\n${good}\n=== END CANDIDATE 1 ===`]);
    const again = await optimizeGuideline({
      ...options,
      optimizer: working,
      evaluator: evaluator([], () => false),
      outDir: dir,
    });
    working.assertComplete();
    const evaluated = again.candidates.filter((c) => c.step === 'utility' && c.index > 0);
    expect(evaluated.map((c) => [c.status, c.guideline?.rules.ratio])).toEqual([['evaluated', 0.9]]);
    expect(again.report.usage.calls).toBe(3 + CANDIDATE_REPLY_ATTEMPTS);
  });

  it('with the extractive backend, the notes say that template edits cannot change anything; a malformed candidate is noted as such', async () => {
    const good = formatGuideline({ ...base, description: 'keep more', rules: { ...base.rules, ratio: 0.9 } });
    const optimizer = scriptedModel([
      feedback,
      feedback,
      `=== CANDIDATE 1 ===\n${good}\n=== END CANDIDATE 1 ===\n=== CANDIDATE 2 ===\nbroken\n=== END CANDIDATE 2 ===`,
    ]);
    const result = await optimizeGuideline({
      ...options,
      optimizer,
      evaluator: evaluator([], () => false),
      outDir: outDir(),
    });
    const notes = result.report.notes.join('\n');
    expect(result.report.compressor).toBe('extractive');
    expect(notes).toMatch(/edits to the template text cannot change any episode/);
    expect(notes).toMatch(/1 of 2 candidates of .* could not be read/);
    expect(notes).not.toMatch(/no more distinct/);
  });
});

describe('optimize: candidates that name the training data', () => {
  it('refuses a value of the training traces and the feedback, not a generic revision', async () => {
    // The order id is in the training runs' tool calls and in the feedback, never in a task's prompt or gold.
    const plain = evaluator([], () => false);
    const withOrder: EpisodeEvaluator = async (job, signal) => ({
      ...(await plain(job, signal)),
      toolCalls: [{ toolName: 'get_order_details', input: '{"order_id":"#W7736708"}' }],
    });
    const lost = JSON.stringify({
      divergence: 'the compressed run lost the order',
      rootCauses: ['missing-critical-fact'],
      lostFacts: ['order #W7736708', 'the email jane.roe@example.com'],
      recommendations: ['keep order ids'],
    });
    const named = formatGuideline({
      ...base,
      description: 'keep that order',
      template: `${base.template}\nAlways keep order #W7736708.`,
    });
    const emailed = formatGuideline({
      ...base,
      description: 'keep that customer',
      template: `${base.template}\nKeep the customer jane.roe@example.com.`,
    });
    const generic = formatGuideline({
      ...base,
      description: 'keep order ids',
      template: `${base.template}\nAlways keep every order id (# and 7 digits), the 3 latest items and amounts over 1000.`,
      rules: { ...base.rules, ratio: 0.9 },
    });
    const optimizer = scriptedModel([
      lost,
      lost,
      [named, emailed, generic]
        .map((f, i) => `=== CANDIDATE ${i + 1} ===\n${f}\n=== END CANDIDATE ${i + 1} ===`)
        .join('\n'),
    ]);
    const result = await optimizeGuideline({
      ...options,
      candidates: 3,
      optimizer,
      evaluator: withOrder,
      outDir: outDir(),
    });
    optimizer.assertComplete();
    const ut = result.candidates.filter((c) => c.step === 'utility' && c.index > 0);
    expect(ut.map((c) => c.status)).toEqual(['rejected', 'rejected', 'evaluated']);
    expect(ut[0]?.reason).toMatch(/value of the training runs \("#W7736708", seen in a training trace\)/);
    expect(ut[1]?.reason).toMatch(/value of the training runs \("jane.roe@example.com", seen in the feedback\)/);
  });
});
