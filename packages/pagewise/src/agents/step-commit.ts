/**
 * Storing: a first invocation's session, and each step, whose events are appended as one atomic unit,
 * retried against a reloaded session on a version conflict, with each call's result first re-checked
 * against the state it will be stored on.
 */
import { shareItems } from '../context/history.js';
import { PagewiseError, VersionConflictError } from '../errors.js';
import { refreshSession, sharedKeysOf } from '../session/append.js';
import { canAppendLocked, type SessionStore } from '../session/store.js';
import { PendingWrites, type StateSource } from '../session/tracked-state.js';
import type { Session, SessionEvent, SessionKey, ToolCallRecord } from '../session/types.js';
import type { CallOutcome } from './tool-execution.js';

/**
 * A step could not be stored: a tool with side effects (`sideEffects: true`) read state that another
 * writer, or an earlier call of the same step, changed before its result was appended, and such a tool
 * is never run twice. Nothing of the step was stored, but the side effect did happen. Retryable by
 * running the invocation again, when repeating the side effect is acceptable.
 */
export class SideEffectConflictError extends VersionConflictError {
  constructor(
    sessionId: string,
    sessionVersion: number,
    /** The tool whose result could not be stored. */
    readonly toolName: string,
  ) {
    super(sessionId, sessionVersion, sessionVersion);
    this.message =
      `The result of "${toolName}" in session ${sessionId} could not be stored: the state it read changed before the append, and a tool with sideEffects: true is never re-run. ` +
      'Nothing of this step was stored, but its side effect happened. Run the invocation again if repeating it is acceptable; otherwise keep such tools from reading state that other calls or sessions write.';
  }
}

const isVersionConflict = (error: unknown): boolean =>
  PagewiseError.isInstance(error) && error.code === 'version-conflict';

/**
 * Optimistic attempts of an append before a store that can lock ({@link canAppendLocked}) is asked to
 * rebuild and append under its locks, so a writer that keeps losing to others still finishes.
 */
const OPTIMISTIC_ATTEMPTS = 3;

/**
 * Appends the events `build` returns as one atomic unit. On a version conflict (another writer
 * appended to this session, or changed a shared key a tool read), reloads the session in place,
 * keeping this invocation's `temp:` keys, and calls `build` again, which must recompute whatever
 * depends on state; up to `maxRetries` times. The backoff is random ("full jitter") and doubles per
 * attempt up to 250 ms, so writers competing for one key spread out over time.
 *
 * Optimistic retries can starve a writer that keeps losing to fresh ones; after a few, a store that
 * can lock runs the reload, `build` and the append in one transaction holding the locks of the
 * session and of the shared keys the last attempt touched, which cannot be overtaken.
 */
export async function appendWithRetry(
  store: SessionStore,
  session: Session,
  maxRetries: number,
  build: () => SessionEvent[] | Promise<SessionEvent[]>,
): Promise<SessionEvent[]> {
  let events: SessionEvent[] = [];
  const locking = canAppendLocked(store);
  for (let attempt = 0; ; attempt++) {
    const locked = locking && attempt >= OPTIMISTIC_ATTEMPTS;
    try {
      if (locked) {
        const touched = sharedKeysOf(events);
        return await store.appendEventsLocked(
          session,
          [...touched.user, ...touched.app],
          async () => (events = await build()),
        );
      }
      events = await build();
      const stored = await store.appendEvents(session, events);
      // The events were converted to history items when their token counts were taken: the stored copies reuse them.
      shareItems(events, stored);
      return stored;
    } catch (error) {
      // A step that cannot be replayed is final; so is anything but a conflict, a deleted session, or the last retry.
      if (error instanceof SideEffectConflictError || !isVersionConflict(error) || attempt >= maxRetries) throw error;
      if ((error as VersionConflictError).actualVersion === -1) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 4 * 2 ** attempt)));
      // A locked attempt loads the session itself, under its locks.
      if (locking && attempt + 1 >= OPTIMISTIC_ATTEMPTS) continue;
      const fresh = await store.getSession(session);
      if (!fresh) throw error;
      refreshSession(session, fresh);
    }
  }
}

/**
 * Makes a step's outcomes valid against the current session, as if the calls had run one after
 * another in call order. Call i is checked against the session state plus the writes of calls 0..i-1;
 * if anything it read differs there (another call of the step wrote it, or, after a conflict, another
 * writer did), it is run again against that state when its tool has no side effects, or the step is
 * refused with {@link SideEffectConflictError}. Then each outcome records the versions of the shared
 * keys it read, for the store to check.
 *
 * The rule that keeps re-running safe: only tools without `sideEffects` run twice, and the model is
 * never called again (its response stays as given; it sees other writers' events from the next step).
 */
export async function reconcile(
  session: Session,
  calls: readonly ToolCallRecord[],
  outcomes: CallOutcome[],
  run: (call: ToolCallRecord, source: StateSource) => Promise<CallOutcome>,
): Promise<void> {
  const pending = new PendingWrites();
  for (let index = 0; index < outcomes.length; index++) {
    const source = pending.over(session.state);
    let outcome = outcomes[index]!;
    if (outcome.state?.isStale(source)) {
      if (!outcome.replayable)
        throw new SideEffectConflictError(session.sessionId, session.version, outcome.observation.toolName);
      outcome = outcomes[index] = await run(calls[index]!, source);
    }
    const reads = outcome.state?.sharedReads(source, session.sharedVersions);
    if (reads) outcome.reads = reads;
    else delete outcome.reads;
    pending.add(outcome.delta, outcome.increments);
  }
}

/** The tool-result event of one call's outcome. */
export function resultEvent(
  outcome: CallOutcome,
  base: { id: string; invocationId: string; timestamp: number },
  author: string,
): SessionEvent {
  return {
    ...base,
    kind: 'tool-result',
    author,
    toolCallId: outcome.observation.toolCallId,
    toolName: outcome.observation.toolName,
    output: outcome.observation.output,
    isError: outcome.observation.isError,
    ...(outcome.observation.compression ? { compression: outcome.observation.compression } : {}),
    ...(Object.keys(outcome.delta).length ? { delta: outcome.delta } : {}),
    ...(outcome.increments && Object.keys(outcome.increments).length ? { increments: outcome.increments } : {}),
    ...(outcome.reads ? { reads: outcome.reads } : {}),
  };
}

/** The escalation the outcomes ask for (the last call's wins), or undefined. */
export function escalationOf(outcomes: readonly CallOutcome[]): string | undefined {
  return outcomes.reduce<string | undefined>((r, o) => (o.escalate !== undefined ? o.escalate : r), undefined);
}

/** The agent name the outcomes transfer to (the last call's wins), or undefined. */
export function transferNameOf(outcomes: readonly CallOutcome[]): string | undefined {
  return outcomes.reduce<string | undefined>((r, o) => o.transferTo || r, undefined);
}

/** Creates the session of a first invocation; when a concurrent worker created it first, uses theirs. */
export async function createSession(store: SessionStore, key: SessionKey): Promise<Session> {
  try {
    return await store.createSession(key);
  } catch (error) {
    const existing = await store.getSession(key);
    if (existing) return existing;
    throw error;
  }
}
