/**
 * How much of each prompt a provider's prompt cache could serve, read from a run's call log (the SQLite
 * `model_calls` table of `npx pagewise demo` or `pagewise analyze --db`): each stored request is rendered
 * in a layout, serialized in the order a provider reads it (tools, then system, then messages) and
 * tokenized with the project's tokenizer; its longest common token prefix with the previous request of
 * the same session is what a cache keyed on the prefix could hold. The cacheable share applies OpenAI's
 * published rule: a prefix of 1,024 tokens or more, in steps of 128. This is a measure of layout, not a
 * price: it says nothing of cache lifetimes, breakpoints or dollars.
 *
 * Layouts: `step-block` renders as the runner does (per-step sections in a message after the history);
 * `system` puts every section in the system message, as pagewise did before the step block.
 *
 *   npx tsx bench/prompt-prefix.ts --db /tmp/pagewise-demo-XXXX/pagewise.db [--layout step-block|system|both]
 */
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import type { LanguageModelV3Message } from '@ai-sdk/provider';
import { isStepBlock, renderPrompt, type ContextRequest } from 'pagewise/context';
import { toolDefinitionText } from 'pagewise/internal';
import { encodeTokens } from '../packages/pagewise/src/tokens/tokenizer.js';

/** The smallest prefix OpenAI caches, and the step its cached length grows by. */
const OPENAI_MIN_PREFIX = 1024;
const OPENAI_PREFIX_STEP = 128;

type Layout = 'step-block' | 'system';

/**
 * Tokens of a request as a provider reads it: tools, system, messages, each piece tokenized on its own;
 * `stable` is how many of them come before the step block (all of them when there is none).
 */
export function providerOrderTokens(request: ContextRequest, layout: Layout): { tokens: number[]; stable: number } {
  const laidOut: ContextRequest =
    layout === 'step-block'
      ? request
      : { ...request, instruction: request.instruction.map((section) => ({ ...section, perStep: false })) };
  const { prompt } = renderPrompt(laidOut);
  const tokens: number[] = [];
  let stable = -1;
  for (const tool of request.tools) tokens.push(...encodeTokens(toolDefinitionText(tool)));
  for (const message of prompt) {
    if (isStepBlock(message)) stable = tokens.length;
    tokens.push(...encodeTokens(messageText(message)));
  }
  return { tokens, stable: stable < 0 ? tokens.length : stable };
}

/** A message as text: its role, then each part (text as is, calls and results by name and content). */
function messageText(message: LanguageModelV3Message): string {
  // Provider options (the step block's mark, cache breakpoints) are not prompt text.
  if (message.role === 'system') return `system\n${message.content}`;
  const parts = message.content.map((part) => {
    switch (part.type) {
      case 'text':
        return part.text;
      case 'tool-call':
        return `${part.toolName}${JSON.stringify(part.input)}`;
      case 'tool-result':
        return `${part.toolName}\n${'value' in part.output ? String(part.output.value) : ''}`;
      default:
        return JSON.stringify(part);
    }
  });
  return `${message.role}\n${parts.join('\n')}`;
}

/** Length of the longest common prefix of two token arrays. */
export function commonPrefix(previous: readonly number[], current: readonly number[]): number {
  const limit = Math.min(previous.length, current.length);
  let index = 0;
  while (index < limit && previous[index] === current[index]) index += 1;
  return index;
}

/** The tokens of a common prefix that OpenAI's rule caches: 0 below 1,024, else down to a multiple of 128. */
export function openAiCacheable(prefix: number): number {
  return prefix < OPENAI_MIN_PREFIX ? 0 : Math.floor(prefix / OPENAI_PREFIX_STEP) * OPENAI_PREFIX_STEP;
}

interface Row {
  session_id: string;
  tags: string;
  body: string;
}

interface Totals {
  calls: number;
  prompt: number;
  cacheable: number;
  callsOver: number;
  /** Tokens in step blocks: a prefix cache cannot serve them, they change at every call. */
  stepBlock: number;
  /** Calls whose prompt changed inside the previous call's stable part (a history rewritten, not appended to). */
  rewrites: number;
  peak: number;
  ledgerPeak: number;
}

function measure(db: string, layout: Layout): Map<string, Totals> {
  const rows = new Database(db, { readonly: true })
    .prepare('SELECT session_id, tags, body FROM model_calls ORDER BY id')
    .all() as Row[];
  const previous = new Map<string, { tokens: number[]; stable: number }>();
  const byStrategy = new Map<string, Totals>();
  for (const row of rows) {
    const body = JSON.parse(row.body) as { request: ContextRequest; entry: { promptTokens: number } };
    const strategy = (JSON.parse(row.tags) as { strategy?: string }).strategy ?? 'untagged';
    const current = providerOrderTokens(body.request, layout);
    const { tokens } = current;
    const before = previous.get(row.session_id);
    const prefix = commonPrefix(before?.tokens ?? [], tokens);
    previous.set(row.session_id, current);
    const totals = byStrategy.get(strategy) ?? {
      calls: 0,
      prompt: 0,
      cacheable: 0,
      callsOver: 0,
      stepBlock: 0,
      rewrites: 0,
      peak: 0,
      ledgerPeak: 0,
    };
    totals.calls += 1;
    totals.stepBlock += tokens.length - current.stable;
    if (before && prefix < Math.min(before.stable, current.stable)) totals.rewrites += 1;
    totals.prompt += tokens.length;
    totals.cacheable += openAiCacheable(prefix);
    if (prefix >= OPENAI_MIN_PREFIX) totals.callsOver += 1;
    totals.peak = Math.max(totals.peak, tokens.length);
    totals.ledgerPeak = Math.max(totals.ledgerPeak, body.entry.promptTokens);
    byStrategy.set(strategy, totals);
  }
  return byStrategy;
}

export function main(argv = process.argv.slice(2)): void {
  const { values } = parseArgs({
    args: argv,
    options: { db: { type: 'string', multiple: true }, layout: { type: 'string', default: 'both' } },
  });
  if (!values.db?.length) throw new Error('Pass --db <path to a pagewise SQLite database with a call log>.');
  const layouts: Layout[] = values.layout === 'both' ? ['system', 'step-block'] : [values.layout as Layout];
  console.log(
    '| database | layout | strategy | calls | prompt tokens | cacheable (OpenAI rule) | calls with a prefix ≥ 1,024 | in step blocks | calls that changed the stable part | peak (serialized) | peak (ledger) |',
  );
  console.log('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const db of values.db)
    for (const layout of layouts)
      for (const [strategy, totals] of measure(db, layout))
        console.log(
          `| ${db} | ${layout} | ${strategy} | ${totals.calls} | ${totals.prompt.toLocaleString('en-US')} | ${((100 * totals.cacheable) / totals.prompt).toFixed(1)}% | ${totals.callsOver} | ${((100 * totals.stepBlock) / totals.prompt).toFixed(1)}% | ${totals.rewrites} | ${totals.peak.toLocaleString('en-US')} | ${totals.ledgerPeak.toLocaleString('en-US')} |`,
        );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
