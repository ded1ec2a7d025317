/**
 * What each framework adapter adds to a step of its framework's own tool loop: LangChain.js `createAgent`, Mastra's
 * `Agent`, Google ADK JS's `InMemoryRunner` and the OpenAI Agents SDK's `run`, each plain and with the adapter's
 * set-up of docs/adapters.md at its defaults (the paging tools and the paged instruction, C_obs with
 * `observationCompressor()`, `compactPagingTurns()` over the request). The same scripted work everywhere: one
 * `record` tool, 20 tool steps, then an answer, after a history pre-filled to 500 and 5,000 events (pairs of a
 * `record` call and its result after a user message), given as each framework takes it: LangChain and Mastra as
 * the call's messages, ADK as session events, OpenAI Agents as session items.
 *
 * Measured from outside, by the scripted model of each framework: a step is the gap between the model returning
 * and being called again; the fixed cost of an invocation is its wall time less those gaps. Each contender runs
 * in a fresh process per round, every size once untimed (warm-up) and then timed, in an order rotated per round;
 * medians over rounds, and ratios and differences taken within a round, median [min–max].
 *
 *   node --conditions=@pagewise/source --import tsx bench/adapter-step.ts [--rounds 5] [--sizes 500,5000]
 *     [--frameworks langchain,mastra,adk,openai-agents]
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { fmt, quantile } from './stats.js';

const STEPS = 20;
const FINAL_TEXT = 'All observations are recorded.';
const INSTRUCTION = 'You record observations.';
const RECORD_DESCRIPTION = 'Records one observation by index and returns a short acknowledgement.';
const FRAMEWORKS = ['langchain', 'mastra', 'adk', 'openai-agents'] as const;
type Framework = (typeof FRAMEWORKS)[number];

const recordSchema = z.object({ i: z.number().int(), note: z.string() });
const recordResult = (args: { i: number; note: string }): string => `recorded ${args.i} (${args.note.length} chars)`;
/** The arguments of pre-filled call `index`. */
const seedArgs = (index: number) => ({
  i: index,
  note: `earlier observation ${index}: ${'detail '.repeat(15).trim()}`,
});
/** The scripted model's decision at call `call`: a `record` call for the first 20, then the answer. */
const decide = (call: number): { i: number; note: string } | undefined =>
  call < STEPS ? { i: call, note: `observation ${call}: the value went from ${100 + call}` } : undefined;

/** The clock around a scripted model: gaps between a return and the next call are the framework's time. */
class OutsideClock {
  private lastExit: number | undefined;
  readonly gaps: number[] = [];
  calls = 0;

  enter(): number {
    const now = performance.now();
    if (this.lastExit !== undefined) this.gaps.push(now - this.lastExit);
    return this.calls++;
  }

  exit(): void {
    this.lastExit = performance.now();
  }
}

/** One invocation, ready to run: the framework and, with the adapter, its set-up built around the history. */
type Invocation = () => Promise<void>;

function argOf(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
}

function sizesOf(raw: string | undefined): number[] {
  const sizes = (raw ?? '500,5000').split(',').map(Number);
  if (sizes.some((size) => !Number.isInteger(size) || size < 4))
    throw new RangeError(`--sizes takes event counts ≥ 4 separated by commas, got "${raw}".`);
  return sizes;
}

function frameworksOf(raw: string | undefined): Framework[] {
  const names = (raw ?? FRAMEWORKS.join(',')).split(',');
  for (const name of names)
    if (!(FRAMEWORKS as readonly string[]).includes(name))
      throw new RangeError(`--frameworks takes names among ${FRAMEWORKS.join(', ')}, got "${name}".`);
  return names as Framework[];
}

/** The parts of the adapters' set-up every framework shares: a paging service and the two processors. */
async function pagewiseParts() {
  const { observationCompressor } = await import('pagewise/compression');
  const { compactPagingTurns, PagingService } = await import('pagewise/paging');
  const service = new PagingService();
  return { service, observations: observationCompressor({ service }), compaction: compactPagingTurns() };
}

