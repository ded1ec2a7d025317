/**
 * The multi-objective-qa benchmark scenario (after ACON): k HotpotQA questions in one episode, so the
 * searches for early questions weigh on the later ones. An episode succeeds when every question is
 * answered exactly (HotpotQA's exact match after normalisation); EM and F1 per objective are reported
 * beside it, and evidence recall (the share of a question's supporting-fact sentences present in the
 * prompt of the call that answered it) as a diagnostic.
 */
import { z } from 'zod';
import { ConfigurationError } from 'pagewise';
import { viewPrompt } from 'pagewise/testing';
import {
  createQaTools,
  defaultHotpotPath,
  evidenceRecall,
  generateQaEpisodes,
  loadHotpot,
  MAX_SEARCHES_PER_QUESTION,
  QA_ANSWER_TOOL,
  QA_INSTRUCTION,
  qaAnswerInput,
  multiQaTaskValues,
  qaOfflinePolicy,
  scoreQaAnswers,
  type HotpotRecord,
  type QaEpisode,
} from '../../scenarios/multi-qa/index.js';
import { runAgentEpisode, type CapturedCall } from '../harness.js';
import type { BenchScenario, EpisodeContext, EpisodeOutcome, ScenarioParams, ScenarioTask } from '../scenario.js';
import { listStrategies } from '../strategies.js';

/** Name of the scenario in the registry and on the command line. */
export const MULTI_QA_SCENARIO = 'multi-objective-qa';

/** Questions per episode (N) when none is given. */
export const MULTI_QA_DEFAULT_K = 4;

/** A multi-objective QA task as the harness carries it: the questions with their paragraphs and gold. */
export interface MultiQaBenchTask extends ScenarioTask {
  questions: HotpotRecord[];
}

/** Options of {@link createMultiQaScenario}. */
export interface MultiQaScenarioOptions {
  /** The HotpotQA JSONL file; `$PAGEWISE_HOTPOTQA_PATH` or `../shared/data/hotpotqa/dev.jsonl` by default. */
  dataFile?: string;
}

/**
 * Model calls allowed for k questions: twice what the offline policy needs at most (every question
 * searched the most times, then answered), so a real model has room while a loop still ends.
 */
export function multiQaMaxSteps(questionCount: number): number {
  return 2 * questionCount * (MAX_SEARCHES_PER_QUESTION + 1) + 2;
}

function isQaTask(task: ScenarioTask): task is MultiQaBenchTask {
  const questions = (task as { questions?: unknown }).questions;
  return (
    Array.isArray(questions) &&
    questions.length > 0 &&
    questions.every((q) => typeof q === 'object' && q !== null && Array.isArray((q as HotpotRecord).supporting))
  );
}

const answerArgs = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not JSON' });
    return z.NEVER;
  }
});

/**
 * The prompt text of the last call that answered each question, by question number. The last, since a
 * later answer replaces an earlier one on the answer sheet; the same argument checks as the `answer`
 * tool's, so an answer the tool refused is not counted.
 */
function answerPrompts(calls: readonly CapturedCall[], questionCount: number): Map<number, string> {
  const prompts = new Map<number, string>();
  for (const call of calls) {
    let promptText: string | undefined;
    for (const toolCall of call.toolCalls) {
      if (toolCall.toolName !== QA_ANSWER_TOOL) continue;
      const parsed = answerArgs.pipe(qaAnswerInput).safeParse(toolCall.input);
      if (!parsed.success || parsed.data.question_number > questionCount) continue;
      promptText ??= viewPrompt(call.params).fullText;
      prompts.set(parsed.data.question_number, promptText);
    }
  }
  return prompts;
}

/**
 * Evidence recall of an episode: for each question, the share of its supporting-fact sentences present
 * in the prompt of the call that answered it (0 for a question never answered), averaged over questions.
 */
