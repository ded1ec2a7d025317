/**
 * The phases of a guideline optimization, each a function of the shared run: the baseline (every task
 * uncompressed, the training tasks with the start), the utility step (UT), the compression step (CO)
 * and the validation on the held-out split with the report rows.
 */
import type { ScenarioTask } from '../bench/scenario.js';
import type { Guideline } from 'pagewise/compression';
import {
  analyzePair,
  analyzeSuccess,
  compressionAnalysis,
  contrastivePairs,
  openMapNormalizer,
  weighFields,
  type CompressionFeedback,
  type FieldCost,
  type FieldWeight,
  type PairFeedback,
} from './analysis.js';
import { ConfigurationError } from 'pagewise';
import { checkCandidate, runValues, type RunValue } from './candidate-check.js';
import type { EvaluationJob } from './evaluate.js';
import { guidelineHash } from './hash.js';
import type { CandidateDraft, ProposerContext } from './proposer.js';
import { settleAll, type OptimizeRun } from './run.js';
import { limitViolation, scoreSplit, selectCandidate, selectionScore } from './scoring.js';
import type { EpisodeTrace } from './trace.js';
import type { CandidateResult, OptimizeReportRow, SplitScore } from './types.js';

type Step = 'utility' | 'compression';

/** Jobs running `guideline` on each of `tasks`. */
export function compressedJobs(tasks: readonly ScenarioTask[], guideline: Guideline): EvaluationJob[] {
  return tasks.map((task) => ({ task, mode: 'compressed', guideline }));
}

const byTask = (traces: readonly EpisodeTrace[]) => new Map(traces.map((t) => [t.taskId, t]));

/** What the baseline measured. */
export interface Baseline {
  uncompressed: Map<string, EpisodeTrace>;
  startTrain: EpisodeTrace[];
  /** The start's cost on the training split: no chosen candidate may cost more with a budget. */
  startCost: number;
}

/** Baseline: every task uncompressed, then the training tasks with the starting guideline. */
export async function baselinePhase(run: OptimizeRun): Promise<Baseline> {
  // Uncompressed first: a compressed run's analysis compares against the uncompressed run of its task.
  const uncompressed = byTask(
    await run.run(
      'baseline',
      run.tasks.map((task) => ({ task, mode: 'uncompressed' as const })),
    ),
  );
  const startTrain = await run.run('baseline', compressedJobs(run.trainTasks, run.start));
  return { uncompressed, startTrain, startCost: scoreSplit(startTrain, uncompressed).cost };
}

/** The texts of a trace an optimizer may be shown: answer, tool calls, compressor excerpts, field values. */
function traceTexts(trace: EpisodeTrace): string[] {
  return [
    trace.answer,
    trace.error ?? '',
    ...trace.toolCalls.map((call) => `${call.toolName} ${call.input}`),
    ...trace.excerpts.flatMap((excerpt) => [excerpt.input, excerpt.output]),
    ...Object.values(trace.fields).flatMap((stats) => [...stats.lostValues, ...stats.keptValues]),
  ];
}

/**
 * The values of the training runs behind a step (their traces, the uncompressed ones included, and the
 * feedback the proposer wrote), which no candidate of the step may name.
 */
function stepRunValues(
  run: OptimizeRun,
  baseline: Baseline,
  traces: readonly EpisodeTrace[],
  feedback: readonly unknown[],
): RunValue[] {
  const uncompressed = run.trainTasks.flatMap((task) => {
    const trace = baseline.uncompressed.get(task.id);
    return trace ? [trace] : [];
  });
  return runValues(
    {
      traces: [...uncompressed, ...traces].flatMap(traceTexts),
      feedback: feedback.map((item) => JSON.stringify(item)),
    },
    run.start,
  );
}

