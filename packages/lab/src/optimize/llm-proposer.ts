/**
 * The LLM proposer: an optimizer model writes the feedback and the candidates, as in ACON. Feedback on
 * each pair (or success) is asked for as JSON and validated; candidates are asked for all at once, K
 * guideline files between markers, each parsed with `parseGuideline` (a file that does not parse is a
 * rejected candidate with the parser's message, not a crash). A revision reply of which no candidate
 * can be read is not cached, so a resumed run asks again, and the loop asks again at once; unreadable
 * feedback is kept, marked invalid. The loop checks every candidate for placeholders and task values,
 * whatever the prompt said.
 */
import { z } from 'zod';
import type { ScenarioTask } from '../bench/scenario.js';
import { PagewiseError } from 'pagewise';
import { formatGuideline, parseGuideline, type Guideline, type GuidelineTarget } from 'pagewise/compression';
import { PLACEHOLDER_RULES, placeholdersOf } from 'pagewise/internal';
import { ROOT_CAUSES, type ContrastivePair, type PairFeedback, type RootCause } from './analysis.js';
import { splitJson } from './field-diff.js';
import type { CandidateDraft, GuidelineProposer, UnreadableReply } from './proposer.js';
import type { EpisodeTrace } from './trace.js';

const FeedbackReply = z.object({
  divergence: z.string().default(''),
  rootCauses: z.array(z.string()).default([]),
  lostFacts: z.array(z.string()).default([]),
  recommendations: z.array(z.string()).default([]),
});

const CompressionReply = z.object({
  unnecessary: z.array(z.string()).default([]),
  recommendations: z.array(z.string()).default([]),
});

const MAX_CALLS_SHOWN = 40;

function steps(trace: EpisodeTrace): string {
  const calls = trace.toolCalls.slice(0, MAX_CALLS_SHOWN).map((c, i) => `${i + 1}. ${c.toolName} ${c.input}`);
  if (trace.toolCalls.length > MAX_CALLS_SHOWN) calls.push(`… ${trace.toolCalls.length - MAX_CALLS_SHOWN} more calls`);
  return [
    `Tool calls (${trace.toolCalls.length}):`,
    ...(calls.length > 0 ? calls : ['(none)']),
    `Final answer${trace.error ? ' (the run ended in an error)' : ''}: ${trace.answer}`,
  ].join('\n');
}

function excerpts(trace: EpisodeTrace): string {
  if (trace.excerpts.length === 0) return '(no compressor call lost a field)';
  return trace.excerpts
    .map((excerpt, index) =>
      [
        `Compression ${index + 1}${excerpt.toolName ? ` of a ${excerpt.toolName} result` : ''}:`,
        'Input:',
        excerpt.input,
        'Output:',
        excerpt.output,
        `Fields lost: ${excerpt.lost.join(', ') || 'none'}`,
      ].join('\n'),
    )
    .join('\n\n');
}

function templateBlock(guideline: Guideline): string {
  return ['<<<GUIDELINE', guideline.template, 'GUIDELINE>>>'].join('\n');
}

/** The prompt asking for feedback on one contrastive pair. */
export function utilityFeedbackPrompt(pair: ContrastivePair, analysis: PairFeedback, guideline: Guideline): string {
  return [
    `You analyse why an LLM agent failed a task when its ${guideline.target} was compressed, although it succeeded with the full context.`,
    `The ${guideline.target} compressor follows this guideline:`,
    templateBlock(guideline),
    '',
    'Task:',
    pair.task.prompt,
    '',
    'Run A, full context (succeeded):',
    steps(pair.uncompressed),
    '',
    'Run B, compressed context (failed):',
    steps(pair.compressed),
    '',
    'What the compressor did in run B, the calls that lost the most:',
    excerpts(pair.compressed),
    '',
    'An automatic comparison found:',
    JSON.stringify(
      { divergence: analysis.divergence, rootCauses: analysis.rootCauses, lostFields: analysis.lostFacts },
      null,
      2,
    ),
    '',
    'Reply with one JSON object and nothing else:',
    '{"divergence": "<where and why the runs parted>",',
    ` "rootCauses": [one or more of ${ROOT_CAUSES.map((c) => `"${c}"`).join(', ')}],`,
    ' "lostFacts": ["<each fact or variable run B lost>"],',
    ' "recommendations": ["<what the guideline should make the compressor keep or do>"]}',
  ].join('\n');
}

