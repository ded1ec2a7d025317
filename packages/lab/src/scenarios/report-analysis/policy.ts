/**
 * The offline model's rules for report analysis. They read only the prompt: the question from the user
 * message, the plan line and saved results from the instruction, report texts from fenced pages in the
 * instruction (paging) or in tool results (none). A report that is not in the prompt is not counted.
 */
import { OFFLINE_DISCLAIMER, type OfflineDecision, type OfflinePolicy } from 'pagewise';
import type { PromptView } from 'pagewise/testing';
import { parseFencedPages } from 'pagewise/internal';
import { REPORT_TASK_KIND_LINE, RUNNING_RESULT_ID } from './agent.js';
import {
  combinePartials,
  extractiveAnswer,
  findReports,
  formatAnswer,
  parsePartial,
  partialAnswer,
  serializePartial,
  type PartialAnswer,
} from './extract.js';
import { parseQuestion, type QuestionSpec } from './questions.js';

function readPlan(instruction: string): { total: number; loaded: number; next: string[] } | undefined {
  const match = /Reading plan: (\d+) documents; (\d+) loaded; next unread: (\[.*\])/.exec(instruction);
  if (!match) return undefined;
  let next: string[] = [];
  try {
    const parsed = JSON.parse(match[3]!) as unknown;
    if (Array.isArray(parsed)) next = parsed.filter((u): u is string => typeof u === 'string');
  } catch {
    next = [];
  }
  return { total: Number(match[1]), loaded: Number(match[2]), next };
}

function readSaved(instruction: string): PartialAnswer | undefined {
  const match = new RegExp(`^- ${RUNNING_RESULT_ID}: (.*)$`, 'm').exec(instruction);
  return match ? parsePartial(match[1]!) : undefined;
}

/** The saved result that marks the batch last folded, by the plan's loaded count when it was folded. */
const FOLDED_AT_ID = 'folded-at';

function readFoldedAt(instruction: string): number | undefined {
  const match = new RegExp(`^- ${FOLDED_AT_ID}: (\\d+)\\s*$`, 'm').exec(instruction);
  return match ? Number(match[1]) : undefined;
}

/** The answer when reports were not in any prompt: never a figure computed from part of the data. */
function incomplete(read: number, total: number): OfflineDecision {
  return finish(`incomplete: ${total - read} of ${total} reports not seen; no answer.`);
}

function called(view: PromptView, tool: string): boolean {
  return view.turns.some((t) => t.role === 'assistant' && t.toolCalls.some((c) => c.toolName === tool));
}

function finish(text: string): OfflineDecision {
  return { toolCalls: [{ toolName: 'escalate', input: { reason: `${OFFLINE_DISCLAIMER} ${text}` } }] };
}

function planner(view: PromptView): OfflineDecision {
  if (!called(view, 'search'))
    return { toolCalls: [{ toolName: 'search', input: { query: view.firstUserText.slice(0, 400), k: 5 } }] };
  if (!called(view, 'choose_documents')) {
    const spec = parseQuestion(view.firstUserText);
    if (spec) return { toolCalls: [{ toolName: 'choose_documents', input: { all: true } }] };
    const uris = view.turns.flatMap((turn) =>
      turn.role === 'tool' ? turn.results.flatMap((r) => parseFencedPages(r.output).pages.map((p) => p.uri)) : [],
    );
    return { toolCalls: [{ toolName: 'choose_documents', input: uris.length ? { uris } : { all: true } }] };
  }
  return { toolCalls: [{ toolName: 'transfer_to_agent', input: { agent_name: 'analyst' } }] };
}

