import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerScenario, unregisterScenario, type BenchScenario } from '../../lab/src/bench/index.js';
import { emptyParts } from '../../pagewise/src/tokens/ledger.js';
import { BENCH_HELP, benchCommand } from './bench.js';
import { runCommand } from '../../../test/support/cli.js';

// A scenario with canned outcomes, so the command is tested without data or a model.
const canned: BenchScenario = {
  name: 'test-cli',
  description: 'canned outcomes',
  defaultN: 3,
  strategies: ['none', 'fifo'],
  prepare: async ({ n = 3, tasks }) => Array.from({ length: tasks }, (_, i) => ({ id: `t${i}`, prompt: 'p', n })),
  runEpisode: async (task, context) => ({
    taskId: task.id,
    strategy: context.strategy,
    success: context.strategy === 'none',
    answer: 'a',
    ledger: [
      {
        index: 0,
        kind: 'agent',
        agent: 'a',
        model: 'offline',
        invocationId: 'i',
        parts: { ...emptyParts(), history: 100 * (task.n as number) },
        promptTokens: 100 * (task.n as number),
        completionTokens: 5,
        modelMs: 0,
        frameworkMs: 0.2,
        at: 0,
      },
    ],
    windowFailure: false,
    wallMs: 1,
  }),
};

const run = (argv: string[]) => runCommand(benchCommand, argv);

beforeAll(() => registerScenario(canned));
afterAll(() => unregisterScenario('test-cli'));

