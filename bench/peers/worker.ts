/**
 * One framework in one fresh process: per history size, an untimed invocation at that size (warm-up:
 * the first steps at a new size run code the JIT has not optimized for it, for every framework alike),
 * then a timed one on a freshly prepared session. Prints one JSON line of {@link StepResult}s. Run by
 * `run.ts` (which passes `--sizes` on), never directly timed against itself.
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

const results: StepResult[] = [];
for (const events of HISTORY_SIZES) {
  // Warm-up at this size: module loading, JIT, and code paths that only a history this long takes.
  clock.reset();
  await (
    await fw.prepare(events, clock)
  )();
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
