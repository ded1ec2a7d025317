import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerScenario, setupStrategy, unregisterScenario, type BenchScenario } from '../../lab/src/bench/index.js';
import { parseGuideline } from '../../pagewise/src/compression/guideline.js';
import { SqliteCompressorCallStore } from '../../lab/src/optimize/index.js';
import { emptyParts, Ledger } from '../../pagewise/src/tokens/ledger.js';
import { countTokens } from '../../pagewise/src/tokens/tokenizer.js';
import { AbortedError } from '../../pagewise/src/errors.js';
import { OPTIMIZE_HELP, optimizeCommand } from './optimize.js';
import { registerStandardBench } from '../../lab/src/bench/standard.js';
import { runCommand } from '../../../test/support/cli.js';

registerStandardBench();

// Episodes that run the strategy's real observation compressor on one large record: success when the
// record's code survives compression.
const canned: BenchScenario = {
  name: 'test-cli-optimize',
  description: 'one record per task',
  strategies: [],
  prepare: async ({ tasks }) =>
    Array.from({ length: tasks }, (_, index) => ({
      id: `r${index}`,
      prompt: `Report the code of record ${index}.`,
      gold: { code: `K${9100 + index}Q` },
    })),
  async runEpisode(task, context) {
    const setup = await setupStrategy(context.strategy, {
      scenario: 'test-cli-optimize',
      model: context.model,
      instruction: '',
      tools: [],
      services: {},
      task,
    });
    const code = (task.gold as { code: string }).code;
    const record = {
      record_id: task.id,
      code,
      notes: Array.from({ length: 120 }, (_, j) => ({ line: j, text: `filler line ${j} about nothing in particular` })),
    };
    let output = JSON.stringify(record, null, 2);
    const ctx = {
      invocationId: 'i',
      agentName: 'a',
      sessionId: 's',
      task: task.prompt,
      recentItems: [],
      services: new Map(),
      ledger: new Ledger(),
      signal: new AbortController().signal,
    };
    for (const processor of setup.observationProcessors ?? [])
      output = (
        await processor.process(
          { toolCallId: 'c1', toolName: 'read_record', input: { id: task.id }, output, isError: false },
          ctx,
        )
      ).output;
    const tokens = countTokens(output);
    const success = output.includes(code);
    return {
      taskId: task.id,
      strategy: context.strategy,
      success,
      answer: `Answer: ${success ? code : 'unknown'}`,
      ledger: [
        {
          index: 0,
          kind: 'agent',
          agent: 'a',
          model: 'offline',
          invocationId: 'i',
          parts: { ...emptyParts(), observation: tokens },
          promptTokens: tokens,
          completionTokens: 3,
          modelMs: 0,
          frameworkMs: 0,
          at: 0,
        },
      ],
      windowFailure: false,
      wallMs: 1,
    };
  },
};

beforeAll(() => registerScenario(canned));
afterAll(() => unregisterScenario(canned.name));

const run = (argv: string[]) => runCommand(optimizeCommand, argv);

// Episodes that never finish until their signal aborts (a hung hosted model), recording the timeout they got.
const seenTimeouts: (number | undefined)[] = [];
const hung: BenchScenario = {
  ...canned,
  name: 'test-cli-optimize-hung',
  async runEpisode(task, context) {
    seenTimeouts.push(context.modelTimeoutMs);
    await new Promise<void>((resolve) => context.signal?.addEventListener('abort', () => resolve(), { once: true }));
    throw new AbortedError(`episode ${task.id} aborted`);
  },
};
beforeAll(() => registerScenario(hung));
afterAll(() => unregisterScenario(hung.name));

describe('pagewise optimize', () => {
  it('prints its help', async () => {
    expect(await run(['--help'])).toMatchObject({ code: 0, out: OPTIMIZE_HELP });
  });

  it('says what is missing or wrong', async () => {
    await expect(run([])).rejects.toThrow(/--scenario <name>. Available: .*retail-tool-use/);
    await expect(run(['--scenario', canned.name])).rejects.toThrow(/--target history or --target observation/);
    await expect(run(['--scenario', canned.name, '--target', 'summary'])).rejects.toThrow(/Unknown target "summary"/);
    await expect(
      run(['--scenario', canned.name, '--target', 'history', '--db', 'x.db', '--no-record']),
    ).rejects.toThrow(/contradict/);
    await expect(run(['--scenario', canned.name, '--target', 'history', '--lambda=-1'])).rejects.toThrow(
      /--lambda must be a number ≥ 0/,
    );
    await expect(
      // --no-record: a failing run must not leave a database in the working folder.
      run(['--scenario', canned.name, '--target', 'history', '--optimizer', 'openai:gpt-4.1', '--no-record']),
    ).rejects.toThrow(/OPENAI_API_KEY/);
  });

  it('issue 31.12: passes --timeout to every episode and stops at --deadline with the progress saved', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-opt-deadline-'));
    const started = performance.now();
    const result = await run([
      '--scenario',
      hung.name,
      '--target',
      'observation',
      '--train',
      '1',
      '--val',
      '0',
      '--timeout',
      '7',
      '--deadline',
      '1',
      '--no-record',
      '--out',
      path.join(dir, 'out'),
    ]);
    expect(result.code, result.err).toBe(2);
    expect(result.err).toContain('the deadline (--deadline 1 s) has passed');
    expect(result.err).toContain('progress saved');
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(seenTimeouts.length).toBeGreaterThan(0);
    expect(seenTimeouts.every((t) => t === 7000)).toBe(true);
    await expect(run(['--scenario', hung.name, '--target', 'observation', '--timeout', '0'])).rejects.toThrow(
      /--timeout must be an integer ≥ 1/,
    );
  });

  it('writes the guideline, candidates, feedback and report, records calls, and resumes from its progress', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-opt-'));
    const outDir = path.join(dir, 'out');
    const db = path.join(dir, 'calls.db');
    const argv = [
      '--scenario',
      canned.name,
      '--target',
      'observation',
      '--train',
      '2',
      '--val',
      '1',
      '--candidates',
      '2',
      '--out',
      outDir,
      '--db',
      db,
    ];
    const first = await run(argv);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^## Guideline optimization: test-cli-optimize, observation/);
    expect(first.out).toMatch(/\| val \| final \|/);
    for (const file of [
      'guideline.md',
      'candidates.json',
      'feedback.json',
      'report.json',
      'report.md',
      'progress.json',
    ])
      expect(existsSync(path.join(outDir, file))).toBe(true);
    expect(parseGuideline(readFileSync(path.join(outDir, 'guideline.md'), 'utf8')).target).toBe('observation');
    expect(first.err).toContain('compressor calls recorded in');

    const store = new SqliteCompressorCallStore({ path: db });
    const calls = await store.list();
    await store.close();
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.success !== null && c.taskId.startsWith('r'))).toBe(true);

    const second = await run([...argv.slice(0, -2), '--no-record']);
    expect(second.out).toBe(first.out);
    // Every episode of every phase came from the progress file (feedback phases run no episode).
    const done = second.err.split('\n').filter((l) => l.includes(': done') && !l.includes('feedback'));
    expect(done.length).toBeGreaterThan(3);
    for (const line of done) {
      const [, total] =
        /: (\d+) to do/.exec(second.err.split('\n')[second.err.split('\n').indexOf(line) - 1] ?? '') ?? [];
      expect(line).toContain(`(${total} from the progress file)`);
    }
  });
});