/** The prompt asking what a successful compressed run kept and did not need. */
export function compressionFeedbackPrompt(task: ScenarioTask, trace: EpisodeTrace, guideline: Guideline): string {
  return [
    `An LLM agent succeeded at a task while its ${guideline.target} was compressed by a compressor following this guideline:`,
    templateBlock(guideline),
    '',
    'Task:',
    task.prompt,
    '',
    'The run:',
    steps(trace),
    '',
    'Some of the compressor calls (input and output):',
    trace.excerpts.length > 0 ? excerpts(trace) : '(not recorded)',
    '',
    'Which content did the compressor keep that the agent never needed to succeed? Name kinds of fields or passages, not their values.',
    'Reply with one JSON object and nothing else:',
    '{"unnecessary": ["<kind of content kept but not needed>"], "recommendations": ["<how the guideline could keep less>"]}',
  ].join('\n');
}

function placeholderList(target: GuidelineTarget, current: Guideline): string {
  const used = placeholdersOf(current.template);
  const { required, optional } = PLACEHOLDER_RULES[target];
  return `It must keep every placeholder the current template uses (${used.map((p) => `{{${p}}}`).join(', ')}); the placeholders allowed are ${[...required, ...optional].map((p) => `{{${p}}}`).join(', ')}.`;
}

/**
 * The prompt asking for `count` revised guidelines; with `retry`, it says why the previous reply could
 * not be read.
 */
export function revisionPrompt(
  step: 'utility' | 'compression',
  incumbent: Guideline,
  feedback: readonly unknown[],
  count: number,
  retry?: UnreadableReply,
): string {
  const goal =
    step === 'utility'
      ? 'Revise it so that the compressor keeps what the failed runs lost, using the feedback on each failure below.'
      : 'Revise it so that the compressor keeps less, dropping what the successful runs below kept without needing it, while keeping what they needed.';
  return [
    `You improve the guideline of a context compressor for LLM agents. The current guideline file (front matter, template, and a rules block of the extractive fallback) is:`,
    '<<<FILE',
    formatGuideline(incumbent),
    'FILE>>>',
    '',
    goal,
    '',
    'Feedback:',
    JSON.stringify(feedback, null, 2),
    '',
    `Write ${count} different revised guideline files. Each is a complete file in the same format: the front matter with "target: ${incumbent.target}", the template, and optionally the rules block.`,
    placeholderList(incumbent.target, incumbent),
    'The guideline must generalize to other tasks: never copy a task-specific value from the feedback (an id, a name, an amount, a product, a date); describe the kind of field instead.',
    `Put each file between the lines "=== CANDIDATE <n> ===" and "=== END CANDIDATE <n> ===", n from 1 to ${count}, and write nothing else.`,
    ...(retry
      ? [
          '',
          `Your previous reply to this request could not be read (${retry.error}). Reply again in exactly the format above.`,
        ]
      : []),
  ].join('\n');
}

