import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultPart,
} from '@ai-sdk/provider';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AnyTool, ToolContext } from '../../../../pagewise/src/agents/tool.js';
import { OFFLINE_DISCLAIMER, OfflineModel } from '../../../../pagewise/src/models/offline.js';
import { viewPrompt } from '../../../../pagewise/src/models/prompt-view.js';
import { hotpotDataMissing, hotpotAvailable, loadHotpot, type HotpotRecord } from './data.js';
import { evidenceRecall, scoreQaAnswers } from './metrics.js';
import { MAX_SEARCHES_PER_QUESTION, QA_INSTRUCTION, qaOfflinePolicy } from './policy.js';
import { generateQaEpisodes, renderQaPrompt, type QaEpisode } from './tasks.js';
import { createQaTools } from './tools.js';

const ctx = {} as ToolContext;

function toolDefinitions(tools: AnyTool[]): LanguageModelV3FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.inputSchema) as LanguageModelV3FunctionTool['inputSchema'],
  }));
}

interface AnswerCall {
  questionNumber: number;
  answer: string;
  /** The prompt text the model saw when it made the call. */
  promptText: string;
}

/** A minimal agent loop without the runner: model call, run the tool calls, append the results, repeat. */
async function runEpisode(episode: QaEpisode, maxSteps = 60) {
  const toolset = createQaTools(episode);
  const tools = toolDefinitions(toolset.tools);
  const prompt: LanguageModelV3Prompt = [
    { role: 'system', content: QA_INSTRUCTION },
    { role: 'user', content: [{ type: 'text', text: episode.prompt }] },
  ];
  const model = new OfflineModel({ policies: [qaOfflinePolicy] });
  const answerCalls: AnswerCall[] = [];
  for (let step = 0; step < maxSteps; step++) {
    const { content } = await model.doGenerate({ prompt, tools });
    const calls = content.filter((c) => c.type === 'tool-call');
    if (calls.length === 0) {
      const text = content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      return { finalText: text, steps: step + 1, answerCalls, answers: toolset.answers };
    }
    const promptText = viewPrompt({ prompt, tools }).fullText;
    const callParts: LanguageModelV3ToolCallPart[] = [];
    const resultParts: LanguageModelV3ToolResultPart[] = [];
    for (const call of calls) {
      const input: unknown = JSON.parse(call.input);
      callParts.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input });
      const tool = toolset.tools.find((x) => x.name === call.toolName);
      if (!tool) throw new Error(`unknown tool ${call.toolName}`);
      const args = tool.inputSchema.parse(input);
      if (call.toolName === 'answer')
        answerCalls.push({ questionNumber: args.question_number, answer: args.answer, promptText });
      const output = String(await tool.execute(args, ctx));
      resultParts.push({
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: 'text', value: output },
      });
    }
    prompt.push({ role: 'assistant', content: callParts }, { role: 'tool', content: resultParts });
  }
  throw new Error(`episode ${episode.id} did not finish in ${maxSteps} steps`);
}

function handMadeEpisode(): QaEpisode {
  const questions: HotpotRecord[] = [
    {
      id: 'z',
      question: 'Who founded the Zorblatt Company?',
      answer: 'Mira Quell',
      type: 'bridge',
      paragraphs: [
        {
          title: 'Zorblatt Company',
          sentences: ['The Zorblatt Company makes kettles.', 'The Zorblatt Company was founded by Mira Quell in 1901.'],
        },
        { title: 'Mira Quell', sentences: ['Mira Quell was an inventor from Norland.'] },
      ],
      supporting: [
        {
          title: 'Zorblatt Company',
          sentenceIndex: 1,
          sentence: 'The Zorblatt Company was founded by Mira Quell in 1901.',
        },
      ],
    },
    {
      id: 'v',
      question: 'Who was born first, Ada Vint or Bo Tarr?',
      answer: 'Bo Tarr',
      type: 'comparison',
      paragraphs: [
        { title: 'Ada Vint', sentences: ['Ada Vint (born 1950) is a painter.'] },
        { title: 'Bo Tarr', sentences: ['Bo Tarr (born 1931) was a sculptor.'] },
      ],
      supporting: [],
    },
  ];
  return { id: 'hand-made', questions, prompt: renderQaPrompt(questions) };
}

