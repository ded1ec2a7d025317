/**
 * Bad input from the model, thrown at every built-in tool through the real Runner: arguments that are
 * not JSON, arbitrary JSON values (wrong types, deep nesting, huge strings, prototype-pollution keys),
 * unknown tool names and empty responses. Each must become a clear error result the model can act on,
 * the run must go on to the next scripted step, and nothing may leak onto Object.prototype.
 *
 * The oracle below restates the runner's documented order of checks (unknown tool, JSON, size, schema)
 * so every junk call has one expected outcome; a call whose arguments pass the schema may still fail
 * inside the tool, which must then read "<tool> failed: <reason>".
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import {
  Agent,
  DEFAULT_LIMITS,
  ModelBehaviorError,
  Runner,
  escalateTool,
  transferTool,
  type AnyTool,
  type SessionEvent,
  type ToolResultEvent,
} from '../../packages/pagewise/src/index.js';
import { PagingService, createPagingTools } from '../../packages/pagewise/src/paging.js';
import { createSearchTool } from '../../packages/pagewise/src/sources.js';
import { SqliteSessionStore } from '../../packages/sqlite/src/index.js';
import { MAX_ARGUMENT_DEPTH } from '../../packages/pagewise/src/agents/runner.js';
import { scriptedModel, type ScriptedResponse } from '../../packages/pagewise/src/testing.js';
import {
  createReportAnalyst,
  generateReports,
  inMemoryCorpus,
} from '../../packages/lab/src/scenarios/report-analysis/index.js';
import {
  createRetailTools,
  retailDataMissing,
  loadRetailData,
  retailDataAvailable,
} from '../../packages/lab/src/scenarios/retail/index.js';
import {
  createQaTools,
  hotpotDataMissing,
  generateQaEpisodes,
  hotpotAvailable,
  loadHotpot,
} from '../../packages/lab/src/scenarios/multi-qa/index.js';

/** Runs of each property; one run is one invocation carrying 1-4 junk calls. PAGEWISE_FUZZ_RUNS digs deeper. */
const RUNS_PER_TOOL = Number(process.env.PAGEWISE_FUZZ_RUNS) || 24;
const ARG_LIMIT = DEFAULT_LIMITS.maxToolArgumentBytes;

let cases = 0;
let junkCalls = 0;
const outcomes: Record<Expected, number> = { unknown: 0, json: 0, depth: 0, size: 0, schema: 0, valid: 0 };
/** Calls that passed the schema, by tool: evidence that the tools' own code was reached. */
const validByTool = new Map<string, number>();
/** Tools whose own error message quoted a huge argument back (reported, not failed). */
const longToolErrors = new Set<string>();

afterAll(() => {
  console.log(
    `junk-tools: ${cases} fuzz cases (${junkCalls} junk tool calls) through the runner; outcomes: ` +
      Object.entries(outcomes)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') +
      `; valid calls by tool: ${[...validByTool].map(([k, v]) => `${k} ${v}`).join(', ')}` +
      (longToolErrors.size
        ? `; tools that quoted a huge argument in their error: ${[...longToolErrors].join(', ')}`
        : ''),
  );
});

/**
 * Fails with the seed and a shortened counterexample: the default report prints junk arguments of
 * hundreds of kilobytes whole.
 */
function shortReport<T>(details: fc.RunDetails<T>): void {
  if (!details.failed) return;
  const example = fc.stringify(details.counterexample);
  const error =
    details.errorInstance instanceof Error ? details.errorInstance : new Error(String(details.errorInstance));
  throw new Error(
    `Property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}"): ${error.message.slice(0, 2000)}\n` +
      `Counterexample (${example.length} chars): ${example.length > 3000 ? `${example.slice(0, 1500)} … ${example.slice(-1500)}` : example}`,
    { cause: error },
  );
}

// ---------------------------------------------------------------- targets: agents holding the built-in tools

/** An agent whose tools (the transfer tool included) are fuzzed, in the agent tree it belongs to. */
interface Target {
  label: string;
  root: Agent;
  agent: Agent;
  /** Values worth putting in string fields so valid-looking calls reach real code paths. */
  hints: string[];
}

const reports = generateReports(4, 7);
const corpus = inMemoryCorpus(reports);
const uris = corpus.uris;