function readJson<T>(text: string, schema: z.ZodType<T>): { value?: T; error?: string } {
  const object = splitJson(text.replace(/```(?:json)?/gu, '')).values.find(
    (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  );
  if (object === undefined) return { error: 'the reply holds no JSON object' };
  const parsed = schema.safeParse(object);
  return parsed.success ? { value: parsed.data } : { error: z.prettifyError(parsed.error) };
}

/**
 * A candidate's text without the code fence a model often wraps a file in (```markdown … ```), so
 * the file inside is what gets parsed.
 */
export function unwrapCodeFence(text: string): string {
  const fenced = /^\s*(`{3,}|~{3,})[\w-]*[ \t]*\n([\s\S]*?)\n[ \t]*\1[ \t]*\s*$/u.exec(text);
  return fenced ? (fenced[2] ?? '') : text;
}

/** Why no candidate of a revision reply can be read, or undefined when one can. */
export function unreadableCandidates(reply: string, count: number): string | undefined {
  const drafts = parseCandidates(reply, count);
  return drafts.length === 0 || drafts.some((d) => d.guideline) ? undefined : (drafts[0]?.error ?? 'unreadable');
}

/** The candidates of a revision reply, each parsed; a file that does not parse is a draft with its error. */
export function parseCandidates(reply: string, count: number): CandidateDraft[] {
  const found = [...reply.matchAll(/^=== CANDIDATE (\d+) ===\s*\n([\s\S]*?)\n=== END CANDIDATE \1 ===\s*$/gmu)];
  const drafts: CandidateDraft[] = [];
  for (const match of found.slice(0, count)) {
    const ordinal = match[1] ?? '?';
    try {
      const guideline = parseGuideline(unwrapCodeFence(match[2] ?? ''), `optimizer candidate ${ordinal}`);
      drafts.push({ guideline, edit: guideline.description ?? `optimizer candidate ${ordinal}` });
    } catch (error) {
      if (!PagewiseError.isInstance(error)) throw error;
      drafts.push({ edit: `optimizer candidate ${ordinal}`, error: error.message });
    }
  }
  if (found.length === 0)
    drafts.push({ edit: 'optimizer reply', error: 'the reply holds no "=== CANDIDATE n ===" block' });
  return drafts;
}

/**
 * The LLM proposer; the loop supplies the model calls (`context.ask`), cached and capped.
 *
 * @example
 * await optimizeGuideline({ scenario, target: 'history', optimizer: 'openai:gpt-4.1' });
 */
export function llmProposer(label: string): GuidelineProposer {
  return {
    name: `llm(${label})`,
    async utilityFeedback(pair, analysis, incumbent, context) {
      const text = await context.ask(
        utilityFeedbackPrompt(pair, analysis, incumbent),
        `utility feedback on ${pair.task.id}`,
      );
      const { value, error } = readJson(text, FeedbackReply);
      if (!value)
        return {
          taskId: pair.task.id,
          source: label,
          divergence: '',
          rootCauses: ['other'],
          lostFacts: [],
          recommendations: [text.slice(0, 2000)],
          invalid: error ?? 'unreadable',
        };
      const causes = value.rootCauses.map((cause): RootCause =>
        (ROOT_CAUSES as readonly string[]).includes(cause) ? (cause as RootCause) : 'other',
      );
      return {
        taskId: pair.task.id,
        source: label,
        divergence: value.divergence,
        rootCauses: [...new Set(causes)],
        lostFacts: value.lostFacts,
        recommendations: value.recommendations,
      };
    },
    async utilityCandidates(incumbent, feedback, _weights, count, context) {
      const text = await context.ask(
        revisionPrompt('utility', incumbent, feedback, count, context.retry),
        `utility revision (${count} candidates${context.retry ? `, attempt ${context.retry.attempt}` : ''})`,
        { unreadable: (reply) => unreadableCandidates(reply, count) },
      );
      return parseCandidates(text, count);
    },
    async compressionFeedback(task, trace, _analysis, incumbent, context) {
      const text = await context.ask(
        compressionFeedbackPrompt(task, trace, incumbent),
        `compression feedback on ${task.id}`,
      );
      const { value, error } = readJson(text, CompressionReply);
      if (!value)
        return {
          taskId: task.id,
          source: label,
          unnecessary: [],
          recommendations: [text.slice(0, 2000)],
          invalid: error ?? 'unreadable',
        };
      return { taskId: task.id, source: label, ...value };
    },
    async compressionCandidates(incumbent, feedback, _analysis, count, context) {
      const text = await context.ask(
        revisionPrompt('compression', incumbent, feedback, count, context.retry),
        `compression revision (${count} candidates${context.retry ? `, attempt ${context.retry.attempt}` : ''})`,
        { unreadable: (reply) => unreadableCandidates(reply, count) },
      );
      return parseCandidates(text, count);
    },
  };
}
