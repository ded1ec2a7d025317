/**
 * Loads documents from one folder on disk, guarded so that a URI (which may come from a model) can never
 * read outside that folder: no `..`, no absolute paths, no symbolic links that lead out of it.
 */
import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import path from 'node:path';
import { AccessDeniedError, ConfigurationError, LimitExceededError, NotFoundError, SystemError } from '../errors.js';
import { integerOption, throwIfAborted } from './guards.js';
import { htmlToReadableText } from './html.js';
import { DEFAULT_MAX_DOCUMENT_BYTES } from './source.js';
import type { ListableSource, LoadedDocument, LoadOptions } from './source.js';
import { titleFromText } from './title.js';

/** Options of {@link createFolderSource}. */
export interface FolderSourceOptions {
  /** The folder documents are read from; nothing outside it can be read. */
  root: string;
  /**
   * Which files may be read, by path relative to `root` with `/` separators. Either a predicate, or a
   * list of globs (`*` within a folder, `**` across folders, `?` one character) and folder prefixes
   * (`docs` allows `docs/...`; a prefix matches whole path segments only). Default: every file.
   */
  allow?: ((relPath: string) => boolean) | readonly string[];
  /** Largest file that is read, in bytes. Default 5 MiB. */
  maxBytes?: number;
  /** File extensions that are read, with or without the dot. Default: txt, md, markdown, html, htm, json. */
  extensions?: readonly string[];
}

const DEFAULT_EXTENSIONS = ['txt', 'md', 'markdown', 'html', 'htm', 'json'];

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  json: 'application/json',
};

const HTML_EXTENSIONS = new Set(['html', 'htm']);

// A backslash is an ordinary file-name character on POSIX; treating it as a separator there would make
// some real files unreachable without making anything safer.
const SEPARATOR = process.platform === 'win32' ? /[\\/]/ : /\//;

/**
 * O_NOFOLLOW where the platform has it, so the final path component cannot be swapped for a link; O_NONBLOCK so
 * that a FIFO swapped in after the type check still cannot make the open wait for a writer.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

const READ_CHUNK_BYTES = 64 * 1024;

/**
 * Creates a source that reads text, Markdown, HTML and JSON files under `root`. URIs are `file:<path>`
 * or a plain relative path, both relative to `root`; `load` returns them as `file:<path>`. HTML is
 * converted to readable text.
 *
 * Refused with `AccessDeniedError`: `..` segments, absolute paths, NUL bytes, paths outside `allow`,
 * and symbolic links whose real path leaves the root (the real paths of both root and target are
 * compared). The guard protects against hostile URIs and links in the tree; it does not defend against
 * another process swapping folders for links while a load is running.
 *
 * @example
 * const docs = createFolderSource({ root: './docs', allow: ['guides', '*.md'] });
 * const page = await docs.load('file:guides/setup.md');
 */
