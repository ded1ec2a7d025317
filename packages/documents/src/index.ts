/**
 * `@pagewise/documents`: readers that turn a folder of PDF, DOCX, XLSX, CSV, HTML, Markdown and text files
 * into documents for pagewise. Importing it loads no reader; each is loaded on first use of its format.
 */
export {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_READER_LIMITS,
  READABLE_EXTENSIONS,
  readDocumentFolder,
  type DocumentFolder,
  type DocumentReaderLimits,
  type FolderDocument,
  type ReadDocumentFolderOptions,
  type SkippedFile,
} from './documents.js';
export {
  CACHE_DIR_ENV,
  DEFAULT_MEMORY_CACHE_CHARS,
  DOCUMENT_READER_VERSION,
  DocumentCache,
  defaultDocumentCacheDir,
  processDocumentCache,
  sha256Hex,
  type DocumentCacheOptions,
  type ExtractedUnit,
  type Extraction,
} from './document-cache.js';
