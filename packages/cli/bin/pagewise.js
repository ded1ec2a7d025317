#!/usr/bin/env node
// The pagewise command: runs the compiled CLI (built by `npm run build`, which `npm ci` runs via the workspace's prepare).
import { main } from '../dist/main.js';

// A reader that stops early (`pagewise sessions show … | head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`pagewise: unexpected failure: ${error?.stack ?? String(error)}\n`);
    process.exitCode = 70;
  },
);
