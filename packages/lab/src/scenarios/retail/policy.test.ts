import type { JSONSchema7, LanguageModelV3FunctionTool, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AnyTool, ToolContext } from '../../../../pagewise/src/agents/tool.js';
import { OfflineModel, OFFLINE_DISCLAIMER } from '../../../../pagewise/src/models/offline.js';
import { viewPrompt } from '../../../../pagewise/src/models/prompt-view.js';
import { retailDataMissing, loadRetailData, retailDataAvailable } from './data.js';
import { formatRetailFacts, readRetailFacts } from './facts.js';
import { MAX_IDENTICAL_CALLS, RETAIL_INSTRUCTION, RETAIL_TASK_KIND_LINE, retailOfflinePolicy } from './policy.js';
import { formatRetailPrompt, RETAIL_TEMPLATES } from './prompts.js';
import { generateRetailTasks, type RetailTask } from './tasks.js';
import { createRetailTools, RETAIL_TOOL_NAMES } from './tools.js';

const available = retailDataAvailable();
if (!available) console.log(`retail policy end-to-end tests skipped: ${retailDataMissing()}`);

type Call = { toolName: string; input: unknown };
interface Episode {
  answer?: string;
  calls: Call[];
  /** The whole conversation, as a session would store it. */
  prompt: LanguageModelV3Prompt;
}

const start = (task: Pick<RetailTask, 'prompt'>): LanguageModelV3Prompt => [
  { role: 'system', content: RETAIL_INSTRUCTION },
  { role: 'user', content: [{ type: 'text', text: task.prompt }] },
];

/**
 * A minimal agent loop without the runner: ask the offline model, run the tool calls it makes, append
 * calls and results, until it answers. `contextOf` turns the stored conversation into what the model
 * sees, which is where a test drops or replaces history; `afterStep` may rewrite the stored conversation.
 */
async function runEpisode(
  tools: AnyTool[],
  prompt: LanguageModelV3Prompt,
  options: {
    contextOf?: (p: LanguageModelV3Prompt) => LanguageModelV3Prompt;
    afterStep?: (p: LanguageModelV3Prompt, step: number) => LanguageModelV3Prompt;
  } = {},
): Promise<Episode> {
  const model = new OfflineModel({ policies: [retailOfflinePolicy] });
  const definitions: LanguageModelV3FunctionTool[] = tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.inputSchema) as JSONSchema7,
  }));
  const calls: Call[] = [];
  for (let step = 0; step < 200; step += 1) {
    const result = await model.doGenerate({ prompt: options.contextOf?.(prompt) ?? prompt, tools: definitions });
    const toolCalls = result.content.flatMap((c) => (c.type === 'tool-call' ? [c] : []));
    if (toolCalls.length === 0) {
      return { answer: result.content.map((c) => (c.type === 'text' ? c.text : '')).join(''), calls, prompt };
    }
    prompt.push({
      role: 'assistant',
      content: toolCalls.map((call) => ({
        type: 'tool-call',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: JSON.parse(call.input),
      })),
    });
    const results: Extract<LanguageModelV3Prompt[number], { role: 'tool' }>['content'] = [];
    for (const call of toolCalls) {
      const input: unknown = JSON.parse(call.input);
      calls.push({ toolName: call.toolName, input });
      const tool = tools.find((x) => x.name === call.toolName);
      let value: string;
      let isError = false;
      try {
        value = String(await tool?.execute(tool.inputSchema.parse(input), {} as ToolContext));
      } catch (error) {
        value = (error as Error).message;
        isError = true;
      }
      results.push({
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: isError ? { type: 'error-text', value } : { type: 'text', value },
      });
    }
    prompt.push({ role: 'tool', content: results });
    prompt = options.afterStep?.(prompt, step) ?? prompt;
  }
  return { calls, prompt };
}

const repeatedCalls = (calls: Call[]) =>
  calls.length - new Set(calls.map((c) => `${c.toolName} ${JSON.stringify(c.input)}`)).size;

