/**
 * Guidelines: versioned natural-language templates that tell a compressor what to keep (ACON's
 * g_hist and g_obs), each with extractive rules for the LLM-free backend. They live in files so a
 * guideline optimizer can rewrite them and a reviewer can diff them; every mistake a file can hold is
 * reported at load time with the file and line, not in the middle of a run.
 *
 * File format:
 *
 * ````text
 * ---
 * id: observation-default
 * version: 1
 * target: observation
 * ---
 * Keep what the task {{task}} needs from {{observation}} in at most {{max_tokens}} tokens.
 *
 * ```rules json
 * { "ratio": 0.4, "keepPatterns": ["^status:"] }
 * ```
 * ````
 *
 * The front matter holds `id`, `version` (a positive integer), `target` (`history` or `observation`)
 * and an optional `description`. The rest is the template, except an optional fenced rules block:
 * JSON of {@link ExtractiveRules}, where omitted fields take the target's default rules.
 */
import { readFile } from 'node:fs/promises';
import { ConfigurationError, NotFoundError } from '../errors.js';
import { isAsciiWordCode, isDigits } from '../text/characters.js';
import { splitLines } from '../text/whitespace.js';
import {
  DEFAULT_HISTORY_RULES,
  DEFAULT_OBSERVATION_RULES,
  ExtractiveRulesSchema,
  parseExtractiveRules,
} from './rules.js';
import type { ExtractiveRules } from './rules.js';

/** What a guideline compresses: the interaction history or the latest tool observation. */
export type GuidelineTarget = 'history' | 'observation';

/** Every placeholder a template may use. */
export const PLACEHOLDERS = ['task', 'previous_summary', 'history', 'observation', 'max_tokens'] as const;

/** A template placeholder, written `{{name}}`. */
export type Placeholder = (typeof PLACEHOLDERS)[number];

/**
 * Which placeholders a template of each target must use and which it may use. A history template has
 * no `observation` (the history holds it); an observation template may show recent `history` as
 * context (ACON conditions C_obs on it) but has no `previous_summary`.
 */
export const PLACEHOLDER_RULES: Readonly<
  Record<GuidelineTarget, { required: readonly Placeholder[]; optional: readonly Placeholder[] }>
> = {
  history: { required: ['history', 'max_tokens'], optional: ['task', 'previous_summary'] },
  observation: { required: ['observation', 'max_tokens'], optional: ['task', 'history'] },
};

/** A loaded, validated guideline. */
export interface Guideline {
  /** Stable name, e.g. `observation-default`; with `version` it names one exact guideline. */
  readonly id: string;
  /** Positive integer, raised by each rewrite of the template or the rules. */
  readonly version: number;
  readonly target: GuidelineTarget;
  /** The prompt template, with `{{placeholder}}`s. */
  readonly template: string;
  /** Rules of the extractive (LLM-free) backend. */
  readonly rules: ExtractiveRules;
  /** Free text for people; not used by compressors. */
  readonly description?: string;
}

/** Values for {@link renderGuideline}; numbers are written in decimal. */
export type GuidelineValues = Partial<Record<Placeholder, string | number>>;

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/gu;
const FRONT_MATTER_LINE = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/u;
const RULES_FENCE = '```rules';

/** Whether `value` is a guideline id: ASCII letters, digits, `.`, `_` and `-`, starting with a letter or digit. */
function isGuidelineId(value: string): boolean {
  for (let at = 0; at < value.length; at += 1) {
    const code = value.charCodeAt(at);
    const allowed =
      at === 0 ? isAsciiWordCode(code) && value[at] !== '_' : isAsciiWordCode(code) || '.-'.includes(value[at]!);
    if (!allowed) return false;
  }
  return value !== '';
}

/** Whether `line` opens a rules block: "```rules" or "```rules json", white space after it allowed. */
function opensRulesBlock(line: string): boolean {
  const fence = line.trimEnd();
  if (!fence.startsWith(RULES_FENCE)) return false;
  const language = fence.slice(RULES_FENCE.length);
  return language === '' || (language.trimStart() === 'json' && language.trimStart() !== language);
}

