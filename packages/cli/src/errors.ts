/**
 * Errors in the command line's terms. The library names options (`limits.maxSteps`, `contextWindow`, `url`); a CLI
 * user can only change flags and environment variables, so each error is told with the flag or variable that
 * changes it, and failures to reach a server are told apart from a server that refused the key.
 */
import { APICallError } from '@ai-sdk/provider';
import { ContextWindowExceededError, LimitExceededError, PagewiseError, redactSecrets } from 'pagewise';

/** Exit codes of the CLI (documented in the README). */
export const EXIT = {
  ok: 0,
  usage: 1,
  /** A flag, environment variable, key, file or model id to fix. */
  configuration: 2,
  /** The prompt outgrew the context window. */
  contextWindow: 3,
  /** A server (model provider, database, queue) could not be reached. */
  network: 4,
  /** The provider answered with an error that is not about the key (rate limit, overload, server error). */
  provider: 5,
  /** `analyze` answered, but not from every document it chose (it read some of them, or none). */
  ungrounded: 6,
  /** A bug: an unexpected failure, printed with its stack. */
  internal: 70,
  /** Interrupted with Ctrl-C. */
  interrupted: 130,
} as const;

/** Library settings and the flags that change them. */
const SETTING_FLAGS: Readonly<Record<string, string>> = {
  'limits.maxSteps':
    'the run made more model calls than allowed for this folder; a small --budget makes more, smaller reads: raise --budget or lower --batch',
  'limits.maxWallTimeMs': 'the run took longer than its time limit: raise --deadline (seconds)',
  ramBudgetTokens: 'raise --budget, or lower --batch so fewer documents are read at once',
  maxPagesPerRead: 'lower --batch',
  'createFolderSource({ maxBytes })': 'raise --max-file-mb',
};

// Error codes of Node's network stack and of undici (fetch), by what they mean to a user.
const NETWORK_CODES: Readonly<Record<string, string>> = {
  ENOTFOUND: 'the host name does not resolve (DNS)',
  EAI_AGAIN: 'the host name could not be resolved right now (DNS)',
  ECONNREFUSED: 'the connection was refused (nothing listens on that port)',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'the server did not answer in time',
  UND_ERR_SOCKET: 'the connection broke',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host name',
};

/** The network failure somewhere in an error's cause chain, if any. */
function networkFailure(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES[code]) return `${NETWORK_CODES[code]} (${code})`;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function hostOf(url: string | undefined): string {
  if (!url) return 'the server';
  try {
    return new URL(url).host;
  } catch {
    return 'the server';
  }
}

/** The provider library's error behind a library error (the library wraps it as the cause), or the error itself. */
function apiCallError(error: unknown): APICallError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    if (APICallError.isInstance(current)) return current;
    if (!PagewiseError.isInstance(current)) return undefined;
    current = current.cause;
  }
  return undefined;
}

/**
 * True for a failure that a later run may get past (a rate limit, a server error, a network failure, a
 * timeout): the CLI then prints how to continue the session instead of starting over.
 */
export function isTransientFailure(error: unknown): boolean {
  const api = apiCallError(error);
  if (api) return api.isRetryable || api.statusCode === undefined;
  return (PagewiseError.isInstance(error) && error.retryable) || networkFailure(error) !== undefined;
}

/**
 * A runtime message in the CLI's terms: the flags where it names library options. The CLI prints errors through
 * it, and `pagewise inspect` shows stored error messages (a failed run's tooltip) through it.
 */
export function inCliTerms(message: string): string {
  return message
    .replace(
      /raise the window with the `contextWindow` setting \(0 turns the check off\)/g,
      'raise the window with --window (--window 0 turns the check off)',
    )
    .replace(/raise the window with the `contextWindow` setting/g, 'raise --window')
    .replace(/\bpass `url`/g, 'pass --url')
    .replace(
      /Raise `timeoutMs` in the retry settings\./g,
      'Raise --timeout (seconds per call), or check that the model server answers.',
    );
}

/** What the CLI prints for an error, and the exit code; undefined for an unexpected failure (a bug). */
export function describeError(command: string, error: unknown): { message: string; exitCode: number } | undefined {
  const say = (message: string, exitCode: number) => ({
    message: redactSecrets(`pagewise ${command}: ${message}`),
    exitCode,
  });
  const api = apiCallError(error);
  if (error instanceof LimitExceededError) {
    const hint = SETTING_FLAGS[error.setting];
    const base = error.message.replace(/ Raise it with the setting `[^`]*`\.$/, '');
    return say(hint ? `${base}. ${hint.charAt(0).toUpperCase()}${hint.slice(1)}.` : base, EXIT.configuration);
  }
  if (error instanceof ContextWindowExceededError) return say(inCliTerms(error.message), EXIT.contextWindow);
  if (api) {
    const host = hostOf(api.url);
    const status = api.statusCode;
    if (status === undefined) {
      const why = networkFailure(api) ?? api.message;
      return say(
        `cannot reach the model provider at ${host}: ${why}. Check the network, the host name and the base URL variable (PAGEWISE_OPENAI_COMPATIBLE_BASE_URL for openai-compatible).`,
        EXIT.network,
      );
    }
    if (status === 401 || status === 403)
      return say(
        `the model provider at ${host} refused the API key (HTTP ${status}): ${api.message}. Check the key variable for the provider (OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, PAGEWISE_OPENAI_COMPATIBLE_API_KEY) and its permissions.`,
        EXIT.configuration,
      );
    if (status === 404)
      return say(
        `the model provider at ${host} does not know this model (HTTP 404): ${api.message}. Check the model id in --model.`,
        EXIT.configuration,
      );
    if (status === 429)
      return say(
        `the model provider at ${host} is rate limiting or the quota is used up (HTTP 429): ${api.message}. Wait and retry, or check the plan's quota.`,
        EXIT.provider,
      );
    return say(
      `the model provider at ${host} answered with an error (HTTP ${status}): ${api.message}.${api.isRetryable ? ' It may pass if retried later.' : ''}`,
      EXIT.provider,
    );
  }
  if (PagewiseError.isInstance(error))
    return say(
      inCliTerms(error.message),
      error.fault === 'system' && networkFailure(error) ? EXIT.network : EXIT.configuration,
    );
  const network = networkFailure(error);
  if (network) return say(`cannot reach a server: ${network}.`, EXIT.network);
  return undefined;
}