/** The replies of a step that held no readable candidate, as rejected entries of the candidate log. */
function unreadableEntries(run: OptimizeRun, step: Step, incumbent: Guideline, proposal: Proposal): CandidateResult[] {
  const tag = step === 'utility' ? 'ut' : 'co';
  return proposal.unreadable.map(({ attempt, error }) => ({
    step,
    index: 1,
    attempt,
    id: `${run.root}-${tag}-reply${attempt}`,
    version: incumbent.version + 1,
    edit: `optimizer reply ${attempt} of at most ${CANDIDATE_REPLY_ATTEMPTS}`,
    chosen: false,
    status: 'rejected',
    reason: `the reply could not be read (${error}); ${attempt < CANDIDATE_REPLY_ATTEMPTS ? 'asked again' : 'no attempt left, the step kept its incumbent'}`,
  }));
}

/** The drafts of a step as candidate entries: named, checked, duplicates refused. */
function draftEntries(
  run: OptimizeRun,
  step: Step,
  incumbent: Guideline,
  drafts: readonly CandidateDraft[],
  runValuesSeen: readonly RunValue[],
) {
  const tag = step === 'utility' ? 'ut' : 'co';
  const entries: CandidateResult[] = [];
  const seen = new Map<string, number>([[guidelineHash(incumbent), 0]]);
  drafts.forEach((draft, draftIndex) => {
    const index = draftIndex + 1;
    const base = {
      step,
      index,
      id: `${run.root}-${tag}${index}`,
      version: incumbent.version + 1,
      edit: draft.edit,
      chosen: false,
    } as const;
    if (!draft.guideline) {
      entries.push({ ...base, status: 'rejected', reason: draft.error ?? 'not a guideline' });
      return;
    }
    const summary =
      draft.guideline.description && draft.guideline.description !== draft.edit
        ? draft.guideline.description
        : draft.edit;
    const description = `${step === 'utility' ? 'UT' : 'CO'} candidate ${index} of ${run.root}: ${summary}`;
    const guideline: Guideline = { ...draft.guideline, id: base.id, version: base.version, description };
    const hash = guidelineHash(guideline);
    const reason = checkCandidate(guideline, incumbent, run.forbidden, runValuesSeen);
    const same = seen.get(hash);
    if (reason !== undefined) entries.push({ ...base, hash, status: 'rejected', reason, guideline });
    else if (same !== undefined)
      entries.push({
        ...base,
        hash,
        status: 'rejected',
        reason: same === 0 ? 'the same as the incumbent' : `the same as candidate ${same}`,
        guideline,
      });
    else {
      seen.set(hash, index);
      entries.push({ ...base, hash, status: 'evaluated', guideline });
    }
  });
  return entries;
}

/**
 * One step: checks the drafts, runs the survivors on the training tasks, rejects those over the budget
 * or costlier than the start (with a budget), and chooses among the incumbent and the rest.
 */
async function step(
  run: OptimizeRun,
  name: Step,
  incumbent: Guideline,
  incumbentTrain: readonly EpisodeTrace[],
  proposal: Proposal & { feedback: readonly unknown[] },
  baseline: Baseline,
): Promise<Guideline> {
  const { lambda, trainTasks } = run;
  const scoreOf = (s: SplitScore) => (name === 'utility' ? s.success : selectionScore(s, lambda));
  const incumbentScore = scoreSplit(incumbentTrain, baseline.uncompressed);
  const incumbentEntry: CandidateResult = {
    step: name,
    index: 0,
    id: incumbent.id,
    version: incumbent.version,
    hash: guidelineHash(incumbent),
    edit: name === 'utility' ? 'the starting guideline' : 'the guideline chosen by the utility step',
    status: 'evaluated',
    train: incumbentScore,
    score: scoreOf(incumbentScore),
    chosen: false,
    guideline: incumbent,
  };
  const entries = [
    ...unreadableEntries(run, name, incumbent, proposal),
    ...draftEntries(
      run,
      name,
      incumbent,
      proposal.drafts,
      stepRunValues(run, baseline, incumbentTrain, proposal.feedback),
    ),
  ];
  const evaluated = entries.filter((e) => e.status === 'evaluated');
  const traces = await run.run(
    name === 'utility' ? 'utility-candidates' : 'compression-candidates',
    evaluated.flatMap((e) => compressedJobs(trainTasks, e.guideline as Guideline)),
  );
  const limits = run.budget === undefined ? {} : { budget: run.budget, maxCost: baseline.startCost };
  evaluated.forEach((candidate, index) => {
    candidate.train = scoreSplit(
      traces.slice(index * trainTasks.length, (index + 1) * trainTasks.length),
      baseline.uncompressed,
    );
    candidate.score = scoreOf(candidate.train);
    const violation = limitViolation(candidate.train, limits);
    if (violation !== undefined) {
      candidate.status = 'rejected';
      candidate.reason = violation;
    }
  });
  const pool = [incumbentEntry, ...evaluated.filter((e) => e.status === 'evaluated')];
  const winner = pool[
    selectCandidate(
      pool.map((e) => e.train as SplitScore),
      name,
      lambda,
    )
  ] as CandidateResult;
  winner.chosen = true;
  run.candidates.push(incumbentEntry, ...entries);
  return winner.guideline as Guideline;
}

