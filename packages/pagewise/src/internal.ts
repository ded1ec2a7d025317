/**
 * `pagewise/internal`: what pagewise's own packages share beyond the public entries. Not a public API: names here
 * may change in any release. What a store implementer needs is `pagewise/store-kit`, what a framework adapter is built on `pagewise/adapter-kit`, what tunes or trains the
 * extractive backend is `pagewise/extractive`; helpers only the lab uses live in the lab. At most 40 names
 * (test/architecture/entry-size.test.ts).
 */
// The framework adapters (@pagewise/adk, openai-agents, langchain, mastra) beyond `pagewise/adapter-kit`.
export { eventsToItems, groupTurns } from './context/history.js';
export { ownValue, setOwn } from './util/own-field.js';
// @pagewise/documents and the CLI: loader guards, readable HTML, and the user's data and cache folders.
export { integerOption, throwIfAborted } from './sources/guards.js';
export { htmlToReadableText } from './sources/html.js';
export { titleFromText } from './sources/title.js';
export { DATA_DIR_ENV, userCacheDir, userDataDir } from './util/data-dir.js';
// @pagewise/inspect and the lab: reading a request and a transcript back.
export { itemText, latestObservationStart, measureRequest, toolDefinitionText } from './context/request.js';
export { parseFencedPages, seededFenceBoundary } from './paging/fence.js';
export { summaryBody } from './compression/history.js';
export { unfenceQuoted } from './compression/transcript.js';
export { emptyParts } from './tokens/ledger.js';
// The lab: the guideline optimizer and the scenarios.
export { PLACEHOLDER_RULES, placeholdersOf } from './compression/guideline.js';
export { isOfflineModel } from './compression/resolve-backend.js';
export { withRetry } from './models/retry.js';
export { scanJson } from './util/json-scan.js';
export { seededRandom } from './util/random.js';
export { wordTokens } from './text/words.js';
export { STOPWORDS } from './text/stopwords.js';
