/**
 * `pagewise/paging`: instruction paging. Bodies live in a page store; the paging tools return receipts, so bodies
 * never enter the history; each model call renders, fenced as untrusted data, only the pages the model asked for
 * (`pagedInstruction`, `autoPaging`), and `compactPagingTurns` keeps the paging turns of the history short.
 */
export {
  InMemoryPageStore,
  isHandleUri,
  verifiedBody,
  type Page,
  type PageInfo,
  type PageInput,
  type PageStore,
} from './paging/page-store.js';
export {
  MAX_REPORTS_PER_READ,
  PageLoadError,
  PagingService,
  RESULT_PREFIX,
  WANT_READ_KEY,
  type PageInMode,
  type PagingOptions,
  type WorkingSetEntry,
} from './paging/service.js';
export {
  DEFAULT_PAGING_TOOLS,
  PAGING_TOOL_NAMES,
  createPagingTools,
  savedResults,
  type PagingToolsOptions,
} from './paging/tools.js';
export { pagedInstruction, type PagedInstructionOptions } from './paging/instruction.js';
export { autoPaging, type AutoPagingOptions } from './paging/auto-paging.js';
export {
  compactPagingTurns,
  SAVED_RESULT_ELIDED,
  SHOWN_PAGES_ELIDED,
  type CompactPagingTurnsOptions,
} from './paging/paging-history.js';
export {
  fenceBoundary,
  renderFencedNotes,
  renderFencedPages,
  type FencedNotes,
  type FencedPage,
  type RenderFencedPagesOptions,
} from './paging/fence.js';
export { ExpressionError, evaluate as evaluateExpression } from './paging/calculate.js';
