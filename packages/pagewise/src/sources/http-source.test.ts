// Tests of the HTTP source against a local server: the guards (on by default), reading, limits and redirects.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortedError,
  AccessDeniedError,
  ConfigurationError,
  LimitExceededError,
  NotFoundError,
  SystemError,
} from '../errors.js';
import { createHttpSource } from './http-source.js';

let server: http.Server;
let base: string;
let port: number;
let connections = 0;
const hits = new Map<string, number>();

const page =
  '<html><head><title>Local page</title><script>steal()</script></head><body><h1>Welcome</h1><p>Readable body.</p></body></html>';

beforeAll(async () => {
  server = http.createServer((request, response): void => {
    const path = request.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      response.end(body);
    };
    const redirect = (location: string) => {
      response.writeHead(302, { location });
      response.end();
    };
    switch (path) {
      case '/page':
        return send(200, 'text/html; charset=utf-8', page);
      case '/notes.md':
        return send(200, 'text/markdown', '# Notes\n\nplain markdown');
      case '/data':
        return send(200, 'application/json', '{"ok":true}');
      case '/latin1':
        response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
        response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
        return;
      case '/image':
        return send(200, 'image/png', 'PNG');
      case '/big-declared':
        return send(200, 'text/plain', 'x'.repeat(5000));
      case '/big-streamed': {
        response.writeHead(200, { 'content-type': 'text/plain' });
        let sent = 0;
        const pump = () => {
          if (sent >= 50 || response.destroyed) {
            response.end();
            return;
          }
          sent += 1;
          response.write('y'.repeat(1000));
          setTimeout(pump, 1);
        };
        return pump();
      }
      case '/hang':
        return; // Never answers.
      case '/hang-body':
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('partial');
        return;
      case '/missing':
        return send(404, 'text/plain', 'no');
      case '/broken':
        return send(503, 'text/plain', 'down');
      case '/redirect':
        return redirect('/page');
      case '/loop':
        return redirect('/loop');
      case '/to-localhost':
        return redirect(`http://localhost:${port}/page`);
      case '/to-file':
        return redirect('file:///etc/passwd');
      default:
        return send(404, 'text/plain', 'unknown');
    }
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  connections = 0;
  hits.clear();
});

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );

const local = (options: Parameters<typeof createHttpSource>[0] = {}) =>
  createHttpSource({ allowPrivateNetwork: true, ...options });

describe('createHttpSource address guard', () => {
  it('refuses a loopback address by default, before connecting, and says how to allow it', async () => {
    const error = await failure(createHttpSource().load(`${base}/page`));
    expect(error).toBeInstanceOf(AccessDeniedError);
    expect((error as Error).message).toMatch(/loopback/);
    expect((error as Error).message).toMatch(/allowPrivateNetwork: true/);
    expect(connections).toBe(0);
  });

  it('refuses the name "localhost" at connect time, from the address it resolves to', async () => {
    const error = await failure(createHttpSource().load(`http://localhost:${port}/page`));
    expect(error).toBeInstanceOf(AccessDeniedError);
    expect((error as Error).message).toMatch(/resolves to (127\.0\.0\.1|::1)/);
    expect(connections).toBe(0);
  });

  it('refuses other IP literal spellings of private addresses', async () => {
    const source = createHttpSource();
    for (const url of [
      'http://2130706433/',
      'http://0x7f.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.1/',
    ]) {
      await expect(source.load(url)).rejects.toBeInstanceOf(AccessDeniedError);
    }
  });

  it('refuses schemes other than http and https', async () => {
    const source = createHttpSource();
    for (const uri of [
      'file:///etc/passwd',
      'ftp://example.com/file.txt',
      'javascript:alert(1)',
      'data:text/plain,hi',
    ]) {
      expect(source.canLoad(uri)).toBe(false);
      const error = await failure(source.load(uri));
      expect(error).toBeInstanceOf(AccessDeniedError);
      expect((error as Error).message).toMatch(/only http: and https:/);
    }
  });

  it('refuses URLs with credentials', async () => {
    await expect(local().load(`http://user:pw@127.0.0.1:${port}/page`)).rejects.toThrow(/user name or password/);
  });

  it('refuses hosts outside allowHosts', async () => {
    const error = await failure(local({ allowHosts: ['docs.example.com'] }).load(`${base}/page`));
    expect(error).toBeInstanceOf(AccessDeniedError);
    expect((error as Error).message).toMatch(/allowHosts/);
    expect(connections).toBe(0);
  });
});

