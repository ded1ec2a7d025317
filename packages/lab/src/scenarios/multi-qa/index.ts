/**
 * The multi-objective QA scenario (after ACON): k HotpotQA questions in one episode, a search tool over
 * all their paragraphs, so the history of early questions weighs on the later ones.
 */
export { defaultHotpotPath, HOTPOTQA_PATH_ENV, hotpotAvailable, hotpotDataMissing, loadHotpot } from './data.js';
export type { HotpotParagraph, HotpotRecord, SupportingFact } from './data.js';
export { generateQaEpisodes, renderQaPrompt } from './tasks.js';
export type { QaEpisode, QaEpisodeOptions } from './tasks.js';
export {
  createQaTools,
  QA_ANSWER_TOOL,
  QA_SEARCH_TOOL,
  qaAnswerInput,
  qaSearchInput,
  renderParagraph,
} from './tools.js';
export type { QaAnswerSheet, QaToolset } from './tools.js';
export { evidenceRecall, exactMatch, f1Score, normalizeAnswer, scoreQaAnswers } from './metrics.js';
export type { QaScore } from './metrics.js';
export { MAX_SEARCHES_PER_QUESTION, QA_INSTRUCTION, QA_TASK_KIND_LINE, qaOfflinePolicy } from './policy.js';
export { multiQaTaskValues } from './task-values.js';