describe('pagewise bench', () => {
  it('prints its help', async () => {
    expect(await run(['--help'])).toMatchObject({ code: 0, out: BENCH_HELP });
  });

  it('lists scenarios, the report-analysis slot among them, and strategies', async () => {
    const { out } = await run(['--list']);
    expect(out).toMatch(/report-analysis .*/);
    expect(out).toMatch(/retail-tool-use[\s\S]*strategies: none, fifo, clear-tool-results/);
    // The old naive layout is listed for report-analysis, marked as a variant that runs only when named.
    expect(out).toMatch(
      /report-analysis[^\n]*\n[^\n]*strategies: [^\n]*none-volatile-prefix \(variant, run when named\)/,
    );
    expect(out).not.toMatch(/retail-tool-use[^\n]*\n[^\n]*none-volatile-prefix/);
  });

  it('asks for a scenario, and lists the available ones for an unknown name', async () => {
    await expect(run([])).rejects.toThrow(/Name a scenario.*retail-tool-use/);
    await expect(run(['nope'])).rejects.toThrow(/Unknown scenario "nope". Available scenarios: .*multi-objective-qa/);
    await expect(run(['test-cli', '--bogus'])).rejects.toThrow(/pagewise bench --help/);
    await expect(run(['test-cli', '--strategies', 'none,zzz'])).rejects.toThrow(/Unknown strategy "zzz"/);
    await expect(run(['test-cli', '--n', '2,x'])).rejects.toThrow(/--n must be an integer/);
  });

  it('prints the table on stdout and progress on stderr', async () => {
    const { code, out, err } = await run(['test-cli', '--n', '2,4', '--tasks', '2']);
    expect(code).toBe(0);
    expect(out).toMatch(/^## test-cli: offline/);
    expect(out).toMatch(/\| none \| 4 \| 2 \| 100% \| 400 \(400\) \|/);
    expect(out).toMatch(/\| fifo \| 2 \| 2 \| 0% \|/);
    expect(err).toContain('bench test-cli: 8/8 episodes');
    expect(out).not.toContain('8/8');
  });

  it('writes the results JSON, the output folder, and rebuilds the same table from it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-bench-'));
    const json = path.join(dir, 'results.json');
    const outDir = path.join(dir, 'out');
    const first = await run([
      'test-cli',
      '--strategies',
      'fifo,none',
      '--window',
      '0',
      '--json',
      json,
      '--out',
      outDir,
    ]);
    const results = JSON.parse(readFileSync(json, 'utf8'));
    expect(results).toMatchObject({
      schema: 1,
      scenario: 'test-cli',
      model: 'offline',
      params: { strategies: ['fifo', 'none'], n: [3], contextWindow: 0 },
    });
    expect(results.results.map((r: { strategy: string }) => r.strategy)).toEqual(['fifo', 'none']);
    const rebuilt = await run(['--rebuild', outDir]);
    expect(rebuilt.out).toBe(first.out);
  });

  it('sends the episodes to a queue with --queue, naming the flag when Redis does not answer', async () => {
    expect(BENCH_HELP).toContain('--queue <redis url>');
    await expect(run(['test-cli', '--queue', 'redis://u:hunter22@127.0.0.1:1'])).rejects.toThrow(
      /^Cannot reach Redis at redis:\/\/u:\*\*\*@127\.0\.0\.1:1 .*fix the URL given with --queue\.$/,
    );
    await expect(run(['test-cli', '--queue', 'http://127.0.0.1:6379'])).rejects.toThrow(
      /--queue must be a redis:\/\/ or rediss:\/\/ URL/,
    );
    await expect(run(['test-cli', '--queue', 'redis://127.0.0.1:1', '--concurrency', '2'])).rejects.toThrow(
      /set --concurrency on each `pagewise worker`/,
    );
    await expect(run(['test-cli', '--queue-prefix', 'x'])).rejects.toThrow(/--queue-prefix needs --queue/);
  });

  it('finding 8 (issue 18): an unwritable --json after a finished bench loses nothing: the run folder is written first', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-bench-'));
    const outDir = path.join(dir, 'out');
    const result = await run(['test-cli', '--tasks', '1', '--out', outDir, '--json', '/proc/pagewise-x.json']);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(
      /could not write --json \/proc\/pagewise-x\.json .*The results are saved in .*out\/results\.json/,
    );
    expect(JSON.parse(readFileSync(path.join(outDir, 'results.json'), 'utf8'))).toMatchObject({ scenario: 'test-cli' });
  });

  it('refuses an output path under a missing folder before running', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-bench-'));
    await expect(run(['test-cli', '--out', path.join(dir, 'typo', 'deeper')])).rejects.toThrow(
      /--out .*does not exist/,
    );
  });

  it('Ctrl-C keeps the finished episodes, and --resume finishes the run with the same results.json', async () => {
    let interruptAfter = Infinity;
    let ran = 0;
    const resumable: BenchScenario = {
      ...canned,
      name: 'test-cli-resume',
      runEpisode: async (task, context) => {
        ran += 1;
        // Ctrl-C arrives while an episode runs; the harness stops before the next one.
        if (ran === interruptAfter) process.emit('SIGINT');
        return canned.runEpisode(task, context);
      },
    };
    registerScenario(resumable);
    try {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-cli-bench-'));
      const args = ['--n', '2,4', '--tasks', '3'];
      const whole = await run(['test-cli-resume', ...args, '--out', path.join(dir, 'whole')]);
      expect(whole.code).toBe(0);
      expect(ran).toBe(12);

      ran = 0;
      interruptAfter = 5;
      const part = path.join(dir, 'part');
      const interrupted = await run(['test-cli-resume', ...args, '--out', part]);
      expect(interrupted.code).toBe(130);
      // `npx pagewise` where no pagewise is on PATH (see invocation.ts).
      expect(interrupted.err).toMatch(new RegExp(`continue with: (npx )?pagewise bench --resume ${part}$`, 'm'));
      expect(readFileSync(path.join(part, 'episodes.jsonl'), 'utf8').trim().split('\n')).toHaveLength(5);

      ran = 0;
      interruptAfter = Infinity;
      const resumed = await run(['--resume', part]);
      expect(resumed.code).toBe(0);
      expect(resumed.err).toMatch(/5 finished episodes are taken from episodes\.jsonl/);
      expect(ran).toBe(7);
      // Timings differ between any two runs; everything else of results.json must be the same.
      const results = (folder: string) =>
        JSON.stringify(JSON.parse(readFileSync(path.join(dir, folder, 'results.json'), 'utf8')), (key, value) =>
          /ms$|Ms$|Ms(?:Median|P\d+)?$/i.test(key) ? undefined : value,
        );
      expect(results('part')).toBe(results('whole'));
      expect(resumed.out).toBe(whole.out);
    } finally {
      unregisterScenario('test-cli-resume');
    }
  });

  it('marks scenarios whose data is missing with the command that fetches it', async () => {
    const saved = process.env.PAGEWISE_TAU_RETAIL_DIR;
    process.env.PAGEWISE_TAU_RETAIL_DIR = path.join(os.tmpdir(), 'pagewise-no-such-data');
    try {
      const { out } = await run(['--list']);
      expect(out).toMatch(/retail-tool-use .*\(data missing: run `(npx )?pagewise data fetch tau-retail`\)/);
    } finally {
      if (saved === undefined) delete process.env.PAGEWISE_TAU_RETAIL_DIR;
      else process.env.PAGEWISE_TAU_RETAIL_DIR = saved;
    }
  });
});
