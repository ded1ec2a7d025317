/**
 * `pagewise distill export`: writes the compressor calls recorded in successful episodes (by
 * `pagewise optimize`, or by a `recordingBackend` in your own runs) as fine-tuning JSONL, to
 * distill the compressor into a small model.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigurationError, NotFoundError } from 'pagewise';
import { exportDistillJsonl, SqliteCompressorCallStore, type DistillFormat } from '@pagewise/lab/optimize';
import { defaultDatabasePath } from '@pagewise/sqlite';
import { parseCommand } from './args.js';
import { targetOption } from './optimize.js';

/** Help text of `pagewise distill`. */
export const DISTILL_HELP = `Usage: pagewise distill export --target history|observation --out <file.jsonl> [options]

Writes the recorded compressor calls of episodes that succeeded as fine-tuning JSONL, one example a
line, so a small model can learn the compressor (the teacher) from them. The user message of each
example is the guideline rendered with the call's input, exactly the prompt the LLM compressor sends;
the assistant message is what the teacher wrote. Identical examples are written once.

Formats:
  chat         {"messages": [{"role": "system", ...}, {"role": "user", ...}, {"role": "assistant", ...}]}
  completion   {"prompt": "...", "completion": "..."}

Options:
  --target <t>             history or observation
  --out <file>             The JSONL file to write
  --format <f>             chat (default) or completion
  --min-success <s>        Only calls of episodes scored at least s, 0 to 1 (default 1: succeeded)
  --guideline <id[@v]>     Only calls under this guideline id (and version), e.g. observation-default-co3@3
  --db <file>              The database the calls were recorded in (default ${path.join('.pagewise', 'pagewise.db')})
  -h, --help               Show this help
`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  target: { type: 'string' },
  out: { type: 'string' },
  format: { type: 'string' },
  'min-success': { type: 'string' },
  guideline: { type: 'string' },
  db: { type: 'string' },
} as const;

function guidelineFilter(value: string | undefined): { guidelineId?: string; guidelineVersion?: number } {
  if (value === undefined) return {};
  const match = /^([^@\s]+)(?:@(\d+))?$/u.exec(value);
  if (!match?.[1])
    throw new ConfigurationError(
      'bad-arguments',
      `--guideline must be an id or id@version, e.g. observation-default@1, got "${value}".`,
    );
  return { guidelineId: match[1], ...(match[2] ? { guidelineVersion: Number(match[2]) } : {}) };
}

/** Runs `pagewise distill` with `argv` (after the command name). */
export async function distillCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values, positionals } = parseCommand('distill', argv, OPTIONS);
  if (values.help) {
    out(DISTILL_HELP);
    return 0;
  }
  const [sub, ...extra] = positionals;
  if (sub !== 'export')
    throw new ConfigurationError(
      'bad-arguments',
      `${sub === undefined ? 'Give a subcommand' : `Unknown subcommand "${sub}"`}: pagewise distill export --target <t> --out <file.jsonl> (pagewise distill --help).`,
    );
  if (extra.length > 0)
    throw new ConfigurationError(
      'bad-arguments',
      `Unexpected arguments: ${extra.join(' ')}. Run \`pagewise distill --help\` for the options.`,
    );
  const target = targetOption(values.target, 'distill');
  if (!values.out) throw new ConfigurationError('bad-arguments', 'Give the file to write: --out <file.jsonl>.');
  const format = (values.format ?? 'chat') as DistillFormat;
  if (format !== 'chat' && format !== 'completion')
    throw new ConfigurationError('bad-arguments', `--format must be chat or completion, got "${values.format}".`);
  let minSuccess: number | undefined;
  if (values['min-success'] !== undefined) {
    minSuccess = Number(values['min-success']);
    if (values['min-success'].trim() === '' || !Number.isFinite(minSuccess))
      throw new ConfigurationError(
        'bad-arguments',
        `--min-success must be a number from 0 to 1, got "${values['min-success']}".`,
      );
  }
  const filter = guidelineFilter(values.guideline);
  const file = values.db ?? defaultDatabasePath();
  // Exporting reads recorded calls: it must not create an empty database where there was none.
  if (!existsSync(file))
    throw new NotFoundError(
      'Database',
      file,
      'Record compressor calls with `pagewise optimize` first, or pass the --db it used.',
    );
  const store = new SqliteCompressorCallStore({ path: file });
  try {
    const result = await exportDistillJsonl({
      store,
      target,
      out: values.out,
      format,
      ...(minSuccess !== undefined ? { minSuccess } : {}),
      ...filter,
    });
    out(
      `${result.written} ${format} examples written to ${result.file} (${result.matched} ${target} calls matched` +
        `${result.duplicates > 0 ? `, ${result.duplicates} duplicates left out` : ''}${result.empty > 0 ? `, ${result.empty} empty left out` : ''}).`,
    );
    if (result.written === 0)
      out('No examples: record calls with `pagewise optimize` (or a recordingBackend), or lower --min-success.');
    return 0;
  } finally {
    await store.close();
  }
}