/**
 * Throws a ConfigurationError unless `guideline` targets `target`. `user` names who needs it; `hint`
 * says what to use instead.
 */
export function requireGuidelineTarget(guideline: Guideline, target: GuidelineTarget, user: string, hint = ''): void {
  if (guideline.target !== target) {
    throw new ConfigurationError(
      'wrong-guideline-target',
      `${user} needs a ${target} guideline, but "${guideline.id}" targets ${guideline.target}.${hint ? ` ${hint}` : ''}`,
    );
  }
}

/** The default rules of a target, used for fields a guideline's rules block leaves out. */
export function defaultRulesFor(target: GuidelineTarget): ExtractiveRules {
  return target === 'history' ? DEFAULT_HISTORY_RULES : DEFAULT_OBSERVATION_RULES;
}

/**
 * Parses a guideline file. `source` names the file in error messages.
 *
 * @throws ConfigurationError for a bad front matter, an unknown, misplaced or missing placeholder,
 *   bad rules JSON or a bad rule pattern; the message names the placeholder or field, the source and
 *   the line.
 */
export function parseGuideline(text: string, source = '<guideline>'): Guideline {
  const lines = splitLines(text.startsWith('\uFEFF') ? text.slice(1) : text);
  const at = (line: number): string => `${source}:${line + 1}`;
  const fail = (code: string, line: number, message: string): never => {
    throw new ConfigurationError(code, `${at(line)}: ${message}`);
  };

  // Front matter.
  let open = 0;
  while (open < lines.length && lines[open]?.trim() === '') open += 1;
  if (lines[open]?.trim() !== '---') {
    fail(
      'invalid-guideline',
      open < lines.length ? open : 0,
      "a guideline starts with a front matter block: a '---' line, then id, version and target lines, then '---'.",
    );
  }
  const fields = new Map<string, { value: string; line: number }>();
  let close = open + 1;
  for (; close < lines.length; close += 1) {
    const line = lines[close] ?? '';
    if (line.trim() === '---') break;
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const match = FRONT_MATTER_LINE.exec(line.trim());
    const key = match?.[1];
    if (!match || key === undefined)
      fail(
        'invalid-guideline',
        close,
        `front matter line "${line.trim()}" is not "key: value" (or the closing '---' line is missing).`,
      );
    else {
      if (!['id', 'version', 'target', 'description'].includes(key)) {
        fail(
          'invalid-guideline',
          close,
          `unknown front matter key "${key}"; the keys are id, version, target and description.`,
        );
      }
      if (fields.has(key)) fail('invalid-guideline', close, `front matter key "${key}" is set twice.`);
      fields.set(key, { value: unquote(match[2] ?? ''), line: close });
    }
  }
  if (close >= lines.length)
    fail('invalid-guideline', open, "the front matter is not closed: add a '---' line after the target line.");
  const field = (key: string): { value: string; line: number } => {
    const found = fields.get(key);
    if (found === undefined) return fail('invalid-guideline', open, `the front matter has no "${key}" line.`);
    return found;
  };
  const id = field('id');
  if (!isGuidelineId(id.value))
    fail(
      'invalid-guideline',
      id.line,
      `id "${id.value}" must be letters, digits, ".", "_" or "-", starting with a letter or digit.`,
    );
  const version = field('version');
  if (!isDigits(version.value) || version.value.startsWith('0'))
    fail('invalid-guideline', version.line, `version "${version.value}" must be a positive integer.`);
  const target = field('target');
  if (target.value !== 'history' && target.value !== 'observation') {
    fail('invalid-guideline', target.line, `target "${target.value}" must be "history" or "observation".`);
  }
  const guidelineTarget = target.value as GuidelineTarget;

  // Body: the template, and at most one rules block.
  let rulesBlock: { start: number; end: number } | undefined;
  for (let lineIndex = close + 1; lineIndex < lines.length; lineIndex += 1) {
    if (!opensRulesBlock(lines[lineIndex] ?? '')) continue;
    if (rulesBlock)
      fail(
        'invalid-guideline',
        lineIndex,
        `a second rules block; the first starts at line ${rulesBlock.start + 1}. Merge them into one.`,
      );
    let end = lineIndex + 1;
    while (end < lines.length && (lines[end] ?? '').trimEnd() !== '```') end += 1;
    if (end >= lines.length)
      fail('invalid-guideline', lineIndex, 'the rules block is not closed: add a ``` line after the JSON.');
    rulesBlock = { start: lineIndex, end };
    lineIndex = end;
  }
  const templateLines: { text: string; line: number }[] = [];
  for (let lineIndex = close + 1; lineIndex < lines.length; lineIndex += 1) {
    if (rulesBlock && lineIndex >= rulesBlock.start && lineIndex <= rulesBlock.end) continue;
    templateLines.push({ text: lines[lineIndex] ?? '', line: lineIndex });
  }
  checkTemplate(templateLines, guidelineTarget, at, target.line);

  let rules: ExtractiveRules = defaultRulesFor(guidelineTarget);
  if (rulesBlock) {
    const json = lines.slice(rulesBlock.start + 1, rulesBlock.end).join('\n');
    rules = parseRulesBlock(json, guidelineTarget, { source, line: rulesBlock.start + 2, text: json });
  } else {
    rules = parseExtractiveRules(rules, { source });
  }
  const description = fields.get('description')?.value;
  return {
    id: id.value,
    version: Number(version.value),
    target: guidelineTarget,
    template: trimBlankLines(templateLines.map((l) => l.text)).join('\n'),
    rules,
    ...(description === undefined ? {} : { description }),
  };
}