export function episodeEvidenceRecall(questions: readonly HotpotRecord[], calls: readonly CapturedCall[]): number {
  if (questions.length === 0) return 1;
  const prompts = answerPrompts(calls, questions.length);
  const perQuestion = questions.map((question, index) => {
    const prompt = prompts.get(index + 1);
    return prompt === undefined
      ? 0
      : evidenceRecall(
          question.supporting.map((s) => s.sentence),
          prompt,
        );
  });
  return perQuestion.reduce((a, b) => a + b, 0) / perQuestion.length;
}

/**
 * The multi-objective-qa scenario. N is the number of questions per episode (k, default 4).
 *
 * Success of an episode: it ended with a final answer and every question's answer matches its gold
 * answer exactly after normalisation (lower case, no punctuation or articles, as HotpotQA's evaluation),
 * with the offline model as with a real one. Mean EM and F1 per objective are reported beside it, and
 * evidence recall as a diagnostic of what the context held.
 *
 * @example
 * const report = await runBench({ scenario: createMultiQaScenario(), n: [2, 4, 8], tasks: 3, seed: 1 });
 */
export function createMultiQaScenario(options: MultiQaScenarioOptions = {}): BenchScenario {
  const dataFile = options.dataFile ?? defaultHotpotPath();
  let records: Promise<HotpotRecord[]> | undefined;

  return {
    name: MULTI_QA_SCENARIO,
    description: 'k HotpotQA questions in one episode; success when every answer is an exact match',
    defaultN: MULTI_QA_DEFAULT_K,
    taskValues: multiQaTaskValues,
    get strategies() {
      return listStrategies(MULTI_QA_SCENARIO).map((s) => s.name);
    },
    async prepare(params: ScenarioParams): Promise<MultiQaBenchTask[]> {
      records ??= loadHotpot(dataFile);
      const episodes = generateQaEpisodes(await records, {
        k: params.n ?? MULTI_QA_DEFAULT_K,
        episodes: params.tasks,
        seed: params.seed,
      });
      return episodes.map((e) => ({ id: e.id, prompt: e.prompt, questions: e.questions }));
    },
    async runEpisode(task: ScenarioTask, context: EpisodeContext): Promise<EpisodeOutcome> {
      if (!isQaTask(task)) {
        throw new ConfigurationError(
          'invalid-task',
          `Task "${task.id}" is not a multi-objective-qa task (it has no questions); create it with this scenario's prepare().`,
        );
      }
      const episode: QaEpisode = { id: task.id, prompt: task.prompt, questions: task.questions };
      const toolset = createQaTools(episode);
      const calls: CapturedCall[] = [];
      const run = await runAgentEpisode({
        scenario: MULTI_QA_SCENARIO,
        context,
        task,
        agentName: 'qa_agent',
        instruction: QA_INSTRUCTION,
        tools: toolset.tools,
        offlinePolicy: qaOfflinePolicy,
        maxSteps: multiQaMaxSteps(task.questions.length),
        // Only the calls that answer matter; keeping the others' prompts would only hold memory.
        onModelCall: (call) => {
          if (call.toolCalls.some((c) => c.toolName === QA_ANSWER_TOOL)) calls.push(call);
        },
      });
      const recall = episodeEvidenceRecall(task.questions, calls);
      const score = scoreQaAnswers(task.questions, toolset.answers);
      const allExact = score.perQuestion.every((q) => q.em === 1);
      return {
        taskId: task.id,
        strategy: context.strategy,
        success: run.error === undefined && score.answered === 1 && allExact,
        answer: run.text,
        ledger: run.ledger,
        evidenceRecall: recall,
        exactMatch: score.em,
        f1: score.f1,
        windowFailure: run.windowFailure,
        ...(run.error !== undefined ? { error: run.error } : {}),
        ...(run.errorFault !== undefined ? { errorFault: run.errorFault } : {}),
        wallMs: run.wallMs,
      };
    },
  };
}
