/** The limits of one invocation, shared by the loop and the parts it delegates to. */

/** Limits of one invocation. Each has a default and names its setting when hit. */
export interface RunLimits {
  /** Model calls per invocation. Default 50. */
  maxSteps: number;
  /**
   * Tool calls honoured in one model response; the next 16 get an error result each, and any beyond those are dropped from the stored response and reported in one summary
   * message, so a response with thousands of calls cannot flood the session. Default 16.
   */
  maxToolCallsPerStep: number;
  /**
   * Wall time of one invocation in ms. Default 30 minutes. It also interrupts a running tool: a tool
   * still running at the deadline is abandoned (its signal fires), its result is recorded as a timeout,
   * and the invocation stops with a LimitExceededError naming this setting.
   */
  maxWallTimeMs: number;
  /**
   * Wall time of one tool call in ms. A tool still running after it is abandoned (its signal fires), its
   * result is recorded as a timeout error and the run goes on, so the model may try something else.
   * Default: no limit of its own (only `maxWallTimeMs` applies).
   */
  maxToolTimeMs: number;
  /** Bytes of one tool result after observation processors; larger results become an error result. Default 1 MiB. */
  maxToolResultBytes: number;
  /** Bytes of one tool call's argument text. Default 256 KiB. */
  maxToolArgumentBytes: number;
  /**
   * Times one append is retried after a version conflict (another writer got there first), each time
   * against a reloaded session after a random backoff that grows to 250 ms. Default 30; when exhausted
   * the VersionConflictError is thrown (retryable; nothing of the step was stored). Keys that many
   * sessions write at once are better updated with `ctx.state.increment`, which never conflicts.
   */
  maxConflictRetries: number;
}

/** Default {@link RunLimits}. */
export const DEFAULT_LIMITS: RunLimits = {
  maxSteps: 50,
  maxToolCallsPerStep: 16,
  maxWallTimeMs: 30 * 60_000,
  maxToolTimeMs: Number.POSITIVE_INFINITY,
  maxToolResultBytes: 1024 * 1024,
  maxToolArgumentBytes: 256 * 1024,
  maxConflictRetries: 30,
};