/** What the utility step produced. */
export interface UtilityOutcome {
  afterUtility: Guideline;
  feedback: PairFeedback[];
  weights: FieldWeight[];
}

/** UT: feedback on each contrastive pair (succeeded uncompressed, failed compressed), then K candidates. */
export async function utilityPhase(run: OptimizeRun, baseline: Baseline): Promise<UtilityOutcome> {
  const { start, proposer, context, k: candidateCount } = run;
  const startTrain = byTask(baseline.startTrain);
  const pairs = contrastivePairs(run.trainTasks, baseline.uncompressed, startTrain);
  const startSucceeded = baseline.startTrain.filter((t) => t.success);
  const weights = weighFields(pairs, startSucceeded, run.valuesFor);
  if (pairs.length === 0) {
    run.notes.push('Utility step skipped: no training task succeeded uncompressed and failed compressed.');
    const score = scoreSplit(baseline.startTrain, baseline.uncompressed);
    run.candidates.push({
      step: 'utility',
      index: 0,
      id: start.id,
      version: start.version,
      hash: guidelineHash(start),
      edit: 'the starting guideline (step skipped)',
      status: 'evaluated',
      train: score,
      score: score.success,
      chosen: true,
      guideline: start,
    });
    return { afterUtility: start, feedback: [], weights };
  }
  const normalize = openMapNormalizer([...pairs.map((p) => p.compressed), ...startSucceeded]);
  let done = 0;
  run.emit({ phase: 'utility-feedback', done, total: pairs.length, resumed: 0 });
  const feedback = await settleAll(
    pairs.map((pair) =>
      run.limit(async () => {
        const analysis = analyzePair(pair, run.valuesFor(pair.task.id), normalize);
        const answer = await proposer.utilityFeedback(pair, analysis, start, context);
        run.emit({ phase: 'utility-feedback', done: (done += 1), total: pairs.length, resumed: 0 });
        return answer;
      }),
    ),
  );
  const proposal = await proposeCandidates(run, 'Utility step', (asked) =>
    proposer.utilityCandidates(start, feedback, weights, candidateCount, asked),
  );
  const afterUtility = await step(run, 'utility', start, baseline.startTrain, { ...proposal, feedback }, baseline);
  return { afterUtility, feedback, weights };
}

/** Replies asked for a step's candidates, the first one included, before the step is skipped. */
export const CANDIDATE_REPLY_ATTEMPTS = 4;

/** The candidates a step's proposer gave, and the replies before them of which no candidate could be read. */
export interface Proposal {
  drafts: CandidateDraft[];
  unreadable: { attempt: number; error: string }[];
}

/**
 * Asks the proposer for a step's candidates, and again (saying why) while no candidate of its reply
 * can be read, at most {@link CANDIDATE_REPLY_ATTEMPTS} times in all. Each unreadable reply is a failed
 * candidate of the candidate log; after the last the step keeps its incumbent, so one optimizer reply
 * never stops the optimization (the replies are not cached, so running again asks again).
 */
