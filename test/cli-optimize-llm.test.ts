/**
 * `pagewise optimize --optimizer <hosted model>` as a user runs it: the CLI in a child process, its optimizer a
 * local OpenAI-compatible server that answers feedback as JSON and candidates as guideline files, but answers
 * garbage to the first requests for candidates. An unreadable reply is a failed candidate asked again, never
 * a state cached in the progress file that stops every later run.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatGuideline, parseGuideline, type Guideline } from '../packages/pagewise/src/compression/guideline.js';
import { retailDataAvailable, retailDataMissing } from '../packages/lab/src/scenarios/retail/index.js';
import { spawnCli } from './support/cli-child.js';
import { answer, startFakeOpenAI, type FakeOpenAI, type Handler } from './security/openai-server.js';

const available = retailDataAvailable();
if (!available) console.log(`optimize with a hosted optimizer skipped: ${retailDataMissing()}`);

let dir: string;
let server: FakeOpenAI;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-optimize-llm-'));
  server = await startFakeOpenAI();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The text of the one user message of an optimizer request. */
function promptOf(body: Record<string, unknown>): string {
  const messages = body.messages as { content: string | { type: string; text?: string }[] }[];
  const content = messages.at(-1)?.content ?? '';
  return typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('');
}

const block = (files: Guideline[]) =>
  files
    .map((file, i) => `=== CANDIDATE ${i + 1} ===\n${formatGuideline(file)}\n=== END CANDIDATE ${i + 1} ===`)
    .join('\n');

/** Two revisions of the guideline in the prompt: keeping more fields (utility) or fewer (compression). */
function candidatesFor(prompt: string): string {
  const file = /<<<FILE\n([\s\S]*?)\nFILE>>>/u.exec(prompt)?.[1] ?? '';
  const incumbent = parseGuideline(file);
  const { rules } = incumbent;
  if (prompt.includes('keeps what the failed runs lost'))
    return block([
      {
        ...incumbent,
        description: 'keep prices and item ids',
        rules: {
          ...rules,
          jsonKeepFields: [...rules.jsonKeepFields, 'variants.*.item_id', 'variants.*.price', 'items.price'],
        },
      },
      { ...incumbent, description: 'keep more of everything', rules: { ...rules, ratio: 0.9 } },
    ]);
  return block([
    {
      ...incumbent,
      description: 'drop the street address',
      rules: { ...rules, jsonDropFields: [...rules.jsonDropFields, 'address.address1', 'address.city'] },
    },
    { ...incumbent, description: 'keep less', rules: { ...rules, ratio: 0.4 } },
  ]);
}

/**
 * An optimizer that answers feedback as JSON and candidates as files, except the first `garbage` requests
 * for candidates, answered with prose. Counts the requests for candidates it got.
 */
function optimizer(garbage: number): { handler: Handler; revisions: () => number } {
  let revisions = 0;
  const handler: Handler = (request, response) => {
    const prompt = promptOf(request.body);
    let text: string;
    if (prompt.includes('revised guideline files')) {
      revisions += 1;
      text = revisions <= garbage ? 'Sure! Here are some thoughts on the guideline instead.' : candidatesFor(prompt);
    } else if (prompt.includes('"unnecessary"'))
      text = JSON.stringify({ unnecessary: ['street addresses'], recommendations: ['drop addresses'] });
    else
      text = JSON.stringify({
        divergence: 'the compressed run lost a price',
        rootCauses: ['missing-critical-fact'],
        lostFacts: ['a price'],
        recommendations: ['keep prices'],
      });
    answer({ text })(request, response);
  };
  return { handler, revisions: () => revisions };
}

const env = () => ({ PAGEWISE_OPENAI_COMPATIBLE_BASE_URL: server.baseURL, PAGEWISE_OPENAI_COMPATIBLE_API_KEY: 'k' });

async function optimize(out: string, garbage: number) {
  server.clear();
  const scripted = optimizer(garbage);
  for (let queued = 0; queued < 40; queued += 1) server.enqueue(scripted.handler);
  const before = server.requests.length;
  const run = spawnCli(
    [
      'optimize',
      '--scenario',
      'retail-tool-use',
      '--target',
      'observation',
      '--train',
      '3',
      '--val',
      '1',
      '--candidates',
      '2',
      '--optimizer',
      'openai-compatible:m',
      '--no-record',
      '--out',
      out,
    ],
    env(),
    dir,
  );
  const { code } = await run.exited;
  return {
    code,
    stderr: run.stderr(),
    requests: server.requests.length - before,
    revisions: scripted.revisions(),
    guideline: () => readFileSync(path.join(out, 'guideline.md'), 'utf8'),
    candidates: () =>
      JSON.parse(readFileSync(path.join(out, 'candidates.json'), 'utf8')) as {
        step: string;
        attempt?: number;
        status: string;
        reason?: string;
      }[],
  };
}

describe.runIf(available)('optimize with an optimizer model that answers garbage at first', () => {
  let clean: Awaited<ReturnType<typeof optimize>>;
  beforeAll(async () => {
    clean = await optimize(path.join(dir, 'clean'), 0);
    expect(clean.code, clean.stderr).toBe(0);
    // A candidate was chosen, so "the same guideline" below is not the start left as it was.
    expect(parseGuideline(clean.guideline()).id).toMatch(/^observation-default-(?:ut|co)\d$/u);
  }, 180_000);

  it.each([1, 3])(
    'survives %i unreadable replies and ends with the guideline of a clean run',
    async (garbage) => {
      const run = await optimize(path.join(dir, `garbage-${garbage}`), garbage);
      expect(run.code, run.stderr).toBe(0);
      expect(run.guideline()).toBe(clean.guideline());
      expect(run.revisions).toBe(clean.revisions + garbage);
      const failed = run.candidates().filter((c) => c.attempt !== undefined);
      expect(failed.map((c) => [c.step, c.attempt, c.status])).toEqual(
        Array.from({ length: garbage }, (_, i) => ['utility', i + 1, 'rejected']),
      );
      expect(failed[0]?.reason).toMatch(/could not be read .*no "=== CANDIDATE n ===" block.*asked again/);
    },
    180_000,
  );

  it('continues in a folder whose progress file holds an unreadable reply an older version cached', async () => {
    // What an older version left: the feedback and an unreadable candidates reply cached, then a fatal stop.
    const out = path.join(dir, 'older');
    cpSync(path.join(dir, 'clean'), out, { recursive: true });
    const file = path.join(out, 'progress.json');
    const progress = JSON.parse(readFileSync(file, 'utf8')) as {
      optimizerCalls: Record<string, { purpose: string; text: string }>;
    };
    for (const [key, call] of Object.entries(progress.optimizerCalls)) {
      if (call.purpose.startsWith('utility revision')) call.text = 'Sure! Here are some thoughts instead.';
      else if (call.purpose.startsWith('compression')) delete progress.optimizerCalls[key];
    }
    writeFileSync(file, JSON.stringify(progress));

    const again = await optimize(out, 0);
    expect(again.code, again.stderr).toBe(0);
    expect(again.guideline()).toBe(clean.guideline());
    // The cached feedback is used; the unreadable reply is asked again, as is what came after it.
    expect(again.revisions).toBe(clean.revisions);
    expect(again.requests).toBeLessThan(clean.requests);
  }, 180_000);
});