/**
 * Reads and parses a guideline file (UTF-8).
 *
 * @throws NotFoundError when the file does not exist; ConfigurationError as {@link parseGuideline}.
 */
export async function loadGuideline(path: string): Promise<Guideline> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new NotFoundError(
        'Guideline file',
        path,
        'Check the path, or use DEFAULT_HISTORY_GUIDELINE / DEFAULT_OBSERVATION_GUIDELINE.',
      );
    }
    throw new ConfigurationError(
      'unreadable-guideline',
      `Cannot read the guideline file ${path}: ${(error as Error).message}.`,
      error,
    );
  }
  return parseGuideline(text, path);
}

/**
 * Fills every placeholder of the template in one pass (a value that itself contains `{{task}}` is
 * left as it is).
 *
 * @example
 * renderGuideline(DEFAULT_OBSERVATION_GUIDELINE, { task, history: '', observation, max_tokens: 400 });
 *
 * @throws ConfigurationError naming the placeholder when the template uses one with no value.
 */
export function renderGuideline(guideline: Guideline, values: GuidelineValues): string {
  for (const name of placeholdersOf(guideline.template)) {
    if (values[name] === undefined) {
      throw new ConfigurationError(
        'missing-guideline-value',
        `Guideline "${guideline.id}" v${guideline.version} uses {{${name}}} but no value was given for "${name}". ` +
          'Pass it in the values (an empty string if there is nothing to show, e.g. no previous summary yet).',
      );
    }
  }
  return guideline.template.replace(PLACEHOLDER, (_whole, name: string) => String(values[name as Placeholder]));
}

/** The distinct placeholders a template uses, in order of first use. */
export function placeholdersOf(template: string): Placeholder[] {
  const names = new Set<Placeholder>();
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1];
    if (isPlaceholder(name)) names.add(name);
  }
  return [...names];
}

/**
 * Writes a guideline in the file format, rules in full, so that `parseGuideline(formatGuideline(g))`
 * equals `g`: an optimizer can edit a guideline as an object and save it.
 */
export function formatGuideline(guideline: Guideline): string {
  const front = ['---', `id: ${guideline.id}`, `version: ${guideline.version}`, `target: ${guideline.target}`];
  if (guideline.description !== undefined) front.push(`description: ${JSON.stringify(guideline.description)}`);
  front.push('---');
  const rules = ExtractiveRulesSchema.parse(guideline.rules);
  return [...front, guideline.template, '', '```rules json', JSON.stringify(rules, null, 2), '```', ''].join('\n');
}

