/**
 * Deterministic stand-ins for a summarizing LLM (rules, not an LLM, which cannot summarize). The prompting
 * baseline on the offline model uses the stronger extractive backend under the generic prompt (see
 * prompting.ts); these two remain for comparison:
 *
 * - {@link querySummarizer}: an extractive summarizer that keeps whole fields of the JSON
 *   records the steps returned and whole sentences of their prose, chosen by how much they relate to the
 *   task and to what the agent asked for, within the summary budget. It never cuts a value or a
 *   sentence in the middle, and follows no guideline: the strongest generic summary rules can make, the
 *   "prompting" baseline a guideline-driven compressor has to beat.
 * - {@link naiveSummarizer}: the first sentence of each step cut at 200 characters, the floor.
 */
import type { ContextItem } from '../context/request.js';
import { countTokens } from '../tokens/tokenizer.js';
import { scanJson } from '../util/json-scan.js';
import { setOwn } from '../util/own-field.js';
import { hasDigit } from '../text/characters.js';
import { fieldNamePattern } from '../text/field-names.js';
import { isStopword } from '../text/stopwords.js';
import { singleSpaced } from '../text/whitespace.js';
import type { CompressionInput, CompressorBackend } from './backend.js';
import { argumentText, itemTranscript } from './transcript.js';

/** The most characters kept of each step by the naive summarizer. */
export const NAIVE_STEP_CHARS = 200;

/** The first sentence of `text` (whitespace collapsed), at most {@link NAIVE_STEP_CHARS} characters. */
export function firstSentence(text: string, maxChars: number = NAIVE_STEP_CHARS): string {
  const flat = singleSpaced(text).trim();
  const end = /[.!?](?=\s|$)/u.exec(flat);
  const sentence = end ? flat.slice(0, end.index + 1) : flat;
  // Cut at a code point, never inside a surrogate pair.
  return sentence.length <= maxChars ? sentence : `${Array.from(sentence).slice(0, maxChars).join('')}…`;
}

/**
 * Creates the naive summarizer: the previous summary as it is, then one line per step of the new
 * turns (user message, model text, tool call, tool result), each cut to its first sentence. The
 * guideline and `maxTokens` are ignored on purpose, as a careless generic prompt would ignore them.
 *
 * @example
 * historyCompressor({ compressor: naiveSummarizer(), guideline: GENERIC_SUMMARY_GUIDELINE });
 */
export function naiveSummarizer(): CompressorBackend {
  return {
    name: 'naive-first-sentence',
    compress: async (input: CompressionInput) => {
      if (input.target === 'observation') return firstSentence(input.observation);
      const lines = input.previousSummary.trim() ? [input.previousSummary.trim()] : [];
      for (const turn of input.turns) for (const item of turn) lines.push(`- ${firstSentence(itemTranscript(item))}`);
      return lines.join('\n');
    },
  };
}

// ---- the query-aware extractive summarizer -------------------------------------------------------

type Scalar = string | number | boolean | null;
type Path = (string | number)[];

/** A piece the summary may keep: a field of a record, or a sentence of prose. Never split further. */
interface Unit {
  /** Index of the line (step) it belongs to. */
  line: number;
  /** Its place in reading order, to break ties and to render in order. */
  order: number;
  score: number;
  tokens: number;
  /** A field: its path in the record and value. */
  path?: Path;
  value?: Scalar;
  /** A sentence of prose. */
  text?: string;
}

/** One line of the summary: a label (the step) and its record or sentences. */
interface Line {
  label: string;
  record?: unknown;
  /** Always kept: what the step was (a tool call with its arguments). */
  headTokens: number;
}

// A word: a letter or digit, then letters, digits and `_'#.-`, never ending in `.`, `'` or `-` (a sentence's
// full stop, a closing quote, a dash after the word are not part of it).
const WORD = /[\p{L}\p{N}](?:[\p{L}\p{N}_'#.-]*[\p{L}\p{N}_#])?/gu;
/** Shorter words ("id", "of") match too much to say what a field or sentence is about. */
const MIN_WORD_CHARS = 3;
/** A string value this short is a code, a name or an amount: worth a point more. */
const SHORT_VALUE_CHARS = 24;
/** A string value longer than this is free text: worth a point less. */
const LONG_VALUE_CHARS = 80;
function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => w.length >= MIN_WORD_CHARS && !isStopword(w));
}