async function langchain(events: number, clock: OutsideClock, adapter: boolean): Promise<Invocation> {
  const { createAgent, tool } = await import('langchain');
  const { AIMessage, HumanMessage, ToolMessage } = await import('@langchain/core/messages');
  const { fakeModel } = await import('@langchain/core/testing');
  const record = tool(async (args: { i: number; note: string }) => recordResult(args), {
    name: 'record',
    description: RECORD_DESCRIPTION,
    schema: recordSchema,
  });
  const messages: unknown[] = [new HumanMessage('Start recording.')];
  for (let index = 0; messages.length < events; index++) {
    const id = `s${index}`;
    messages.push(
      new AIMessage({ content: '', tool_calls: [{ id, name: 'record', args: seedArgs(index), type: 'tool_call' }] }),
      new ToolMessage({ tool_call_id: id, name: 'record', content: recordResult(seedArgs(index)) }),
    );
  }
  messages.push(new HumanMessage('Record the new observations.'));
  const model = fakeModel();
  for (let call = 0; call <= STEPS; call++)
    model.respond(() => {
      const step = clock.enter();
      const args = decide(step);
      const reply = args
        ? new AIMessage({ content: '', tool_calls: [{ id: `c${step}`, name: 'record', args, type: 'tool_call' }] })
        : new AIMessage(FINAL_TEXT);
      clock.exit();
      return reply;
    });
  let middleware: unknown[] = [];
  if (adapter) {
    const { LangChainThreads, observationMiddleware, pagingMiddleware } = await import('@pagewise/langchain');
    const { service, observations, compaction } = await pagewiseParts();
    const threads = new LangChainThreads();
    middleware = [
      observationMiddleware({ processors: [observations], threads }),
      pagingMiddleware({ service, threads, processors: [compaction] }),
    ];
  }
  const agent = createAgent({ model, tools: [record], systemPrompt: INSTRUCTION, middleware: middleware as never });
  return async () => {
    const config = { configurable: { thread_id: 'bench' }, recursionLimit: 4 * (STEPS + 2) };
    const result = (await agent.invoke({ messages } as never, config as never)) as { messages: { content: unknown }[] };
    const last = result.messages.at(-1);
    if (last?.content !== FINAL_TEXT) throw new Error(`LangChain: unexpected final message ${String(last?.content)}`);
  };
}

/** A pre-filled history of `events` messages in AI SDK form, then the task (Mastra takes it as it is). */
function aiSdkHistory(events: number): unknown[] {
  const messages: unknown[] = [{ role: 'user', content: 'Start recording.' }];
  for (let index = 0; messages.length < events; index++) {
    const input = seedArgs(index);
    messages.push(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `s${index}`, toolName: 'record', input }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `s${index}`,
            toolName: 'record',
            output: { type: 'text', value: recordResult(input) },
          },
        ],
      },
    );
  }
  messages.push({ role: 'user', content: 'Record the new observations.' });
  return messages;
}

/** A LanguageModelV3 that follows the script and reports to the clock (Mastra's model contract). */
function scriptedV3(clock: OutsideClock) {
  const usage = {
    inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: undefined, reasoning: undefined },
  };
  return {
    specificationVersion: 'v3' as const,
    provider: 'scripted',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate() {
      const step = clock.enter();
      const args = decide(step);
      const result = {
        content: args
          ? [{ type: 'tool-call' as const, toolCallId: `c${step}`, toolName: 'record', input: JSON.stringify(args) }]
          : [{ type: 'text' as const, text: FINAL_TEXT }],
        finishReason: { unified: args ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
        usage,
        warnings: [],
      };
      clock.exit();
      return result;
    },
    async doStream(): Promise<never> {
      throw new Error('streaming is not scripted');
    },
  };
}

