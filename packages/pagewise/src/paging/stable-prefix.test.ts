/**
 * DESIGN invariant 16 through the runner: what stays the same (tools, the agent's own instruction, the
 * append-only history) is the prompt's prefix, serialized the same way at every call, and what changes per
 * step (working set, saved results, a plan line) is the step block after it. A provider's prompt cache can
 * then serve every call's prefix from the call before.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Message } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agents/agent.js';
import { Runner } from '../agents/runner.js';
import { tool } from '../agents/tool.js';
import { observationCompressor } from '../compression/observation.js';
import { eventsToItems } from '../context/history.js';
import { renderPrompt, STEP_BLOCK_HEADER } from '../context/request.js';
import { scriptedModel } from '../models/scripted.js';
import { isStepBlock } from '../models/step-block.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import { loaderSource } from '../sources/source.js';
import { parseFencedPages } from './fence.js';
import { pagedInstruction } from './instruction.js';
import { PagingService } from './service.js';
import { createPagingTools } from './tools.js';

const doc = (ordinal: number) =>
  `Report ${ordinal}. ` + Array.from({ length: 200 }, (_, j) => `figure${(ordinal * 13 + j) % 89}`).join(' ');
const docs: Record<string, string> = { a: doc(1), b: doc(2), c: doc(3), d: doc(4) };
const source = loaderSource(
  'test',
  (uri) => uri in docs,
  (uri) => ({ body: docs[uri]!, title: `Title of ${uri}` }),
);

const INSTRUCTION = 'You read reports and save what each batch says.';

/** The bytes of a call's prefix: tools, then every message before the step block, as the provider gets them. */
function prefixBytes(call: LanguageModelV3CallOptions): string[] {
  const messages = call.prompt.filter((message) => !isStepBlock(message));
  return [JSON.stringify(call.tools ?? []), ...messages.map((message) => JSON.stringify(message))];
}

function stepBlockOf(call: LanguageModelV3CallOptions): LanguageModelV3Message | undefined {
  return call.prompt.find(isStepBlock);
}

/** A paging agent whose history only grows (no processor rewrites it), with a plan line that changes per step. */
function pagingAgent() {
  const service = new PagingService({ source });
  const tools = createPagingTools(service);
  return new Agent({
    name: 'reader',
    instruction: pagedInstruction({
      base: INSTRUCTION,
      perStep: (ctx) =>
        `Plan: ${Object.keys(ctx.state).filter((key) => key.startsWith('result:')).length} batches saved.`,
      service,
    }),
    tools: [tools.get_reports, tools.save_result],
  });
}

const script = [
  { toolCalls: [{ toolName: 'get_reports', input: { urls: ['a', 'b'] } }] },
  {
    toolCalls: [
      { toolName: 'save_result', input: { task_id: 'batch-1', result: 'a and b read' } },
      { toolName: 'get_reports', input: { urls: ['c', 'd'] } },
    ],
  },
  { toolCalls: [{ toolName: 'save_result', input: { task_id: 'batch-2', result: 'c and d read' } }] },
  'done',
];

describe('a stable prompt prefix', () => {
  it('request N extends request N-1 up to the step block, while the working set and saved results change', async () => {
    const model = scriptedModel([...script, 'second answer']);
    const runner = new Runner({ agent: pagingAgent(), model });
    await runner.run({ userId: 'u', sessionId: 's', message: 'Read every report.' });
    // A second invocation of the same session goes on from the same prefix.
    await runner.run({ userId: 'u', sessionId: 's', message: 'Anything else?' });
    model.assertComplete();
    const calls = model.calls;
    expect(calls).toHaveLength(5);
    for (let index = 1; index < calls.length; index++) {
      const before = prefixBytes(calls[index - 1]!);
      const after = prefixBytes(calls[index]!);
      expect(after.length).toBeGreaterThan(before.length);
      expect(after.slice(0, before.length)).toEqual(before);
    }
    // What changed went to the step block, the last message, fenced as before.
    const views = model.views;
    expect(views.map((view) => view.system)).toEqual(Array(5).fill(INSTRUCTION));
    expect(parseFencedPages(views[1]!.stepBlock).pages.map((page) => page.uri)).toEqual(['a', 'b']);
    expect(parseFencedPages(views[2]!.stepBlock).pages.map((page) => page.uri)).toEqual(['c', 'd']);
    expect(views[2]!.stepBlock).toContain('Plan: 1 batches saved.');
    expect(views[3]!.stepBlock).toContain('- batch-2: c and d read');
    for (const call of calls) {
      expect(call.prompt.at(-1)).toBe(stepBlockOf(call));
      const block = stepBlockOf(call)!;
      expect(block.role === 'user' && block.content[0]?.type === 'text' && block.content[0].text).toMatch(
        new RegExp(`^${STEP_BLOCK_HEADER.replace(/[[\]().]/g, '\\$&')}\n\nPlan: `),
      );
    }
  });

  it('a session reloaded from its stored events renders the prefix it was sent, byte for byte', async () => {
    const store = new InMemorySessionStore();
    const model = scriptedModel(script);
    const agent = pagingAgent();
    const result = await new Runner({ agent, model, store }).run({ userId: 'u', sessionId: 's', message: 'Read.' });
    const last = model.calls.at(-1)!;
    // As a new process would see it: the stored session, through JSON, without the final answer.
    const stored = JSON.parse(JSON.stringify(await store.getSession(result.session))) as typeof result.session;
    const events = stored.events.slice(0, -1);
    const { prompt } = renderPrompt({
      instruction: [{ part: 'instruction', text: INSTRUCTION }],
      items: eventsToItems(events),
      tools: [],
    });
    const sent = last.prompt.filter((message) => !isStepBlock(message));
    expect(prompt.map((message) => JSON.stringify(message))).toEqual(sent.map((message) => JSON.stringify(message)));
  });

  it('a compressed tool result renders byte for byte the same at every later call; a repeated call appends its result whole', async () => {
    const long = (id: string) => `record ${id}: ` + Array.from({ length: 400 }, (_, j) => `line${j}`).join(' ');
    const lookup = tool({
      name: 'lookup',
      description: 'Looks a record up.',
      inputSchema: z.object({ id: z.string() }),
      execute: ({ id }) => long(id),
    });
    const model = scriptedModel([
      { toolCalls: [{ toolName: 'lookup', input: { id: 'r1' } }] },
      { toolCalls: [{ toolName: 'lookup', input: { id: 'r2' } }] },
      { toolCalls: [{ toolName: 'lookup', input: { id: 'r1' } }] },
      'done',
    ]);
    const agent = new Agent({
      name: 'a',
      instruction: 'You look records up.',
      tools: [lookup],
      observationProcessors: [
        observationCompressor({ compressor: { name: 'stub', compress: async () => 'kept' }, thresholdTokens: 50 }),
      ],
    });
    await new Runner({ agent, model }).run({ userId: 'u', message: 'look' });
    const compressed = JSON.stringify(model.calls[1]!.prompt[3]);
    expect(compressed).toContain('kept');
    expect(compressed).not.toContain('line399');
    for (const call of model.calls.slice(2)) expect(JSON.stringify(call.prompt[3])).toBe(compressed);
    // The repeated call's result is shown whole (expandOnRepeat) as a new message; the earlier one is untouched.
    expect(JSON.stringify(model.calls[3]!.prompt.at(-1))).toContain('line399');
  });
});
