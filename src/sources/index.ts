/**
 * Document sources: guarded loaders for folders and the web, custom loaders, and a full-text corpus
 * index with a `search` tool that returns snippets instead of bodies.
 */
export type {
  DocumentSource,
  ListableSource,
  LoadedDocument,
  LoaderFunction,
  LoaderResult,
  LoadOptions,
} from './source.js';
export { combineSources, DEFAULT_MAX_DOCUMENT_BYTES, loaderSource } from './source.js';
export type { FolderSourceOptions } from './folder-source.js';
export { createFolderSource } from './folder-source.js';
export type { HttpSourceOptions } from './http-source.js';
export { createHttpSource } from './http-source.js';
export type { AddressClass } from './address-guard.js';
export { classifyAddress, isPublicAddress } from './address-guard.js';
export type { ReadableText } from './html.js';
export { htmlToReadableText } from './html.js';
export type { CorpusSearchResult, IndexableDocument, SearchToolOptions } from './corpus-index.js';
export { CorpusIndex, createSearchTool } from './corpus-index.js';
