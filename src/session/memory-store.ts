/**
 * An in-memory SessionStore: the reference implementation of the contract, for tests and short runs.
 */
import { randomUUID } from 'node:crypto';
import { VersionConflictError } from '../errors.js';
import { applyDelta, persistableDelta, splitDelta } from './state.js';
import type { CreateSessionOptions, ListSessionsOptions, SessionStore } from './store.js';
import type { JsonValue, Session, SessionEvent, SessionKey, SessionSummary } from './types.js';

interface StoredSession {
  key: SessionKey;
  state: Record<string, JsonValue>;
  events: SessionEvent[];
  version: number;
  createdAt: number;
  updatedAt: number;
}

const keyOf = (k: SessionKey): string => JSON.stringify([k.appName, k.userId, k.sessionId]);

/** Keeps sessions in process memory; everything is lost when the process ends. */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, StoredSession>();
  private readonly userState = new Map<string, Record<string, JsonValue>>();
  private readonly appState = new Map<string, Record<string, JsonValue>>();

  private shared(appName: string, userId: string): { user: Record<string, JsonValue>; app: Record<string, JsonValue> } {
    const uk = JSON.stringify([appName, userId]);
    let user = this.userState.get(uk);
    if (!user) this.userState.set(uk, (user = {}));
    let app = this.appState.get(appName);
    if (!app) this.appState.set(appName, (app = {}));
    return { user, app };
  }

  private view(stored: StoredSession): Session {
    const { user, app } = this.shared(stored.key.appName, stored.key.userId);
    return {
      ...stored.key,
      state: structuredClone({ ...stored.state, ...user, ...app }),
      events: structuredClone(stored.events),
      version: stored.version,
      createdAt: stored.createdAt,
      updatedAt: stored.updatedAt,
    };
  }

  async createSession(options: CreateSessionOptions): Promise<Session> {
    const key: SessionKey = { appName: options.appName, userId: options.userId, sessionId: options.sessionId ?? randomUUID() };
    if (this.sessions.has(keyOf(key))) throw new TypeError(`Session "${key.sessionId}" already exists; pick another id or omit it.`);
    const now = Date.now();
    const parts = splitDelta(options.state as Record<string, JsonValue> | undefined);
    const { user, app } = this.shared(key.appName, key.userId);
    applyDelta(user, parts.user);
    applyDelta(app, parts.app);
    const stored: StoredSession = { key, state: {}, events: [], version: 0, createdAt: now, updatedAt: now };
    applyDelta(stored.state, parts.session);
    this.sessions.set(keyOf(key), stored);
    return this.view(stored);
  }

  async getSession(key: SessionKey): Promise<Session | undefined> {
    const stored = this.sessions.get(keyOf(key));
    return stored ? this.view(stored) : undefined;
  }

  async listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    const out: SessionSummary[] = [];
    for (const s of this.sessions.values()) {
      if (s.key.appName !== options.appName) continue;
      if (options.userId !== undefined && s.key.userId !== options.userId) continue;
      out.push({ ...s.key, version: s.version, eventCount: s.events.length, createdAt: s.createdAt, updatedAt: s.updatedAt });
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.sessionId.localeCompare(b.sessionId));
  }

  async deleteSession(key: SessionKey): Promise<boolean> {
    return this.sessions.delete(keyOf(key));
  }

  async appendEvent(session: Session, event: SessionEvent): Promise<SessionEvent> {
    const stored = this.sessions.get(keyOf(session));
    if (!stored) throw new VersionConflictError(session.sessionId, session.version, -1);
    if (stored.version !== session.version) throw new VersionConflictError(session.sessionId, session.version, stored.version);
    const persisted: SessionEvent = { ...event, delta: persistableDelta(event.delta) };
    if (persisted.delta === undefined) delete persisted.delta;
    const parts = splitDelta(persisted.delta);
    const { user, app } = this.shared(stored.key.appName, stored.key.userId);
    applyDelta(stored.state, structuredClone(parts.session));
    applyDelta(user, structuredClone(parts.user));
    applyDelta(app, structuredClone(parts.app));
    stored.events.push(structuredClone(persisted));
    stored.version += 1;
    stored.updatedAt = persisted.timestamp;
    applyDelta(session.state, event.delta);
    session.events.push(persisted);
    session.version = stored.version;
    session.updatedAt = stored.updatedAt;
    return persisted;
  }

  async close(): Promise<void> {}
}