function pagingTarget(): Target {
  // A small frame size makes read_frame reachable on the generated reports.
  const paging = new PagingService({ source: corpus.source, ramBudgetTokens: 4000, frameTokens: 400 });
  const helper = new Agent({ name: 'helper', description: 'answers after a transfer' });
  const agent = new Agent({
    name: 'pager',
    tools: [...Object.values(createPagingTools(paging)), createSearchTool(corpus.index), escalateTool],
    subAgents: [helper],
  });
  return {
    label: 'paging tools + search',
    root: agent,
    agent,
    hints: [...uris, '$1 + $2', 'sum($all)', 'revenue', 'helper'],
  };
}

function reportTargets(): Target[] {
  const paged = createReportAnalyst({
    source: corpus.source,
    index: corpus.index,
    uris,
    strategy: 'paging',
    ramBudgetTokens: 8000,
  });
  const naive = createReportAnalyst({ source: corpus.source, index: corpus.index, uris, strategy: 'none' });
  const hints = [...uris, 'revenue', 'analyst', 'planner', '$1', 'answer-partial'];
  return [
    { label: 'report-analysis planner', root: paged.planner, agent: paged.planner, hints },
    { label: 'report-analysis analyst (paging)', root: paged.planner, agent: paged.analyst, hints },
    { label: 'report-analysis analyst (naive get_reports)', root: naive.planner, agent: naive.analyst, hints },
  ];
}

/** The tools an agent is offered: its own, plus the transfer tool the runner adds when it has targets. */
function offered(agent: Agent): AnyTool[] {
  const targets = agent.transferTargets();
  return targets.length > 0 ? [...agent.tools, transferTool(targets)] : [...agent.tools];
}

// ---------------------------------------------------------------- the oracle

type Expected = 'unknown' | 'json' | 'depth' | 'size' | 'schema' | 'valid';

/** Bracket nesting of a text, outside JSON strings (an oracle kept apart from the runner's code). */
function bracketDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') max = Math.max(max, ++depth);
    else if (ch === ']' || ch === '}') depth--;
  }
  return max;
}

/** What the runner must make of `text` sent as the arguments of `toolName`. */
function expected(tools: AnyTool[], toolName: string, text: string): Expected {
  const tool = tools.find((x) => x.name === toolName);
  if (!tool) return 'unknown';
  if (Buffer.byteLength(text) > ARG_LIMIT) return 'size';
  let value: unknown = {};
  if (text.trim() !== '') {
    if (bracketDepth(text) > MAX_ARGUMENT_DEPTH) return 'depth';
    try {
      value = JSON.parse(text);
    } catch {
      return 'json';
    }
  }
  return tool.inputSchema.safeParse(value).success ? 'valid' : 'schema';
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function checkResult(tools: AnyTool[], call: JunkCall, result: ToolResultEvent): Expected {
  const kind = expected(tools, call.toolName, call.text);
  const out = result.output;
  const name = escapeRe(call.toolName);
  switch (kind) {
    case 'unknown':
      expect(result.isError).toBe(true);
      expect(out).toMatch(/^Error: unknown tool ".*"\. Available tools: /s);
      // The model is told what it can call instead.
      for (const tool of tools) expect(out).toContain(tool.name);
      break;
    case 'json':
      expect(result.isError).toBe(true);
      expect(out).toMatch(
        new RegExp(`^Error: the arguments of ${name} are not valid \\(not JSON: .+\\)\\. Send a JSON object`, 's'),
      );
      break;
    case 'depth':
      expect(result.isError).toBe(true);
      expect(out).toMatch(
        new RegExp(
          `^Error: the arguments of ${name} are not valid \\(nested \\d+ levels deep; at most ${MAX_ARGUMENT_DEPTH} are accepted\\)`,
        ),
      );
      break;
    case 'size':
      expect(result.isError).toBe(true);
      expect(out).toMatch(
        /^Error: the arguments are \d+ bytes, over the limit maxToolArgumentBytes of \d+ \(setting limits\.maxToolArgumentBytes\)/,
      );
      break;
    case 'schema':
      expect(result.isError).toBe(true);
      expect(out).toMatch(
        new RegExp(`^Error: invalid arguments for ${name}:\\n.+\\nFix the arguments and call again\\.$`, 's'),
      );
      break;
    case 'valid':
      // Valid arguments run the tool; junk content may still make it fail, and then it must say why.
      if (result.isError) expect(out).toMatch(new RegExp(`^Error: ${name} failed: \\S`));
      break;
  }
  if (result.isError) {
    expect(out).not.toMatch(/\[object Object\]|failed: undefined$/);
    // The runner's own messages never echo the (possibly huge) arguments back. A tool's message may
    // quote an argument; the runner's result limit bounds it.
    if (kind !== 'valid') expect(out.length).toBeLessThan(20_000);
    else if (out.length > 20_000) longToolErrors.add(call.toolName);
  }
  return kind;
}

// ---------------------------------------------------------------- generators

/** One junk call: the exact argument text the model sent, and whether it went out as a JSON value. */
interface JunkCall {
  toolName: string;
  text: string;
  /** Sent through `toolCalls` (a JSON value) rather than `rawToolCalls` (text). */
  value?: { v: unknown };
}

const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];

