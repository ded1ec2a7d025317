/**
 * pagewise in the peer benchmark, imported from the repository's built `dist/` (what a user installs:
 * compiled JavaScript, no TypeScript transform on the path), with the memory and the SQLite store.
 */
import path from 'node:path';
import { z } from 'zod';
import { FINAL_TEXT, RECORD_DESCRIPTION, recordTool, seedTurn, type PeerFramework } from './common.js';
import { scriptedV3 } from './scripted-v3.js';

/** The built library: the root, sources and paging entries, and the SQLite store from its own entry when the build has one. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function loadPagewise(): Promise<any> {
  const dist = new URL('../../packages/pagewise/dist/', import.meta.url);
  const root = await import(new URL('index.js', dist).href);
  // Helpers the scripted reader uses (parseFencedPages) live on the internal entry since the package split.
  const internal = await import(new URL('internal.js', dist).href);
  // Sources (`loaderSource`) and paging have entries of their own, as users import them.
  const sources = await import(new URL('sources.js', dist).href);
  const paging = await import(new URL('paging.js', dist).href);
  const sqlite = await import(new URL('../../packages/sqlite/dist/index.js', import.meta.url).href).catch(() => ({}));
  return { ...internal, ...sources, ...paging, ...root, ...sqlite };
}

/**
 * A model for filling a session: calls `record` with pre-filled turn 0, 1, ... and then answers, so the
 * history holds the same turns as the other frameworks' pre-filled histories.
 */
function seedModel(turns: number) {
  let call = 0;
  const usage = {
    inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: undefined, reasoning: undefined },
  };
  return {
    specificationVersion: 'v3' as const,
    provider: 'scripted',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate() {
      const callIndex = call++;
      const content =
        callIndex < turns
          ? [
              {
                type: 'tool-call' as const,
                toolCallId: `s${callIndex}`,
                toolName: 'record',
                input: JSON.stringify(seedTurn(callIndex).args),
              },
            ]
          : [{ type: 'text' as const, text: 'Recorded.' }];
      return {
        content,
        finishReason: { unified: callIndex < turns ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
        usage,
        warnings: [],
      };
    },
    async doStream(): Promise<never> {
      throw new Error('not streamed');
    },
  };
}

/**
 * Fills a session to `events` events the way a pagewise session gets them: an earlier invocation of the
 * runner (a user message, `record` calls with their results, an answer), so the events are stored as
 * the runner stores them, token counts included.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function seed(pw: any, store: any, agent: any, events: number): Promise<string> {
  const turns = Math.floor((events - 2) / 2);
  const runner = new pw.Runner({
    agent,
    model: seedModel(turns),
    store,
    appName: 'bench',
    contextWindow: 0,
    limits: { maxSteps: turns + 2 },
  });
  const result = await runner.run({ userId: 'u', message: 'Start recording.' });
  if (result.session.events.length !== events)
    throw new Error(`seeded ${result.session.events.length} events, not ${events}`);
  return result.session.sessionId;
}

/**
 * `makeStore(pw, 'seed')` fills the session; `makeStore(pw, 'run')` gives the store the timed runner
 * uses: a new instance on the same data where the store allows it (SQLite reopens its file, so the
 * invocation starts as a new process's would, without the seeding instance's caches).
 */
function framework(
  name: string,
  makeStore: (pw: unknown, use: 'seed' | 'run') => unknown,
  reusePrompt = false,
): PeerFramework {
  return {
    name,
    async prepare(events, clock) {
      const pw = await loadPagewise();
      const seedStore = makeStore(pw, 'seed');
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
      const sessionId = await seed(pw, seedStore, agent, events);
      const store = makeStore(pw, 'run');
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      if (store !== seedStore) await (seedStore as any).close();
      const runner = new pw.Runner({
        agent,
        model: scriptedV3(clock),
        store,
        appName: 'bench',
        contextWindow: 0,
        // The scripted model keeps nothing of the prompt it is handed.
        ...(reusePrompt ? { reusePrompt } : {}),
      });
      return async () => {
        const result = await runner.run({ userId: 'u', sessionId, message: 'Record the new observations.' });
        if (result.text !== FINAL_TEXT) throw new Error(`pagewise: unexpected final text ${result.text}`);
      };
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let memoryStore: any;

/** pagewise with its in-memory store; with `reusePrompt`, the runner option of that name set. */
export function pagewiseMemory(reusePrompt = false): PeerFramework {
  return framework(
    `pagewise, memory store${reusePrompt ? ', reusePrompt' : ''}`,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    (pw: any, use) => {
      // One instance for seeding and the run: an in-memory store's data lives in its instance.
      if (use === 'seed') memoryStore = new pw.InMemorySessionStore();
      return memoryStore;
    },
    reusePrompt,
  );
}

/**
 * pagewise with its SQLite store, one fresh file per prepared session, seeded through one store
 * instance and run through a new one on the same file.
 */
export function pagewiseSqlite(tmp: () => string, reusePrompt = false): PeerFramework {
  let file = '';
  return framework(
    `pagewise, SQLite store (fresh instance)${reusePrompt ? ', reusePrompt' : ''}`,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    (pw: any, use) => {
      if (use === 'seed') file = path.join(tmp(), 's.db');
      return new pw.SqliteSessionStore({ path: file });
    },
    reusePrompt,
  );
}
