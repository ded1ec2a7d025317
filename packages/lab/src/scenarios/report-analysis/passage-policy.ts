/**
 * The offline model's rules for a free-form question over any folder (a question that is not one of the generated
 * corpus's templates). It cannot reason, so it retrieves and extracts: it searches with the question's terms,
 * chooses the best-matching documents, reads them through the same paging tools a model uses, and answers with the
 * matching passages and table rows, each cited. It reads only its prompt, like every offline rule.
 */
import { OFFLINE_DISCLAIMER, type OfflineDecision, type OfflinePolicy } from 'pagewise';
import type { PromptView } from 'pagewise/testing';
import { parseFencedPages } from 'pagewise/internal';
import { fileOfUri } from './filings.js';
import { canonicalTerm, canonicalWords, searchQuery, understandQuestion } from './query.js';
import { REPORT_TASK_KIND_LINE } from './agent.js';
import { findPassages, mergePassages, namesRead, type Passage } from './passages.js';
import { fittingRows, statedAnswer } from './answer-line.js';
import { measureSearchWords } from './measures.js';
import { parseQuestion } from './questions.js';

/** Documents the planner chooses from the search results. */
export const PASSAGE_DOCUMENTS_CHOSEN = 5;
/** Passages in an answer. */
export const PASSAGES_PER_ANSWER = 3;
/** Table rows that fit a one-value question kept across batches: two are enough to leave the value in doubt. */
const ROWS_KEPT = 3;
/** The task id the running passages are saved under. */
const PASSAGES_ID = 'passages';
/** The sentence that says what kind of answer this is. */
export const EXTRACTIVE_NOTE =
  "Extractive answer: the passages of the documents that best match the question's terms, quoted as found; not a model's reasoning.";

interface SavedPassages {
  read: number;
  passages: Passage[];
  /** Table rows of the documents read that fit the question's one value (see {@link fittingRows}). */
  rows: Passage[];
}

function called(view: PromptView, name: string): boolean {
  return view.turns.some((t) => t.role === 'assistant' && t.toolCalls.some((c) => c.toolName === name));
}

function toolOutputs(view: PromptView, name: string): string[] {
  return view.turns
    .flatMap((t) => (t.role === 'tool' ? t.results.filter((r) => r.toolName === name) : []))
    .map((r) => r.output);
}

function readPlan(instruction: string): { total: number; loaded: number; next: string[] } | undefined {
  const match = /Reading plan: (\d+) documents; (\d+) loaded; next unread: (\[.*\])/.exec(instruction);
  if (!match) return undefined;
  try {
    const next = JSON.parse(match[3]!) as unknown;
    return {
      total: Number(match[1]),
      loaded: Number(match[2]),
      next: Array.isArray(next) ? next.filter((u): u is string => typeof u === 'string') : [],
    };
  } catch {
    return { total: Number(match[1]), loaded: Number(match[2]), next: [] };
  }
}

function readSaved(instruction: string): SavedPassages | undefined {
  const match = new RegExp(`^- ${PASSAGES_ID}: (\\{.*\\})$`, 'm').exec(instruction);
  if (!match) return undefined;
  try {
    const value = JSON.parse(match[1]!) as Partial<SavedPassages>;
    if (typeof value.read !== 'number' || !Array.isArray(value.passages)) return undefined;
    const valid = (passage: Passage | undefined): passage is Passage =>
      typeof passage?.citation === 'string' && typeof passage?.text === 'string' && typeof passage?.score === 'number';
    const rows = Array.isArray(value.rows) ? value.rows.filter(valid).filter((p) => validRow(p.row)) : [];
    return { read: value.read, passages: value.passages.filter(valid), rows };
  } catch {
    return undefined;
  }
}

function validRow(row: unknown): boolean {
  if (typeof row !== 'object' || row === null) return false;
  const record = row as Record<string, unknown>;
  const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  return (
    typeof record.label === 'string' &&
    strings(record.values) &&
    (record.columns === undefined || strings(record.columns)) &&
    (record.unit === undefined || typeof record.unit === 'string')
  );
}

/** The saved form of the running passages: one line, within the save_result limit. */
function serialize(saved: SavedPassages): string {
  let { passages, rows } = saved;
  for (let chars = 600; chars >= 100; chars -= 100) {
    const text = JSON.stringify({ read: saved.read, passages, rows });
    if (text.length <= 3900) return text;
    passages = passages.map((p) => ({ ...p, text: p.text.slice(0, chars) }));
    rows = rows.map((p) => ({ ...p, text: p.text.slice(0, chars) }));
  }
  return JSON.stringify({ read: saved.read, passages: passages.slice(0, 1), rows: rows.slice(0, 2) });
}

/**
 * A warning when the question names an entity (a company) that neither the leading passage, the name of its file
 * nor the pages read of it ({@link Passage.names}) mention: the best match may be another company's filing.
 */
export function entityWarning(question: string, leading: Passage): string | undefined {
  const { entities, names } = understandQuestion(question);
  if (entities.length === 0) return undefined;
  const file = fileOfUri(leading.citation.replace(/:[\d-]+$/, ''));
  const seen = canonicalWords(`${file.replace(/[^\p{L}\p{N}]+/gu, ' ')} ${leading.text}`);
  const compact = file.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const read = leading.names ?? [];
  if (entities.some((e) => seen.has(canonicalTerm(e)) || (e.length >= 4 && compact.includes(e)) || read.includes(e)))
    return undefined;
  return `Note: the question names ${names.join(' ')}, but the leading passage (${leading.citation}) is from ${file}, whose name, passage and pages read do not mention it; it may be another company's document.`;
}