describe.skipIf(!available)('retailOfflinePolicy end to end', () => {
  let tools: AnyTool[];
  let tasks: RetailTask[];
  beforeAll(async () => {
    const data = await loadRetailData();
    tools = createRetailTools(data);
    tasks = generateRetailTasks(data, { count: 12, seed: 3 });
  });

  it.each(RETAIL_TEMPLATES)(
    'solves %s tasks with the reference number of calls, reading only its prompt',
    async (template) => {
      for (const task of tasks.filter((t) => t.template === template)) {
        const episode = await runEpisode(tools, start(task));
        expect(episode.answer?.startsWith(OFFLINE_DISCLAIMER)).toBe(true);
        expect(task.checker(episode.answer ?? '')).toBe(true);
        expect(episode.calls).toHaveLength(task.expectedCalls);
        expect(repeatedCalls(episode.calls)).toBe(0);
      }
    },
  );

  it.each(RETAIL_TEMPLATES)(
    'never answers %s right from dropped tool results: it re-fetches, then says what is missing',
    async (template) => {
      for (const task of tasks.filter((t) => t.template === template)) {
        // The model sees every call it made but only the tool results of the last two turns.
        const episode = await runEpisode(tools, start(task), {
          contextOf: (p) => p.filter((m, i) => m.role !== 'tool' || i >= p.length - 2),
        });
        const answer = episode.answer ?? '';
        expect(repeatedCalls(episode.calls)).toBeGreaterThan(0);
        if (task.checker(answer)) {
          expect(episode.calls.length).toBeGreaterThan(task.expectedCalls);
        } else {
          expect(answer).toMatch(/Missing: .+/);
          expect(answer).toMatch(/Answer: unknown$/);
        }
      }
    },
  );

  it('recovers from history lost mid-run by fetching again what it needs', async () => {
    for (const task of tasks) {
      const lostAt = Math.floor(task.expectedCalls / 2);
      // Once, halfway through, every tool result so far is cleared from the stored conversation.
      const episode = await runEpisode(tools, start(task), {
        afterStep: (prompt, step) =>
          step === lostAt
            ? prompt.map((message) =>
                message.role === 'tool'
                  ? {
                      ...message,
                      content: message.content.map((part) =>
                        part.type === 'tool-result' ? { ...part, output: { type: 'text', value: '[cleared]' } } : part,
                      ),
                    }
                  : message,
              )
            : prompt,
      });
      expect(task.checker(episode.answer ?? '')).toBe(true);
      expect(episode.calls.length).toBeGreaterThan(task.expectedCalls);
    }
  });

  it('answers from a fact-line summary in place of the history, and fetches only what the summary left out', async () => {
    for (const task of tasks) {
      const full = await runEpisode(tools, start(task));
      const outputs = full.prompt.flatMap((message) =>
        message.role === 'tool'
          ? message.content.flatMap((part) =>
              part.type === 'tool-result' && part.output.type === 'text' ? [part.output.value] : [],
            )
          : [],
      );
      const facts = readRetailFacts(outputs.join('\n'));
      const summary = (text: string): LanguageModelV3Prompt => [
        ...start(task),
        { role: 'assistant', content: [{ type: 'text', text: `Summary of the work so far:\n${text}` }] },
      ];

      const fromSummary = await runEpisode(tools, summary(formatRetailFacts(facts)));
      expect(fromSummary.calls).toEqual([]);
      expect(task.checker(fromSummary.answer ?? '')).toBe(true);

      // Leave one order out of the summary: that order, and only it, is fetched again.
      const [dropped] = [...facts.orders.keys()];
      facts.orders.delete(dropped ?? '');
      const partial = await runEpisode(tools, summary(formatRetailFacts(facts)));
      expect(partial.calls).toEqual([{ toolName: RETAIL_TOOL_NAMES.getOrder, input: { order_id: dropped } }]);
      expect(task.checker(partial.answer ?? '')).toBe(true);
    }
  });
});

describe('retailOfflinePolicy decisions', () => {
  const task = {
    prompt: formatRetailPrompt({
      template: 'delivered-spend-comparison',
      customers: [
        { firstName: 'Nobody', lastName: 'Here', zip: '00000' },
        { firstName: 'Ana', lastName: 'B', zip: '12345' },
      ],
    }),
  };
  const findNobody = {
    toolName: RETAIL_TOOL_NAMES.findUser,
    input: { first_name: 'Nobody', last_name: 'Here', zip: '00000' },
  };
  const withResults = (results: { output: string; isError: boolean }[]): LanguageModelV3Prompt => [
    ...start(task),
    ...results.flatMap((result, index): LanguageModelV3Prompt => [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${index}`, ...findNobody }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c${index}`,
            toolName: findNobody.toolName,
            output: result.isError
              ? { type: 'error-text', value: result.output }
              : { type: 'text', value: result.output },
          },
        ],
      },
    ]),
  ];
  const decide = (prompt: LanguageModelV3Prompt) => retailOfflinePolicy.decide(viewPrompt({ prompt, tools: [] }));

  it('matches retail tasks only', () => {
    const view = (system: string, user: string) =>
      viewPrompt({
        prompt: [
          { role: 'system', content: system },
          { role: 'user', content: [{ type: 'text', text: user }] },
        ],
      });
    expect(retailOfflinePolicy.matches(view('Answer the questions.', 'Who wrote Hamlet?'))).toBe(false);
    expect(retailOfflinePolicy.matches(view(RETAIL_INSTRUCTION, 'hello'))).toBe(true);
    expect(retailOfflinePolicy.matches(view('Be brief.', task.prompt))).toBe(true);
  });

  it('starts by looking up the first customer', () => {
    expect(decide(start(task))).toEqual({ toolCalls: [findNobody] });
  });

  it('says the task is missing when only the task kind is left in the prompt', () => {
    const decision = decide([{ role: 'system', content: `${RETAIL_TASK_KIND_LINE}\nSummary: nothing yet.` }]);
    expect(decision.toolCalls).toBeUndefined();
    expect(decision.text).toMatch(/Missing: the task statement/);
  });

  it('gives up at once when a look-up fails, since the tools are deterministic', () => {
    const decision = decide(
      withResults([{ output: 'No customer named "Nobody Here" with zip "00000".', isError: true }]),
    );
    expect(decision.text).toMatch(
      /Missing: the user id of Nobody Here \(zip 00000\) \(find_user_id_by_name_zip failed: No customer named/,
    );
    expect(decision.text).toMatch(/Answer: unknown$/);
  });

  it(`repeats an identical call at most ${MAX_IDENTICAL_CALLS} times after the first, then answers with what it has`, () => {
    const cleared = { output: '[cleared]', isError: false };
    expect(decide(withResults(Array(MAX_IDENTICAL_CALLS).fill(cleared)))).toEqual({ toolCalls: [findNobody] });
    const decision = decide(withResults(Array(MAX_IDENTICAL_CALLS + 1).fill(cleared)));
    expect(decision.text).toMatch(/still not in the context after 4 identical find_user_id_by_name_zip calls/);
  });
});
