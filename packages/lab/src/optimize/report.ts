/**
 * The outputs of an optimization run, written to its folder: the chosen guideline as a guideline file,
 * every candidate (as a file, with its scores or why it was rejected), the feedback, and the report
 * (JSON, and markdown with the before/after table on the training and held-out splits).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatGuideline } from 'pagewise/compression';
import type { OptimizeReport, OptimizeResult, SplitScore } from './types.js';

/** The files {@link writeOptimizeOutput} writes, relative to the folder. */
export const OPTIMIZE_OUTPUT_FILES = {
  guideline: 'guideline.md',
  candidates: 'candidates.json',
  candidateDir: 'candidates',
  feedback: 'feedback.json',
  reportJson: 'report.json',
  reportMarkdown: 'report.md',
} as const;

const pct = (n: number) => `${Math.round(n * 100)}%`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');

function cells(score: SplitScore): string {
  const perSuccess = score.tokensPerSuccess === null ? '—' : int(score.tokensPerSuccess);
  return `${score.tasks} | ${pct(score.success)} | ${int(score.peakPromptTokens)} | ${int(score.costTokens)} | ${perSuccess} | ${score.cost.toFixed(3)}`;
}

/** The before/after table as markdown: one row per guideline and split. */
export function optimizeTable(report: OptimizeReport): string {
  const lines = [
    `| split | guideline | id@version | tasks | success | peak prompt tokens (mean) | tokens per task (mean) | tokens per solved task | cost vs uncompressed | success − ${report.lambda}·cost |`,
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of report.rows) {
    lines.push(
      `| ${row.split} | ${row.label} | ${row.guideline ? `${row.guideline.id}@${row.guideline.version}` : '—'} | ${cells(row.score)} | ${row.selection.toFixed(3)} |`,
    );
  }
  return lines.join('\n');
}

/** The markdown report: settings, the table, the verdict on the held-out split, notes. */
export function optimizeMarkdown(report: OptimizeReport, result?: Pick<OptimizeResult, 'candidates'>): string {
  const lines = [
    `## Guideline optimization: ${report.scenario}, ${report.target}`,
    '',
    `Agent model ${report.model}, compressor ${report.compressor}, proposer ${report.proposer}; K = ${report.candidates}, λ = ${report.lambda}, seed ${report.seed}; ${report.trainTasks.length} training and ${report.valTasks.length} held-out tasks.` +
      (report.model === 'offline' ? ' The offline model is deterministic rules, not an LLM.' : ''),
    'Tokens per task: cumulative agent prompt tokens plus compressor tokens; cost: their sum over the sum of the uncompressed runs on the same tasks.',
    '',
    optimizeTable(report),
    '',
    `Held-out verdict: ${report.verdict.text}.`,
  ];
  if (report.usage.calls > 0)
    lines.push('', `Optimizer: ${report.usage.calls} calls, ${int(report.usage.tokens)} tokens.`);
  if (result) {
    lines.push(
      '',
      '| step | # | id@version | edit | status | train success | cost | score | chosen |',
      '|---|---:|---|---|---|---:|---:|---:|---|',
    );
    for (const candidate of result.candidates) {
      lines.push(
        `| ${candidate.step} | ${candidate.index} | ${candidate.id}@${candidate.version} | ${candidate.edit.replace(/\|/gu, '\\|').slice(0, 120)} | ${candidate.status}${candidate.reason ? `: ${candidate.reason.replace(/\|/gu, '\\|').slice(0, 160)}` : ''} | ${candidate.train ? pct(candidate.train.success) : '—'} | ${candidate.train ? candidate.train.cost.toFixed(3) : '—'} | ${candidate.score === undefined ? '—' : candidate.score.toFixed(3)} | ${candidate.chosen ? 'yes' : ''} |`,
      );
    }
  }
  for (const note of report.notes) lines.push('', `Note: ${note}`);
  return lines.join('\n');
}

/** Writes the outputs (see the module comment); returns the paths written. */
export async function writeOptimizeOutput(dir: string, result: OptimizeResult): Promise<string[]> {
  const files = OPTIMIZE_OUTPUT_FILES;
  await mkdir(path.join(dir, files.candidateDir), { recursive: true });
  const written: string[] = [];
  const write = async (name: string, text: string) => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    written.push(file);
  };
  await write(files.guideline, formatGuideline(result.chosen));
  for (const candidate of result.candidates) {
    if (candidate.guideline && candidate.index > 0)
      await write(
        path.join(files.candidateDir, `${candidate.step}-${candidate.index}.md`),
        formatGuideline(candidate.guideline),
      );
  }
  await write(
    files.candidates,
    `${JSON.stringify(
      result.candidates.map(({ guideline, ...rest }) => ({
        ...rest,
        ...(guideline && rest.index > 0
          ? { file: path.join(files.candidateDir, `${rest.step}-${rest.index}.md`) }
          : {}),
      })),
      null,
      2,
    )}\n`,
  );
  await write(
    files.feedback,
    `${JSON.stringify({ ...result.feedback, fieldWeights: result.weights, unneededFields: result.unneeded }, null, 2)}\n`,
  );
  await write(files.reportJson, `${JSON.stringify(result.report, null, 2)}\n`);
  await write(files.reportMarkdown, `${optimizeMarkdown(result.report, result)}\n`);
  return written;
}
