/**
 * Loads documents over HTTP(S), guarded for URIs that come from a model: public addresses only (checked
 * when connecting, on every redirect hop), a byte cap enforced while streaming, and one deadline for
 * the whole request.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import {
  AbortedError,
  AccessDeniedError,
  ConfigurationError,
  LimitExceededError,
  NotFoundError,
  PagewiseError,
  SystemError,
} from '../errors.js';
import { classifyAddress, guardedLookup, PRIVATE_NETWORK_HINT } from './address-guard.js';
import { integerOption, throwIfAborted } from './guards.js';
import { htmlToReadableText } from './html.js';
import { DEFAULT_MAX_DOCUMENT_BYTES } from './source.js';
import type { DocumentSource, LoadedDocument, LoadOptions } from './source.js';
import { titleFromText } from './title.js';

/** Options of {@link createHttpSource}. */
export interface HttpSourceOptions {
  /** Deadline for the whole load, redirects and body included, in milliseconds. Default 15000. */
  timeoutMs?: number;
  /** Largest response body that is read, in bytes. Default 5 MiB. */
  maxBytes?: number;
  /** How many redirects are followed before giving up. Default 5; 0 follows none. */
  maxRedirects?: number;
  /**
   * Allows loopback, private, link-local and other non-public addresses. Default false: only public
   * unicast addresses are contacted, which keeps a model from reaching internal services.
   */
  allowPrivateNetwork?: boolean;
  /**
   * When set, only these host names (exact, case-insensitive) are contacted, on every redirect hop.
   * This narrows the address check; it does not replace it.
   */
  allowHosts?: readonly string[];
  /** The User-Agent header. Default `pagewise`. */
  userAgent?: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown', 'application/json']);

/** What one request (one redirect hop) came back with. */
type Hop =
  { kind: 'redirect'; location: string } | { kind: 'document'; contentType: string | undefined; bytes: Buffer };

interface HopSettings {
  maxBytes: number;
  userAgent: string;
  lookup: LookupFunction | undefined;
  signal: AbortSignal;
}

/**
 * Creates a source that reads `http:` and `https:` URLs. HTML is converted to readable text (title from
 * `<title>`); plain text, Markdown and JSON are passed through; other media types are refused. The
 * returned document's `uri` is the requested URL, normalized, even when redirects were followed.
 *
 * By default only public addresses are contacted. The check runs in the connection's DNS lookup, so
 * it applies to the address actually connected to, and is repeated on each redirect hop.
 *
 * @example
 * const web = createHttpSource({ allowHosts: ['docs.example.com'], timeoutMs: 5000 });
 * const page = await web.load('https://docs.example.com/guide');
 */
export function createHttpSource(options: HttpSourceOptions = {}): DocumentSource {
  const timeoutMs = integerOption(options.timeoutMs, 15_000, 1, 'createHttpSource({ timeoutMs })');
  const maxBytes = integerOption(options.maxBytes, DEFAULT_MAX_DOCUMENT_BYTES, 1, 'createHttpSource({ maxBytes })');
  const maxRedirects = integerOption(options.maxRedirects, 5, 0, 'createHttpSource({ maxRedirects })');
  const allowPrivateNetwork = options.allowPrivateNetwork ?? false;
  const allowHosts = options.allowHosts === undefined ? undefined : new Set(options.allowHosts.map(normalizeHost));
  if (allowHosts !== undefined && allowHosts.size === 0) {
    throw new ConfigurationError(
      'invalid-option',
      'createHttpSource({ allowHosts }) is empty, which would refuse every URL. Omit it to allow any public host.',
    );
  }
  const userAgent = options.userAgent ?? 'pagewise';
  // Without the guard Node's own lookup runs, so private names resolve as usual.
  const lookup = allowPrivateNetwork ? undefined : guardedLookup();

  /** Refuses a URL before any connection is made; `from` is the previous hop of a redirect. */
  function checkUrl(url: URL, from: string | undefined): void {
    const context = from === undefined ? '' : ` (redirected from ${from})`;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new AccessDeniedError(
        `Refused ${url.protocol} URL${context}: the HTTP source reads only http: and https: URLs.`,
      );
    }
    if (url.username !== '' || url.password !== '') {
      throw new AccessDeniedError(
        `Refused ${url.host}${context}: URLs with a user name or password are refused, because credentials in URLs end up in logs and pages.`,
      );
    }
    const host = normalizeHost(url.hostname);
    if (allowHosts !== undefined && !allowHosts.has(host)) {
      throw new AccessDeniedError(
        `Refused ${host}${context}: it is not in allowHosts (${[...allowHosts].join(', ')}). Add it to createHttpSource({ allowHosts }) to read from it.`,
      );
    }
    // Node connects to a literal IP without calling `lookup`, so literals are checked here instead.
    if (!allowPrivateNetwork && isIP(host) !== 0) {
      const { public: isPublic, range } = classifyAddress(host);
      if (!isPublic)
        throw new AccessDeniedError(
          `Refused ${url.href}${context}: ${host} is a ${range} address, not a public one. ${PRIVATE_NETWORK_HINT}`,
        );
    }
  }

