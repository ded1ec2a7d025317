/**
 * Sessions and pages in PostgreSQL, shared by any number of worker processes. Needs a database:
 * PAGEWISE_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx examples/postgres.ts
 */
import { z } from 'zod';
import { Agent, Runner, tool } from 'pagewise';
import { PgSessionStore, openPgDatabase } from '@pagewise/postgres';
import { scriptedModel } from 'pagewise/testing';

if (!process.env.PAGEWISE_DATABASE_URL) {
  console.log('Set PAGEWISE_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run this example.');
  process.exit(0);
}
const database = openPgDatabase({ schema: 'pagewise_example' });
const visit = tool({
  name: 'visit',
  description: 'Counts a visit for the user across all their sessions.',
  inputSchema: z.object({}),
  // increment() is applied by the store at append time: concurrent sessions never lose a count.
  execute: (_args, ctx) => void ctx.state.increment('user:visits'),
});
const runner = new Runner({
  agent: new Agent({ name: 'a', tools: [visit] }),
  model: scriptedModel([{ toolCalls: [{ toolName: 'visit', input: {} }] }, 'counted']),
  store: new PgSessionStore({ database }),
});
const result = await runner.run({ userId: 'ada', message: 'hello' });
console.log(result.text, 'visits so far:', result.session.state['user:visits']);
await runner.store.close();
