// Registers a module hook that records every module the process loads, and prints the list as JSON on exit.
// Used by the lean-entry test and bench/import-cost.ts: `node --import ./record-imports.mjs -e "import('x')"`.
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const loaded = new Set();
port1.on('message', (url) => loaded.add(url));
port1.unref();
register(new URL('./record-imports-hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });
process.on('exit', () => {
  process.stdout.write(`\n@@modules ${JSON.stringify([...loaded])}\n`);
});
