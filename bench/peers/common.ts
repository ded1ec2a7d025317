/**
 * What every framework in the peer benchmark shares: the scripted work (one `record` tool, 20 tool
 * steps, then an answer), the pre-filled history, and the clock that times each framework from outside
 * it, the same way for all: the gap between the moment the scripted model returns a response and the
 * moment the framework calls it again.
 */

/** Tool steps per timed invocation. */
export const STEPS = 20;
/** History sizes, in events, that sessions are pre-filled to (`--sizes 500,5000` to change them). */
export const HISTORY_SIZES: readonly number[] = sizesOf(process.argv);

function sizesOf(argv: readonly string[]): number[] {
  const at = argv.indexOf('--sizes');
  const raw = at >= 0 ? argv[at + 1] : undefined;
  const sizes = (raw ?? '500,5000,20000').split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 4))
    throw new RangeError(`--sizes takes event counts ≥ 4 separated by commas, got "${raw}".`);
  return sizes;
}

/** The `record` tool's description, identical in every framework. */
export const RECORD_DESCRIPTION = 'Records one observation by index and returns a short acknowledgement.';

/** What the `record` tool does in every framework. */
export function recordTool(args: { i: number; note: string }): string {
  return `recorded ${args.i} (${args.note.length} chars)`;
}

/** Arguments of the scripted model's tool call number `callIndex`. */
export function recordArgs(callIndex: number): { i: number; note: string } {
  return {
    i: callIndex,
    note: `observation ${callIndex}: the value went from ${100 + callIndex} to ${101 + callIndex}`,
  };
}

/** The text of pre-filled turn `turn` (a call of `record` and its result make two events). */
export function seedTurn(turn: number): { args: { i: number; note: string }; result: string } {
  const args = { i: turn, note: `earlier observation ${turn}: ${'detail '.repeat(15).trim()}` };
  return { args, result: recordTool(args) };
}

/** The answer the scripted model gives after its tool steps. */
export const FINAL_TEXT = 'All observations are recorded.';

/**
 * The clock around a scripted model: `enter()` when the framework calls the model, `exit()` when the
 * model returns. Gaps are framework time: request building, tool execution, persistence.
 */
export class OutsideClock {
  private lastExit: number | undefined;
  readonly gaps: number[] = [];
  calls = 0;

  enter(): void {
    const now = performance.now();
    if (this.lastExit !== undefined) this.gaps.push(now - this.lastExit);
    this.calls += 1;
  }

  exit(): void {
    this.lastExit = performance.now();
  }

  reset(): void {
    this.lastExit = undefined;
    this.gaps.length = 0;
    this.calls = 0;
  }
}

/** The scripted decision for model call number `call` (0-based) of an invocation of `steps` tool steps. */
export function decide(call: number, steps: number): { tool?: { i: number; note: string }; text?: string } {
  return call < steps ? { tool: recordArgs(call) } : { text: FINAL_TEXT };
}

/** The median of a list of numbers. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** One framework's figures at one history size, from one process. */
export interface StepResult {
  events: number;
  /** Median gap between model calls over the invocation's steps, ms. */
  stepMs: number;
  /** Wall time of the whole invocation (session load to final answer), ms. */
  invocationMs: number;
  /** Model calls the framework made (STEPS + 1 when it followed the script). */
  calls: number;
}

/** A framework under test: runs one timed invocation on a session pre-filled to `events` events. */
export interface PeerFramework {
  name: string;
  /** Prepares a pre-filled session and returns the function that runs the timed invocation. */
  prepare(events: number, clock: OutsideClock): Promise<() => Promise<void>>;
  close?(): Promise<void>;
}
