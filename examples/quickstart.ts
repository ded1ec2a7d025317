/**
 * Quickstart: an agent with one tool, run on the offline model (no API key), with its session in SQLite.
 * Run: npx tsx examples/quickstart.ts
 */
import { z } from 'zod';
import { Agent, Runner, tool } from 'pagewise';
import { SqliteSessionStore } from '@pagewise/sqlite';

const note = tool({
  name: 'note',
  description: 'Saves a note in durable session state.',
  inputSchema: z.object({ text: z.string().max(2000) }),
  execute: ({ text }, ctx) => {
    ctx.state.set('note', text);
    return 'saved';
  },
});

const store = new SqliteSessionStore({ path: ':memory:' });
const agent = new Agent({ name: 'assistant', instruction: 'You take notes.', tools: [note], model: 'offline' });
const runner = new Runner({ agent, store });
const result = await runner.run({ userId: 'me', message: 'Remember that the meeting is on Tuesday.' });
console.log(result.text);
console.log(result.ledger.summary);
await store.close();