export function createFolderSource(options: FolderSourceOptions): ListableSource {
  if (typeof options.root !== 'string' || options.root.trim() === '') {
    throw new ConfigurationError(
      'invalid-option',
      'createFolderSource needs `root`, the folder to read documents from.',
    );
  }
  const root = path.resolve(options.root);
  const maxBytes = integerOption(options.maxBytes, DEFAULT_MAX_DOCUMENT_BYTES, 1, 'createFolderSource({ maxBytes })');
  const extensions = new Set(
    (options.extensions ?? DEFAULT_EXTENSIONS).map((ext) => ext.replace(/^\./, '').toLowerCase()),
  );
  const allowed = compileAllow(options.allow);
  const name = `folder:${root}`;

  const isReadableName = (relPath: string): boolean => extensions.has(extensionOf(relPath)) && allowed(relPath);

  async function load(uri: string, loadOptions: LoadOptions = {}): Promise<LoadedDocument> {
    throwIfAborted(loadOptions.signal, uri);
    const relPath = relativePathOf(uri);
    if (!allowed(relPath)) {
      throw new AccessDeniedError(
        `"${relPath}" is not allowed by the \`allow\` setting of the folder source ${root}. Add a glob or prefix for it to \`allow\`.`,
      );
    }
    const extension = extensionOf(relPath);
    if (!extensions.has(extension)) {
      throw new ConfigurationError(
        'unsupported-extension',
        `"${relPath}" is not read by the folder source: its extension ".${extension}" is not one of ${[...extensions].map((ext) => `.${ext}`).join(', ')}. Add it to \`extensions\` if it is text.`,
      );
    }

    const realRoot = await realRootOf(root);
    const realTarget = await realPathOf(path.join(realRoot, ...relPath.split('/')), relPath, root);
    if (!isInside(realRoot, realTarget)) {
      throw new AccessDeniedError(
        `"${relPath}" is a symbolic link (or lies under one) that leads outside the folder source root ${root}; such links are refused. Copy the file into the root instead.`,
      );
    }
    // The allow-list is about which files may be read, so a link inside the root must not lend its
    // allowed name to a file the list does not allow.
    const realRelPath = toPosix(path.relative(realRoot, realTarget));
    if (realRelPath !== relPath && !allowed(realRelPath)) {
      throw new AccessDeniedError(
        `"${relPath}" links to "${realRelPath}", which the \`allow\` setting of the folder source ${root} does not allow.`,
      );
    }

    const bytes = await readCapped(realTarget, relPath, maxBytes);
    throwIfAborted(loadOptions.signal, uri);
    return toDocument(`file:${relPath}`, relPath, extension, new TextDecoder('utf-8').decode(bytes));
  }

  async function list(): Promise<string[]> {
    const realRoot = await realRootOf(root);
    const found: string[] = [];

    const visit = async (dir: string, prefix: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch {
        return; // An unreadable folder holds no readable files.
      }
      for (const entry of entries) {
        const relPath = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          await visit(full, relPath);
        } else if ((entry.isFile() || entry.isSymbolicLink()) && isReadableName(relPath)) {
          // Linked folders are not walked, which also rules out link cycles; linked files are listed when
          // load would accept them.
          if (await isLoadable(realRoot, full, maxBytes, allowed)) found.push(`file:${relPath}`);
        }
      }
    };

    await visit(realRoot, '');
    return found.sort();
  }

  return {
    name,
    canLoad: (uri) => uri.toLowerCase().startsWith('file:') || !/^[a-z][a-z0-9+.-]*:/i.test(uri),
    load,
    list,
    // The file is read and converted again: only the text it gives now can tell whether a stored page is stale.
    contentHash: async (uri, loadOptions) =>
      createHash('sha256')
        .update((await load(uri, loadOptions)).body)
        .digest('hex'),
  };
}

/** Validates the path part of a URI and returns it normalized, with `/` separators. */
function relativePathOf(uri: string): string {
  const raw = uri.toLowerCase().startsWith('file:') ? uri.slice('file:'.length) : uri;
  if (raw.includes('\0')) {
    throw new AccessDeniedError(
      `The path "${raw.replaceAll('\0', '\\0')}" contains a NUL byte, which no file name can contain; refused.`,
    );
  }
  if (path.isAbsolute(raw) || raw.startsWith('/') || raw.startsWith('\\') || /^[a-z]:/i.test(raw)) {
    throw new AccessDeniedError(
      `The absolute path "${raw}" is refused: give a path relative to the folder source root, as file:<relative path>.`,
    );
  }
  const segments = raw.split(SEPARATOR);
  if (segments.includes('..')) {
    throw new AccessDeniedError(
      `The path "${raw}" contains a ".." segment, which could leave the folder source root; refused. Give the path from the root down.`,
    );
  }
  const relPath = segments.filter((segment) => segment !== '' && segment !== '.').join('/');
  if (relPath === '') {
    throw new ConfigurationError(
      'not-a-file',
      `"${uri}" names the folder source root itself, not a file. Use list() to see the files.`,
    );
  }
  return relPath;
}

async function realRootOf(root: string): Promise<string> {
  try {
    return await fs.realpath(root);
  } catch (error) {
    throw new ConfigurationError(
      'folder-root-unreadable',
      `The folder source root ${root} cannot be read (${errorCode(error)}). Create it or pass another \`root\`.`,
      error,
    );
  }
}

async function realPathOf(target: string, relPath: string, root: string): Promise<string> {
  try {
    return await fs.realpath(target);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new NotFoundError(
        'File',
        relPath,
        `It does not exist under ${root}; list() shows the files that can be read.`,
      );
    }
    if (code === 'ELOOP') throw new AccessDeniedError(`"${relPath}" is a loop of symbolic links; refused.`);
    throw new SystemError('file-read', `"${relPath}" under ${root} cannot be resolved (${code}).`, { cause: error });
  }
}

