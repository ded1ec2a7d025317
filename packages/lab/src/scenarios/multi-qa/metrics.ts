/**
 * Scores of the multi-objective QA scenario: exact match and token F1 as in the SQuAD and HotpotQA
 * evaluation scripts, and evidence recall, which asks whether the prompt still held the facts needed.
 */
import type { HotpotRecord } from './data.js';
import type { QaAnswerSheet } from './tools.js';

/**
 * SQuAD normalization: lowercase, drop ASCII punctuation (the script's `string.punctuation`, kept so
 * scores compare with published ones), the articles a/an/the, and extra whitespace.
 */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, '')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
}

/** 1 when the normalized prediction equals the normalized gold answer, else 0. */
export function exactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

/**
 * Token F1 between the normalized prediction and gold answer. As in the HotpotQA script, a yes/no answer
 * scores only on an exact hit, since "no" sharing no token with "yes" and partial credit for "yes it is"
 * would both mislead.
 */
export function f1Score(prediction: string, gold: string): number {
  const predicted = normalizeAnswer(prediction);
  const expected = normalizeAnswer(gold);
  const special = ['yes', 'no', 'noanswer'];
  if ((special.includes(predicted) || special.includes(expected)) && predicted !== expected) return 0;
  const predTokens = predicted.split(' ').filter(Boolean);
  const goldTokens = expected.split(' ').filter(Boolean);
  const goldCounts = new Map<string, number>();
  for (const token of goldTokens) goldCounts.set(token, (goldCounts.get(token) ?? 0) + 1);
  let same = 0;
  for (const token of predTokens) {
    const left = goldCounts.get(token) ?? 0;
    if (left > 0) {
      same += 1;
      goldCounts.set(token, left - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / predTokens.length;
  const recall = same / goldTokens.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * Share of the supporting-fact sentences that appear verbatim in the prompt text: 1 means every fact the
 * answer needs was in front of the model. An empty list scores 1 (nothing was needed).
 */
export function evidenceRecall(supportingSentences: readonly string[], promptText: string): number {
  if (supportingSentences.length === 0) return 1;
  return supportingSentences.filter((s) => promptText.includes(s)).length / supportingSentences.length;
}

/** Per-question and mean scores of one episode's answer sheet. */
export interface QaScore {
  perQuestion: {
    questionNumber: number;
    id: string;
    prediction: string | undefined;
    gold: string;
    em: number;
    f1: number;
  }[];
  /** Mean exact match over all questions; an unanswered question scores 0. */
  em: number;
  /** Mean F1 over all questions; an unanswered question scores 0. */
  f1: number;
  /** Share of the questions that got an answer. */
  answered: number;
}

/** Scores the answers recorded by the `answer` tool against the gold answers (Q1 is `questions[0]`). */
export function scoreQaAnswers(questions: readonly HotpotRecord[], answers: QaAnswerSheet): QaScore {
  const perQuestion = questions.map((question, index) => {
    const prediction = answers.get(index + 1);
    return {
      questionNumber: index + 1,
      id: question.id,
      prediction,
      gold: question.answer,
      em: prediction === undefined ? 0 : exactMatch(prediction, question.answer),
      f1: prediction === undefined ? 0 : f1Score(prediction, question.answer),
    };
  });
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return {
    perQuestion,
    em: mean(perQuestion.map((p) => p.em)),
    f1: mean(perQuestion.map((p) => p.f1)),
    answered: mean(perQuestion.map((p) => (p.prediction === undefined ? 0 : 1))),
  };
}
