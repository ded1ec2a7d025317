/**
 * An interrupted analysis continues through Runner.resume: the recorded tool calls are not repeated and the
 * answer comes out as if the run had not stopped.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemorySessionStore } from '../../../../pagewise/src/session/memory-store.js';
import type { Session, SessionEvent } from '../../../../pagewise/src/session/types.js';
import { folderCorpus, runReportAnalysis } from './run.js';

describe('analyze --resume', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pagewise-resume-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('continues an analysis interrupted after its search, without searching again', async () => {
    writeFileSync(path.join(dir, 'fleet.md'), '# Fleet\n\nThe fleet grew to 48 vessels in 2024.\n');
    writeFileSync(path.join(dir, 'staff.md'), '# Staff\n\nHeadcount stayed at 300.\n');
    const corpus = await folderCorpus(dir);
    const store = new InMemorySessionStore();
    const abort = new AbortController();
    // Stops the run once the search result is stored, as Ctrl-C would between two steps.
    const appendEvents = store.appendEvents.bind(store);
    store.appendEvents = async (session: Session, events: readonly SessionEvent[]) => {
      const stored = await appendEvents(session, events);
      if (events.some((e) => e.kind === 'tool-result' && e.toolName === 'search')) abort.abort();
      return stored;
    };
    let sessionId = '';
    const question = 'How many vessels were in the fleet?';
    await expect(
      runReportAnalysis({ corpus, store, question, signal: abort.signal, onSession: (id) => (sessionId = id) }),
    ).rejects.toThrow(/abort/i);
    const resumed = await runReportAnalysis({ corpus, store, question: '', resumeSessionId: sessionId });
    expect(resumed.text).toContain('[fleet.md:3] The fleet grew to 48 vessels in 2024.');
    const searches = resumed.session.events.filter(
      (e) => e.kind === 'model' && e.toolCalls.some((c) => c.toolName === 'search'),
    );
    expect(searches).toHaveLength(1);
  });
});
