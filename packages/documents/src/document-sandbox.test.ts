import { describe, expect, it } from 'vitest';
import { manyPagesPdf, nestedStatesPdf } from '../../../test/support/hostile-files.js';
import { AbortedError } from 'pagewise';
import { DEFAULT_READER_LIMITS, Skip } from './document-extract.js';
import { DocumentSandbox } from './document-sandbox.js';

describe('DocumentSandbox', () => {
  it('stops a file being read when its signal aborts, and reads the next in a fresh worker', async () => {
    const sandbox = new DocumentSandbox({ ...DEFAULT_READER_LIMITS });
    try {
      // Loads the worker first, so the abort below lands while the slow file is being parsed.
      expect(await sandbox.read('warm.pdf', 'pdf', manyPagesPdf(1))).toHaveLength(1);
      const abort = new AbortController();
      const slow = sandbox.read('nested.pdf', 'pdf', await nestedStatesPdf(200_000), abort.signal);
      setTimeout(() => abort.abort(), 300);
      const started = performance.now();
      await expect(slow).rejects.toBeInstanceOf(AbortedError);
      // Well before the 60 s deadline: the abort, not the deadline, ended it.
      expect(performance.now() - started).toBeLessThan(30_000);
      const pages = await sandbox.read('after.pdf', 'pdf', manyPagesPdf(2));
      expect(pages.map((d) => d.uri)).toEqual(['after.pdf#1', 'after.pdf#2']);
    } finally {
      await sandbox.close();
    }
  }, 60_000);

  it('skips a damaged file with its reason and keeps the worker for the next', async () => {
    const sandbox = new DocumentSandbox({ ...DEFAULT_READER_LIMITS });
    try {
      const damaged = sandbox.read('broken.docx', 'docx', Buffer.from('PK not really an archive'));
      await expect(damaged).rejects.toBeInstanceOf(Skip);
      await expect(damaged).rejects.toThrow('not a ZIP archive (no end record)');
      expect(await sandbox.read('ok.pdf', 'pdf', manyPagesPdf(1))).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});