async function proposeCandidates(
  run: OptimizeRun,
  label: string,
  propose: (context: ProposerContext) => Promise<CandidateDraft[]>,
): Promise<Proposal> {
  const unreadable: Proposal['unreadable'] = [];
  for (let attempt = 1; attempt <= CANDIDATE_REPLY_ATTEMPTS; attempt += 1) {
    const previous = unreadable.at(-1);
    const context: ProposerContext = previous
      ? { ...run.context, retry: { attempt, attempts: CANDIDATE_REPLY_ATTEMPTS, error: previous.error } }
      : run.context;
    const drafts = await propose(context);
    if (drafts.length === 0 || drafts.some((d) => d.guideline)) {
      noteDrafts(run, label, drafts, unreadable);
      return { drafts, unreadable };
    }
    unreadable.push({ attempt, error: drafts.find((d) => d.error)?.error ?? 'no candidate could be read' });
  }
  run.notes.push(
    `${label} skipped: none of the ${CANDIDATE_REPLY_ATTEMPTS} replies of ${run.proposer.name} held a candidate that could be read (last: ${unreadable.at(-1)?.error ?? 'unreadable'}), so the step kept its incumbent. ` +
      'Use an optimizer model that follows the "=== CANDIDATE n ===" format; unreadable replies are not kept in the progress file, so running the same command again asks again.',
  );
  return { drafts: [], unreadable };
}

/** Notes what a step's proposer gave: replies asked again, fewer candidates than asked, and those that could not be read. */
function noteDrafts(
  run: OptimizeRun,
  label: string,
  drafts: readonly CandidateDraft[],
  unreadable: Proposal['unreadable'],
): void {
  const { k: candidateCount, proposer } = run;
  if (unreadable.length > 0)
    run.notes.push(
      `${label}: ${unreadable.length} ${unreadable.length > 1 ? 'replies' : 'reply'} of ${proposer.name} held no candidate that could be read and ${unreadable.length > 1 ? 'were' : 'was'} asked again (first: ${unreadable[0]?.error ?? 'unreadable'}).`,
    );
  const malformed = drafts.filter((d) => !d.guideline);
  if (malformed.length > 0)
    run.notes.push(
      `${label}: ${malformed.length} of ${drafts.length} candidates of ${proposer.name} could not be read and were not tried (first: ${malformed[0]?.error ?? 'unreadable'}).`,
    );
  if (drafts.length < candidateCount)
    run.notes.push(
      `${label}: ${drafts.length} of ${candidateCount} candidates proposed (${proposer.name} gave no more distinct ones).`,
    );
}

/** What the compression step produced. */
export interface CompressionOutcome {
  chosen: Guideline;
  utilityTrain: EpisodeTrace[];
  feedback: CompressionFeedback[];
  unneeded: FieldCost[];
}

/** CO: on the tasks the utility step's guideline solved, feedback on what was kept and not needed, then K shorter candidates. */
export async function compressionPhase(
  run: OptimizeRun,
  baseline: Baseline,
  afterUtility: Guideline,
): Promise<CompressionOutcome> {
  const { proposer, context, k: candidateCount } = run;
  const utilityTrain = await run.run('compression-candidates', compressedJobs(run.trainTasks, afterUtility));
  const succeeded = utilityTrain.filter((t) => t.success);
  const coAnalysis = compressionAnalysis(
    succeeded.map((trace) => {
      const uncompressed = baseline.uncompressed.get(trace.taskId);
      return { compressed: trace, ...(uncompressed ? { uncompressed } : {}), values: run.valuesFor(trace.taskId) };
    }),
    afterUtility.rules,
  );
  const unneeded = coAnalysis.unneeded;
  if (succeeded.length === 0) {
    run.notes.push("Compression step skipped: no training task succeeded with the utility step's guideline.");
    return { chosen: afterUtility, utilityTrain, feedback: [], unneeded };
  }
  let done = 0;
  run.emit({ phase: 'compression-feedback', done, total: succeeded.length, resumed: 0 });
  const feedback = await settleAll(
    succeeded.map((trace) =>
      run.limit(async () => {
        const task = run.taskById.get(trace.taskId) as ScenarioTask;
        const analysis = analyzeSuccess(trace, unneeded);
        const answer = await proposer.compressionFeedback(task, trace, analysis, afterUtility, context);
        run.emit({ phase: 'compression-feedback', done: (done += 1), total: succeeded.length, resumed: 0 });
        return answer;
      }),
    ),
  );
  const proposal = await proposeCandidates(run, 'Compression step', (asked) =>
    proposer.compressionCandidates(afterUtility, feedback, coAnalysis, candidateCount, asked),
  );
  const chosen = await step(run, 'compression', afterUtility, utilityTrain, { ...proposal, feedback }, baseline);
  return { chosen, utilityTrain, feedback, unneeded };
}

