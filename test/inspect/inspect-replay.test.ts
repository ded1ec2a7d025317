/**
 * The inspector opens replay reports (issue 27): the strategies side by side, each lost value marked beside
 * what the request held instead; a report file is untrusted input, so a broken one is an error line and
 * hostile text in one stays text.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultStrategies,
  parseTraces,
  replayTraces,
  type ReplayReport,
} from '../../packages/lab/src/replay/index.js';
import { loadReplays, markValue } from '../../packages/inspect/src/replay-views.js';
import { createInspectorApp } from '../../packages/inspect/src/server.js';

const FIXTURE = path.join(import.meta.dirname, '../../packages/lab/src/replay/testdata/openai-chat.jsonl');
let dir: string;
let report: ReplayReport;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pagewise-inspect-replay-'));
  const traces = parseTraces(await readFile(FIXTURE, 'utf8'), 'chats.jsonl');
  const strategies = defaultStrategies().filter((s) => s.name === 'none' || s.name === 'truncation');
  report = await replayTraces(traces, { strategies, observationThreshold: 64 });
  await writeFile(path.join(dir, 'replay.json'), JSON.stringify(report));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('replay reports in the inspector', () => {
  it('shows the strategies side by side and marks each lost value beside what was kept instead', async () => {
    const truncation = report.strategies.find((s) => s.name === 'truncation')!;
    expect(truncation.lost).toBeGreaterThan(0);
    const { loaded, errors } = await loadReplays([dir]);
    expect(errors).toEqual([]);
    const app = createInspectorApp({ data: undefined, runs: [], replays: loaded });

    const index = await app.request('/replays');
    expect(index.status).toBe(200);
    expect(await index.text()).toContain(path.join(dir, 'replay.json'));

    const page = await app.request('/replays/0');
    expect(page.status).toBe(200);
    const body = await page.text();
    for (const strategy of report.strategies) expect(body).toContain(`href="#s-${strategy.name}"`);
    const loss = truncation.worstLosses[0]!;
    expect(body).toContain(`<td class="lost"><mark>${loss.value}</mark></td>`);
    expect(body).toContain(`${truncation.lost} lost of ${truncation.uses}`);

    const chart = await app.request('/replays/0/chart.svg');
    expect(chart.status).toBe(200);
    expect(chart.headers.get('content-type')).toContain('image/svg+xml');
    expect(await chart.text()).toContain('<svg');
    expect((await app.request('/replays/7')).status).toBe(404);
  });

  it('refuses a file that is not a replay report with a line naming it, and keeps hostile text as text', async () => {
    const broken = path.join(dir, 'broken.json');
    await writeFile(broken, JSON.stringify({ traces: 'many' }));
    const hostile = structuredClone(report);
    const lossy = hostile.strategies.find((s) => s.lost > 0)!;
    lossy.worstLosses[0]!.value = '<script>alert(1)</script>';
    lossy.worstLosses[0]!.keptInstead = 'kept <img src=x onerror=alert(1)> and <SCRIPT>alert(1)</SCRIPT>';
    lossy.name = '"><script>alert(2)</script>';
    const hostileFile = path.join(dir, 'hostile.json');
    await writeFile(hostileFile, JSON.stringify(hostile));

    const { loaded, errors } = await loadReplays([broken, hostileFile, path.join(dir, 'absent.json')]);
    expect(loaded.map((r) => r.file)).toEqual([hostileFile]);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain('broken.json: not a replay report');
    expect(errors[1]).toContain('absent.json');

    const app = createInspectorApp({ data: undefined, runs: [], replays: loaded, replayErrors: errors });
    expect(await (await app.request('/replays')).text()).toContain('not a replay report');
    const body = await (await app.request('/replays/0')).text();
    expect(body).not.toMatch(/<script>alert|<img src=x|<SCRIPT>/u);
    // The value is marked where it occurs in the kept text, case ignored, both escaped.
    expect(body).toContain('<mark>&lt;SCRIPT&gt;alert(1)&lt;/SCRIPT&gt;</mark>');
  });

  it('marks every occurrence, case ignored, and nothing when the value is empty', () => {
    expect(markValue('a Value and a value', 'value').value).toBe('a <mark>Value</mark> and a <mark>value</mark>');
    expect(markValue('x < y', '').value).toBe('x &lt; y');
  });
});
