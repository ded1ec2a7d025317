/**
 * Errors of pagewise: one base class, marked with a global symbol so `isInstance` works across
 * duplicate installs, and split by who is at fault so callers know whether to fix config, retry, or
 * report a bug. Every message says what to do next.
 */

const MARKER = Symbol.for('pagewise.error');

/** Who is at fault: the user's configuration or input, the model's behaviour, or the system. */
export type ErrorFault = 'configuration' | 'model' | 'system';

/** Base class of every error pagewise throws on purpose. */
export class PagewiseError extends Error {
  readonly [MARKER] = true;
  /** A stable machine-readable code, e.g. `missing-api-key`. */
  readonly code: string;
  /** Who is at fault. */
  readonly fault: ErrorFault;
  /** Whether the same call may succeed if repeated. */
  readonly retryable: boolean;

  constructor(options: { code: string; fault: ErrorFault; message: string; retryable?: boolean; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.fault = options.fault;
    this.retryable = options.retryable ?? false;
  }

  /** True for any pagewise error, even one thrown by another copy of the library. */
  static isInstance(error: unknown): error is PagewiseError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** The user's configuration or input is wrong; fix it and run again. */
export class ConfigurationError extends PagewiseError {
  constructor(code: string, message: string, cause?: unknown) {
    super({ code, fault: 'configuration', message, cause });
  }
}

/** The model did something the run cannot use (bad tool call, empty answer, ...). */
export class ModelBehaviorError extends PagewiseError {
  constructor(code: string, message: string, cause?: unknown) {
    super({ code, fault: 'model', message, cause });
  }
}

/** Something outside the user's control failed (storage, network, provider). */
export class SystemError extends PagewiseError {
  constructor(code: string, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super({ code, fault: 'system', message, retryable: options.retryable, cause: options.cause });
  }
}

/** A required API key or setting is missing from the environment. */
export class MissingApiKeyError extends ConfigurationError {
  constructor(
    readonly variable: string,
    provider: string,
  ) {
    super(
      'missing-api-key',
      `No API key for ${provider}: set the environment variable ${variable}, or use the model "offline", which needs no key.`,
    );
  }
}

/**
 * A configured limit was hit. The message names the limit, its value and the setting that raises it.
 */
export class LimitExceededError extends ConfigurationError {
  constructor(
    readonly limit: string,
    readonly value: number,
    readonly setting: string,
    detail?: string,
  ) {
    super(
      'limit-exceeded',
      `Limit "${limit}" of ${value} exceeded${detail ? ` (${detail})` : ''}. Raise it with the setting \`${setting}\`.`,
    );
  }
}

/** A request is larger than the model's context window, as a real provider would refuse it. */
export class ContextWindowExceededError extends ModelBehaviorError {
  constructor(
    readonly promptTokens: number,
    readonly windowTokens: number,
    readonly model: string,
  ) {
    super(
      'context-window-exceeded',
      `The request has ${promptTokens} prompt tokens but the context window of ${model} is ${windowTokens}. ` +
        'Use a paging or compression strategy, or raise the window with the `contextWindow` setting (0 turns the check off).',
    );
  }
}

/** An append was made against a stale session version; reload the session and retry. */
export class VersionConflictError extends SystemError {
  constructor(
    readonly sessionId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number,
  ) {
    super(
      'version-conflict',
      `Session ${sessionId} is at version ${actualVersion}, but the append was made against version ${expectedVersion}. Reload the session and retry.`,
      { retryable: true },
    );
  }
}

/** A session, page or other record was not found. */
export class NotFoundError extends ConfigurationError {
  constructor(what: string, id: string, hint = '') {
    super('not-found', `${what} "${id}" was not found.${hint ? ` ${hint}` : ''}`);
  }
}

/** The run was cancelled through its AbortSignal. */
export class AbortedError extends SystemError {
  constructor(message = 'The run was aborted through its AbortSignal.') {
    super('aborted', message);
  }
}

/** Stored data could not be read (corrupt or written by an unknown schema version). */
export class StorageError extends SystemError {
  constructor(message: string, cause?: unknown, options: { code?: string; retryable?: boolean } = {}) {
    super(options.code ?? 'storage', message, { cause, retryable: options.retryable });
  }
}

/**
 * The store stayed locked by other writers for longer than its busy timeout (SQLite `SQLITE_BUSY`),
 * or a transaction kept conflicting with concurrent ones (PostgreSQL serialization failures). Nothing
 * was written: the same call may simply be repeated, which is why it is the one storage error marked
 * `retryable`.
 */
export class StorageBusyError extends StorageError {
  constructor(
    readonly location: string,
    message: string,
    cause?: unknown,
  ) {
    super(message, cause, { code: 'storage-busy', retryable: true });
  }
}

/**
 * A database file is damaged (truncated, overwritten, or its schema disagrees with its migration
 * record). Not retryable: the message names the file and how to recover.
 */
export class DatabaseCorruptError extends StorageError {
  constructor(
    readonly path: string,
    detail: string,
    cause?: unknown,
  ) {
    super(
      `The database ${path} is corrupt (${detail}). Restore it from a backup, or move it away so pagewise creates a new one; \`sqlite3 ${path} .recover\` may save part of its contents into a new file.`,
      cause,
      { code: 'database-corrupt' },
    );
  }
}

/**
 * Stored content does not match its recorded hash: a page body was altered or damaged at rest. The
 * store refuses to answer with it, never returning a silently wrong body. Not retryable.
 */
export class IntegrityError extends StorageError {
  constructor(
    readonly namespace: string,
    readonly uri: string,
    readonly expectedHash: string,
    readonly actualHash: string,
  ) {
    super(
      `Page "${uri}" (namespace "${namespace}") fails its integrity check: the stored body hashes to ${actualHash.slice(0, 16)}…, not the recorded ${expectedHash.slice(0, 16)}…. The stored copy was altered or damaged; put the page again from its source, or restore the database from a backup.`,
      undefined,
      { code: 'integrity' },
    );
  }
}

/**
 * A different body was written under a handle: the page of a tool result (a `tool://` URI) holds the raw
 * text a compressed result points back to, so it never changes once written. Writing the same bytes again
 * is allowed (and changes nothing).
 */
export class ImmutablePageError extends StorageError {
  constructor(
    readonly namespace: string,
    readonly uri: string,
    readonly storedHash: string,
    readonly writtenHash: string,
  ) {
    super(
      `Page "${uri}" (namespace "${namespace}") is the raw text behind a handle and cannot be rewritten: it holds a body hashing to ${storedHash.slice(0, 16)}…, and a different body (${writtenHash.slice(0, 16)}…) was written under it. Store the new text under a new URI (a new tool call id), or delete the page first.`,
      undefined,
      { code: 'immutable-page' },
    );
  }
}

/** A request to an untrusted location (URL, path) was refused by a guard. */
export class AccessDeniedError extends ConfigurationError {
  constructor(message: string) {
    super('access-denied', message);
  }
}

/** Environment variables whose values are secrets: API keys, tokens, passwords. */
const SECRET_VARIABLE = /(?:API_?KEY|_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$/i;
/** Shorter values are left alone: they would match ordinary text. */
const MIN_SECRET_LENGTH = 8;

/** A secret value and the variable it came from, which is what a redaction names. */
export interface Secret {
  name: string;
  value: string;
}

/** The secrets of an environment: values (8+ characters) of variables named like keys, tokens or passwords. */
export function secretsFromEnv(env: Record<string, string | undefined> = process.env): Secret[] {
  const out: Secret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_LENGTH && SECRET_VARIABLE.test(name)) out.push({ name, value });
  }
  // Longest first, so a secret that contains another is replaced whole.
  return out.sort((a, b) => b.value.length - a.value.length);
}

/** The userinfo part of a URL: `scheme://` then anything up to `@` that is not a separator. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;

/**
 * Replaces every secret value in `text` with `[redacted NAME]`, naming the variable so the reader knows
 * which key was involved, and the userinfo of every URL (`https://user:key@host` → `https://[redacted]@host`).
 *
 * @example
 * redactSecrets('bad key sk-abc123456', [{ name: 'OPENAI_API_KEY', value: 'sk-abc123456' }]); // 'bad key [redacted OPENAI_API_KEY]'
 */
export function redactSecrets(text: string, secrets: readonly Secret[] = secretsFromEnv()): string {
  // A key written into a URL (https://user:key@host/) is a secret whatever variable it came from.
  let out = text.includes('@') ? text.replace(URL_USERINFO, '$1[redacted]@') : text;
  for (const secret of secrets)
    if (out.includes(secret.value)) out = out.split(secret.value).join(`[redacted ${secret.name}]`);
  return out;
}

/**
 * Removes secret values from an error in place, with its cause chain and every string it holds
 * (message, stack, and fields such as a provider error's response body, data and headers), and returns
 * it. A provider may echo the caller's key in an error body; this keeps the key from travelling on into
 * logs, printed stacks and stored data. Same object, so `isInstance` checks and status codes still work.
 * Best effort: a field that can be neither written nor redefined (of a frozen object) is left as it is.
 */
export function redactError<T>(error: T, secrets: readonly Secret[] = secretsFromEnv()): T {
  if (secrets.length === 0) return error;
  const seen = new WeakSet<object>();
  const scrub = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return redactSecrets(value, secrets);
    if (typeof value !== 'object' || value === null || seen.has(value) || depth > 32) return value;
    seen.add(value);
    const target = value as Record<PropertyKey, unknown>;
    for (const key of Reflect.ownKeys(target)) {
      try {
        const before = target[key];
        const after = scrub(before, depth + 1);
        if (after === before) continue;
        try {
          target[key] = after;
        } catch {
          // Read-only: replaced through its descriptor below, when that is allowed.
        }
        const descriptor = Object.getOwnPropertyDescriptor(target, key);
        if (target[key] !== after && descriptor?.configurable) {
          Object.defineProperty(target, key, {
            value: after,
            writable: descriptor.writable ?? true,
            enumerable: descriptor.enumerable ?? false,
            configurable: true,
          });
        }
      } catch {
        // A field that cannot be read or written is left as it is.
      }
    }
    return value;
  };
  scrub(error, 0);
  return error;
}
