/**
 * Trace import: reads a file or a folder of traces, detects each record's format and normalizes it. A
 * file is JSON (one trace, or a list of them), JSONL (one record a line) or a pagewise SQLite session
 * database (known by its header); every error names the file, the line or record, and the field.
 */
import { open, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { TraceFormatError } from './errors.js';
import { isAiSdkMessages, readAiSdk } from './formats/ai-sdk.js';
import { isAtif, readAtif } from './formats/atif.js';
import { isChatMessage, readOpenAiChat } from './formats/openai-chat.js';
import { isAgentsItems, readOpenAiAgents } from './formats/openai-agents.js';
import { isOtlp, isSpanArray, readOtelGenAi, readOtelGenAiLines, readOtelSpanArray } from './formats/otel-spans.js';
import { isPagewiseSession, readPagewiseSession, sessionTrace } from './formats/pagewise-session.js';
import { TRACE_FORMAT_DESCRIPTIONS, TRACE_FORMATS, type ReplayTrace, type TraceFormat } from './trace.js';

/** A file larger than this is refused before it is read: traces are read whole. */
export const MAX_TRACE_FILE_BYTES = 256 * 1024 * 1024;

const TRACE_EXTENSIONS = new Set(['.json', '.jsonl', '.ndjson']);

/** Options of {@link readTraces} and {@link parseTraces}. */
export interface ReadTracesOptions {
  /** Read every record as this format instead of detecting it. */
  format?: TraceFormat;
  /** Of a SQLite session database, only the sessions of this app (default: every app in the file). */
  appName?: string;
}

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Whether `file` starts with the SQLite header: a session database, not a text trace. */
export async function isSqliteFile(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length && head.equals(SQLITE_HEADER);
  } finally {
    await handle.close();
  }
}

/**
 * Every session of a pagewise SQLite database (of one app with `appName`), opened read-only so a replay
 * never migrates or writes the file. The store is loaded only here: text traces do not pay for the native
 * module.
 */
async function readSessionDatabase(file: string, name: string, options: ReadTracesOptions): Promise<ReplayTrace[]> {
  if (options.format !== undefined && options.format !== 'pagewise-session')
    throw new TraceFormatError(
      name,
      `a SQLite database holds pagewise sessions, not ${options.format}; leave the format out or use pagewise-session`,
    );
  const { SqliteSessionStore } = await import('@pagewise/sqlite');
  const store = new SqliteSessionStore({ path: file, readOnly: true });
  try {
    const apps = options.appName !== undefined ? [options.appName] : await store.listAppNames();
    const traces: ReplayTrace[] = [];
    for (const appName of apps)
      for (const summary of await store.listSessions({ appName })) {
        const session = await store.getSession(summary);
        if (session) traces.push(sessionTrace(session, `${name}#${appName}/${summary.userId}/${summary.sessionId}`));
      }
    if (traces.length === 0)
      throw new TraceFormatError(
        name,
        options.appName !== undefined
          ? `the session database holds no session of app "${options.appName}" (its apps: ${(await store.listAppNames()).join(', ') || 'none'})`
          : 'the session database holds no session',
      );
    return traces;
  } finally {
    await store.close();
  }
}

function formatsList(): string {
  return TRACE_FORMATS.map((f) => `  - ${f}: ${TRACE_FORMAT_DESCRIPTIONS[f]}`).join('\n');
}

function unknownFormat(location: string, what: string): TraceFormatError {
  return new TraceFormatError(
    location,
    `${what} is in no trace format pagewise reads. The formats are:\n${formatsList()}`,
  );
}

/** Outcome fields beside the messages of a `{messages, reward?}` record. */
function outcomeOf(record: Record<string, unknown>, location: string): { reward?: number; success?: boolean } {
  const out: { reward?: number; success?: boolean } = {};
  if (record.reward !== undefined) {
    if (typeof record.reward !== 'number' || !Number.isFinite(record.reward))
      throw new TraceFormatError(location, `reward: expected a number, got ${JSON.stringify(record.reward)}`);
    out.reward = record.reward;
  }
  const success = record.success ?? record.passed;
  if (success !== undefined) {
    if (typeof success !== 'boolean')
      throw new TraceFormatError(location, `success: expected true or false, got ${JSON.stringify(success)}`);
    out.success = success;
  }
  return out;
}

/** The format of one record, or undefined. A record is a trace, a `{messages}` record or a message list. */
export function detectFormat(value: unknown): TraceFormat | undefined {
  if (isAtif(value)) return 'atif';
  if (isOtlp(value) || isSpanArray(value)) return 'otel-genai';
  if (isPagewiseSession(value)) return 'pagewise-session';
  const messages = Array.isArray(value) ? value : (value as { messages?: unknown; items?: unknown } | null)?.messages;
  if (isAiSdkMessages(messages)) return 'ai-sdk';
  if (Array.isArray(messages) && messages.length > 0 && messages.every(isChatMessage)) return 'openai-chat';
  const items = Array.isArray(value) ? value : (value as { items?: unknown } | null)?.items;
  if (isAgentsItems(items)) return 'openai-agents';
  if (Array.isArray(messages) && isAgentsItems(messages)) return 'openai-agents';
  return undefined;
}

