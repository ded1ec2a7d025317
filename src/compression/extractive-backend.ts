/**
 * The extractive backend of C_obs and C_hist: no model, only the guideline's rules. An observation is
 * compressed by {@link compressExtractive} against the task and the recent steps. History becomes a
 * list of steps, one entry per tool call with the parts of its result the rules keep, quoted verbatim
 * (JSON stays valid JSON, so a reader of records still finds them), within the summary budget.
 *
 * Summary format (what `accumulate` reads back as the previous summary): one entry a line,
 *
 * ```text
 * - get_order_details {"order_id":"#W1"} → {"order_id":"#W1","status":"pending"}
 * - [user] Also check the refund.
 * ```
 *
 * a multi-line payload continuing on lines indented by two spaces.
 */
import type { ContextItem } from '../context/request.js';
import { countTokens } from '../tokens/tokenizer.js';
import type { CompressionInput, CompressorBackend } from './backend.js';
import { compressExtractive } from './extractive.js';
import type { ExtractiveRules } from './rules.js';
import { headWithinTokens } from './token-budget.js';
import { argumentText, handleOf, unfenceQuoted } from './transcript.js';

/** One step of an extractive summary: what was done (`label`) and what came back (`payload`). */
export interface SummaryEntry {
  label: string;
  payload: string;
  /** The payload is an observation the observation compressor already compressed. */
  compressed?: boolean;
  /**
   * For a tool call: the label without the arguments, and the argument values. When the kept payload
   * shows every value (a record names its own id), the arguments say nothing more and are left out.
   */
  short?: { label: string; values: string[] };
}

/** Options of {@link extractiveCompressor}. */
export interface ExtractiveCompressorOptions {
  /**
   * Keep the page handle of a compressed observation in its summary entry, so the agent can still
   * page the raw result in after the step is summarized. Default true; about 14 tokens an entry.
   */
  keepHandles?: boolean;
}

const ARROW = ' → ';

/**
 * Creates the extractive backend.
 *
 * @example
 * const processor = historyCompressor({ compressor: extractiveCompressor() });
 */
export function extractiveCompressor(options: ExtractiveCompressorOptions = {}): CompressorBackend {
  const keepHandles = options.keepHandles ?? true;
  return {
    name: 'extractive',
    compress: async (input) =>
      input.target === 'observation' ? compressObservation(input) : compressHistory(input, keepHandles),
  };
}

function compressObservation(input: CompressionInput): string {
  const query = [input.task, input.history].filter(Boolean).join('\n');
  return compressExtractive(input.observation, { query, rules: input.guideline.rules, maxTokens: input.maxTokens })
    .text;
}

/** The entries of the steps in `turns`, payloads uncompressed. */
export function entriesOfTurns(turns: readonly (readonly ContextItem[])[], keepHandles = true): SummaryEntry[] {
  const entries: SummaryEntry[] = [];
  for (const turn of turns) {
    for (const item of turn) {
      switch (item.type) {
        case 'user':
          entries.push({ label: '[user]', payload: item.text });
          break;
        case 'summary':
          entries.push({ label: '[summary]', payload: item.text });
          break;
        case 'assistant':
          if (item.text.trim()) entries.push({ label: '[assistant]', payload: item.text });
          break;
        case 'tool-result': {
          const call = turn
            .find((x): x is Extract<ContextItem, { type: 'assistant' }> => x.type === 'assistant')
            ?.toolCalls.find((c) => c.toolCallId === item.toolCallId);
          const handle = handleOf(item.output);
          // A compressed observation is quoted in a fence: its body is the payload, its handle goes in the label.
          const body = unfenceQuoted(item.output);
          const parts = (args: string): string =>
            [
              item.isError ? '[error]' : '',
              item.toolName,
              args,
              keepHandles && handle ? `(full result: ${handle})` : '',
            ]
              .filter(Boolean)
              .join(' ');
          const label = parts(call ? argumentText(call.input) : '');
          const short = { label: parts(''), values: call ? scalarValues(call.input) : [] };
          entries.push(
            body === undefined
              ? { label, payload: item.output, short }
              : { label, payload: body, compressed: true, short },
          );
          break;
        }
      }
    }
  }
  return entries;
}

