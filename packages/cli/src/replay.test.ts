/**
 * `pagewise replay`: the table on stdout, the report files, and clear errors for a bad flag or an
 * unreadable trace.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';

const fixture = path.join(import.meta.dirname, '..', '..', 'lab', 'src', 'replay', 'testdata', 'openai-chat.jsonl');
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pagewise-replay-cli-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('pagewise replay', () => {
  it('prints the strategies side by side and writes JSON, markdown and HTML', async () => {
    const folder = path.join(tmp, 'out');
    const { code, out, err } = await run('replay', fixture, '--strategies', 'none,truncation', '--out', folder);
    expect(code).toBe(0);
    expect(out).toMatch(/none \(baseline\)\s+0\.0%/u);
    expect(out).toContain('truncation (baseline)');
    expect(err).toContain('2/2 traces');
    const report = JSON.parse(await readFile(path.join(folder, 'replay.json'), 'utf8'));
    expect(report.strategies.map((s: { name: string }) => s.name)).toEqual(['none', 'truncation']);
    expect(report.strategies[1].lost).toBeGreaterThan(0);
    expect(await readFile(path.join(folder, 'replay.md'), 'utf8')).toContain('| truncation |');
    const html = await readFile(path.join(folder, 'replay.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).toContain('<mark>');
  });

  it('issue 27: resumes from its progress with --out, replaying only the traces not done, with the same figures', async () => {
    const folder = path.join(tmp, 'resume');
    const argv = ['replay', fixture, '--strategies', 'none,truncation,acon-obs', '--out', folder];
    const first = await run(...argv);
    expect(first.code, first.err).toBe(0);
    const progress = path.join(folder, 'replay-progress.jsonl');
    const lines = (await readFile(progress, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(3); // the settings, then one line per trace
    const full = JSON.parse(await readFile(path.join(folder, 'replay.json'), 'utf8'));

    // As if interrupted after the first trace, with the second's line cut by a crash.
    await writeFile(progress, `${lines[0]}\n${lines[1]}\n${lines[2]!.slice(0, 40)}`);
    const second = await run(...argv);
    expect(second.code, second.err).toBe(0);
    expect(second.err).toContain('Resuming: 1 trace(s)');
    const resumed = JSON.parse(await readFile(path.join(folder, 'replay.json'), 'utf8'));
    const figures = (report: {
      strategies: { name: string; peakTokens: number; cumulativeTokens: number; recall: number }[];
    }) => report.strategies.map((x) => [x.name, x.peakTokens, x.cumulativeTokens, x.recall]);
    expect(figures(resumed)).toEqual(figures(full));
    // The trace replayed again was appended: the file is whole again.
    expect(
      (await readFile(progress, 'utf8'))
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{"key"')),
    ).toHaveLength(2);

    // Other settings in the same folder are refused, not mixed in.
    const other = await run('replay', fixture, '--strategies', 'none', '--out', folder);
    expect(other.code).toBe(2);
    expect(other.err).toContain('other settings');
  });

  it('refuses an unknown strategy and a malformed trace with what to fix', async () => {
    const unknown = await run('replay', fixture, '--strategies', 'none,zip');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown zip');
    const bad = path.join(tmp, 'bad.jsonl');
    await writeFile(bad, '{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": [{"role": "robot"}]}\n');
    const malformed = await run('replay', bad);
    expect(malformed.code).toBe(2);
    expect(malformed.err).toContain('bad.jsonl:2');
    const none = await run('replay');
    expect(none.code).toBe(1);
  });

  it('optimize --from-traces writes the learned guideline and the report of each rule', async () => {
    const [line] = (await readFile(fixture, 'utf8')).split('\n');
    const records = Array.from({ length: 6 }, (_, index) =>
      line!
        .replaceAll('gift_card_9911020', `gift_card_99110${20 + index}`)
        .replaceAll('"id": "return-yoga-mat"', `"id": "c${index}"`),
    );
    const traces = path.join(tmp, 'shop.jsonl');
    await writeFile(traces, `${records.join('\n')}\n`);
    const folder = path.join(tmp, 'learned');
    const { code, out } = await run('optimize', '--from-traces', traces, '--holdout', '0.5', '--out', folder);
    expect(code).toBe(0);
    expect(out).toContain('validated on 3');
    const report = JSON.parse(await readFile(path.join(folder, 'report.json'), 'utf8'));
    expect(report.rules.length).toBeGreaterThan(0);
    expect(await readFile(path.join(folder, 'guideline.md'), 'utf8')).toContain('target: observation');
    const bad = await run('optimize', '--from-traces', traces, '--holdout', '1.5');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--holdout');
  });
});
