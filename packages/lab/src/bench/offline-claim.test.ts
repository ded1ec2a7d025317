/**
 * The offline model's claim, tested as a property: it answers only from the prompt it receives. For
 * retail tasks drawn at random, the prompt of the call that answered is taken from a full-history run;
 * removing any one order record from it (every answer is computed from orders) turns the decision into asking again or a wrong answer, and the
 * same prompt gives the same decision with the environment and working directory changed and in a fresh
 * process.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { viewPrompt } from '../../../pagewise/src/models/prompt-view.js';
import {
  checkAnswer,
  createRetailTools,
  defaultRetailDataDir,
  retailDataMissing,
  generateRetailTasks,
  loadRetailData,
  RETAIL_INSTRUCTION,
  RETAIL_TOOL_NAMES,
  retailDataAvailable,
  retailOfflinePolicy,
} from '../scenarios/retail/index.js';
import { runAgentEpisode, type CapturedCall } from './harness.js';
import { registerStandardBench } from './standard.js';

registerStandardBench();
const dataDir = defaultRetailDataDir();
const available = await retailDataAvailable(dataDir);
if (!available) console.log(`offline-claim tests skipped: ${retailDataMissing(dataDir)}`);

type Params = Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>;

function withoutResult(params: Params, index: number): Params {
  let seen = -1;
  const prompt = params.prompt.map((message) =>
    message.role !== 'tool'
      ? message
      : {
          ...message,
          content: message.content.map((part) => {
            if (part.type !== 'tool-result' || part.toolName !== RETAIL_TOOL_NAMES.getOrder) return part;
            seen += 1;
            return seen === index ? { ...part, output: { type: 'text' as const, value: '[removed]' } } : part;
          }),
        },
  );
  return { ...params, prompt };
}

const resultCount = (params: Params) =>
  params.prompt.reduce(
    (count, message) =>
      count +
      (message.role === 'tool'
        ? message.content.filter((p) => p.type === 'tool-result' && p.toolName === RETAIL_TOOL_NAMES.getOrder).length
        : 0),
    0,
  );

describe.runIf(available)('the offline model reads only its prompt', () => {
  it('removing any one order record turns the decision into asking again or a wrong answer', async () => {
    const data = await loadRetailData(dataDir);
    const tasks = generateRetailTasks(data, { count: 8, seed: 11 });
    const finals: { task: (typeof tasks)[number]; params: Params }[] = [];
    for (const task of tasks) {
      const calls: CapturedCall[] = [];
      const run = await runAgentEpisode({
        scenario: 'retail-tool-use',
        context: { strategy: 'none', model: 'offline' },
        task: { id: task.id, prompt: task.prompt },
        agentName: 'retail_agent',
        instruction: RETAIL_INSTRUCTION,
        tools: createRetailTools(data),
        offlinePolicy: retailOfflinePolicy,
        maxSteps: 60,
        onModelCall: (c) => calls.push(c),
      });
      const last = calls.at(-1);
      if (last && checkAnswer(task, run.text)) finals.push({ task, params: last.params });
    }
    expect(finals.length).toBeGreaterThan(4);
    await fc.assert(
      fc.property(fc.nat({ max: finals.length - 1 }), fc.nat(), (which, pick) => {
        const { task, params } = finals[which]!;
        const full = retailOfflinePolicy.decide(viewPrompt(params));
        expect(full.toolCalls).toBeUndefined();
        expect(checkAnswer(task, full.text ?? '')).toBe(true);
        const cut = retailOfflinePolicy.decide(viewPrompt(withoutResult(params, pick % resultCount(params))));
        const asksAgain = (cut.toolCalls?.length ?? 0) > 0;
        expect(asksAgain || !checkAnswer(task, cut.text ?? '')).toBe(true);
      }),
      { numRuns: 40, seed: 5 },
    );

    // Same prompt, other environment and working directory, then a fresh process: the same decision.
    const { params } = finals[0]!;
    const expected = JSON.stringify(retailOfflinePolicy.decide(viewPrompt(params)));
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pagewise-offline-'));
    const cwd = process.cwd();
    const saved = { ...process.env };
    try {
      process.env.PAGEWISE_TAU_RETAIL_DIR = dir;
      process.env.PAGEWISE_HOTPOTQA_PATH = path.join(dir, 'none.jsonl');
      process.env.TZ = 'Pacific/Kiritimati';
      process.chdir(dir);
      await writeFile(path.join(dir, 'orders.json'), '{}');
      expect(JSON.stringify(retailOfflinePolicy.decide(viewPrompt(params)))).toBe(expected);
    } finally {
      process.chdir(cwd);
      process.env = saved;
    }
    const file = path.join(dir, 'params.json');
    await writeFile(file, JSON.stringify(params));
    const script = `import { readFileSync } from 'node:fs';
import { viewPrompt } from './packages/pagewise/src/models/prompt-view.ts';
import { retailOfflinePolicy } from './packages/lab/src/scenarios/retail/policy.ts';
const params = JSON.parse(readFileSync(process.argv[1], 'utf8'));
process.stdout.write(JSON.stringify(retailOfflinePolicy.decide(viewPrompt(params))));`;
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script, file],
        {
          cwd,
          env: { PATH: process.env.PATH ?? '', HOME: dir, NODE_OPTIONS: process.env.NODE_OPTIONS ?? '' },
        },
      );
      expect(stdout).toBe(expected);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