/** Long strings near and over the argument limit; words, so the tokenizer stays linear on them. */
const hugeString = fc
  .integer({ min: 20_000, max: ARG_LIMIT + 40_000 })
  .map((n) => 'lorem ipsum dolor '.repeat(Math.ceil(n / 18)).slice(0, n));

function leafJunk(hints: string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: fc.string({ unit: 'binary', maxLength: 60 }), weight: 3 },
    { arbitrary: fc.constantFrom(...hints), weight: 3 },
    { arbitrary: fc.integer(), weight: 2 },
    { arbitrary: fc.double(), weight: 1 },
    { arbitrary: fc.constantFrom(0, -1, 1, 2, 10, 11, 2 ** 31, 2 ** 53 + 2, -0, 0.5, 1e308, -1e308), weight: 2 },
    { arbitrary: fc.boolean(), weight: 1 },
    { arbitrary: fc.constant(null), weight: 1 },
    {
      arbitrary: fc.array(fc.oneof(fc.constantFrom(...hints), fc.string({ maxLength: 20 })), { maxLength: 14 }),
      weight: 3,
    },
    { arbitrary: fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 5 }), weight: 1 },
    {
      arbitrary: fc.dictionary(fc.constantFrom(...PROTO_KEYS, 'a'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
      weight: 1,
    },
    { arbitrary: hugeString, weight: 1 },
  );
}

/** Arguments shaped like the tool's schema (its real property names) with junk values. */
function shapedArgs(tool: AnyTool | undefined, hints: string[]): fc.Arbitrary<Record<string, unknown>> {
  const props = tool
    ? Object.keys(
        (z.toJSONSchema(tool.inputSchema, { unrepresentable: 'any' }) as { properties?: object }).properties ?? {},
      )
    : [];
  const keys = [...props, 'extra'];
  return fc.tuple(...keys.map(() => fc.option(leafJunk(hints), { freq: 4 }))).map((values) => {
    const out: Record<string, unknown> = {};
    keys.forEach((key, index) => {
      if (values[index] !== null) out[key] = values[index];
    });
    return out;
  });
}

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

/** A value of the right JSON type for `schema`, with junk content: gets calls past the schema into the tool. */
function typedValue(schema: JsonSchema, hints: string[]): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return fc.oneof(
        fc.constantFrom(...hints),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
        fc.constantFrom('$all', 'max($all) / 0', '(((1', '9'.repeat(400)),
      );
    case 'integer':
      return fc.oneof(fc.integer({ min: -2, max: 12 }), fc.integer());
    case 'number':
      return fc.oneof(fc.integer({ min: -2, max: 12 }), fc.double({ noNaN: true }));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(typedValue(schema.items ?? {}, hints), { minLength: 1, maxLength: 11 });
    case 'object':
      return typedObject(schema, hints);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function typedObject(schema: JsonSchema, hints: string[]): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  return fc
    .tuple(
      ...entries.map(([key, value]) =>
        required.has(key) ? typedValue(value, hints) : fc.option(typedValue(value, hints), { nil: undefined }),
      ),
    )
    .map((values) => Object.fromEntries(entries.map(([k], i) => [k, values[i]]).filter(([, v]) => v !== undefined)));
}

