/**
 * The default guidelines, written in the guideline file format and parsed at load, so the defaults
 * pass the same checks as a user's file and `formatGuideline` turns them into a starting file for an
 * optimizer. Their extractive rules are the target defaults of `rules.ts`.
 */
import { parseGuideline } from './guideline.js';
import type { Guideline } from './guideline.js';
import { DEFAULT_HISTORY_RULES, DEFAULT_OBSERVATION_RULES } from './rules.js';

// The history template follows the structure of ACON's optimized history guideline: the agent resumes
// from the summary alone, so it must carry the reasoning, every runtime value the rest of the task
// reuses (copied exactly), what is left, what is done (so side effects are not repeated) and the
// constraints.
const HISTORY_TEXT = `---
id: history-default
version: 1
target: history
description: Structured summary of an agent's interaction history (ACON-style).
---
You compress the interaction history of an agent that is in the middle of a task. The agent will continue from your summary alone: whatever you leave out is lost to it.

Task:
{{task}}

Summary of the earlier history (empty before the first compression):
{{previous_summary}}

History since that summary:
{{history}}

Write one summary that replaces both, in at most {{max_tokens}} tokens, with exactly these sections:

## Reasoning so far
What the agent has found out and concluded, and why. Approaches that failed and must not be retried, with the reason they failed.

## Runtime values
A table with the columns | name | value | where it came from |, one row for every concrete value the rest of the task needs: ids, names, emails, account and order numbers, amounts and prices, dates, page indices and cursors, file paths, handles, tokens the task was given. Copy each value exactly, character for character; never round, shorten, paraphrase or invent one. A value that is no longer needed may go; a value that might be needed stays.

## To do
The remaining steps in order, each with the values it needs.

## Completed
Steps already done and their outcomes, so none is repeated; name every action with a side effect (a payment, a message sent, a record changed or deleted) explicitly.

## Guardrails
Constraints from the task, the user and the tools: limits, required formats, confirmations needed, errors seen and how to avoid them.

Keep facts and drop chatter: tool-call boilerplate, repeated observations, pleasantries. Write "none" under a section with nothing to say. Output only the summary.
`;

// The observation template asks for the minimal observation that is still sufficient: the agent's
// next steps, not only the current one, may need any identifier or number in it.
const OBSERVATION_TEXT = `---
id: observation-default
version: 1
target: observation
description: Minimal but sufficient refinement of the latest tool observation.
---
You refine the latest tool observation of an agent working on a task, so that it takes fewer tokens but still holds everything the agent needs.

Task:
{{task}}

Recent steps of the agent (context only; do not summarize them):
{{history}}

Observation:
{{observation}}

Rewrite the observation in at most {{max_tokens}} tokens. Keep, exactly as written, every identifier, number, amount, date, status, URL, page index and error message that is relevant to the task now or may be later. Keep which value belongs to which record. Drop boilerplate, repeated fields, formatting and records unrelated to the task. If the observation reports an error, keep the error verbatim. Do not answer the task, do not add anything that is not in the observation, and do not say what you removed. Output only the refined observation.
`;

/** Default history guideline: a structured summary (reasoning, runtime values table, to do, completed, guardrails). */
export const DEFAULT_HISTORY_GUIDELINE: Guideline = Object.freeze({
  ...parseGuideline(HISTORY_TEXT, 'pagewise:history-default'),
  // The frozen defaults themselves, so no caller can edit them through the guideline.
  rules: DEFAULT_HISTORY_RULES,
});

/** Default observation guideline: the minimal observation that keeps every task-relevant identifier and number. */
export const DEFAULT_OBSERVATION_GUIDELINE: Guideline = Object.freeze({
  ...parseGuideline(OBSERVATION_TEXT, 'pagewise:observation-default'),
  rules: DEFAULT_OBSERVATION_RULES,
});