  async function load(uri: string, loadOptions: LoadOptions = {}): Promise<LoadedDocument> {
    const outer = loadOptions.signal;
    throwIfAborted(outer, uri);
    let url = parseUrl(uri);
    const requested = url.href;

    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, timeoutMs);
    const forwardAbort = () => deadline.abort();
    outer?.addEventListener('abort', forwardAbort, { once: true });
    const settings: HopSettings = { maxBytes, userAgent, lookup, signal: deadline.signal };

    try {
      let from: string | undefined;
      for (let redirects = 0; ; redirects += 1) {
        checkUrl(url, from);
        const hop = await requestOnce(url, settings);
        if (hop.kind === 'document') return toDocument(requested, url, hop);
        if (redirects >= maxRedirects) {
          throw new LimitExceededError(
            'maxRedirects',
            maxRedirects,
            'createHttpSource({ maxRedirects })',
            `${requested} redirects more often`,
          );
        }
        from = url.href;
        url = parseUrl(hop.location, url);
      }
    } catch (error) {
      if (deadline.signal.aborted && !PagewiseError.isInstance(error)) {
        if (outer?.aborted) throw new AbortedError(`Loading ${requested} was aborted through its AbortSignal.`);
        if (timedOut) {
          throw new SystemError(
            'timeout',
            `Loading ${requested} took longer than ${timeoutMs} ms. Raise createHttpSource({ timeoutMs }) for slow servers.`,
            { retryable: true },
          );
        }
      }
      if (PagewiseError.isInstance(error)) throw error;
      throw new SystemError(
        'http-request',
        `Requesting ${url.href} failed: ${describe(error)}. Check the address and the network, then retry.`,
        { retryable: true, cause: error },
      );
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forwardAbort);
    }
  }

  return {
    name: 'http',
    canLoad: (uri) => /^https?:\/\//i.test(uri),
    load,
  };
}

/** One GET request: a redirect target, or the whole body read under the byte cap. */
async function requestOnce(url: URL, settings: HopSettings): Promise<Hop> {
  // Node's HTTP client (TLS included) loads with the first request, not when pagewise is imported
  // (test/packaging/lean-import.test.ts).
  const transport = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<Hop>((resolve, reject) => {
    const request = transport.request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: {
        'user-agent': settings.userAgent,
        accept: 'text/html, application/xhtml+xml, text/markdown, text/plain, application/json;q=0.9',
        // The byte cap counts what is read; a compressed body could expand far beyond it.
        'accept-encoding': 'identity',
      },
      // A fresh connection every time: a pooled socket would skip the connect-time address check.
      agent: false,
      lookup: settings.lookup,
    });
    let done = false;
    const settle = (outcome: { hop: Hop } | { error: unknown }) => {
      if (done) return;
      done = true;
      settings.signal.removeEventListener('abort', onAbort);
      if ('hop' in outcome) {
        resolve(outcome.hop);
      } else {
        request.destroy();
        reject(outcome.error);
      }
    };
    const onAbort = () => settle({ error: new Error('aborted') });
    request.on('error', (error) => settle({ error }));
    if (settings.signal.aborted) {
      onAbort();
      return;
    }
    settings.signal.addEventListener('abort', onAbort, { once: true });
    request.on('response', (response: IncomingMessage) => {
      response.on('error', (error) => settle({ error }));
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        const location = response.headers.location;
        if (location === undefined || location === '') {
          settle({
            error: new SystemError(
              'http-status',
              `${url.href} answered ${status} without a Location header; the redirect cannot be followed.`,
            ),
          });
        } else {
          settle({ hop: { kind: 'redirect', location } });
          request.destroy();
        }
        return;
      }
      if (status < 200 || status > 299) {
        settle({ error: statusError(url, status, response.statusMessage) });
        return;
      }
      const encoding = response.headers['content-encoding'];
      if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
        settle({
          error: new SystemError(
            'unsupported-encoding',
            `${url.href} sent a ${encoding}-encoded body although none was asked for; it cannot be read.`,
          ),
        });
        return;
      }
      const tooLarge = (size: number) =>
        new LimitExceededError(
          'maxBytes',
          settings.maxBytes,
          'createHttpSource({ maxBytes })',
          `${url.href} sent ${size} bytes or more`,
        );
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > settings.maxBytes) {
        settle({ error: tooLarge(declared) });
        return;
      }
      const chunks: Buffer[] = [];
      let total = 0;
      response.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > settings.maxBytes) {
          settle({ error: tooLarge(total) });
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        settle({
          hop: { kind: 'document', contentType: response.headers['content-type'], bytes: Buffer.concat(chunks, total) },
        });
      });
      response.on('close', () => {
        if (!response.complete) settle({ error: new Error('the connection closed before the body was complete') });
      });
    });
    request.end();
  });
}