describe('qaOfflinePolicy', () => {
  it('searches, answers each question from the visible results, then lists the answers', async () => {
    const run = await runEpisode(handMadeEpisode());
    expect(run.answerCalls.map((c) => c.questionNumber)).toEqual([1, 2]);
    expect(run.answers.get(1)).toBe('Mira Quell');
    expect(run.answers.get(2)).toBe('Bo Tarr');
    expect(run.finalText.startsWith(OFFLINE_DISCLAIMER)).toBe(true);
    expect(run.finalText).toContain('Q1: Mira Quell\nQ2: Bo Tarr');
  });

  it('treats "answered Qn" lines as done and answers after the last allowed search', () => {
    const questions = handMadeEpisode().questions;
    const searches = (count: number): LanguageModelV3Prompt =>
      Array.from({ length: count }, (_, index) => [
        {
          role: 'assistant' as const,
          content: [
            {
              type: 'tool-call' as const,
              toolCallId: `s${index}`,
              toolName: 'search',
              input: { query: index === 0 ? questions[1]?.question : `more ${index}` },
            },
          ],
        },
        {
          role: 'tool' as const,
          content: [
            {
              type: 'tool-result' as const,
              toolCallId: `s${index}`,
              toolName: 'search',
              output: { type: 'text' as const, value: 'No paragraph matches.' },
            },
          ],
        },
      ]).flat();
    const prompt = (count: number): LanguageModelV3Prompt => [
      { role: 'system', content: QA_INSTRUCTION },
      { role: 'user', content: [{ type: 'text', text: renderQaPrompt(questions) }] },
      { role: 'user', content: [{ type: 'text', text: 'Summary of earlier work: answered Q1: "Mira Quell".' }] },
      ...searches(count),
    ];
    const tools = toolDefinitions(createQaTools(handMadeEpisode()).tools);
    const decide = (n: number) => qaOfflinePolicy.decide(viewPrompt({ prompt: prompt(n), tools }));
    expect(decide(0)).toEqual({ toolCalls: [{ toolName: 'search', input: { query: questions[1]?.question } }] });
    // Nothing visible to read, so it falls back to a name from the question and never loops.
    expect(decide(MAX_SEARCHES_PER_QUESTION).toolCalls?.[0]?.toolName).toBe('answer');
    expect(decide(MAX_SEARCHES_PER_QUESTION).toolCalls?.[0]?.input).toMatchObject({ question_number: 2 });
  });

  /** The answer the policy gives to `question` after three searches returned `results` (one per search). */
  function answerAfter(question: string, results: readonly string[], summary?: string): unknown {
    const prompt: LanguageModelV3Prompt = [
      { role: 'system', content: QA_INSTRUCTION },
      { role: 'user', content: [{ type: 'text', text: `Please answer.\n\nQ1: ${question}` }] },
      ...(summary ? [{ role: 'user' as const, content: [{ type: 'text' as const, text: summary }] }] : []),
      ...results.flatMap((value, index) => [
        {
          role: 'assistant' as const,
          content: [
            {
              type: 'tool-call' as const,
              toolCallId: `s${index}`,
              toolName: 'search',
              input: { query: index === 0 ? question : `more ${index}` },
            },
          ],
        },
        {
          role: 'tool' as const,
          content: [
            {
              type: 'tool-result' as const,
              toolCallId: `s${index}`,
              toolName: 'search',
              output: { type: 'text' as const, value },
            },
          ],
        },
      ]),
    ];
    const tools = toolDefinitions(createQaTools(handMadeEpisode()).tools);
    const decision = qaOfflinePolicy.decide(viewPrompt({ prompt, tools }));
    return (decision.toolCalls?.[0]?.input as { answer?: string } | undefined)?.answer;
  }

  it('answers a bridge question from the second hop, and gives the kind of answer asked for', () => {
    const first =
      'Mira Quell: Mira Quell (born 3 May 1950) is a painter. She was taught by the sculptor Bo Tarr in Lund.';
    const second = 'Bo Tarr: Bo Tarr (born 9 April 1899) was a Swedish sculptor.';
    const none = 'No paragraph matches.';
    expect(answerAfter('When was the sculptor who taught Mira Quell born?', [first, second, none])).toBe(
      '9 April 1899',
    );
    // Without the second hop in view, only the first hop's date is there to give.
    expect(answerAfter('When was the sculptor who taught Mira Quell born?', [first, none, none])).toBe('3 May 1950');
    expect(answerAfter('In what year was the sculptor who taught Mira Quell born?', [first, second, none])).toBe(
      '1899',
    );
    // A month is capitalized but is no place.
    const moved = 'Mira Quell: Mira Quell moved in May 1970 to Lund.';
    expect(answerAfter('Where did Mira Quell move?', [moved, none, none])).toBe('Lund');
  });

  it('reads evidence a summary kept of earlier results as it reads search results', () => {
    const none = 'No paragraph matches.';
    const summary = [
      'Summary of earlier steps:',
      '- search {"query":"Mira Quell"} → Mira Quell: Mira Quell (born 3 May 1950) is a painter.',
      '  ',
      '  Bo Tarr: Bo Tarr was a sculptor.',
    ].join('\n');
    expect(answerAfter('When was Mira Quell born?', [none, none, none], summary)).toBe('3 May 1950');
    expect(answerAfter('When was Mira Quell born?', [none, none, none])).not.toBe('3 May 1950');
  });

  it('takes the questions the latest answer receipt lists as open, when the answering calls are gone', () => {
    const questions = handMadeEpisode().questions;
    const decide = (summary: string) =>
      qaOfflinePolicy.decide(
        viewPrompt({
          prompt: [
            { role: 'system', content: QA_INSTRUCTION },
            { role: 'user', content: [{ type: 'text', text: renderQaPrompt(questions) }] },
            { role: 'user', content: [{ type: 'text', text: summary }] },
          ],
          tools: toolDefinitions(createQaTools(handMadeEpisode()).tools),
        }),
      );
    const first = { toolCalls: [{ toolName: 'search', input: { query: questions[0]?.question } }] };
    expect(decide('Summary: two searches were made.')).toEqual(first);
    expect(decide('Summary: the first question was answered. Still open: Q2.')).toEqual({
      toolCalls: [{ toolName: 'search', input: { query: questions[1]?.question } }],
    });
    // An older receipt is superseded by the latest one.
    expect(decide('Still open: Q2. Then: Still open: Q1, Q2.')).toEqual(first);
  });

  it('is recognized only by the task-kind line of its instruction', () => {
    const view = (system: string) => viewPrompt({ prompt: [{ role: 'system', content: system }], tools: [] });
    expect(qaOfflinePolicy.matches(view(QA_INSTRUCTION))).toBe(true);
    expect(qaOfflinePolicy.matches(view('You are a helpful assistant.'))).toBe(false);
  });
});

