/**
 * pagewise in the peer benchmark, imported from the repository's built `dist/` (what a user installs:
 * compiled JavaScript, no TypeScript transform on the path), with the memory and the SQLite store.
 */
import path from 'node:path';
import { z } from 'zod';
import { FINAL_TEXT, RECORD_DESCRIPTION, recordTool, seedTurn, type PeerFramework } from './common.js';
import { scriptedV3 } from './scripted-v3.js';

/** The built library: the root entry, and the SQLite store from its own entry when the build has one. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function loadPagewise(): Promise<any> {
  const dist = new URL('../../dist/', import.meta.url);
  const root = await import(new URL('index.js', dist).href);
  const sqlite = await import(new URL('sqlite.js', dist).href).catch(() => ({}));
  return { ...root, ...sqlite };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function seed(pw: any, store: any, events: number): Promise<string> {
  const session = await store.createSession({ appName: 'bench', userId: 'u' });
  await store.appendEvent(session, {
    kind: 'user',
    id: 'u0',
    invocationId: 'seed',
    author: 'user',
    timestamp: Date.now(),
    text: 'Start recording.',
  });
  for (let i = 0; session.events.length < events; i++) {
    const t = seedTurn(i);
    await store.appendEvents(session, [
      {
        kind: 'model',
        id: `m${i}`,
        invocationId: 'seed',
        author: 'recorder',
        timestamp: Date.now(),
        text: '',
        toolCalls: [{ toolCallId: `s${i}`, toolName: 'record', input: t.args }],
      },
      {
        kind: 'tool-result',
        id: `t${i}`,
        invocationId: 'seed',
        author: 'recorder',
        timestamp: Date.now(),
        toolCallId: `s${i}`,
        toolName: 'record',
        output: t.result,
        isError: false,
      },
    ]);
  }
  return session.sessionId;
}

function framework(name: string, makeStore: (pw: unknown) => unknown): PeerFramework {
  return {
    name,
    async prepare(events, clock) {
      const pw = await loadPagewise();
      const store = makeStore(pw);
      const sessionId = await seed(pw, store, events);
      const agent = new pw.Agent({
        name: 'recorder',
        instruction: 'You record observations.',
        tools: [
          pw.tool({
            name: 'record',
            description: RECORD_DESCRIPTION,
            inputSchema: z.object({ i: z.number().int(), note: z.string() }),
            execute: (a: { i: number; note: string }) => recordTool(a),
          }),
        ],
      });
      const runner = new pw.Runner({ agent, model: scriptedV3(clock), store, appName: 'bench', contextWindow: 0 });
      return async () => {
        const r = await runner.run({ userId: 'u', sessionId, message: 'Record the new observations.' });
        if (r.text !== FINAL_TEXT) throw new Error(`pagewise: unexpected final text ${r.text}`);
      };
    },
  };
}

/** pagewise with its in-memory store. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const pagewise = framework('pagewise, memory store', (pw: any) => new pw.InMemorySessionStore());

/** pagewise with its SQLite store, one fresh file per prepared session. */
export function pagewiseSqlite(tmp: () => string): PeerFramework {
  return framework(
    'pagewise, SQLite store',
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    (pw: any) => new pw.SqliteSessionStore({ path: path.join(tmp(), 's.db') }),
  );
}