function toDocument(requested: string, finalUrl: URL, hop: Extract<Hop, { kind: 'document' }>): LoadedDocument {
  const [rawType = '', ...parameters] = (hop.contentType ?? '').split(';');
  const mediaType = rawType.trim().toLowerCase();
  const charset = parameters
    .map((parameter) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(parameter)?.[1])
    .find((value) => value !== undefined);
  const text = decode(hop.bytes, charset);
  const fallbackTitle = titleFromUrl(finalUrl);
  if (HTML_TYPES.has(mediaType)) {
    const readable = htmlToReadableText(text);
    return {
      uri: requested,
      title: readable.title || titleFromText(readable.text, fallbackTitle),
      body: readable.text,
      mediaType: 'text/plain',
      fetchedAt: Date.now(),
    };
  }
  if (TEXT_TYPES.has(mediaType)) {
    return {
      uri: requested,
      title: mediaType === 'application/json' ? fallbackTitle : titleFromText(text, fallbackTitle),
      body: text,
      mediaType: mediaType === 'text/x-markdown' ? 'text/markdown' : mediaType,
      fetchedAt: Date.now(),
    };
  }
  const what = mediaType === '' ? 'has no Content-Type' : `is ${mediaType}`;
  throw new ConfigurationError(
    'unsupported-media-type',
    `${finalUrl.href} ${what}, which the HTTP source does not read (it reads HTML, plain text, Markdown and JSON). Load it with a custom loaderSource instead.`,
  );
}

function statusError(url: URL, status: number, statusMessage: string | undefined): PagewiseError {
  const answer = `${status}${statusMessage ? ` ${statusMessage}` : ''}`;
  if (status === 404 || status === 410)
    return new NotFoundError('Document', url.href, `The server answered ${answer}; check the address.`);
  if (status === 408 || status === 429 || status >= 500) {
    return new SystemError('http-status', `${url.href} answered ${answer}. The server may recover; retry later.`, {
      retryable: true,
    });
  }
  return new ConfigurationError(
    'http-status',
    `${url.href} answered ${answer}. Check the address; pages behind a login cannot be read by the HTTP source.`,
  );
}

function parseUrl(uri: string, base?: URL): URL {
  try {
    return new URL(uri, base);
  } catch (error) {
    const where = base === undefined ? '' : ` (redirect from ${base.href})`;
    throw new ConfigurationError(
      'invalid-url',
      `"${uri}"${where} is not a valid URL; give an absolute http: or https: URL.`,
      error,
    );
  }
}

function decode(bytes: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    // An unknown charset label: UTF-8 with replacement characters beats refusing the page.
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function titleFromUrl(url: URL): string {
  const segment = url.pathname
    .split('/')
    .filter((part) => part !== '')
    .pop();
  if (segment === undefined) return url.hostname;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Lower case, without IPv6 brackets or a trailing dot, so `Example.COM.` and `example.com` are one host. */
function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${code} (${error.message})` : error.message;
  }
  return String(error);
}
