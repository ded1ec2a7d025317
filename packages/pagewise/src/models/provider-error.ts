/**
 * Provider failures as pagewise errors: what the AI SDK throws (an `APICallError` with its status, a
 * network failure, a response that does not parse) and the `DOMException` of an aborted fetch become a
 * {@link ProviderError} carrying the original as `cause`, so a caller handles one error family and still
 * reaches the status, headers and body when it needs them.
 */
import { AISDKError, APICallError } from '@ai-sdk/provider';
import { PagewiseError, type ErrorFault } from '../errors.js';

/** Why a provider call failed, as a stable code. */
export type ProviderErrorCode =
  | 'provider-unreachable'
  | 'provider-rate-limited'
  | 'provider-auth'
  | 'provider-not-found'
  | 'provider-bad-request'
  | 'provider-server-error'
  | 'provider-bad-response';

/** A model provider refused or failed a call; `cause` holds the provider library's own error. */
export class ProviderError extends PagewiseError {
  constructor(
    code: ProviderErrorCode,
    message: string,
    options: {
      fault: ErrorFault;
      retryable: boolean;
      cause: unknown;
      /** The HTTP status, when the provider answered. */
      statusCode?: number;
      /** The URL called, when known. */
      url?: string;
      /** The attempts made, retries included. */
      attempts?: number;
    },
  ) {
    super({ code, fault: options.fault, message, retryable: options.retryable, cause: options.cause });
    this.statusCode = options.statusCode;
    this.url = options.url;
    this.attempts = options.attempts;
  }

  readonly statusCode: number | undefined;
  readonly url: string | undefined;
  readonly attempts: number | undefined;
}

/** Node and undici codes of a connection that failed or broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The network code somewhere in an error's cause chain. */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function hostOf(url: string | undefined): string {
  if (!url) return 'the model provider';
  try {
    return new URL(url).host;
  } catch {
    return 'the model provider';
  }
}

const attemptsText = (attempts: number | undefined) =>
  attempts !== undefined && attempts > 1 ? ` after ${attempts} attempts` : '';

/** True for errors that {@link toProviderError} turns into a {@link ProviderError}. */
export function isProviderLibraryError(error: unknown): boolean {
  return (
    AISDKError.isInstance(error) ||
    error instanceof DOMException ||
    (error instanceof TypeError && networkCode(error) !== undefined) ||
    (error instanceof TypeError && /^(?:fetch failed|terminated)$/i.test(error.message))
  );
}

/**
 * The pagewise error for a provider failure: a pagewise error passes through; an AI SDK error, a
 * DOMException or a network `TypeError` becomes a {@link ProviderError} whose code says what to do;
 * anything else (an error thrown by a user's own model object) passes through unchanged.
 */
export function toProviderError(error: unknown, attempts?: number): unknown {
  if (PagewiseError.isInstance(error) || !isProviderLibraryError(error)) return error;
  const tries = attemptsText(attempts);
  if (APICallError.isInstance(error)) {
    const host = hostOf(error.url);
    const status = error.statusCode;
    const base = { cause: error, url: error.url, attempts, ...(status !== undefined ? { statusCode: status } : {}) };
    const code = networkCode(error);
    // A connection that broke, even after the status line came (a reset in the middle of a stream).
    if (status === undefined || code !== undefined) {
      return new ProviderError(
        'provider-unreachable',
        `Cannot reach ${host}${tries}${code ? ` (${code})` : ''}: ${error.message}. Check the network and the provider's base URL; the call may pass if repeated.`,
        { ...base, fault: 'system', retryable: true },
      );
    }
    if (status === 401 || status === 403)
      return new ProviderError(
        'provider-auth',
        `${host} refused the API key (HTTP ${status}): ${error.message}. Check the key variable of the provider and its permissions.`,
        { ...base, fault: 'configuration', retryable: false },
      );
    if (status === 404)
      return new ProviderError(
        'provider-not-found',
        `${host} does not know this model or endpoint (HTTP 404): ${error.message}. Check the model id and the base URL.`,
        { ...base, fault: 'configuration', retryable: false },
      );
    if (status === 429)
      return new ProviderError(
        'provider-rate-limited',
        `${host} is rate limiting or the quota is used up (HTTP 429)${tries}: ${error.message}. Wait and retry, raise \`maxRetries\`, or check the plan's quota.`,
        { ...base, fault: 'system', retryable: true },
      );
    if (status >= 500 || error.isRetryable)
      return new ProviderError(
        'provider-server-error',
        `${host} answered with an error (HTTP ${status})${tries}: ${error.message}. It may pass if retried later.`,
        { ...base, fault: 'system', retryable: true },
      );
    if (status >= 200 && status < 300)
      return new ProviderError(
        'provider-bad-response',
        `${host} sent a response that could not be read: ${error.message}. Check that the base URL points at an API of the kind the provider expects.`,
        { ...base, fault: 'system', retryable: false },
      );
    return new ProviderError(
      'provider-bad-request',
      `${host} refused the request (HTTP ${status}): ${error.message}. Check the model id and the request settings.`,
      { ...base, fault: 'configuration', retryable: false },
    );
  }
  const code = networkCode(error);
  if (code !== undefined || error instanceof TypeError)
    return new ProviderError(
      'provider-unreachable',
      `The connection to the model provider failed${tries}${code ? ` (${code})` : ''}: ${(error as Error).message}. The call may pass if repeated.`,
      { cause: error, fault: 'system', retryable: true, attempts },
    );
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(
    'provider-bad-response',
    `The model provider's answer could not be used: ${message}. Check that the base URL points at an API of the kind the provider expects.`,
    { cause: error, fault: 'system', retryable: false, attempts },
  );
}
