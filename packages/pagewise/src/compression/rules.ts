/**
 * Extractive rules: the machine-readable half of a guideline. They are plain JSON so a guideline
 * optimizer can tune them (ratio, patterns, protected content) without an LLM in the loop.
 */
import { z } from 'zod';
import { ConfigurationError } from '../errors.js';

/** Which kinds of content make a unit "protected" (ranked above unprotected units of similar relevance). */
export const AlwaysKeepSchema = z
  .object({
    /** Any digit: amounts, counts, quantities, page indices. */
    numbers: z.boolean(),
    /** Id-like tokens: `#W1234567`, `order_id`, `userId`, UUIDs, hashes, codes mixing letters and digits. */
    identifiers: z.boolean(),
    /** Calendar dates and times: ISO, numeric, and month-name forms. */
    dates: z.boolean(),
    /** `http(s)://` and `www.` addresses. */
    urls: z.boolean(),
    /** Error lines: error, exception, failed, denied, not found, timeout, ... */
    errors: z.boolean(),
    /** Markdown headers and leading `Title:` labels; a kept unit also keeps its heading. */
    headers: z.boolean(),
  })
  .strict();

/**
 * The extractive rules of a guideline: how much to keep (`ratio`), how to cut the text into units,
 * which units are forced in or out, and which content counts as protected.
 */
export const ExtractiveRulesSchema = z
  .object({
    /** Target τ: output tokens / input tokens, in (0, 1]. */
    ratio: z.number().gt(0).lte(1),
    /** Units to select: sentences of prose, lines of logs and tables, or `auto` (decided per paragraph). */
    unit: z.enum(['sentence', 'line', 'auto']),
    /**
     * Regex sources (JavaScript syntax, matched case-insensitively, `^`/`$` at line ends): a unit
     * matching any of them is kept first.
     */
    keepPatterns: z.array(z.string()),
    /** Regex sources: a unit matching any of them is dropped, unless a keep pattern also matches. */
    dropPatterns: z.array(z.string()),
    /** Protected content kinds. */
    alwaysKeep: AlwaysKeepSchema,
    /**
     * JSON keys whose whole subtree is kept first. An entry is a key (`status`) or a dotted run of
     * keys (`items.price`: a `price` directly under `items`, array indices skipped), `*` standing for
     * any one key (`variants.*.available`).
     */
    jsonKeepFields: z.array(z.string()),
    /** JSON keys (as in `jsonKeepFields`) whose whole subtree is dropped, unless also matched by `jsonKeepFields`. */
    jsonDropFields: z.array(z.string()),
    /**
     * Units scoring below this are dropped even when the budget has room. Relevance to the query
     * gives 0..1; paragraph relevance, lead position and protected content add up to about 1.4 more.
     */
    minScore: z.number().optional(),
  })
  .strict();

/** The extractive rules of a guideline, as validated by {@link ExtractiveRulesSchema}. */
export type ExtractiveRules = z.infer<typeof ExtractiveRulesSchema>;

/** Protected content kinds, as in {@link ExtractiveRules.alwaysKeep}. */
export type AlwaysKeep = z.infer<typeof AlwaysKeepSchema>;

/** Frozen deeply, so an optimizer that edits rules in place cannot change the defaults for everyone. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * Default rules of both compressors: keep half the tokens, protect every kind of concrete value (the ids,
 * amounts, dates and handles later steps reuse). Observations and history share them: one set to tune.
 */
export const DEFAULT_EXTRACTIVE_RULES: ExtractiveRules = deepFreeze({
  ratio: 0.5,
  unit: 'auto',
  keepPatterns: [],
  dropPatterns: [],
  alwaysKeep: { numbers: true, identifiers: true, dates: true, urls: true, errors: true, headers: true },
  // Error payloads and record status decide the agent's next action more often than any other field.
  jsonKeepFields: ['error', 'errors', 'message', 'status'],
  jsonDropFields: [],
});

/** Default rules for observations: {@link DEFAULT_EXTRACTIVE_RULES}. */
export const DEFAULT_OBSERVATION_RULES: ExtractiveRules = DEFAULT_EXTRACTIVE_RULES;

/** Default rules for history: {@link DEFAULT_EXTRACTIVE_RULES}. */
export const DEFAULT_HISTORY_RULES: ExtractiveRules = DEFAULT_EXTRACTIVE_RULES;

/** Where a rules value came from, for error messages: a file (or other source name) and a line. */
export interface RulesOrigin {
  source: string;
  line?: number;
  /** The raw text the rules were parsed from, to point at the line of a bad pattern. */
  text?: string;
}

function where(origin: RulesOrigin, line = origin.line): string {
  return line === undefined ? origin.source : `${origin.source}:${line}`;
}

/**
 * Validates a value as {@link ExtractiveRules}: shape and ranges by schema, then every pattern is
 * compiled so a bad regex fails at load time, not in the middle of a run.
 *
 * @throws ConfigurationError naming the field, the source and the line.
 */
export function parseExtractiveRules(value: unknown, origin: RulesOrigin = { source: 'rules' }): ExtractiveRules {
  const parsed = ExtractiveRulesSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') || '(root)';
    throw new ConfigurationError(
      'invalid-extractive-rules',
      `${where(origin)}: invalid extractive rules, field "${path}": ${issue?.message ?? 'invalid'}. ` +
        'See ExtractiveRules for the expected fields.',
    );
  }
  const rules = parsed.data;
  for (const field of ['keepPatterns', 'dropPatterns'] as const) {
    rules[field].forEach((source, index) => {
      try {
        compilePatterns([source]);
      } catch (error) {
        const line = lineOfPattern(origin, source);
        throw new ConfigurationError(
          'invalid-rule-pattern',
          `${where(origin, line)}: invalid regular expression in ${field}[${index}]: /${source}/ — ` +
            `${(error as Error).message}. Fix or remove the pattern (JavaScript syntax, Unicode mode).`,
          error,
        );
      }
    });
  }
  return rules;
}

/**
 * Compiles rule patterns with the flags every rule uses: case-insensitive (an optimizer writing
 * `error` means `Error` too), multiline (so `^` anchors a line inside a unit), Unicode.
 */
export function compilePatterns(sources: readonly string[]): RegExp[] {
  return sources.map((source) => new RegExp(source, 'imu'));
}

// The pattern's JSON-escaped form appears verbatim in the rules text, which gives its line.
function lineOfPattern(origin: RulesOrigin, source: string): number | undefined {
  if (origin.text === undefined || origin.line === undefined) return origin.line;
  const at = origin.text.indexOf(JSON.stringify(source));
  if (at < 0) return origin.line;
  return origin.line + countNewlines(origin.text.slice(0, at));
}

function countNewlines(text: string): number {
  let count = 0;
  for (const ch of text) if (ch === '\n') count += 1;
  return count;
}
