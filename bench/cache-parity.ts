/**
 * Never worse than plain: the retail agent with no paging and no compression, once on the pagewise Runner
 * and once as the plainest AI SDK loop a user would write (`generateText` with a static system prompt, the
 * same tools as AI SDK tools, `stopWhen: stepCountIs(60)`, the SDK's own append-only messages), both driven
 * by the offline model with the retail policy, so both make the same decisions. Every request each loop
 * sends to the model is captured by the same middleware and priced by the same core cache model
 * (`PromptCache.observePrompt`, the provider's `promptCacheRulesFor`, `callCostUsd`, `DEFAULT_PRICES`) at
 * three price tables. Reported per side: model calls, prompt tokens, cache hit rate, dollars, and runner ÷
 * AI SDK. Measures tokens and dollars, not time.
 *
 * The model the loops call reads as the priced provider (`wrapLanguageModel`'s `providerId`), so each side
 * sends what it would send that provider: the runner its own `cacheHints` (Anthropic: breakpoints at the end
 * of the system message and of the history; OpenAI: a `prompt_cache_key`), the AI SDK loop what its
 * documentation shows (Anthropic: the system message with `cacheControl`, and from `prepareStep` a
 * `cacheControl` on the last message of every step; OpenAI: `providerOptions.openai.promptCacheKey`).
 *
 *   node --conditions=@pagewise/source --import tsx bench/cache-parity.ts [--tasks 24] [--seed 1]
 */