/** Reads at most `maxBytes` bytes, checking the size while reading in case the file grows meanwhile. */
async function readCapped(realTarget: string, relPath: string, maxBytes: number): Promise<Buffer> {
  const tooLarge = (size: number) =>
    new LimitExceededError('maxBytes', maxBytes, 'createFolderSource({ maxBytes })', `"${relPath}" has ${size} bytes`);
  // Only regular files are opened: opening a FIFO waits for a writer, a device may never answer.
  const type = await fs.stat(realTarget).catch(() => undefined);
  if (type && !type.isFile()) throw notAFile(relPath, type);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(realTarget, OPEN_FLAGS);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ELOOP')
      throw new AccessDeniedError(`"${relPath}" became a symbolic link while it was being read; refused.`);
    throw new SystemError('file-read', `"${relPath}" cannot be opened (${code}).`, {
      cause: error,
      retryable: code === 'EMFILE' || code === 'EBUSY',
    });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notAFile(relPath, stat);
    if (stat.size > maxBytes) throw tooLarge(stat.size);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead, buffer } = await handle.read({ buffer: Buffer.alloc(READ_CHUNK_BYTES) });
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(total);
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

function notAFile(relPath: string, stat: Stats): ConfigurationError {
  const kind = stat.isFIFO()
    ? 'a named pipe'
    : stat.isSocket()
      ? 'a socket'
      : stat.isDirectory()
        ? 'a folder'
        : stat.isCharacterDevice() || stat.isBlockDevice()
          ? 'a device'
          : 'not a file';
  return new ConfigurationError(
    'not-a-file',
    `"${relPath}" is not a regular file (${kind}); only regular files are loaded, and others are never opened.`,
  );
}

function toDocument(uri: string, relPath: string, extension: string, text: string): LoadedDocument {
  const fileName = path.posix.basename(relPath);
  if (HTML_EXTENSIONS.has(extension)) {
    const readable = htmlToReadableText(text);
    return {
      uri,
      title: readable.title || titleFromText(readable.text, fileName),
      body: readable.text,
      mediaType: 'text/plain',
      fetchedAt: Date.now(),
    };
  }
  return {
    uri,
    // A JSON document has no heading, and its first line is data rather than a title.
    title: extension === 'json' ? fileName : titleFromText(text, fileName),
    body: text,
    mediaType: MEDIA_TYPES[extension] ?? 'text/plain',
    fetchedAt: Date.now(),
  };
}

/** True when a listed entry would load: inside the root (after links), allowed, a file, within the cap. */
async function isLoadable(
  realRoot: string,
  full: string,
  maxBytes: number,
  allowed: (relPath: string) => boolean,
): Promise<boolean> {
  try {
    const real = await fs.realpath(full);
    if (!isInside(realRoot, real) || !allowed(toPosix(path.relative(realRoot, real)))) return false;
    const stat = await fs.stat(real);
    return stat.isFile() && stat.size <= maxBytes;
  } catch {
    return false;
  }
}

function compileAllow(allow: FolderSourceOptions['allow']): (relPath: string) => boolean {
  if (allow === undefined) return () => true;
  if (typeof allow === 'function') return allow;
  const matchers = allow.map((pattern): ((relPath: string) => boolean) => {
    if (/[*?]/.test(pattern)) {
      const regex = globToRegExp(pattern.replace(/^\.\//, ''));
      return (relPath) => regex.test(relPath);
    }
    const prefix = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
    if (prefix === '' || prefix === '.') return () => true;
    return (relPath) => relPath === prefix || relPath.startsWith(`${prefix}/`);
  });
  return (relPath) => matchers.some((matches) => matches(relPath));
}

/** `**` spans folders (and `**` followed by `/` may match no folder at all), `*` and `?` stay within one. */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index] as string;
    if (char === '*' && glob[index + 1] === '*') {
      if (glob[index + 2] === '/') {
        source += '(?:.*/)?';
        index += 2;
      } else {
        source += '.*';
        index += 1;
      }
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`, 's');
}

function extensionOf(relPath: string): string {
  return path.posix.extname(relPath).slice(1).toLowerCase();
}

function isInside(realRoot: string, realTarget: string): boolean {
  const relative = path.relative(realRoot, realTarget);
  // Compared by segment: a file named "..notes" inside the root is not outside it.
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

function toPosix(relPath: string): string {
  return relPath.split(path.sep).join('/');
}

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : 'unknown error';
}
