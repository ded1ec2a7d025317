/**
 * A worker process for the distributed tests: `pagewise worker` with the arguments given, until a
 * signal stops it. Started as `node --import tsx worker-process.ts --redis <url> ...` (the CLI entry
 * point gains the command separately).
 */
import { workerCommand } from '../../packages/cli/src/worker.js';

try {
  process.exitCode = await workerCommand(process.argv.slice(2), (s) => process.stdout.write(`${s}\n`));
} catch (error) {
  process.stderr.write(`worker-process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}