describe('createHttpSource reading', () => {
  it('reads HTML as text once private networks are allowed', async () => {
    const doc = await local().load(`${base}/page`);
    expect(doc).toMatchObject({
      uri: `${base}/page`,
      title: 'Local page',
      body: 'Welcome\n\nReadable body.',
      mediaType: 'text/plain',
    });
    expect(doc.body).not.toContain('steal');
  });

  it('passes Markdown and JSON through and honours the charset', async () => {
    const source = local();
    expect(await source.load(`${base}/notes.md`)).toMatchObject({
      title: 'Notes',
      body: '# Notes\n\nplain markdown',
      mediaType: 'text/markdown',
    });
    expect(await source.load(`${base}/data`)).toMatchObject({
      title: 'data',
      body: '{"ok":true}',
      mediaType: 'application/json',
    });
    expect((await source.load(`${base}/latin1`)).body).toBe('café');
  });

  it('refuses other media types, saying what it reads', async () => {
    const error = await failure(local().load(`${base}/image`));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/image\/png.*HTML, plain text, Markdown and JSON/);
  });

  it('maps HTTP errors by who can fix them', async () => {
    await expect(local().load(`${base}/missing`)).rejects.toBeInstanceOf(NotFoundError);
    const error = await failure(local().load(`${base}/broken`));
    expect(error).toBeInstanceOf(SystemError);
    expect((error as SystemError).retryable).toBe(true);
  });

  it('stops at maxBytes, whether the size is declared or streamed', async () => {
    for (const path of ['/big-declared', '/big-streamed']) {
      const error = await failure(local({ maxBytes: 2000 }).load(`${base}${path}`));
      expect(error).toBeInstanceOf(LimitExceededError);
      expect((error as LimitExceededError).limit).toBe('maxBytes');
      expect((error as Error).message).toMatch(/createHttpSource\(\{ maxBytes \}\)/);
    }
    expect((await local({ maxBytes: 5000 }).load(`${base}/big-declared`)).body).toHaveLength(5000);
  });

  it('times out on a server that never answers, and on a body that never ends', async () => {
    for (const path of ['/hang', '/hang-body']) {
      const started = Date.now();
      const error = await failure(local({ timeoutMs: 200 }).load(`${base}${path}`));
      expect(error).toBeInstanceOf(SystemError);
      expect((error as SystemError).code).toBe('timeout');
      expect((error as Error).message).toMatch(/timeoutMs/);
      expect(Date.now() - started).toBeLessThan(10_000);
    }
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(local().load(`${base}/hang`, { signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
  });
});

describe('createHttpSource redirects', () => {
  it('follows a redirect and reports the requested URI', async () => {
    const doc = await local().load(`${base}/redirect`);
    expect(doc).toMatchObject({ uri: `${base}/redirect`, title: 'Local page' });
  });

  it('caps the number of redirects, naming the setting', async () => {
    const error = await failure(local({ maxRedirects: 3 }).load(`${base}/loop`));
    expect(error).toBeInstanceOf(LimitExceededError);
    expect((error as LimitExceededError).limit).toBe('maxRedirects');
    expect(hits.get('/loop')).toBe(4);
    await expect(local({ maxRedirects: 0 }).load(`${base}/redirect`)).rejects.toBeInstanceOf(LimitExceededError);
  });

  it('re-checks every hop: a redirect to a host outside allowHosts is refused', async () => {
    const error = await failure(local({ allowHosts: ['127.0.0.1'] }).load(`${base}/to-localhost`));
    expect(error).toBeInstanceOf(AccessDeniedError);
    expect((error as Error).message).toMatch(/localhost.*redirected from/);
    expect(hits.get('/page')).toBeUndefined();
  });

  it('re-checks every hop: a redirect to another scheme is refused', async () => {
    const error = await failure(local().load(`${base}/to-file`));
    expect(error).toBeInstanceOf(AccessDeniedError);
    expect((error as Error).message).toMatch(/file:.*redirected from/);
  });
});

describe('createHttpSource settings', () => {
  it('fails at creation on bad settings', () => {
    expect(() => createHttpSource({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createHttpSource({ maxRedirects: -1 })).toThrow(/maxRedirects/);
    expect(() => createHttpSource({ allowHosts: [] })).toThrow(/allowHosts/);
  });
});