/** Reads one record of a known format. */
function readRecord(value: unknown, format: TraceFormat, id: string, location: string): ReplayTrace[] {
  const record =
    !Array.isArray(value) && typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const meta = { id: typeof record.id === 'string' ? record.id : id, source: location, ...outcomeOf(record, location) };
  switch (format) {
    case 'atif':
      return [readAtif(value, meta)];
    case 'otel-genai':
      return isOtlp(value) ? readOtelGenAi(value, meta) : readOtelSpanArray(value, meta);
    case 'pagewise-session':
      return [readPagewiseSession(value, meta)];
    case 'ai-sdk':
      return Array.isArray(value) ? [readAiSdk(value, meta, '')] : [readAiSdk(record.messages, meta)];
    case 'openai-chat':
      return Array.isArray(value) ? [readOpenAiChat(value, meta, '')] : [readOpenAiChat(record.messages, meta)];
    case 'openai-agents':
      return Array.isArray(value)
        ? [readOpenAiAgents(value, meta, '')]
        : [readOpenAiAgents(record.items ?? record.messages, meta, record.items ? 'items' : 'messages')];
  }
}

/** A list of records (each a trace) rather than one trace spread over the list. */
function isRecordList(value: unknown[]): boolean {
  return (
    value.length > 0 &&
    value.every(
      (item) =>
        (typeof item === 'object' &&
          item !== null &&
          !Array.isArray(item) &&
          ('messages' in item || 'items' in item)) ||
        isAtif(item) ||
        isPagewiseSession(item) ||
        Array.isArray(item),
    )
  );
}

function readValue(value: unknown, name: string, location: string, options: ReadTracesOptions): ReplayTrace[] {
  if (Array.isArray(value) && isRecordList(value)) {
    return value.flatMap((record, i) => readValue(record, `${name}#${i}`, `${location}#${i}`, options));
  }
  const format = options.format ?? detectFormat(value);
  if (!format) throw unknownFormat(location, 'This record');
  return readRecord(value, format, name, location);
}

/**
 * Parses the text of a trace file. `name` is the file's name for ids and errors. JSONL is recognized by
 * its lines: a text that is not one JSON value but whose lines each are.
 *
 * @throws TraceFormatError naming the line or record and the field, or listing the formats when none fits.
 */
export function parseTraces(text: string, name: string, options: ReadTracesOptions = {}): ReplayTrace[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new TraceFormatError(name, 'the file is empty');
  let whole: unknown;
  let wholeError: Error | undefined;
  try {
    whole = JSON.parse(trimmed);
  } catch (error) {
    wholeError = error as Error;
  }
  if (wholeError === undefined) return readValue(whole, name, name, options);
  const lines = text.split('\n');
  const nonBlank = lines.filter((l) => l.trim() !== '');
  if (nonBlank.length < 2 || (!nonBlank[0]!.trim().startsWith('{') && !nonBlank[0]!.trim().startsWith('[')))
    throw new TraceFormatError(name, `not valid JSON (${wholeError.message}) nor JSONL`);
  const parsed: { value: unknown; at: string }[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const at = `${name}:${index + 1}`;
    try {
      parsed.push({ value: JSON.parse(line), at });
    } catch (error) {
      throw new TraceFormatError(at, `not valid JSON (${(error as Error).message})`);
    }
  });
  // OTLP exports a line each: a trace is the spans of one trace id across every line, not one per line.
  if ((options.format ?? 'otel-genai') === 'otel-genai' && parsed.every((line) => isOtlp(line.value)))
    return readOtelGenAiLines(parsed, name);
  return parsed.flatMap(({ value, at }) => readValue(value, at, at, options));
}

/**
 * Reads the traces of a file, or of every `.json`, `.jsonl` and `.ndjson` file under a folder (sorted by
 * path). A file that starts with the SQLite header is read as a pagewise session database: every session
 * (of `appName` when given) is a trace. Trace ids are made unique across files.
 *
 * @example
 * const traces = await readTraces('traces/');
 *
 * @throws TraceFormatError for a malformed or unknown record or a missing path; a StorageError for a SQLite file
 *   that is not a pagewise store or predates this version's schema.
 */
export async function readTraces(target: string, options: ReadTracesOptions = {}): Promise<ReplayTrace[]> {
  const info = await stat(target).catch(() => undefined);
  if (!info) throw new TraceFormatError(target, 'no such file or folder');
  const files = info.isDirectory() ? await traceFiles(target) : [target];
  if (files.length === 0) throw new TraceFormatError(target, 'the folder holds no .json, .jsonl or .ndjson file');
  const traces: ReplayTrace[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const size = (await stat(file)).size;
    if (size > MAX_TRACE_FILE_BYTES)
      throw new TraceFormatError(
        file,
        `${size} bytes, above the ${MAX_TRACE_FILE_BYTES} a trace file may have; split it (JSONL splits by line)`,
      );
    const name = info.isDirectory() ? path.relative(target, file) : path.basename(file);
    const read = (await isSqliteFile(file))
      ? await readSessionDatabase(file, name, options)
      : parseTraces(await readFile(file, 'utf8'), name, options);
    for (const trace of read) {
      let id = trace.id;
      for (let suffix = 2; seen.has(id); suffix += 1) id = `${trace.id}~${suffix}`;
      seen.add(id);
      traces.push({
        ...trace,
        id,
        source: info.isDirectory() ? path.join(target, trace.source) : path.join(path.dirname(file), trace.source),
      });
    }
  }
  return traces;
}

async function traceFiles(folder: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) out.push(...(await traceFiles(full)));
    else if (entry.isFile() && TRACE_EXTENSIONS.has(path.extname(entry.name).toLowerCase())) out.push(full);
  }
  return out.sort();
}