async function mastra(events: number, clock: OutsideClock, adapter: boolean): Promise<Invocation> {
  const { Agent } = await import('@mastra/core/agent');
  const { createTool } = await import('@mastra/core/tools');
  const messages = aiSdkHistory(events);
  const record = createTool({
    id: 'record',
    description: RECORD_DESCRIPTION,
    inputSchema: recordSchema,
    execute: async (input: { i: number; note: string }) => recordResult(input),
  } as never);
  let processors: { inputProcessors?: unknown[]; outputProcessors?: unknown[] } = {};
  if (adapter) {
    const { MastraThreads, observationProcessor, pagingProcessor } = await import('@pagewise/mastra');
    const { service, observations, compaction } = await pagewiseParts();
    const threads = new MastraThreads();
    const obs = observationProcessor({ processors: [observations], threads });
    processors = {
      inputProcessors: [obs, pagingProcessor({ service, threads, processors: [compaction] })],
      outputProcessors: [obs],
    };
  }
  const agent = new Agent({
    id: 'recorder',
    name: 'recorder',
    instructions: INSTRUCTION,
    model: scriptedV3(clock),
    tools: { record },
    ...processors,
  } as never);
  return async () => {
    const result = await agent.generate(messages as never, { maxSteps: STEPS + 2 } as never);
    if (result.text !== FINAL_TEXT) throw new Error(`Mastra: unexpected final text ${result.text}`);
  };
}

async function adk(events: number, clock: OutsideClock, adapter: boolean): Promise<Invocation> {
  const { BaseLlm, LlmAgent, FunctionTool, InMemoryRunner, createEvent, LogLevel, setLogLevel } =
    await import('@google/adk');
  // ADK logs each plugin it registers: written to the terminal, not part of what is timed.
  setLogLevel(LogLevel.ERROR);
  class ScriptedLlm extends BaseLlm {
    constructor() {
      super({ model: 'scripted' });
    }
    async *generateContentAsync() {
      const step = clock.enter();
      const args = decide(step);
      const response = args
        ? { content: { role: 'model', parts: [{ functionCall: { id: `c${step}`, name: 'record', args } }] } }
        : { content: { role: 'model', parts: [{ text: FINAL_TEXT }] } };
      clock.exit();
      yield response as never;
    }
    async connect(): Promise<never> {
      throw new Error('live connections are not scripted');
    }
  }
  const record = new FunctionTool({
    name: 'record',
    description: RECORD_DESCRIPTION,
    parameters: recordSchema,
    execute: async (args: { i: number; note: string }) => recordResult(args),
  } as never);
  let setUp: { instruction: unknown; tools: unknown[]; plugins: unknown[] } = {
    instruction: INSTRUCTION,
    tools: [record],
    plugins: [],
  };
  if (adapter) {
    const { adkPagedInstruction, createAdkPagingTools, PagewiseAdkPlugin } = await import('@pagewise/adk');
    const { service, observations, compaction } = await pagewiseParts();
    const paging = createAdkPagingTools(service);
    setUp = {
      instruction: adkPagedInstruction({ base: INSTRUCTION, service }),
      tools: [record, paging.get_reports, paging.save_result],
      plugins: [new PagewiseAdkPlugin({ processors: [compaction], observationProcessors: [observations] })],
    };
  }
  const agent = new LlmAgent({
    name: 'recorder',
    model: new ScriptedLlm(),
    instruction: setUp.instruction as never,
    tools: setUp.tools as never,
  });
  const runner = new InMemoryRunner({ agent, appName: 'bench', plugins: setUp.plugins as never });
  const session = await runner.sessionService.createSession({ appName: 'bench', userId: 'user' });
  const append = (content: unknown, author: string) =>
    runner.sessionService.appendEvent({
      session,
      event: createEvent({ invocationId: 'seed', author, content: content as never }),
    });
  await append({ role: 'user', parts: [{ text: 'Start recording.' }] }, 'user');
  for (let index = 0, count = 1; count < events; index++, count += 2) {
    const args = seedArgs(index);
    await append({ role: 'model', parts: [{ functionCall: { id: `s${index}`, name: 'record', args } }] }, 'recorder');
    await append(
      {
        role: 'user',
        parts: [{ functionResponse: { id: `s${index}`, name: 'record', response: { result: recordResult(args) } } }],
      },
      'recorder',
    );
  }
  return async () => {
    let text = '';
    for await (const event of runner.runAsync({
      userId: 'user',
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text: 'Record the new observations.' }] },
    })) {
      if (event.errorCode) throw new Error(`ADK ended on ${event.errorCode}: ${event.errorMessage ?? ''}`);
      for (const part of event.content?.parts ?? []) if (part.text) text = part.text;
    }
    if (text !== FINAL_TEXT) throw new Error(`ADK: unexpected final text ${text}`);
  };
}