/** Text that is not JSON, or JSON that parses to something odd. */
function rawText(shaped: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.constantFrom(
      '',
      '   ',
      'undefined',
      'NaN',
      'Infinity',
      '{a:1}',
      "{'a': 1}",
      '{"a":1,}',
      '// comment\n{}',
      '\uFEFF{}',
      '{"a":1}{"b":2}',
      '[1, 2',
      '"just a string"',
      'null',
      'true',
      '1e999',
      '-',
      '\u0000',
      '{"a":"\\ud800"}',
      '{"__proto__":{"polluted":"yes"}}',
      '{"constructor":{"prototype":{"polluted":"yes"}}}',
      '[{"__proto__":{"polluted":"yes"}}]',
    ),
    // Truncated JSON, as a model cut off by its output limit writes it.
    fc.tuple(shaped, fc.nat()).map(([value, cut]) => {
      const json = JSON.stringify(value);
      return json.slice(0, cut % Math.max(1, json.length));
    }),
    // Valid-looking arguments carrying prototype-pollution keys as literal JSON text.
    fc
      .tuple(
        shaped,
        fc.subarray(['"__proto__":{"polluted":"yes"}', '"constructor":{"prototype":{"polluted":"yes"}}'], {
          minLength: 1,
        }),
      )
      .map(([value, extra]) => {
        const body = JSON.stringify(value).slice(1);
        return `{${extra.join(',')}${body === '}' ? '}' : `,${body}`}`;
      }),
    // Deep nesting, on both sides of MAX_ARGUMENT_DEPTH.
    fc
      .tuple(fc.integer({ min: 20, max: 1000 }), fc.boolean())
      .map(([d, arr]) => (arr ? '['.repeat(d) + ']'.repeat(d) : '{"a":'.repeat(d) + '1' + '}'.repeat(d))),
    // Huge text that is not JSON.
    hugeString.map((s) => `not json: ${s}`),
  );
}

function junkCall(tool: AnyTool | undefined, toolName: fc.Arbitrary<string>, hints: string[]): fc.Arbitrary<JunkCall> {
  const shaped = shapedArgs(tool, hints);
  const anything = fc
    .anything({
      key: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...PROTO_KEYS)),
      maxDepth: 4,
      maxKeys: 6,
      withBoxedValues: true,
      withNullPrototype: true,
      withDate: true,
      withSparseArray: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
    })
    // A provider always sends text; a value with no JSON form (top-level undefined) is not a model output.
    .filter((v) => JSON.stringify(v) !== undefined);
  const typed = tool
    ? typedObject(z.toJSONSchema(tool.inputSchema, { unrepresentable: 'any' }) as JsonSchema, hints)
    : shaped;
  return fc
    .tuple(
      toolName,
      fc.oneof(
        { arbitrary: typed.map((v) => ({ v })), weight: 3 },
        { arbitrary: shaped.map((v) => ({ v })), weight: 3 },
        { arbitrary: anything.map((v) => ({ v })), weight: 2 },
        { arbitrary: rawText(shaped), weight: 3 },
      ),
    )
    .map(([name, junk]) =>
      typeof junk === 'string'
        ? { toolName: name, text: junk }
        : { toolName: name, text: JSON.stringify(junk.v), value: junk },
    );
}

// ---------------------------------------------------------------- running one case

const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();
const arrayProtoBefore = Object.getOwnPropertyNames(Array.prototype).sort();

function assertUnpolluted(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoBefore);
  expect(Object.getOwnPropertyNames(Array.prototype).sort()).toEqual(arrayProtoBefore);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

const store = new SqliteSessionStore({ path: ':memory:' });
afterAll(() => store.close());

