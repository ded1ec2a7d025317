// Preloaded by bench/import-cost.ts with `--import`: prints the process's CPU time (user + system, in microseconds,
// every thread) on stderr as it exits, so the parent reads what the child spent without a timer of its own.
process.on('exit', () => {
  const usage = process.resourceUsage();
  process.stderr.write(`\n@@cpu ${usage.userCPUTime + usage.systemCPUTime}\n`);
});