async function openAiAgents(events: number, clock: OutsideClock, adapter: boolean): Promise<Invocation> {
  const { Agent, MemorySession, run, tool, Usage, setTracingDisabled } = await import('@openai/agents');
  // Tracing off, as the other frameworks run: no spans are built or exported.
  setTracingDisabled(true);
  const model = {
    async getResponse() {
      const step = clock.enter();
      const args = decide(step);
      const output = args
        ? [
            {
              type: 'function_call',
              callId: `c${step}`,
              name: 'record',
              arguments: JSON.stringify(args),
              status: 'completed',
            },
          ]
        : [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: FINAL_TEXT }],
            },
          ];
      const response = { output, usage: new Usage(), responseId: `r${step}` };
      clock.exit();
      return response as never;
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse(): AsyncIterable<never> {
      throw new Error('streaming is not scripted');
    },
  };
  const record = tool({
    name: 'record',
    description: RECORD_DESCRIPTION,
    parameters: recordSchema,
    execute: async (args) => recordResult(args),
  });
  const items: unknown[] = [{ role: 'user', content: 'Start recording.' }];
  for (let index = 0; items.length < events; index++) {
    const args = seedArgs(index);
    items.push(
      {
        type: 'function_call',
        callId: `s${index}`,
        name: 'record',
        arguments: JSON.stringify(args),
        status: 'completed',
      },
      {
        type: 'function_call_result',
        callId: `s${index}`,
        name: 'record',
        status: 'completed',
        output: { type: 'text', text: recordResult(args) },
      },
    );
  }
  if (!adapter) {
    const agent = new Agent({ name: 'recorder', instructions: INSTRUCTION, model: model as never, tools: [record] });
    const session = new MemorySession();
    await session.addItems(items as never);
    return async () => {
      const result = await run(agent, 'Record the new observations.', { session, maxTurns: STEPS + 2 });
      if (result.finalOutput !== FINAL_TEXT)
        throw new Error(`OpenAI Agents: final output ${String(result.finalOutput)}`);
    };
  }
  const {
    createOpenAiPagingTools,
    endPagingRun,
    pagedInstructions,
    pagewiseInputFilter,
    pagingContext,
    PagewiseSession,
  } = await import('@pagewise/openai-agents');
  const { service, observations, compaction } = await pagewiseParts();
  const paging = createOpenAiPagingTools(service);
  const agent = new Agent({
    name: 'recorder',
    instructions: pagedInstructions({ base: INSTRUCTION, service }),
    model: model as never,
    tools: [record, paging.get_reports, paging.page_in, paging.save_result] as never,
  });
  const session = new PagewiseSession(new MemorySession(), { observationProcessors: [observations] });
  await session.addItems(items as never);
  const context = pagingContext({ sessionId: await session.getSessionId() });
  const callModelInputFilter = pagewiseInputFilter({ observationProcessors: [observations], processors: [compaction] });
  return async () => {
    const result = await run(agent, 'Record the new observations.', {
      context,
      session,
      callModelInputFilter,
      maxTurns: STEPS + 2,
    } as never);
    endPagingRun(context);
    if (result.finalOutput !== FINAL_TEXT) throw new Error(`OpenAI Agents: final output ${String(result.finalOutput)}`);
  };
}

const PREPARE: Record<Framework, (events: number, clock: OutsideClock, adapter: boolean) => Promise<Invocation>> = {
  langchain,
  mastra,
  adk,
  'openai-agents': openAiAgents,
};

/** One timed invocation: the median gap between model calls and the rest of its wall time, ms. */
interface ChildRow {
  events: number;
  stepMs: number;
  fixedMs: number;
}

async function child(contender: string, sizes: readonly number[]): Promise<void> {
  const [framework, variant] = contender.split('+') as [Framework, string | undefined];
  const invoke = async (events: number): Promise<ChildRow> => {
    const clock = new OutsideClock();
    const run = await PREPARE[framework](events, clock, variant === 'pagewise');
    globalThis.gc?.();
    const start = performance.now();
    await run();
    const invocationMs = performance.now() - start;
    if (clock.calls !== STEPS + 1) throw new Error(`${contender}: ${clock.calls} model calls, not ${STEPS + 1}`);
    const stepsMs = clock.gaps.reduce((sum, gap) => sum + gap, 0);
    return { events, stepMs: quantile(clock.gaps, 0.5), fixedMs: invocationMs - stepsMs };
  };
  const rows: ChildRow[] = [];
  for (const events of sizes) {
    await invoke(events); // warm-up at this size: the JIT, caches, code paths only this length takes
    rows.push(await invoke(events));
  }
  process.stdout.write(JSON.stringify(rows));
}