import type {
  LanguageModelV3,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import {
  generateText,
  stepCountIs,
  tool as aiTool,
  wrapLanguageModel,
  type ModelMessage,
  type SystemModelMessage,
  type ToolSet,
} from 'ai';
import { Agent, countTokens, Ledger, OfflineModel, Runner, type AnyTool, type InstructionProvider } from 'pagewise';
import { DEFAULT_PRICES, PromptCache, promptCacheRulesFor, PRICES_CHECKED } from 'pagewise/cost';
import { modelledCallUsd, wholeNumberOption } from './modelled-cost.js';
import {
  checkAnswer,
  createRetailTools,
  generateRetailTasks,
  loadRetailData,
  RETAIL_INSTRUCTION,
  retailDataAvailable,
  retailDataMissing,
  retailOfflinePolicy,
  type RetailData,
  type RetailTask,
} from '@pagewise/lab/scenarios/retail';

/** Model calls allowed per task on both sides, as in the retail benchmark scenario. */
export const PARITY_MAX_STEPS = 60;

/** The price tables compared, each with the provider and model the loops' model reads as. */
export const PARITY_PRICES = [
  { spec: 'openai:gpt-4.1', provider: 'openai.responses', modelId: 'gpt-4.1' },
  { spec: 'openai:gpt-5', provider: 'openai.responses', modelId: 'gpt-5' },
  { spec: 'anthropic:claude-sonnet-4-5', provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' },
] as const;

/** The time between two calls of a task on the modelled clock (the same on both sides; well inside 5 minutes). */
const CALL_INTERVAL_MS = 5_000;

/** The Anthropic breakpoint the AI SDK's documentation shows. */
const AI_SDK_BREAKPOINT = { anthropic: { cacheControl: { type: 'ephemeral' as const } } };

/** One request a loop sent, as the model received it, and the tokens of its answer. */
export interface CapturedRequest {
  prompt: LanguageModelV3Prompt;
  tools: LanguageModelV3FunctionTool[];
  outputTokens: number;
}

/** The two loops compared. */
export type ParitySide = 'runner' | 'ai-sdk';

/** What one side of one task sent, and whether it answered right. */
export interface ParityEpisode {
  side: ParitySide;
  taskId: string;
  requests: CapturedRequest[];
  success: boolean;
  /** The answer's text, or the error the loop ended on. */
  text: string;
}

/** One side priced at one table. */
export interface ParitySideFigures {
  calls: number;
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Cache read tokens ÷ prompt tokens. */
  cacheHitRate: number;
  usd: number;
  /** Tasks whose answer passed the checker. */
  success: number;
}

/** The runner against one pricing of the AI SDK loop. */
export interface ParityComparison {
  /** Runner's hit rate minus the AI SDK's, in percentage points. */
  hitRateDeltaPoints: number;
  /** Runner's dollars ÷ the AI SDK's. */
  costRatio: number;
}

/** Both sides at one price table. */
export interface ParityRow {
  spec: string;
  runner: ParitySideFigures;
  /** The AI SDK loop's requests as sent. */
  aiSdk: ParitySideFigures;
  /**
   * The control: the AI SDK loop's requests with the `$schema` key taken out of its tools' input schemas,
   * which is the one thing its requests hold that the runner's do not (the runner drops it). With it, the
   * comparison is of the layout alone.
   */
  aiSdkSameTools: ParitySideFigures;
  /** Runner against the AI SDK as sent. */
  asSent: ParityComparison;
  /** Runner against {@link ParityRow.aiSdkSameTools}. */
  sameTools: ParityComparison;
}

/** The result of {@link runCacheParity}. */
export interface ParityReport {
  tasks: number;
  seed: number;
  rows: ParityRow[];
  /** Tasks whose two sides did not send the same number of requests (they should not differ). */
  diverged: string[];
}

function outputTokensOf(content: readonly LanguageModelV3Content[]): number {
  let text = '';
  for (const part of content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call') text += part.input;
  }
  return countTokens(text);
}

/**
 * The model both loops call: a fresh offline model with the retail policy (so tool-call ids start alike),
 * reading as `provider`/`modelId`, every generate call recorded as the model received it.
 */
function capturingModel(provider: string, modelId: string, out: CapturedRequest[]): LanguageModelV3 {
  return wrapLanguageModel({
    model: new OfflineModel({ policies: [retailOfflinePolicy] }),
    providerId: provider,
    modelId,
    middleware: {
      specificationVersion: 'v3',
      wrapGenerate: async ({ doGenerate, params }) => {
        // A copy: a loop may reuse its prompt array at the next step.
        const sent = structuredClone({ prompt: params.prompt, tools: params.tools ?? [] });
        const result = await doGenerate();
        out.push({
          prompt: sent.prompt,
          tools: sent.tools.filter((t): t is LanguageModelV3FunctionTool => t.type === 'function'),
          outputTokens: outputTokensOf(result.content),
        });
        return result;
      },
      wrapStream: () => {
        throw new Error('cache-parity captures generate calls only; neither loop should stream.');
      },
    },
  });
}

/** The retail tools as a user of the AI SDK declares them: the same names, descriptions, schemas and code. */
function aiSdkTools(tools: readonly AnyTool[]): ToolSet {
  const set: ToolSet = {};
  for (const tool of tools) {
    set[tool.name] = aiTool({
      description: tool.description,
      inputSchema: tool.inputSchema,
      // The retail tools read nothing of the runner's context.
      execute: async (input: unknown) => tool.execute(input, {} as never),
    });
  }
  return set;
}

/** How the runner side is set up: the agent's instruction (the retail instruction by default). */
export interface RunnerSideOptions {
  /** The runner agent's instruction; the retail instruction when omitted. */
  instruction?: string | InstructionProvider;
}

async function runOnRunner(
  data: RetailData,
  task: RetailTask,
  provider: string,
  modelId: string,
  options: RunnerSideOptions,
) {
  const requests: CapturedRequest[] = [];
  const instruction = options.instruction ?? RETAIL_INSTRUCTION;
  const runner = new Runner({
    agent: new Agent({ name: 'retail_agent', instruction, tools: createRetailTools(data) }),
    model: capturingModel(provider, modelId, requests),
    limits: { maxSteps: PARITY_MAX_STEPS },
    // The AI SDK loop checks no window either.
    contextWindow: 0,
    ledger: new Ledger(),
  });
  try {
    const result = await runner.run({ userId: 'parity', message: task.prompt });
    return { requests, text: result.text, success: checkAnswer(task, result.text) };
  } catch (error) {
    return { requests, text: error instanceof Error ? error.message : String(error), success: false };
  }
}

async function runOnAiSdk(data: RetailData, task: RetailTask, provider: string, modelId: string) {
  const requests: CapturedRequest[] = [];
  const anthropic = provider.startsWith('anthropic');
  const system: string | SystemModelMessage = anthropic
    ? { role: 'system', content: RETAIL_INSTRUCTION, providerOptions: AI_SDK_BREAKPOINT }
    : RETAIL_INSTRUCTION;
  try {
    const result = await generateText({
      model: capturingModel(provider, modelId, requests),
      system,
      prompt: task.prompt,
      tools: aiSdkTools(createRetailTools(data)),
      stopWhen: stepCountIs(PARITY_MAX_STEPS),
      ...(anthropic
        ? {
            // The end of the conversation so far is a breakpoint at every step, for this step only.
            prepareStep: ({ messages }: { messages: ModelMessage[] }) => ({
              messages: messages.map((message, index) =>
                index === messages.length - 1
                  ? { ...message, providerOptions: { ...message.providerOptions, ...AI_SDK_BREAKPOINT } }
                  : message,
              ),
            }),
          }
        : { providerOptions: { openai: { promptCacheKey: `retail-${task.id}` } } }),
    });
    return { requests, text: result.text, success: checkAnswer(task, result.text) };
  } catch (error) {
    return { requests, text: error instanceof Error ? error.message : String(error), success: false };
  }
}

/**
 * Runs every task on both sides for one provider (`openai.responses`, `anthropic.messages`), task by task,
 * the runner first, then the AI SDK loop.
 */
export async function runParityEpisodes(
  data: RetailData,
  tasks: readonly RetailTask[],
  provider: string,
  modelId: string,
  runnerSide: RunnerSideOptions = {},
): Promise<ParityEpisode[]> {
  const episodes: ParityEpisode[] = [];
  for (const task of tasks) {
    const runner = await runOnRunner(data, task, provider, modelId, runnerSide);
    episodes.push({ side: 'runner', taskId: task.id, ...runner });
    const aiSdk = await runOnAiSdk(data, task, provider, modelId);
    episodes.push({ side: 'ai-sdk', taskId: task.id, ...aiSdk });
  }
  return episodes;
}

/** Prices the episodes of one side at `spec` with one cache model, each task its own session. */
export function priceSide(episodes: readonly ParityEpisode[], spec: string): ParitySideFigures {
  const colon = spec.indexOf(':');
  const rules = promptCacheRulesFor(spec.slice(0, colon), spec.slice(colon + 1));
  const price = DEFAULT_PRICES[spec];
  if (!rules || !price) throw new Error(`No cache rules or price for "${spec}".`);
  const cache = new PromptCache(rules);
  const figures: ParitySideFigures = {
    calls: 0,
    promptTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheHitRate: 0,
    usd: 0,
    success: 0,
  };
  for (const episode of episodes) {
    if (episode.success) figures.success += 1;
    episode.requests.forEach((request, index) => {
      const usage = cache.observePrompt(
        `${episode.side}\u0000${episode.taskId}`,
        request.prompt,
        request.tools,
        index * CALL_INTERVAL_MS,
      );
      figures.calls += 1;
      figures.promptTokens += usage.promptTokens;
      figures.cacheReadTokens += usage.readTokens;
      figures.cacheWriteTokens += usage.writeTokens;
      figures.usd += modelledCallUsd(usage, request.outputTokens, index, price);
    });
  }
  figures.cacheHitRate = figures.promptTokens > 0 ? figures.cacheReadTokens / figures.promptTokens : 0;
  return figures;
}

function compare(runner: ParitySideFigures, aiSdk: ParitySideFigures): ParityComparison {
  return {
    hitRateDeltaPoints: (runner.cacheHitRate - aiSdk.cacheHitRate) * 100,
    costRatio: aiSdk.usd > 0 ? runner.usd / aiSdk.usd : NaN,
  };
}

/** The episodes with `$schema` taken out of every tool's input schema (the tools are copied). */
export function withoutSchemaKey(episodes: readonly ParityEpisode[]): ParityEpisode[] {
  const strip = (tool: LanguageModelV3FunctionTool): LanguageModelV3FunctionTool => {
    const { $schema: _dropped, ...schema } = tool.inputSchema as Record<string, unknown>;
    return { ...tool, inputSchema: schema };
  };
  return episodes.map((e) => ({ ...e, requests: e.requests.map((r) => ({ ...r, tools: r.tools.map(strip) })) }));
}

/** Both sides of `episodes` priced at `spec`, and the AI SDK's requests with the runner's tool bytes. */
export function parityRow(episodes: readonly ParityEpisode[], spec: string): ParityRow {
  const runnerEpisodes = episodes.filter((e) => e.side === 'runner');
  const aiSdkEpisodes = episodes.filter((e) => e.side === 'ai-sdk');
  const runner = priceSide(runnerEpisodes, spec);
  const aiSdk = priceSide(aiSdkEpisodes, spec);
  const aiSdkSameTools = priceSide(withoutSchemaKey(aiSdkEpisodes), spec);
  return {
    spec,
    runner,
    aiSdk,
    aiSdkSameTools,
    asSent: compare(runner, aiSdk),
    sameTools: compare(runner, aiSdkSameTools),
  };
}

/** Task ids whose two sides sent different numbers of requests. */
function divergedTasks(episodes: readonly ParityEpisode[]): string[] {
  const counts = new Map<string, Partial<Record<ParitySide, number>>>();
  for (const episode of episodes)
    (counts.get(episode.taskId) ?? counts.set(episode.taskId, {}).get(episode.taskId)!)[episode.side] =
      episode.requests.length;
  return [...counts].filter(([, c]) => c.runner !== c['ai-sdk']).map(([id]) => id);
}

/**
 * Runs `tasks` retail tasks (seed `seed`) both ways and prices them at every table of
 * {@link PARITY_PRICES}. The OpenAI tables share one run (same rules, same requests); Anthropic has its own,
 * since the requests then carry breakpoints.
 */
export async function runCacheParity(options: {
  tasks: number;
  seed: number;
  dataDir?: string;
}): Promise<ParityReport> {
  const data = await loadRetailData(options.dataDir);
  const tasks = generateRetailTasks(data, { count: options.tasks, seed: options.seed });
  const byProvider = new Map<string, ParityEpisode[]>();
  const rows: ParityRow[] = [];
  const diverged = new Set<string>();
  for (const table of PARITY_PRICES) {
    let episodes = byProvider.get(table.provider);
    if (!episodes) {
      episodes = await runParityEpisodes(data, tasks, table.provider, table.modelId);
      byProvider.set(table.provider, episodes);
      for (const id of divergedTasks(episodes)) diverged.add(id);
    }
    rows.push(parityRow(episodes, table.spec));
  }
  return { tasks: tasks.length, seed: options.seed, rows, diverged: [...diverged] };
}

/** The bound: the runner's hit rate at most 5 points below the AI SDK's, its dollars at most 5% above. */
export function withinParity(comparison: ParityComparison): boolean {
  return comparison.hitRateDeltaPoints >= -5 && comparison.costRatio <= 1.05;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const usd = (x: number) => `$${x.toFixed(4)}`;
const int = (x: number) => Math.round(x).toLocaleString('en-US');

/** The report as a markdown table. */
export function parityTable(report: ParityReport): string {
  const lines = [
    `Retail, ${report.tasks} tasks (seed ${report.seed}), no paging or compression, offline model; list prices of ${PRICES_CHECKED}.`,
    '',
    '| priced as | side | calls | prompt tokens | cache hit | cost | correct |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of report.rows) {
    for (const [side, figures] of [
      ['pagewise Runner', row.runner],
      ['AI SDK generateText', row.aiSdk],
      ['AI SDK, tools without `$schema` (control)', row.aiSdkSameTools],
    ] as const)
      lines.push(
        `| \`${row.spec}\` | ${side} | ${int(figures.calls)} | ${int(figures.promptTokens)} | ${pct(figures.cacheHitRate)} | ${usd(figures.usd)} | ${figures.success}/${report.tasks} |`,
      );
  }
  lines.push(
    '',
    '| priced as | against | hit rate, runner − AI SDK | cost, runner ÷ AI SDK | within 5 points and 5% |',
  );
  lines.push('| --- | --- | ---: | ---: | --- |');
  for (const row of report.rows)
    for (const [against, comparison] of [
      ['as sent', row.asSent],
      ['control', row.sameTools],
    ] as const) {
      const ok = withinParity(comparison);
      const points = `${comparison.hitRateDeltaPoints >= 0 ? '+' : ''}${comparison.hitRateDeltaPoints.toFixed(1)} points`;
      lines.push(
        `| \`${row.spec}\` | ${against} | ${points} | ${comparison.costRatio.toFixed(3)}× | ${ok ? 'yes' : 'no'} |`,
      );
    }
  if (report.diverged.length > 0)
    lines.push('', `The two loops made different numbers of calls on: ${report.diverged.join(', ')}.`);
  return lines.join('\n');
}

/** `npm run bench` and the command line: the standard split is 24 tasks of seed 1, as in the retail bench. */
export async function main(argv: readonly string[] = []): Promise<void> {
  console.log('\n## Prompt cache against a plain AI SDK loop (retail, no paging or compression)\n');
  if (!retailDataAvailable()) {
    console.log(`skipped: ${retailDataMissing()}`);
    return;
  }
  const report = await runCacheParity({
    tasks: wholeNumberOption(argv, '--tasks', 24),
    seed: wholeNumberOption(argv, '--seed', 1),
  });
  console.log(parityTable(report));
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