const available = hotpotAvailable();
if (!available) console.log(`multi-qa end-to-end policy test skipped: ${hotpotDataMissing()}`);

describe.skipIf(!available)('qaOfflinePolicy on real episodes', () => {
  let records: HotpotRecord[] = [];
  beforeAll(async () => {
    records = await loadHotpot();
  });

  it('answers every question with most supporting facts in its prompt at the answer call', async () => {
    const episodes = generateQaEpisodes(records, { k: 4, episodes: 8, seed: 11 });
    const recalls: number[] = [];
    let em = 0;
    let f1 = 0;
    let steps = 0;
    for (const episode of episodes) {
      const run = await runEpisode(episode);
      expect(new Set(run.answerCalls.map((c) => c.questionNumber))).toEqual(new Set([1, 2, 3, 4]));
      expect(run.finalText.startsWith(OFFLINE_DISCLAIMER)).toBe(true);
      for (const call of run.answerCalls) {
        const question = episode.questions[call.questionNumber - 1];
        // The answer is taken from the prompt: a word of it must be there (beyond yes/no).
        if (!/^(yes|no)$/.test(call.answer)) expect(call.promptText).toContain(call.answer);
        recalls.push(evidenceRecall(question?.supporting.map((s) => s.sentence) ?? [], call.promptText));
      }
      const score = scoreQaAnswers(episode.questions, run.answers);
      em += score.em / episodes.length;
      f1 += score.f1 / episodes.length;
      steps += run.steps / episodes.length;
    }
    const recall = recalls.reduce((a, b) => a + b, 0) / recalls.length;
    console.log(
      `multi-qa offline policy: evidence recall at answer calls ${recall.toFixed(3)} over ${recalls.length} answers; ` +
        `EM ${em.toFixed(3)}, F1 ${f1.toFixed(3)}, ${steps.toFixed(1)} model calls an episode`,
    );
    expect(recall).toBeGreaterThanOrEqual(0.8);
  });
});
