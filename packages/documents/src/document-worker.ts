/**
 * The worker that runs the document extractors, one file at a time, so that a file which exhausts memory or time
 * stops this thread and never the process that reads the folder (see document-sandbox.ts).
 */
import { parentPort } from 'node:worker_threads';
import { extractDocuments, oneLine, Skip, type DocumentReaderLimits } from './document-extract.js';
import type { ReaderReply, ReaderRequest } from './document-sandbox.js';

const port = parentPort;
if (port === null) throw new Error('document-worker.ts runs as a worker thread of document-sandbox.ts only.');

port.on('message', (request: ReaderRequest) => {
  void answer(request).then((reply) => port.postMessage(reply));
});
port.postMessage({ ready: true } satisfies ReaderReply);

async function answer(request: ReaderRequest): Promise<ReaderReply> {
  const limits: DocumentReaderLimits = request.limits;
  try {
    const documents = await extractDocuments(request.rel, request.extension, new Uint8Array(request.bytes), limits);
    return { id: request.id, documents };
  } catch (error) {
    if (error instanceof Skip) return { id: request.id, skip: error.message };
    // V8's message when a string would pass its maximum length: the text is over any limit the reader has.
    if (error instanceof RangeError && /string length/i.test(error.message))
      return {
        id: request.id,
        skip: `more than the ${limits.maxChars.toLocaleString('en-US')}-character limit on extracted text`,
      };
    return { id: request.id, error: oneLine(error) };
  }
}
