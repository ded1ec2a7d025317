/**
 * Preloaded into a `pagewise analyze` child process (`--import`): sends the process a real SIGINT, as Ctrl-C does,
 * right after it prints its Nth progress line (`analyze: 4/24 documents read`, or `loaded`), N from
 * PAGEWISE_TEST_INTERRUPT_AT_PROGRESS. The runner notices the signal before its next step, so the run stops at a
 * batch boundary chosen by the test rather than at a moment a timer happens to hit.
 */
const target = Number(process.env.PAGEWISE_TEST_INTERRUPT_AT_PROGRESS);
const PROGRESS_LINE = /^analyze: \d+\/\d+ documents (?:read|loaded)/m;
let seen = 0;
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => {
  const written = write(chunk, ...rest);
  if (PROGRESS_LINE.test(String(chunk))) {
    seen += 1;
    if (seen === target) process.kill(process.pid, 'SIGINT');
  }
  return written;
};