/**
 * Validation: the start, the utility step's and the final guideline (and any references) on both splits,
 * as the report's rows.
 */
export async function validationPhase(
  run: OptimizeRun,
  baseline: Baseline,
  afterUtility: Guideline,
  compression: CompressionOutcome,
): Promise<OptimizeReportRow[]> {
  const { start, trainTasks, valTasks, lambda } = run;
  const { chosen } = compression;
  const distinct = [...new Map([start, afterUtility, chosen].map((g) => [guidelineHash(g), g])).values()];
  const valTraces = await run.run(
    'validation',
    distinct.flatMap((g) => compressedJobs(valTasks, g)),
  );
  const trainOf = new Map<string, EpisodeTrace[]>([
    [guidelineHash(start), baseline.startTrain],
    [guidelineHash(afterUtility), compression.utilityTrain],
  ]);
  if (!trainOf.has(guidelineHash(chosen)))
    trainOf.set(guidelineHash(chosen), await run.run('validation', compressedJobs(trainTasks, chosen)));
  const valOf = new Map(
    distinct.map((g, i) => [guidelineHash(g), valTraces.slice(i * valTasks.length, (i + 1) * valTasks.length)]),
  );
  const references = run.options.references ?? [];
  for (const ref of references) {
    if (ref.guideline.target !== run.options.target)
      throw new ConfigurationError(
        'wrong-guideline-target',
        `The reference guideline "${ref.guideline.id}" targets ${ref.guideline.target}, not ${run.options.target}.`,
      );
    const hash = guidelineHash(ref.guideline);
    if (!trainOf.has(hash)) trainOf.set(hash, await run.run('validation', compressedJobs(trainTasks, ref.guideline)));
    if (!valOf.has(hash)) valOf.set(hash, await run.run('validation', compressedJobs(valTasks, ref.guideline)));
  }

  const rows: OptimizeReportRow[] = [];
  const row = (label: string, split: 'train' | 'val', traces: readonly EpisodeTrace[], guideline?: Guideline) => {
    if (traces.length === 0) return;
    const score = scoreSplit(traces, baseline.uncompressed);
    const id = guideline
      ? { guideline: { id: guideline.id, version: guideline.version, hash: guidelineHash(guideline) } }
      : {};
    rows.push({ label, ...id, split, score, selection: selectionScore(score, lambda) });
  };
  const shown: (readonly [string, Guideline])[] = [
    ['start', start],
    ['after UT', afterUtility],
    ['final', chosen],
    ...references.map((r) => [r.label, r.guideline] as const),
  ];
  for (const split of ['train', 'val'] as const) {
    const list = split === 'train' ? trainTasks : valTasks;
    row(
      'uncompressed',
      split,
      list.map((t) => baseline.uncompressed.get(t.id) as EpisodeTrace),
    );
    for (const [label, guideline] of shown)
      row(label, split, (split === 'train' ? trainOf : valOf).get(guidelineHash(guideline)) ?? [], guideline);
  }
  return rows;
}
