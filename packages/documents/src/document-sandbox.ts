/**
 * Runs the document extractors in a worker thread with a deadline and a memory limit per file. PDF, DOCX and XLSX
 * parsers can be made to loop for minutes or to unpack gigabytes by a file of a few kilobytes; in a worker, such a
 * file ends with the worker stopped and one skip line, while the process that reads the folder stays responsive.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AbortedError, SystemError } from 'pagewise';
import { Skip, type DocumentReaderLimits, type FolderDocument } from './document-extract.js';
import { throwIfAborted } from 'pagewise/internal';

/** A file for the worker to read. */
export interface ReaderRequest {
  id: number;
  rel: string;
  extension: string;
  bytes: ArrayBuffer;
  limits: DocumentReaderLimits;
}

/** The worker's answer: its documents, a skip reason, or an unexpected error; `ready` once it has loaded. */
export type ReaderReply =
  | { ready: true }
  | { id: number; documents: FolderDocument[] }
  | { id: number; skip: string }
  | { id: number; error: string };

/** How often the process's resident size is sampled while a file is read. */
const MEMORY_SAMPLE_MS = 20;

/**
 * One worker, reused file after file and replaced after a file that stopped it. Reads are sequential: a second
 * call waits for the first.
 */
export class DocumentSandbox {
  private worker: Worker | undefined;
  private ready: Promise<Worker> | undefined;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly limits: DocumentReaderLimits) {}

  /** The documents of one file; throws {@link Skip} with the limit it passed, or the reason it was declined. */
  read(rel: string, extension: string, bytes: Uint8Array, signal?: AbortSignal): Promise<FolderDocument[]> {
    const run = this.queue.then(() => this.readNow(rel, extension, bytes, signal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops the worker; a later read starts a new one. */
  async close(): Promise<void> {
    await this.queue;
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (worker) await worker.terminate();
  }

  private async readNow(
    rel: string,
    extension: string,
    bytes: Uint8Array,
    signal: AbortSignal | undefined,
  ): Promise<FolderDocument[]> {
    throwIfAborted(signal, rel);
    const worker = await this.start();
    const id = this.nextId++;
    // A copy the worker owns: the caller's buffer may be a view into a shared pool.
    const owned = new Uint8Array(bytes).buffer;
    const limits = this.limits;
    return new Promise<FolderDocument[]>((resolve, reject) => {
      const baseline = process.memoryUsage.rss();
      let settled = false;
      const finish = (outcome: () => void, stop: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearInterval(sampler);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
        if (stop) this.discard(worker);
        outcome();
      };
      const onMessage = (reply: ReaderReply) => {
        if (!('id' in reply) || reply.id !== id) return;
        if ('documents' in reply) finish(() => resolve(reply.documents), false);
        else if ('skip' in reply) finish(() => reject(new Skip(reply.skip)), false);
        else finish(() => reject(new Skip(`cannot be read (${reply.error})`)), false);
      };
      const onError = (error: Error & { code?: string }) => {
        const reason =
          error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? memoryReason(limits) : `cannot be read (${firstLine(error)})`;
        finish(() => reject(new Skip(reason)), true);
      };
      const onExit = (code: number) =>
        finish(() => reject(new Skip(`cannot be read (the reader stopped with code ${code})`)), true);
      const deadline = setTimeout(() => finish(() => reject(new Skip(timeReason(limits))), true), limits.timeoutMs);
      // The heap limit of the worker does not cover buffers (a PDF stream inflates into one): the resident size does.
      const sampler = setInterval(() => {
        if (process.memoryUsage.rss() - baseline > limits.memoryBytes)
          finish(() => reject(new Skip(memoryReason(limits))), true);
      }, MEMORY_SAMPLE_MS);
      // An abort stops the file being read at once, not after it.
      const onAbort = () =>
        finish(() => reject(new AbortedError(`Loading ${rel} was aborted through its AbortSignal.`)), true);
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ id, rel, extension, bytes: owned, limits } satisfies ReaderRequest, [owned]);
    });
  }

  /** Stops a worker that ran past a limit; the next read starts a fresh one. */
  private discard(worker: Worker): void {
    if (this.worker === worker) {
      this.worker = undefined;
      this.ready = undefined;
    }
    void worker.terminate();
  }

  private start(): Promise<Worker> {
    if (this.ready) return this.ready;
    const heapMb = Math.max(16, Math.floor(this.limits.memoryBytes / (1024 * 1024)));
    const worker = spawnWorker({ maxOldGenerationSizeMb: heapMb });
    // An error after its file was settled (the worker stopped for its deadline then ran out of heap) is expected.
    worker.on('error', () => undefined);
    // A worker that ended between files (crashed, or stopped from outside) is replaced on the next read.
    worker.once('exit', () => {
      if (this.worker === worker) {
        this.worker = undefined;
        this.ready = undefined;
      }
    });
    this.worker = worker;
    this.ready = new Promise<Worker>((resolve, reject) => {
      const onMessage = (reply: ReaderReply) => {
        if (!('ready' in reply)) return;
        cleanup();
        resolve(worker);
      };
      const onError = (error: Error) => {
        cleanup();
        reject(
          new SystemError('document-reader-failed', `The document reader could not start (${firstLine(error)}).`, {
            cause: error,
          }),
        );
      };
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
    });
    this.ready.catch(() => {
      this.worker = undefined;
      this.ready = undefined;
    });
    return this.ready;
  }
}

function timeReason(limits: DocumentReaderLimits): string {
  return `took longer than the ${seconds(limits.timeoutMs)} limit per file (raise it with --file-timeout)`;
}

function memoryReason(limits: DocumentReaderLimits): string {
  return `needed more than the ${Math.round(limits.memoryBytes / (1024 * 1024))} MB memory limit per file (raise it with --file-memory-mb)`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function firstLine(error: Error): string {
  return error.message.split('\n')[0]!.slice(0, 160);
}

/**
 * The flags and environment the worker starts with: its own, never the parent's. A worker inherits
 * `process.execArgv` and (through its environment) `NODE_OPTIONS` by default, and flags that suit the parent can
 * stop it: under `node --input-type=module -e …` a worker started from a file fails with "--input-type can only be
 * used with string input". The reader needs no flag of the parent's, so it is given none of them.
 */
function readerWorkerSettings(
  fromSources: boolean,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { execArgv: string[]; env: Record<string, string> } {
  const own: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (name !== 'NODE_OPTIONS' && value !== undefined) own[name] = value;
  // From the sources, the worker's own imports of the workspace packages resolve to their sources too.
  return { execArgv: fromSources ? [`--conditions=${SOURCE_CONDITION}`] : [], env: own };
}

/** The export condition that maps each workspace package to its `src/` (see vitest.config.ts). */
const SOURCE_CONDITION = '@pagewise/source';

/**
 * The compiled worker next to this file; from the TypeScript sources (tests, `tsx`), the worker first registers
 * tsx's loader, which the thread does not inherit from a test runner.
 */
function spawnWorker(resourceLimits: { maxOldGenerationSizeMb: number }): Worker {
  const here = import.meta.url;
  const fromSources = here.endsWith('.ts');
  const settings = readerWorkerSettings(fromSources);
  if (!fromSources) return new Worker(new URL('./document-worker.js', here), { resourceLimits, ...settings });
  const entry = new URL('./document-worker.ts', here).href;
  const loader = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const code = `import(${JSON.stringify(loader)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { eval: true, resourceLimits, ...settings });
}
