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
  constructor(readonly variable: string, provider: string) {
    super('missing-api-key', `No API key for ${provider}: set the environment variable ${variable}, or use the model "offline", which needs no key.`);
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
    super('limit-exceeded', `Limit "${limit}" of ${value} exceeded${detail ? ` (${detail})` : ''}. Raise it with the setting \`${setting}\`.`);
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
  constructor(message: string, cause?: unknown) {
    super('storage', message, { cause });
  }
}

/** A request to an untrusted location (URL, path) was refused by a guard. */
export class AccessDeniedError extends ConfigurationError {
  constructor(message: string) {
    super('access-denied', message);
  }
}