function isPlaceholder(name: string | undefined): name is Placeholder {
  return (PLACEHOLDERS as readonly (string | undefined)[]).includes(name);
}

function checkTemplate(
  lines: readonly { text: string; line: number }[],
  target: GuidelineTarget,
  at: (line: number) => string,
  targetLine: number,
): void {
  const { required, optional } = PLACEHOLDER_RULES[target];
  const allowed = [...required, ...optional];
  const list = allowed.map((p) => `{{${p}}}`).join(', ');
  const seen = new Set<string>();
  for (const { text, line } of lines) {
    for (const match of text.matchAll(PLACEHOLDER)) {
      const name = match[1] ?? '';
      if (!isPlaceholder(name)) {
        throw new ConfigurationError(
          'unknown-placeholder',
          `${at(line)}: unknown placeholder {{${name}}}. ${capitalize(article(target))} guideline may use ${list}.`,
        );
      }
      if (!allowed.includes(name)) {
        throw new ConfigurationError(
          'misplaced-placeholder',
          `${at(line)}: placeholder {{${name}}} is not allowed in ${article(target)} guideline. It may use ${list}.`,
        );
      }
      seen.add(name);
    }
    // Braces left after removing whole placeholders are a placeholder that never closes.
    const rest = text.replace(PLACEHOLDER, '');
    if (rest.includes('{{')) {
      throw new ConfigurationError(
        'unclosed-placeholder',
        `${at(line)}: "{{" opens a placeholder that is not closed with "}}" on the same line.`,
      );
    }
  }
  for (const name of required) {
    if (!seen.has(name)) {
      throw new ConfigurationError(
        'missing-placeholder',
        `${at(targetLine)}: ${article(target)} guideline must use the placeholder {{${name}}} in its template (it requires ${required.map((p) => `{{${p}}}`).join(' and ')}).`,
      );
    }
  }
}

function parseRulesBlock(
  json: string,
  target: GuidelineTarget,
  origin: { source: string; line: number; text: string },
): ExtractiveRules {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    const position = /position (\d+)/u.exec((error as Error).message)?.[1];
    const line = origin.line + (position === undefined ? 0 : json.slice(0, Number(position)).split('\n').length - 1);
    throw new ConfigurationError(
      'invalid-extractive-rules',
      `${origin.source}:${line}: the rules block is not valid JSON: ${(error as Error).message}.`,
      error,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigurationError(
      'invalid-extractive-rules',
      `${origin.source}:${origin.line}: the rules block must be a JSON object.`,
    );
  }
  // Omitted fields take the target's defaults, so a file states only what it changes.
  const defaults = defaultRulesFor(target);
  const given = value as Record<string, unknown>;
  const alwaysKeep = given.alwaysKeep;
  const merged = {
    ...defaults,
    ...given,
    alwaysKeep:
      typeof alwaysKeep === 'object' && alwaysKeep !== null
        ? { ...defaults.alwaysKeep, ...alwaysKeep }
        : (alwaysKeep ?? defaults.alwaysKeep),
  };
  return parseExtractiveRules(merged, origin);
}

function article(target: GuidelineTarget): string {
  return target === 'observation' ? 'an observation' : 'a history';
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function unquote(value: string): string {
  const trimmed = value.trim();
  if (quotedWith(trimmed, '"')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // Not a JSON string: keep it as written.
    }
  }
  if (quotedWith(trimmed, "'")) return trimmed.slice(1, -1);
  return trimmed;
}

function trimBlankLines(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]?.trim() === '') start += 1;
  while (end > start && lines[end - 1]?.trim() === '') end -= 1;
  return lines.slice(start, end);
}

/** Whether `text` opens and closes with `quote`, two characters at least. */
function quotedWith(text: string, quote: string): boolean {
  return text.length >= 2 && text.startsWith(quote) && text.endsWith(quote);
}