/** Runs every contender in a fresh process per round and prints medians, within-round ratios and differences. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const rounds = Number(argOf(argv, '--rounds') ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`--rounds takes an integer ≥ 1, got ${rounds}.`);
  const sizes = sizesOf(argOf(argv, '--sizes'));
  const frameworks = frameworksOf(argOf(argv, '--frameworks'));
  const contenders = frameworks.flatMap((framework) => [framework, `${framework}+pagewise`]);
  const byRound = new Map<string, ChildRow[]>();
  for (let round = 0; round < rounds; round++) {
    for (let at = 0; at < contenders.length; at++) {
      const contender = contenders[(at + round) % contenders.length]!;
      const out = execFileSync(
        process.execPath,
        [
          '--expose-gc',
          '--conditions=@pagewise/source',
          '--import',
          'tsx',
          fileURLToPath(import.meta.url),
          '--child',
          contender,
          sizes.join(','),
        ],
        { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      );
      for (const row of JSON.parse(out) as ChildRow[]) {
        const key = `${contender}@${row.events}`;
        byRound.set(key, [...(byRound.get(key) ?? []), row]);
      }
      process.stderr.write('.');
    }
  }
  const field = (contender: string, events: number, name: 'stepMs' | 'fixedMs'): number[] =>
    (byRound.get(`${contender}@${events}`) ?? []).map((row) => row[name]);
  const spread = (values: number[], digits: number): string =>
    `${fmt(quantile(values, 0.5), digits)} [${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}]`;
  const within = (left: number[], right: number[], combine: (a: number, b: number) => number): number[] =>
    left.map((value, index) => combine(value, right[index]!));
  const small = sizes[0]!;
  const large = sizes[sizes.length - 1]!;
  console.log(`\n## adapter-step: each framework's loop, plain and with its pagewise adapter, ${rounds} rounds\n`);
  console.log(
    'ms medians over rounds; ratios and differences within rounds, median [min–max] over rounds. "added" is the' +
      ' step with the adapter less the plain step of the same round.\n',
  );
  console.log(
    `| framework | ${sizes.map((events) => `plain step at ${events}`).join(' | ')} | ${sizes.map((events) => `step with adapter at ${events}`).join(' | ')} | ${sizes.map((events) => `added per step at ${events}`).join(' | ')} | ${sizes.map((events) => `step ÷ plain at ${events}`).join(' | ')} | ${sizes.map((events) => `fixed ÷ plain at ${events}`).join(' | ')} | added ${large} ÷ ${small} |`,
  );
  console.log(`|---|${Array.from({ length: sizes.length * 5 }, () => '---:').join('|')}|---:|`);
  for (const framework of frameworks) {
    const adapted = `${framework}+pagewise`;
    const added = (events: number) =>
      within(field(adapted, events, 'stepMs'), field(framework, events, 'stepMs'), (a, b) => a - b);
    const ratio = (events: number, name: 'stepMs' | 'fixedMs') =>
      within(field(adapted, events, name), field(framework, events, name), (a, b) => a / b);
    const cells = [
      ...sizes.map((events) => fmt(quantile(field(framework, events, 'stepMs'), 0.5), 3)),
      ...sizes.map((events) => fmt(quantile(field(adapted, events, 'stepMs'), 0.5), 3)),
      ...sizes.map((events) => spread(added(events), 3)),
      ...sizes.map((events) => spread(ratio(events, 'stepMs'), 2)),
      ...sizes.map((events) => spread(ratio(events, 'fixedMs'), 2)),
      spread(
        within(added(large), added(small), (a, b) => a / b),
        2,
      ),
    ];
    console.log(`| ${framework} | ${cells.join(' | ')} |`);
  }
  console.log(
    `\nLoad average at the end: ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')} on ${os.cpus().length} cores.`,
  );
}

if (process.argv[2] === '--child') await child(process.argv[3]!, sizesOf(process.argv[4]));
else if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