/** Writes entries in the summary format; a call's arguments are left out when its payload shows them all. */
export function formatSummaryEntries(entries: readonly SummaryEntry[]): string {
  const lines: string[] = [];
  for (const e of entries) {
    const [first = '', ...rest] = e.payload.split('\n');
    const label = e.short && e.short.values.every((v) => e.payload.includes(v)) ? e.short.label : e.label;
    lines.push(`- ${label}${ARROW}${first}`, ...rest.map((line) => `  ${line}`));
  }
  return lines.join('\n');
}

/**
 * Reads entries back from a summary in the format of {@link formatSummaryEntries}. Text in another
 * form (a summary written by a model) becomes one entry, so it is carried along, not lost.
 */
export function parseSummaryEntries(summary: string): SummaryEntry[] {
  if (summary.trim() === '') return [];
  const entries: SummaryEntry[] = [];
  for (const line of summary.split('\n')) {
    const last = entries[entries.length - 1];
    if (line.startsWith('- ') && line.includes(ARROW)) {
      const at = line.indexOf(ARROW);
      entries.push({ label: line.slice(2, at), payload: line.slice(at + ARROW.length) });
    } else if (last && line.startsWith('  ')) {
      last.payload += `\n${line.slice(2)}`;
    } else if (last && last.label === '[earlier summary]') {
      last.payload += `\n${line}`;
    } else {
      entries.push({ label: '[earlier summary]', payload: line });
    }
  }
  return entries;
}

function compressHistory(input: CompressionInput, keepHandles: boolean): string {
  const previous = parseSummaryEntries(input.previousSummary);
  const fresh = entriesOfTurns(input.turns, keepHandles);
  // Each new payload is ranked against the task and every other step: an id that a later step uses
  // (the item of an order, looked up in the catalogue) marks what to keep of an earlier result.
  const texts = [...previous, ...fresh].map((e) => `${e.label} ${e.payload}`);
  const compressed = fresh.map((entry, i) => {
    // Compressed once already, by the observation guideline with the context of its time: relevance
    // is relative to the rest of a document, so compressing the survivors again would only lose more.
    const others = texts.filter((_, j) => j !== previous.length + i).join('\n');
    return entry.compressed
      ? entry
      : { ...entry, payload: compressPayload(entry.payload, `${input.task}\n${others}`, input.guideline.rules) };
  });
  return fitBudget([...previous, ...compressed], input.task, input.guideline.rules, input.maxTokens);
}

/** The scalar values in tool-call arguments, as text (`{"id":"#W1","n":2}` → `#W1`, `2`). */
function scalarValues(input: unknown): string[] {
  if (typeof input === 'string') {
    try {
      return scalarValues(JSON.parse(input));
    } catch {
      return [input];
    }
  }
  if (Array.isArray(input)) return input.flatMap(scalarValues);
  if (typeof input === 'object' && input !== null) return Object.values(input).flatMap(scalarValues);
  return input === null || input === undefined ? [] : [String(input)];
}

function compressPayload(payload: string, query: string, rules: ExtractiveRules, maxTokens?: number): string {
  return compressExtractive(payload, { query, rules, ...(maxTokens === undefined ? {} : { maxTokens }) }).text;
}

/**
 * Formats the entries within `maxTokens`: while over, every payload is cut in proportion to its size
 * (recompressed by the rules, without the ratio, so no entry is cut twice by it) and, if that is not
 * enough, the oldest entries are dropped.
 */
function fitBudget(entries: SummaryEntry[], task: string, rules: ExtractiveRules, maxTokens: number): string {
  let text = formatSummaryEntries(entries);
  let total = countTokens(text);
  if (total <= maxTokens) return text;
  const capOnly: ExtractiveRules = { ...rules, ratio: 1 };
  const payloadTokens = entries.reduce((sum, e) => sum + countTokens(e.payload), 0);
  const fixed = total - payloadTokens;
  const share = Math.max(0, maxTokens - fixed) / Math.max(1, payloadTokens);
  const all = entries.map((e) => `${e.label} ${e.payload}`);
  let squeezed = entries.map((e, i) => {
    const others = all.filter((_, j) => j !== i).join('\n');
    return {
      ...e,
      payload: compressPayload(e.payload, `${task}\n${others}`, capOnly, Math.floor(countTokens(e.payload) * share)),
    };
  });
  text = formatSummaryEntries(squeezed);
  total = countTokens(text);
  while (total > maxTokens && squeezed.length > 0) {
    squeezed = squeezed.slice(1);
    text = formatSummaryEntries(squeezed);
    total = countTokens(text);
  }
  return total <= maxTokens ? text : headWithinTokens(text, maxTokens);
}