async function runJunk(target: Target, calls: JunkCall[]): Promise<void> {
  cases += 1;
  junkCalls += calls.length;
  const tools = offered(target.agent);
  // The scripted model sends `toolCalls` before `rawToolCalls`: order the calls that way up front.
  const ordered = [...calls.filter((c) => c.value), ...calls.filter((c) => !c.value)];
  const ids = ordered.map((_, i) => `junk-${i}`);
  const step: ScriptedResponse = {
    toolCalls: ordered.flatMap((call, index) =>
      call.value ? [{ toolName: call.toolName, input: call.value.v, toolCallId: ids[index]! }] : [],
    ),
    rawToolCalls: ordered.flatMap((call, index) =>
      call.value ? [] : [{ toolName: call.toolName, inputText: call.text, toolCallId: ids[index]! }],
    ),
  };

  const model = scriptedModel([step, 'done']);
  const runner = new Runner({ agent: target.root, model, store, appName: 'junk' });
  const result = await runner.run({ userId: 'fuzz', message: 'Use your tools.', agentName: target.agent.name });

  const events: SessionEvent[] = result.session.events;
  const results = events.filter((e): e is ToolResultEvent => e.kind === 'tool-result');
  // Every junk call got exactly one result, in call order, right after the model event that made it.
  expect(results.map((r) => r.toolCallId)).toEqual(ids);
  const modelAt = events.findIndex((e) => e.kind === 'model');
  expect(events[modelAt + 1]?.kind).toBe('tool-result');
  let escalated = false;
  ordered.forEach((call, index) => {
    const result = results[index]!;
    const kind = checkResult(tools, call, result);
    outcomes[kind] += 1;
    if (kind === 'valid') validByTool.set(call.toolName, (validByTool.get(call.toolName) ?? 0) + 1);
    if (kind === 'valid' && !result.isError && call.toolName === 'escalate') escalated = true;
  });

  // The run went on: to the final text of the next scripted step, unless a valid escalate ended it.
  if (escalated) {
    expect(result.stopReason).toBe('escalate');
  } else {
    expect(result.stopReason).toBe('final');
    expect(result.text).toBe('done');
    model.assertComplete();
  }
  // What was stored reads back and validates, junk arguments included.
  const reloaded = await store.getSession(result.session);
  expect(reloaded?.events.length).toBe(events.length);
  assertUnpolluted();
}

function fuzzTarget(target: Target): void {
  const tools = offered(target.agent);
  describe(target.label, () => {
    for (const tool of tools) {
      it(`${tool.name}: junk arguments become error results and the run continues`, async () => {
        const call = junkCall(tool, fc.constant(tool.name), target.hints);
        await fc.assert(
          fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 4 }), async (calls) => {
            // One huge call per step: a response bigger than the context window is a different failure.
            const big = calls.filter((c) => c.text.length > 10_000);
            await runJunk(
              target,
              big.length > 1 ? calls.filter((c) => c.text.length <= 10_000).concat(big[0]!) : calls,
            );
          }),
          { numRuns: RUNS_PER_TOOL, asyncReporter: async (d) => shortReport(d) },
        );
      });
    }

    it('unknown tool names (and prototype names) become error results naming the tools on offer', async () => {
      const known = new Set(tools.map((t) => t.name));
      const name = fc
        .oneof(
          fc.string({ unit: 'binary', maxLength: 80 }),
          fc.constantFrom(...PROTO_KEYS, '', ' ', 'ESCALATE', 'search ', 'x'.repeat(5000)),
        )
        .filter((n) => !known.has(n));
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            junkCall(undefined, name, target.hints).filter((c) => c.text.length <= 10_000),
            { minLength: 1, maxLength: 3 },
          ),
          async (calls) => {
            await runJunk(target, calls);
          },
        ),
        { numRuns: RUNS_PER_TOOL, asyncReporter: async (d) => shortReport(d) },
      );
    });
  });
}

// ---------------------------------------------------------------- the suites

describe('junk tool arguments through the runner', () => {
  fuzzTarget(pagingTarget());
  for (const target of reportTargets()) fuzzTarget(target);
});

const retailAvailable = retailDataAvailable();
if (!retailAvailable) console.log(`junk-tools: retail tools skipped: ${retailDataMissing()}`);
describe.skipIf(!retailAvailable)('junk tool arguments: retail tools', async () => {
  const data = retailAvailable ? await loadRetailData() : undefined;
  if (!data) return;
  const agent = new Agent({ name: 'retail', tools: [...createRetailTools(data), escalateTool] });
  const someUser = [...data.users.keys()][0] ?? 'noah_brown_6181';
  const someOrder = [...data.orders.keys()][0] ?? '#W2611340';
  fuzzTarget({
    label: 'retail tools',
    root: agent,
    agent,
    hints: [someUser, someOrder, 'kettle', 'Noah', 'Brown', '80279', '9523456873'],
  });
});

