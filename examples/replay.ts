/**
 * Replay recorded agent traces without a model: two support conversations in OpenAI Chat Completions
 * format (one with reward 1, one with reward 0) under every context strategy, then what each would have
 * saved and lost of the values the agent went on to use. No key needed.
 * npx tsx examples/replay.ts
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// Published as `@pagewise/lab/replay`.
import { readTraces, replayMarkdown, replayTraces } from '@pagewise/lab/replay';

const here = path.dirname(fileURLToPath(import.meta.url));
const traces = await readTraces(
  path.join(here, '..', 'packages', 'lab', 'src', 'replay', 'testdata', 'openai-chat.jsonl'),
);
console.log(`Read ${traces.length} traces: ${traces.map((t) => `${t.id} (reward ${t.reward})`).join(', ')}`);

const report = await replayTraces(traces, { observationThreshold: 256 });
console.log(replayMarkdown(report, { losses: 3 }));

// The figures are data too: pick the strategy that saves the most while keeping every used value.
const safe = report.strategies.filter((s) => s.recall === 1).sort((a, b) => b.tokensSaved - a.tokensSaved)[0];
console.log(
  `Safe on these traces: ${safe?.name}, ${((safe?.tokensSaved ?? 0) * 100).toFixed(1)}% fewer prompt tokens.`,
);