/**
 * The final answer text from the best passages: the one-line answer first when the value is unambiguous (see
 * {@link statedAnswer}; `rows` are the table rows of the documents read that fit the question), then the passages,
 * led by the row the line states.
 */
export function formatPassageAnswer(
  question: string,
  passages: readonly Passage[],
  rows: readonly Passage[] = [],
): string {
  const terms = understandQuestion(question).words;
  if (passages.length === 0)
    return `${EXTRACTIVE_NOTE}\nNo passage of the documents I read holds the terms ${terms.map((t) => `"${t}"`).join(', ')}.`;
  const warning = entityWarning(question, passages[0]!);
  const stated = warning ? undefined : statedAnswer(question, passages, rows);
  // The row the answer states is its evidence: it leads the passages.
  const shown = stated
    ? [stated.row, ...passages.filter((p) => p.citation !== stated.row.citation || p.text !== stated.row.text)].slice(
        0,
        Math.max(passages.length, 1),
      )
    : passages;
  const lines = shown.map((p, i) => `${i + 1}. [${p.citation}] ${p.text}`);
  const answer = stated?.line;
  return `${EXTRACTIVE_NOTE}\n${answer ? `${answer}\n` : ''}Search terms: ${terms.join(', ')}\n${lines.join('\n')}${warning ? `\n${warning}` : ''}`;
}

/** The answer's passages of a batch of pages, and the rows among all it found that fit the question. */
function readBatch(question: string, pages: readonly { uri: string; body: string }[]): SavedPassages {
  const found = namesRead(question, findPassages(question, pages, Number.MAX_SAFE_INTEGER), pages);
  return { read: 0, passages: found.slice(0, PASSAGES_PER_ANSWER), rows: fittingRows(question, found) };
}

function finish(text: string): OfflineDecision {
  return { toolCalls: [{ toolName: 'escalate', input: { reason: `${OFFLINE_DISCLAIMER} ${text}` } }] };
}

function planner(view: PromptView): OfflineDecision {
  const question = view.firstUserText;
  if (!called(view, 'search')) {
    const parsed = understandQuestion(question);
    // A measure named by an abbreviation ("R&D") is searched by its name, which the statement's pages print.
    const query =
      [searchQuery(parsed), ...measureSearchWords(parsed.text, parsed.terms)].join(' ').trim().slice(0, 500) ||
      question.slice(0, 500);
    return { toolCalls: [{ toolName: 'search', input: { query, k: 10 } }] };
  }
  if (!called(view, 'choose_documents')) {
    // Search results arrive fenced as untrusted data, best first.
    const found = toolOutputs(view, 'search').flatMap((out) => parseFencedPages(out).pages.map((p) => p.uri));
    const uris = [...new Set(found)].slice(0, PASSAGE_DOCUMENTS_CHOSEN);
    if (uris.length === 0)
      return {
        text: `${OFFLINE_DISCLAIMER} ${EXTRACTIVE_NOTE}\nNo document matches the terms ${understandQuestion(question).words.join(', ')}; nothing was read.`,
      };
    return { toolCalls: [{ toolName: 'choose_documents', input: { uris } }] };
  }
  return { toolCalls: [{ toolName: 'transfer_to_agent', input: { agent_name: 'analyst' } }] };
}

function analyst(view: PromptView): OfflineDecision {
  const question = view.firstUserText;
  const plan = readPlan(view.instruction);
  if (!plan)
    return { text: `${OFFLINE_DISCLAIMER} I cannot see a reading plan in my prompt, so I cannot tell what to read.` };
  const load = plan.next.length ? [{ toolName: 'get_reports', input: { urls: plan.next } }] : [];
  if (view.toolNames.includes('save_result')) {
    const saved = readSaved(view.instruction);
    const pages = parseFencedPages(view.instruction).pages;
    if (pages.length > 0 && (saved?.read ?? 0) < plan.loaded) {
      const batch = readBatch(question, pages);
      const merged = mergePassages([saved?.passages ?? [], batch.passages], PASSAGES_PER_ANSWER);
      const rows = mergePassages([saved?.rows ?? [], batch.rows], ROWS_KEPT);
      return {
        toolCalls: [
          {
            toolName: 'save_result',
            input: { task_id: PASSAGES_ID, result: serialize({ read: plan.loaded, passages: merged, rows }) },
          },
          ...load,
        ],
      };
    }
    if (load.length) return { toolCalls: load };
    return finish(formatPassageAnswer(question, saved?.passages ?? [], saved?.rows ?? []));
  }
  if (load.length) return { toolCalls: load };
  const pages = toolOutputs(view, 'get_reports').flatMap((out) => parseFencedPages(out).pages);
  const batch = readBatch(question, pages);
  return finish(formatPassageAnswer(question, batch.passages, batch.rows));
}

/**
 * Offline rules for free-form questions of the report-analysis agents; template questions of the generated corpus
 * are left to the report-analysis policy, which computes their aggregates.
 */
export const passageOfflinePolicy: OfflinePolicy = {
  name: 'report-analysis-passages',
  matches: (view) =>
    view.instruction.includes(REPORT_TASK_KIND_LINE) && parseQuestion(view.firstUserText) === undefined,
  decide: (view) => (/^Role: planner\.$/m.test(view.instruction) ? planner(view) : analyst(view)),
};