/** The words a field or sentence is judged against: the task's and those of every tool call's arguments. */
function queryTerms(task: string, turns: readonly (readonly ContextItem[])[]): Set<string> {
  const terms = new Set(words(task));
  for (const turn of turns)
    for (const item of turn)
      if (item.type === 'assistant')
        for (const call of item.toolCalls) for (const word of words(argumentText(call.input))) terms.add(word);
  return terms;
}

const ID_KEY = fieldNamePattern(
  ['id', 'ids', 'number', 'code', 'sku'],
  ['_id', '_ids', '_number', '_code', '_sku'],
  'iu',
);
// Order and user ids (`#W2611340`, `noah_brown_6181`), long numeric ids; not measures such as `750ml`.
const ID_VALUE = /^(?:#?[a-z]{1,3}\d{5,}|[a-z]+(?:_[a-z]+)*_\d{3,}|\d{6,})$/iu;

/**
 * How much a field is worth keeping, from what it is (an identifier, a number, a short status word, a
 * long text) and whether its key or value shares words with the task or the agent's requests.
 */
function fieldScore(path: Path, value: Scalar, terms: ReadonlySet<string>): number {
  const key = String([...path].reverse().find((p) => typeof p === 'string') ?? '');
  const text = value === null ? '' : String(value);
  let score = 1;
  if (ID_KEY.test(key) || (typeof value === 'string' && ID_VALUE.test(value))) score += 3;
  if (typeof value === 'number') score += 3;
  if (typeof value === 'string' && text.length <= SHORT_VALUE_CHARS) score += 1;
  if (typeof value === 'string' && text.length > LONG_VALUE_CHARS) score -= 1;
  const keyWords = words(
    path
      .filter((p) => typeof p === 'string')
      .join(' ')
      .replaceAll('_', ' '),
  );
  const valueWords = words(text);
  if (valueWords.some((w) => terms.has(w))) score += 3;
  if (keyWords.some((w) => terms.has(w))) score += 2;
  return score;
}

function sentenceScore(sentence: string, terms: ReadonlySet<string>): number {
  const ws = words(sentence);
  if (ws.length === 0) return 0;
  const hits = ws.filter((w) => terms.has(w)).length;
  return 1 + (4 * hits) / Math.sqrt(ws.length) + (hasDigit(sentence) ? 1 : 0);
}

function leaves(value: unknown, path: Path, into: { path: Path; value: Scalar }[]): void {
  if (Array.isArray(value)) value.forEach((v, i) => leaves(v, [...path, i], into));
  else if (typeof value === 'object' && value !== null)
    for (const [key, child] of Object.entries(value)) leaves(child, [...path, key], into);
  else into.push({ path, value: (value ?? null) as Scalar });
}

/** Rebuilds the part of a record that holds the kept fields, in the record's own order. */
function prune(value: unknown, keep: ReadonlySet<string>, path: Path = []): unknown {
  if (Array.isArray(value)) {
    const out = value.map((v, i) => prune(v, keep, [...path, i])).filter((v) => v !== undefined);
    return out.length > 0 ? out : undefined;
  }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const kept = prune(child, keep, [...path, key]);
      if (kept !== undefined) setOwn(out, key, kept);
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return keep.has(JSON.stringify(path)) ? value : undefined;
}

function sentences(text: string): string[] {
  return (
    singleSpaced(text)
      .trim()
      .match(/[^.!?]+(?:[.!?]+(?=\s|$)|$)/gu) ?? []
  )
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The steps of the previous summary and the new turns, as lines with their units. */
function collect(input: CompressionInput, terms: ReadonlySet<string>): { lines: Line[]; units: Unit[] } {
  const lines: Line[] = [];
  const units: Unit[] = [];
  let order = 0;
  const addText = (line: number, text: string) => {
    for (const sentence of sentences(text))
      units.push({
        line,
        order: order++,
        score: sentenceScore(sentence, terms),
        tokens: countTokens(sentence) + 1,
        text: sentence,
      });
  };
  const addStep = (label: string, body: string) => {
    const line = lines.length;
    const { values, rest } = scanJson(body);
    // One record a step: several objects in one result are kept as a list.
    const record = values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
    lines.push({ label, ...(record !== undefined ? { record } : {}), headTokens: countTokens(label) + 2 });
    if (record !== undefined) {
      const found: { path: Path; value: Scalar }[] = [];
      leaves(record, [], found);
      for (const leaf of found) {
        const text = `"${String(leaf.path[leaf.path.length - 1])}":${JSON.stringify(leaf.value)},`;
        units.push({
          line,
          order: order++,
          score: fieldScore(leaf.path, leaf.value, terms),
          tokens: countTokens(text),
          ...leaf,
        });
      }
    }
    addText(line, rest);
  };
  for (const previous of input.previousSummary.split('\n')) {
    const step = stepLine(previous.trim());
    if (step) addStep(step.label, step.text);
    else if (previous.trim()) addStep('earlier', previous.trim());
  }
  for (const turn of input.turns) {
    for (const item of turn) {
      if (item.type === 'user') addStep('user', item.text);
      else if (item.type === 'summary') addStep('summary', item.text);
      else if (item.type === 'assistant') {
        if (item.text.trim()) addStep('assistant', item.text);
      } else {
        const call = turnCall(turn, item.toolCallId);
        addStep(call ?? item.toolName, item.output);
      }
    }
  }
  return { lines, units };
}

/** `tool(args)` of the call that a result answers, from the assistant item of the same turn. */
function turnCall(turn: readonly ContextItem[], toolCallId: string): string | undefined {
  for (const item of turn)
    if (item.type === 'assistant')
      for (const call of item.toolCalls)
        if (call.toolCallId === toolCallId) return `${call.toolName}(${argumentText(call.input)})`;
  return undefined;
}

// A summary line is one step: `- <label> → <what was kept>`.
const STEP_BULLET = '- ';
const STEP_ARROW = ' → ';

/** The label and text of a summary's step line (see {@link render}), or undefined for any other line. */
function stepLine(line: string): { label: string; text: string } | undefined {
  // A step is one line; a line terminator other than `\n` inside it makes it text of an earlier step.
  if (!line.startsWith(STEP_BULLET) || [...'\r\u2028\u2029'].some((end) => line.includes(end))) return undefined;
  const arrow = line.indexOf(STEP_ARROW, STEP_BULLET.length);
  return arrow < 0
    ? undefined
    : { label: line.slice(STEP_BULLET.length, arrow), text: line.slice(arrow + STEP_ARROW.length) };
}

function render(lines: readonly Line[], kept: readonly Unit[]): string {
  const byLine = new Map<number, Unit[]>();
  for (const unit of kept) byLine.set(unit.line, [...(byLine.get(unit.line) ?? []), unit]);
  const out: string[] = [];
  lines.forEach((line, lineIndex) => {
    const units = (byLine.get(lineIndex) ?? []).sort((a, b) => a.order - b.order);
    const fields = new Set(units.filter((u) => u.path).map((u) => JSON.stringify(u.path)));
    const record = line.record !== undefined && fields.size > 0 ? prune(line.record, fields) : undefined;
    const prose = units.filter((u) => u.text !== undefined).map((u) => u.text);
    const body = [record !== undefined ? JSON.stringify(record) : '', ...prose].filter(Boolean).join(' ');
    out.push(`${STEP_BULLET}${line.label}${STEP_ARROW}${body || '(nothing kept)'}`);
  });
  return out.join('\n');
}

/**
 * Creates the query-aware extractive summarizer (see the module comment). For history it keeps every
 * step's label (the tool call with its arguments) and, within `maxTokens`, the best-scoring fields and
 * sentences of all steps, the previous summary's included; the rest is dropped whole. For an
 * observation it does the same with the one result.
 *
 * @example
 * historyCompressor({ compressor: querySummarizer(), guideline: GENERIC_SUMMARY_GUIDELINE });
 */
export function querySummarizer(): CompressorBackend {
  return {
    name: 'extractive-summary',
    compress: async (input: CompressionInput) => {
      const terms = queryTerms(input.task, input.turns);
      const { lines, units } =
        input.target === 'observation'
          ? collect(
              {
                ...input,
                previousSummary: '',
                turns: [
                  [
                    {
                      type: 'tool-result',
                      toolCallId: '',
                      toolName: input.toolName ?? 'result',
                      output: input.observation,
                      isError: false,
                    },
                  ],
                ],
              },
              terms,
            )
          : collect(input, terms);
      let room = input.maxTokens - lines.reduce((sum, l) => sum + l.headTokens, 0);
      const ranked = [...units].sort((a, b) => b.score - a.score || a.order - b.order);
      const kept: Unit[] = [];
      for (const unit of ranked) {
        if (unit.tokens > room) continue;
        kept.push(unit);
        room -= unit.tokens;
      }
      // The estimate leaves out brackets and repeated keys of nested records: drop the weakest until it fits.
      let text = render(lines, kept);
      kept.sort((a, b) => b.score - a.score || a.order - b.order);
      while (kept.length > 0 && countTokens(text) > input.maxTokens) {
        kept.splice(Math.max(0, kept.length - Math.ceil(kept.length / 20)));
        text = render(lines, kept);
      }
      return text;
    },
  };
}
