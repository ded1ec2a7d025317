/**
 * `pagewise/sources`: where documents come from (a folder, HTTP, a loader function, several combined) and the BM25
 * corpus index with its search tool.
 */
export type {
  DocumentSource,
  ListableSource,
  LoadedDocument,
  LoaderFunction,
  LoaderResult,
  LoadOptions,
} from './sources/source.js';
export { DEFAULT_MAX_DOCUMENT_BYTES, combineSources, loaderSource } from './sources/source.js';
export { createFolderSource, type FolderSourceOptions } from './sources/folder-source.js';
export { createHttpSource, type HttpSourceOptions } from './sources/http-source.js';
export {
  CorpusIndex,
  createSearchTool,
  type CorpusSearchResult,
  type SearchToolOptions,
} from './sources/corpus-index.js';
