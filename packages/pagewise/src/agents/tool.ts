/**
 * Tools: a name, a description, a zod schema for the arguments and an `execute` function. The runner
 * validates the model's arguments against the schema before `execute` runs; a validation error, an
 * unknown tool or a thrown error goes back to the model as an error result and the run continues.
 */
import type { z } from 'zod';
import type { JsonValue } from '../session/types.js';

/**
 * Reads and writes of state from inside a tool; writes become the delta of the tool's result event.
 *
 * What a tool reads is recorded. If another writer changes it before the result is appended (another
 * session of the same user writing a `user:` key, another invocation of the same session, or an
 * earlier call of the same step), the result no longer holds: the runner re-runs the call against the
 * current state when the tool has no side effects, and refuses the step otherwise (see
 * {@link Tool.sideEffects}). So `set(k, get(k) + 1)` never loses an update; for counters that many
 * sessions bump at once, {@link StateAccess.increment} avoids the re-runs altogether.
 */
export interface StateAccess {
  get<T extends JsonValue = JsonValue>(key: string): T | undefined;
  has(key: string): boolean;
  /** Sets a key; the key's prefix picks its scope (`temp:`, `user:`, `app:`, or none). */
  set(key: string, value: JsonValue): void;
  delete(key: string): void;
  /**
   * Adds `by` (default 1) to a numeric key, absent counting as 0. The store applies it to the value it
   * holds when the result is appended, so increments from concurrent sessions all count and never
   * conflict, and it is not a read: prefer it to `set(k, get(k) + n)` for shared counters.
   *
   * @example
   * ctx.state.increment('app:requests');
   */
  increment(key: string, by?: number): void;
  /** Keys of the merged view, optionally only those starting with `prefix`. */
  keys(prefix?: string): string[];
}

/** Control actions a tool may take. */
export interface ToolActions {
  /** Hands control to the named agent after this step. */
  transferToAgent(agentName: string): void;
  /** Ends the invocation after this step, with `reason` as its final message. */
  escalate(reason?: string): void;
}

/** What a tool gets besides its arguments. */
export interface ToolContext {
  state: StateAccess;
  invocationId: string;
  sessionId: string;
  userId: string;
  appName: string;
  agentName: string;
  toolCallId: string;
  /**
   * A key that stays the same when an interrupted run is resumed and this call is executed again:
   * tools with side effects pass it to the systems they act on to make a repeated call harmless.
   */
  idempotencyKey: string;
  actions: ToolActions;
  signal: AbortSignal;
  /** Services registered on the runner (page store, sources, ...), looked up by key. */
  services: ReadonlyMap<string, unknown>;
}

/** A tool the model can call. `execute` may return a string (shown as is) or a JSON value. */
export interface Tool<I = unknown> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: z.ZodType<I>;
  execute(args: I, ctx: ToolContext): Promise<unknown> | unknown;
  /**
   * True when calling it twice is not the same as calling it once (sends mail, pays, writes outside).
   *
   * The runner re-runs a call whose state reads went stale before its result could be stored, but
   * never a call of a tool with side effects: such a step is refused with `SideEffectConflictError`
   * (nothing of the step stored, the side effect done). Tools with side effects should therefore write
   * blindly or use `increment`, and not read state that concurrent sessions write.
   */
  readonly sideEffects?: boolean;
}

/** Any tool, with its argument type erased, as agents hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;

/**
 * Declares a tool with typed arguments.
 *
 * @example
 * const add = tool({
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   inputSchema: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => String(a + b),
 * });
 */
export function tool<I>(definition: Tool<I>): Tool<I> {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(definition.name)) {
    throw new TypeError(`Tool name "${definition.name}" must be 1-64 letters, digits, "_" or "-" (provider rule).`);
  }
  return definition;
}
