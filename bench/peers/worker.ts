/**
 * One framework in one fresh process: a warm-up invocation, then one timed invocation per history size.
 * Prints one JSON line of {@link StepResult}s. Run by `run.ts`, never directly timed against itself.
 */
import { HISTORY_SIZES, median, OutsideClock, STEPS, type StepResult } from './common.js';
import { FRAMEWORKS } from './frameworks.js';

const key = process.argv[2] ?? '';
const fw = FRAMEWORKS[key];
if (!fw) {
  console.error(`Unknown framework "${key}"; one of ${Object.keys(FRAMEWORKS).join(', ')}.`);
  process.exit(2);
}

const clock = new OutsideClock();
// Warm-up: the first invocation of any framework pays module loading and JIT; none of it is timed.
await (
  await fw.prepare(10, clock)
)();

const results: StepResult[] = [];
for (const events of HISTORY_SIZES) {
  clock.reset();
  const invoke = await fw.prepare(events, clock);
  // The garbage of preparing (building the pre-filled history) is collected before the clock starts, for
  // every framework alike, so no framework's invocation pays for its preparation.
  globalThis.gc?.();
  clock.reset();
  const start = performance.now();
  await invoke();
  const invocationMs = performance.now() - start;
  if (clock.calls !== STEPS + 1) throw new Error(`${fw.name}: ${clock.calls} model calls, expected ${STEPS + 1}`);
  results.push({ events, stepMs: median(clock.gaps), invocationMs, calls: clock.calls });
}
await fw.close?.();
process.stdout.write(`${JSON.stringify({ framework: key, results })}\n`);
process.exit(0);
