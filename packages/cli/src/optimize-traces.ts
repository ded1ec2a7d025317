/**
 * `pagewise optimize --from-traces <file|folder>`: learns observation-guideline rules from recorded
 * traces by replay, with no model call (see `learnFromTraces`), and writes the guideline, the per-tool
 * thresholds and a report of what each rule was learned from and how it fared on the held-out traces.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigurationError } from 'pagewise';
import { formatGuideline, loadGuideline } from 'pagewise/compression';
import { learnFromTraces, readTraces, type LearnFromTracesResult } from '@pagewise/lab/replay';
import { intOption, parseCommand } from './args.js';

/** Help text of `pagewise optimize --from-traces`. */
export const OPTIMIZE_TRACES_HELP = `Usage: pagewise optimize --from-traces <file|folder> [options]

Learns rules of the observation guideline from recorded traces, without a model: values the model used
later that the starting guideline lost (in traces with a positive or no recorded outcome) become keep
rules (a JSON field, or the shape of an id found in text); tools whose results were never used get a lower
threshold. Each rule is replayed on the held-out traces and kept only if no more used values are lost and
prompt tokens do not rise (a threshold must lower them). Rules name kinds of fields, never values.
The held-out traces choose the rules: measure the result on other traces with
\`pagewise replay <other traces> --guideline <out>/guideline.md\`.

Options:
  --from-traces <path>   Trace file or folder (the formats of pagewise replay)
  --holdout <share>      Share of traces held out to validate each rule (default 0.3)
  --seed <n>             Seed of the split (default 1)
  --start <file>         Observation guideline to start from (default: the built-in one)
  --obs-threshold <n>    T_obs (default 256)
  --out <folder>         Outputs (default optimize-out/traces): guideline.md, tool-thresholds.json,
                         report.json, report.md
`;

function holdoutOf(value: string | undefined): number {
  if (value === undefined) return 0.3;
  const parsed = Number(value);
  if (!(parsed > 0 && parsed < 1))
    throw new ConfigurationError('bad-arguments', `--holdout must be a share in (0, 1), got "${value}".`);
  return parsed;
}

function reportMarkdown(result: LearnFromTracesResult): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `# Rules learned from ${result.train.length} traces, validated on ${result.holdout.length}`,
    '',
    '| | used-later recall | lost | cumulative tokens |',
    '| --- | ---: | ---: | ---: |',
    `| start | ${pct(result.before.recall)} | ${result.before.lost} | ${result.before.cumulativeTokens} |`,
    `| learned | ${pct(result.after.recall)} | ${result.after.lost} | ${result.after.cumulativeTokens} |`,
    '',
    '| rule | target | learned from | kept | why |',
    '| --- | --- | --- | --- | --- |',
    ...result.rules.map(
      (rule) =>
        `| ${rule.kind} | \`${rule.target.replace(/\|/gu, '\\|')}\`${rule.threshold !== undefined ? ` ≤ ${rule.threshold}` : ''} | ${rule.learnedFrom.traces.length} traces, ${rule.learnedFrom.lost} lost of ${rule.learnedFrom.uses} uses | ${rule.accepted ? 'yes' : 'no'} | ${rule.reason.replace(/\|/gu, '\\|')} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** Runs `pagewise optimize --from-traces`. */
export async function optimizeFromTracesCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  const { values } = parseCommand('optimize', argv, {
    'from-traces': { type: 'string' },
    holdout: { type: 'string' },
    seed: { type: 'string' },
    start: { type: 'string' },
    'obs-threshold': { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out(OPTIMIZE_TRACES_HELP);
    return 0;
  }
  const source = values['from-traces'];
  if (!source) throw new ConfigurationError('bad-arguments', '--from-traces needs a trace file or folder.');
  const traces = await readTraces(source);
  if (traces.length < 2)
    throw new ConfigurationError(
      'bad-arguments',
      `--from-traces: ${traces.length} trace(s); learning needs at least 2.`,
    );
  const folder = values.out ?? path.join('optimize-out', 'traces');
  const result = await learnFromTraces(traces, {
    holdout: holdoutOf(values.holdout),
    seed: intOption('seed', values.seed, 1),
    observationThreshold: intOption('obs-threshold', values['obs-threshold'], 256),
    ...(values.start ? { start: await loadGuideline(values.start) } : {}),
    onProgress: ({ done, total, rule }) => err(`rule ${done}/${total}: ${rule}`),
  });
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, 'guideline.md'), formatGuideline(result.guideline));
  await writeFile(path.join(folder, 'tool-thresholds.json'), `${JSON.stringify(result.toolThresholds, null, 2)}\n`);
  await writeFile(path.join(folder, 'report.json'), `${JSON.stringify(result, null, 2)}\n`);
  const markdown = reportMarkdown(result);
  await writeFile(path.join(folder, 'report.md'), markdown);
  out(markdown);
  err(`Guideline, thresholds and report written to ${folder}`);
  return 0;
}