function analyst(view: PromptView): OfflineDecision {
  const spec = parseQuestion(view.firstUserText);
  const plan = readPlan(view.instruction);
  if (!plan)
    return {
      text: `${OFFLINE_DISCLAIMER} I cannot see a reading plan in my prompt, so I cannot tell which reports to read.`,
    };
  const paging = view.toolNames.includes('save_result');
  const load = plan.next.length ? [{ toolName: 'get_reports', input: { urls: plan.next } }] : [];

  if (paging) {
    const pageTexts = parseFencedPages(view.instruction).pages.map((p) => p.body);
    const saved = readSaved(view.instruction);
    if (spec) {
      // Each batch is folded once, marked by the plan's loaded count: a page missing from the prompt
      // leaves the count of reports read short instead of being made up by folding what is visible again.
      if (pageTexts.length > 0 && readFoldedAt(view.instruction) !== plan.loaded) {
        const batch = partialAnswer(spec, findReports(pageTexts.join('\n')));
        // The merged answer is saved as one partial, so the saved result stays one small record.
        const mergedPartial: PartialAnswer = saved ? mergePartials(spec, saved, batch) : batch;
        return {
          toolCalls: [
            { toolName: 'save_result', input: { task_id: RUNNING_RESULT_ID, result: serializePartial(mergedPartial) } },
            { toolName: 'save_result', input: { task_id: FOLDED_AT_ID, result: String(plan.loaded) } },
            ...load,
          ],
        };
      }
      if (load.length) return { toolCalls: load };
      if (!saved || saved.read < plan.total) return incomplete(saved?.read ?? 0, plan.total);
      return finish(formatAnswer(spec, combinePartials(spec, [saved])));
    }
    // A free-form question: keep the best sentences of each batch.
    if (pageTexts.length > 0 && !view.instruction.includes(`- batch-${plan.loaded}:`)) {
      const summary = extractiveAnswer(view.firstUserText, pageTexts, { sentencesPerReport: 1 });
      return {
        toolCalls: [
          { toolName: 'save_result', input: { task_id: `batch-${plan.loaded}`, result: summary.slice(0, 3900) } },
          ...load,
        ],
      };
    }
    if (load.length) return { toolCalls: load };
    const lines = [...view.instruction.matchAll(/^- batch-\d+: ([\s\S]*?)(?=^- batch-|\n\n|$(?![\s\S]))/gm)].map(
      (match) => match[1]!.trim(),
    );
    return finish(`Relevant sentences by report:\n${lines.join('\n')}`);
  }

  if (load.length) return { toolCalls: load };
  const reportTexts = view.turns.flatMap((t) => (t.role === 'tool' ? t.results.map((r) => r.output) : []));
  const all = reportTexts.join('\n');
  if (spec) {
    // A report seen twice (a result repeated in history) counts once.
    const reports = [...new Map(findReports(all).map((r) => [r.id, r])).values()];
    if (reports.length < plan.total) return incomplete(reports.length, plan.total);
    return finish(formatAnswer(spec, combinePartials(spec, [partialAnswer(spec, reports)])));
  }
  const pages = reportTexts.flatMap((t) => parseFencedPages(t).pages.map((p) => `${p.uri}\n${p.body}`));
  return finish(
    `Relevant sentences by report:\n${extractiveAnswer(view.firstUserText, pages, { sentencesPerReport: 1 })}`,
  );
}

/** Merges two partials of one question into one partial: the aggregate of both batches. */
export function mergePartials(spec: QuestionSpec, first: PartialAnswer, second: PartialAnswer): PartialAnswer {
  const final = combinePartials(spec, [first, second]);
  switch (final.kind) {
    case 'sum':
      return { kind: 'sum', read: final.read, matched: final.matched, sum: final.value };
    case 'count':
      return { kind: 'count', read: final.read, count: final.count };
    case 'compare':
      return { kind: 'compare', read: final.read, totals: final.totals };
    case 'max':
      return { kind: 'max', read: final.read, best: final.best };
    case 'top-k':
      return { kind: 'top-k', read: final.read, top: final.items };
  }
}

/** The offline policy of the report-analysis agents. */
export const reportOfflinePolicy: OfflinePolicy = {
  name: 'report-analysis',
  matches: (view) => view.instruction.includes(REPORT_TASK_KIND_LINE),
  decide: (view) => (/^Role: planner\.$/m.test(view.instruction) ? planner(view) : analyst(view)),
};
