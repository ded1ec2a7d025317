/**
 * An in-memory SessionStore: the reference implementation of the contract, for tests and short runs.
 */
import { randomUUID } from 'node:crypto';
import { VersionConflictError } from '../errors.js';
import { commitToSession, planAppend } from './append.js';
import { frozenCopy } from './frozen.js';
import { scopeOf, splitDelta } from './state.js';
import type { CreateSessionOptions, ListSessionsOptions, SessionStore } from './store.js';
import type { JsonValue, Session, SessionEvent, SessionKey, SessionSummary, StateDelta } from './types.js';
import { ownValue, setOwn } from '../util/own-field.js';

interface StoredSession {
  key: SessionKey;
  state: Record<string, JsonValue>;
  events: SessionEvent[];
  version: number;
  createdAt: number;
  updatedAt: number;
}

/** One scope of shared state: values, and the version of every key ever written (deletions included). */
interface SharedScope {
  values: Record<string, JsonValue>;
  versions: Record<string, number>;
}

const keyOf = (k: SessionKey): string => JSON.stringify([k.appName, k.userId, k.sessionId]);

/** Keeps sessions in process memory; everything is lost when the process ends. */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, StoredSession>();
  private readonly userState = new Map<string, SharedScope>();
  private readonly appState = new Map<string, SharedScope>();

  private shared(appName: string, userId: string): { user: SharedScope; app: SharedScope } {
    const uk = JSON.stringify([appName, userId]);
    let user = this.userState.get(uk);
    if (!user) this.userState.set(uk, (user = { values: {}, versions: {} }));
    let app = this.appState.get(appName);
    if (!app) this.appState.set(appName, (app = { values: {}, versions: {} }));
    return { user, app };
  }

  private writeShared(appName: string, userId: string, key: string, value: JsonValue | null, version: number): void {
    const { user, app } = this.shared(appName, userId);
    const scope = scopeOf(key) === 'user' ? user : app;
    if (value === null) delete scope.values[key];
    else setOwn(scope.values, key, structuredClone(value));
    setOwn(scope.versions, key, version);
  }

  private view(stored: StoredSession): Session {
    const { user, app } = this.shared(stored.key.appName, stored.key.userId);
    return {
      ...stored.key,
      state: structuredClone({ ...stored.state, ...user.values, ...app.values }),
      // Stored events are frozen copies, never changed once appended: sessions share them, so loading a
      // session copies no event, and what was derived from an event object (its history item, its token
      // count) is found again for it in every later invocation.
      events: stored.events.slice(),
      version: stored.version,
      sharedVersions: { ...user.versions, ...app.versions },
      createdAt: stored.createdAt,
      updatedAt: stored.updatedAt,
    };
  }

  async createSession(options: CreateSessionOptions): Promise<Session> {
    const key: SessionKey = {
      appName: options.appName,
      userId: options.userId,
      sessionId: options.sessionId ?? randomUUID(),
    };
    if (this.sessions.has(keyOf(key)))
      throw new TypeError(`Session "${key.sessionId}" already exists; pick another id or omit it.`);
    const now = Date.now();
    const parts = splitDelta(options.state as StateDelta | undefined);
    const { user, app } = this.shared(key.appName, key.userId);
    for (const [stateKey, value] of Object.entries({ ...parts.user, ...parts.app })) {
      this.writeShared(
        key.appName,
        key.userId,
        stateKey,
        value,
        (ownValue((scopeOf(stateKey) === 'user' ? user : app).versions, stateKey) ?? 0) + 1,
      );
    }
    const stored: StoredSession = { key, state: {}, events: [], version: 0, createdAt: now, updatedAt: now };
    for (const [stateKey, value] of Object.entries(parts.session))
      if (value !== null) setOwn(stored.state, stateKey, structuredClone(value));
    this.sessions.set(keyOf(key), stored);
    return this.view(stored);
  }

  async getSession(key: SessionKey): Promise<Session | undefined> {
    const stored = this.sessions.get(keyOf(key));
    return stored ? this.view(stored) : undefined;
  }

  async listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    const out: SessionSummary[] = [];
    for (const stored of this.sessions.values()) {
      if (stored.key.appName !== options.appName) continue;
      if (options.userId !== undefined && stored.key.userId !== options.userId) continue;
      out.push({
        ...stored.key,
        version: stored.version,
        eventCount: stored.events.length,
        createdAt: stored.createdAt,
        updatedAt: stored.updatedAt,
      });
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.sessionId.localeCompare(b.sessionId));
  }

  async deleteSession(key: SessionKey): Promise<boolean> {
    return this.sessions.delete(keyOf(key));
  }

  async appendEvent(session: Session, event: SessionEvent): Promise<SessionEvent> {
    return (await this.appendEvents(session, [event]))[0]!;
  }

  async appendEvents(session: Session, events: readonly SessionEvent[]): Promise<SessionEvent[]> {
    const stored = this.sessions.get(keyOf(session));
    if (!stored) throw new VersionConflictError(session.sessionId, session.version, -1);
    if (stored.version !== session.version)
      throw new VersionConflictError(session.sessionId, session.version, stored.version);
    const { user, app } = this.shared(stored.key.appName, stored.key.userId);
    // Planning throws before anything is written, which is what makes the batch all-or-nothing here.
    const plan = planAppend(session, events, {
      sessionState: stored.state,
      shared: (stateKey) => {
        const scope = scopeOf(stateKey) === 'user' ? user : app;
        return { value: ownValue(scope.values, stateKey), version: ownValue(scope.versions, stateKey) ?? 0 };
      },
    });
    // Copied before anything is written: an event that cannot be copied leaves the session as it was.
    const copies = plan.events.map((e) => frozenCopy(e));
    // A batch without deltas or increments leaves the session's stored state as it is: nothing to copy.
    if (events.some((e) => e.delta !== undefined || e.increments !== undefined))
      stored.state = structuredClone(plan.sessionState);
    for (const [stateKey, write] of plan.shared)
      this.writeShared(stored.key.appName, stored.key.userId, stateKey, write.value, write.version);
    for (const event of copies) stored.events.push(event);
    stored.version += events.length;
    if (events.length) stored.updatedAt = events[events.length - 1]!.timestamp;
    commitToSession(session, events, plan);
    return plan.events;
  }

  async close(): Promise<void> {}
}
