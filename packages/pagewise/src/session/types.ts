/**
 * The data model of sessions: JSON values, state deltas, events, and the session record itself.
 */

/** A JSON value, as stored in state and events. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * The state changes one event caused: key to new value, `null` to delete the key. Keys carry their
 * scope as a prefix (`temp:`, `user:`, `app:`, or none for the session).
 */
export type StateDelta = Record<string, JsonValue>;

/** Token usage of one model call, as counted locally and as reported by the provider. */
export interface EventUsage {
  promptTokens: number;
  completionTokens: number;
  providerPromptTokens?: number;
  providerCompletionTokens?: number;
}

/** A tool call requested by the model. */
export interface ToolCallRecord {
  toolCallId: string;
  toolName: string;
  /** The parsed arguments, or the raw text when they were not valid JSON. */
  input: unknown;
}

interface EventBase {
  /** Unique id of the event. */
  id: string;
  /** The invocation (one user input through to its final answer) the event belongs to. */
  invocationId: string;
  /** `user`, or the name of the agent or tool that produced the event. */
  author: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** The state changes this event caused; applied atomically with the append. */
  delta?: StateDelta;
  /**
   * The version of each shared (`user:`/`app:`) key the producer of this event read, as it was in
   * {@link Session.sharedVersions} (0: never written). The append is refused with a conflict when one of
   * them has moved, so a read-modify-write of shared state never overwrites another session's update.
   */
  reads?: Record<string, number>;
  /**
   * Amounts this event adds to numeric keys (absent keys count as 0). Applied by the store to the value
   * stored at append time, inside the append's transaction, so concurrent increments of one key from
   * many sessions all count and never conflict. A key appears in `delta` or here, never in both.
   */
  increments?: Record<string, number>;
  /**
   * Token counts of what the model reads of this event, by encoding name (`o200k_base`, ...), written by
   * the runner when it appends the event. A process that loads the session reads them instead of counting
   * its whole history again. Absent in events written by older versions or appended by other code; such
   * events are counted when a request needs them.
   */
  tokens?: Record<string, number>;
}

/** A message from the user that starts an invocation. */
export interface UserEvent extends EventBase {
  kind: 'user';
  text: string;
}

/** A model response: text and/or tool calls. A response with text and no tool calls is a final answer. */
export interface ModelEvent extends EventBase {
  kind: 'model';
  text: string;
  toolCalls: ToolCallRecord[];
  usage?: EventUsage;
  finishReason?: string;
}

/**
 * How an observation processor compressed a tool result, recorded on its event so that what the compression was
 * (the guideline, the backend, the size of the original) is known wherever the session is, whether or not the
 * page store that holds the raw result was kept (the in-memory one is not).
 */
export interface ObservationCompression {
  /** The guideline, as `id@version`. */
  guideline: string;
  /** The name of the backend that compressed (`extractive`, a model spec, a custom backend's name). */
  backend: string;
  /** Tokens of the raw result, before compression. */
  originalTokens: number;
}

/** The result of one tool call. `output` is what the model sees (a receipt for paging tools). */
export interface ToolResultEvent extends EventBase {
  kind: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: string;
  isError: boolean;
  /** Set when an observation compressor replaced the output: how it was compressed. */
  compression?: ObservationCompression;
}

/** Control passed from one agent to another. */
export interface TransferEvent extends EventBase {
  kind: 'transfer';
  from: string;
  to: string;
}

/** The invocation was ended by an agent, with an optional final message. */
export interface EscalateEvent extends EventBase {
  kind: 'escalate';
  reason: string;
}

/**
 * A compaction: the events from `fromEventId` to `toEventId` (inclusive) are represented in context by
 * `summary`. The raw events stay in the store; nothing is deleted.
 */
export interface CompactionEvent extends EventBase {
  kind: 'compaction';
  fromEventId: string;
  toEventId: string;
  summary: string;
  guideline?: string;
}

/**
 * A failure the runner recorded, so a session shows how its run went wrong, not only where it stopped:
 * `scope: 'run'` when the invocation ended on an error (the context window exceeded, a model or provider
 * error, a limit, an abort), written as the invocation's last event; `scope: 'compression'` when a
 * compressor failed and its processor fell back to what it had (the run went on). The model never sees
 * it; an invocation that ended on an error stays resumable. The message is redacted of secrets.
 */
export interface RunErrorEvent extends EventBase {
  kind: 'error';
  scope: 'run' | 'compression';
  /** The pagewise error code (`context-window-exceeded`, `provider-server-error`, ...), or `unknown`. */
  code: string;
  message: string;
  /** Who was at fault (`system`, `model`, `configuration`, ...), when the error says. */
  fault?: string;
}

/** Any event of a session. */
export type SessionEvent =
  UserEvent | ModelEvent | ToolResultEvent | TransferEvent | EscalateEvent | CompactionEvent | RunErrorEvent;

/** The kinds of {@link SessionEvent}. */
export type EventKind = SessionEvent['kind'];

/** Identifies a session. */
export interface SessionKey {
  appName: string;
  userId: string;
  sessionId: string;
}

/** A session: its identity, merged state view, events, and version (the number of appended events). */
export interface Session extends SessionKey {
  /**
   * The merged state view: session keys, `user:` keys of this user, `app:` keys of this app, and, in
   * memory only, `temp:` keys of the current invocation.
   */
  state: Record<string, JsonValue>;
  events: SessionEvent[];
  /** Incremented by every append; an append against a stale version is refused. */
  version: number;
  /**
   * The version of every `user:`/`app:` key of this view, deleted keys included (a deletion is a write).
   * A key never written has version 0. Every store fills it; it is optional only so that hand-built
   * sessions stay valid (their reads then count as version 0 and are refused until reloaded).
   */
  sharedVersions?: Record<string, number>;
  createdAt: number;
  updatedAt: number;
}

/** A session without its events, for listings. */
export interface SessionSummary extends SessionKey {
  version: number;
  eventCount: number;
  createdAt: number;
  updatedAt: number;
}
