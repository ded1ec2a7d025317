// Registers a module hook that records every module the process loads, and prints the list as JSON on exit.
// Used by the lean-entry tests and bench/import-cost.ts: `node --import ./record-imports.mjs -e "import('x')"`.
// The hook sees ESM resolutions only; modules loaded with require() (gpt-tokenizer's tables are, through
// createRequire) are read from the CommonJS module cache at exit, as file URLs like the others.
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const { port1, port2 } = new MessageChannel();
const loaded = new Set();
port1.on('message', (url) => loaded.add(url));
port1.unref();
register(new URL('./record-imports-hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });
const requireCache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  for (const file of Object.keys(requireCache)) loaded.add(pathToFileURL(file).href);
  process.stdout.write(`\n@@modules ${JSON.stringify([...loaded])}\n`);
});
