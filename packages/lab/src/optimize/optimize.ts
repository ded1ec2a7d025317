/**
 * ACON's guideline optimization loop for one compressor (history or observation): run the training
 * tasks uncompressed and with the starting guideline; the utility step (UT) takes the contrastive set
 * (succeeded uncompressed, failed compressed), gets feedback on each pair, asks for K revised guidelines
 * and keeps the one with the best training success; the compression step (CO) takes the tasks that
 * succeeded compressed, gets feedback on what was kept and not needed, asks for K shorter guidelines and
 * keeps the one with the best success − λ · cost, where cost is the compressed runs' tokens over the
 * uncompressed runs' on the same tasks. One UT round, one CO round; the incumbent stays in each pool,
 * so a step never makes things worse on the training split. With a budget, a candidate whose runs send a
 * larger request, or that costs more tokens than the start, is rejected. Before and after are then measured on the
 * held-out split.
 *
 * Every candidate is checked (target, placeholders kept, no task-specific value of the training tasks)
 * before it is run. Episodes run through a small semaphore; finished episodes and optimizer answers are
 * kept in the progress file, so a run started again after an interruption repeats no finished work.
 */

import { placeholdersOf } from 'pagewise/internal';
import { PagewiseError, modelLabel } from 'pagewise';
import { baselinePhase, compressionPhase, utilityPhase, validationPhase } from './phases.js';
import { writeOptimizeOutput } from './report.js';
import { openRun } from './run.js';
import { verdictOf } from './scoring.js';
import type { OptimizeOptions, OptimizeReport, OptimizeResult } from './types.js';

export { limitViolation, scoreSplit, selectCandidate, selectionScore } from './scoring.js';
export { CANDIDATE_REPLY_ATTEMPTS } from './phases.js';
export type {
  CandidateResult,
  OptimizeOptions,
  OptimizePhase,
  OptimizeProgressEvent,
  OptimizeReport,
  OptimizeReportRow,
  OptimizeResult,
  SplitScore,
} from './types.js';

/**
 * Runs the loop (see the module comment) and, with `outDir`, writes the chosen guideline, every
 * candidate with its scores, the feedback and the report there.
 *
 * @throws ConfigurationError for bad options, a progress file of another run, or a missing key;
 *   LimitExceededError when an optimizer cap is reached (progress saved; run again with a higher cap);
 *   AbortedError when `signal` aborts (progress saved).
 * @example
 * const result = await optimizeGuideline({ scenario: getScenario('retail-tool-use'), target: 'observation', outDir: 'optimize-out' });
 * console.log(result.report.verdict.text);
 */
export async function optimizeGuideline(options: OptimizeOptions): Promise<OptimizeResult> {
  const run = await openRun(options);
  try {
    const baseline = await baselinePhase(run);
    const utility = await utilityPhase(run, baseline);
    const compression = await compressionPhase(run, baseline, utility.afterUtility);
    const rows = await validationPhase(run, baseline, utility.afterUtility, compression);
    const { start } = run;
    const { chosen } = compression;
    const report: OptimizeReport = {
      scenario: options.scenario.name,
      target: options.target,
      model: modelLabel(run.model),
      compressor: run.compressor,
      proposer: run.proposer.name,
      candidates: run.k,
      lambda: run.lambda,
      budget: run.budget ?? null,
      seed: run.seed,
      trainTasks: run.trainTasks.map((t) => t.id),
      valTasks: run.valTasks.map((t) => t.id),
      rows,
      usage: run.progress.usage,
      verdict: verdictOf(
        rows.find((r) => r.split === 'val' && r.label === 'start'),
        rows.find((r) => r.split === 'val' && r.label === 'final'),
        run.lambda,
      ),
      notes: run.notes,
    };
    // Placeholders are checked per candidate; this guards the loop itself.
    const missing = placeholdersOf(start.template).filter((p) => !placeholdersOf(chosen.template).includes(p));
    if (missing.length > 0)
      throw new PagewiseError({
        code: 'optimizer-bug',
        fault: 'system',
        message: `The chosen guideline lost placeholders ${missing.join(', ')}; this is a bug in the optimizer.`,
      });
    const result: OptimizeResult = {
      start,
      afterUtility: utility.afterUtility,
      chosen,
      candidates: run.candidates,
      feedback: { utility: utility.feedback, compression: compression.feedback },
      weights: utility.weights,
      unneeded: compression.unneeded,
      report,
    };
    if (options.outDir) await writeOptimizeOutput(options.outDir, result);
    return result;
  } finally {
    await run.progress.save();
  }
}