const qaAvailable = hotpotAvailable();
if (!qaAvailable) console.log(`junk-tools: multi-qa tools skipped: ${hotpotDataMissing()}`);
describe.skipIf(!qaAvailable)('junk tool arguments: multi-qa tools', async () => {
  const records = qaAvailable ? await loadHotpot() : [];
  if (records.length === 0) return;
  const [episode] = generateQaEpisodes(records, { episodes: 1, k: 3, seed: 1 });
  const agent = new Agent({ name: 'qa', tools: createQaTools(episode!).tools });
  fuzzTarget({
    label: 'multi-qa tools',
    root: agent,
    agent,
    hints: [episode!.questions[0]!.question, '1', 'yes', 'Q1'],
  });
});

describe('fixed cases', () => {
  it('an empty response gets a nudge and the run continues; three in a row fail clearly', async () => {
    const agent = new Agent({ name: 'a', tools: [escalateTool] });
    const model = scriptedModel([{ text: '' }, { text: '   ' }, 'done']);
    const result = await new Runner({ agent, model }).run({ userId: 'u', message: 'go' });
    expect(result.text).toBe('done');
    const nudges = result.session.events.filter((e) => e.kind === 'user' && e.author === 'pagewise');
    expect(nudges).toHaveLength(2);
    // The model sees the nudge in its next request.
    expect(JSON.stringify(model.views[1])).toContain('Your last response was empty');

    const silent = scriptedModel([{ text: '' }, { text: '' }, { text: '' }]);
    const failure = await new Runner({ agent, model: silent })
      .run({ userId: 'u', message: 'go' })
      .catch((e: unknown) => e);
    expect(ModelBehaviorError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toMatch(
      /empty response 3 times in a row\. Check the model and its instruction\./,
    );
  });

  it('an argument over limits.maxToolArgumentBytes is refused by its size, and the run continues', async () => {
    const agent = new Agent({ name: 'a', tools: [escalateTool] });
    const reason = 'far too long '.repeat(25_000);
    const model = scriptedModel([{ toolCalls: [{ toolName: 'escalate', input: { reason } }] }, 'done']);
    const result = await new Runner({ agent, model }).run({ userId: 'u', message: 'go' });
    const [resultEvent] = result.session.events.filter((e): e is ToolResultEvent => e.kind === 'tool-result');
    expect(resultEvent?.isError).toBe(true);
    expect(resultEvent?.output).toMatch(
      /^Error: the arguments are 325\d{3} bytes, over the limit maxToolArgumentBytes of 262144 \(setting limits\.maxToolArgumentBytes\)\. Send shorter arguments\.$/,
    );
    expect(result.text).toBe('done');
  });

  it('more tool calls than limits.maxToolCallsPerStep: the rest get an error naming the setting', async () => {
    const agent = new Agent({ name: 'a', tools: [escalateTool] });
    const calls = Array.from({ length: 5 }, (_, i) => ({ toolName: 'nope', input: {}, toolCallId: `c${i}` }));
    const model = scriptedModel([{ toolCalls: calls }, 'done']);
    const result = await new Runner({ agent, model, limits: { maxToolCallsPerStep: 2 } }).run({
      userId: 'u',
      message: 'go',
    });
    const results = result.session.events.filter((e): e is ToolResultEvent => e.kind === 'tool-result');
    expect(results.map((r) => r.isError)).toEqual([true, true, true, true, true]);
    expect(results.slice(2).every((r) => /limits\.maxToolCallsPerStep/.test(r.output))).toBe(true);
    expect(result.text).toBe('done');
  });
});

describe('gaps found by this fuzzing, now fixed', () => {
  // JSON nested ~5,000 deep (10 KB of brackets, far under maxToolArgumentBytes) used to overflow the
  // stack of the runner's JSON.stringify; the runner now refuses arguments nested over MAX_ARGUMENT_DEPTH.
  it('arguments nested 5,000 deep become an error result', async () => {
    const agent = new Agent({ name: 'a', tools: [escalateTool] });
    const model = scriptedModel([
      { rawToolCalls: [{ toolName: 'escalate', inputText: '['.repeat(5000) + ']'.repeat(5000) }] },
      'done',
    ]);
    const result = await new Runner({ agent, model }).run({ userId: 'u', message: 'go' });
    expect(result.text).toBe('done');
  });
});
