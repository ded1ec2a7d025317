/**
 * The optimizer model's calls of an optimization, kept as the episodes are (see `EpisodeSessions`): one
 * session per run, each call a user event (the prompt) and a model event (the reply) with its call-log
 * row, tagged `strategy=optimize-optimizer` and its purpose, so `pagewise inspect` shows what the
 * optimizer was asked and answered, an unreadable reply included.
 */
import { randomUUID } from 'node:crypto';
import type { LedgerEntry, Session, SessionEvent } from 'pagewise';
import { emptyParts } from 'pagewise/internal';
import type { EpisodeSessions } from './evaluate.js';

/** One optimizer call as the loop made it. */
export interface OptimizerCall {
  prompt: string;
  purpose: string;
  text: string;
  promptTokens: number;
  completionTokens: number;
  modelMs: number;
}

/** The app and user the optimizer's session is stored under. */
export const OPTIMIZER_SESSION = { appName: 'pagewise', userId: 'optimize' } as const;

/**
 * A recorder of optimizer calls into `sessions`, labelled with the optimizer's `model`. Calls are
 * written one at a time (feedback calls run concurrently, and appends to one session must not race).
 */
export function optimizerCallRecorder(
  sessions: EpisodeSessions,
  model: string,
): (call: OptimizerCall) => Promise<void> {
  let session: Promise<Session> | undefined;
  let queue: Promise<void> = Promise.resolve();
  let index = 0;
  const write = async (call: OptimizerCall) => {
    session ??= sessions.store.createSession({ ...OPTIMIZER_SESSION });
    const open = await session;
    const invocationId = randomUUID();
    const at = Date.now();
    const user: SessionEvent = {
      id: randomUUID(),
      invocationId,
      author: 'user',
      timestamp: at,
      kind: 'user',
      text: call.prompt,
    };
    const reply: SessionEvent = {
      id: randomUUID(),
      invocationId,
      author: 'optimizer',
      timestamp: at,
      kind: 'model',
      text: call.text,
      toolCalls: [],
    };
    await sessions.store.appendEvents(open, [user, reply]);
    const entry: LedgerEntry = {
      index: index++,
      kind: 'agent',
      agent: 'optimizer',
      model,
      invocationId,
      parts: { ...emptyParts(), history: call.promptTokens },
      promptTokens: call.promptTokens,
      completionTokens: call.completionTokens,
      modelMs: call.modelMs,
      frameworkMs: 0,
      at,
    };
    await sessions.callLog({ strategy: 'optimize-optimizer', purpose: call.purpose }).recordCall({
      ...OPTIMIZER_SESSION,
      sessionId: open.sessionId,
      invocationId,
      entry,
      request: { instruction: [], items: [{ type: 'user', text: call.prompt, eventId: user.id }], tools: [] },
      response: { text: call.text, toolCalls: [] },
      eventId: reply.id,
    });
  };
  return (call) => {
    const written = queue.then(() => write(call));
    queue = written.catch(() => undefined);
    return written;
  };
}
