import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../session/types.js';
import { emptyParts } from '../tokens/ledger.js';
import { countTokens, type EncodingName } from '../tokens/tokenizer.js';
import { eventsToItems } from './history.js';
import { clearToolResults, fifoHistory } from './processors.js';
import { RequestHistory } from './request-history.js';
import { renderPrompt, serializeRequest, type ContextItem, type ContextRequest } from './request.js';

/** The ledger's figures counted from scratch: every serialized segment through the tokenizer. */
function recount(request: ContextRequest, encoding: EncodingName) {
  const parts = emptyParts();
  for (const segment of serializeRequest(request)) parts[segment.part] += countTokens(segment.text, encoding);
  const total = parts.instruction + parts.paged + parts.history + parts.observation + parts.tools;
  return { parts, total };
}

const tool = { name: 'lookup', description: 'Looks a record up.', inputSchema: { type: 'object' as const } };
const base = { invocationId: 'i', author: 'a', timestamp: 0 };

/** One step of a random history: what is appended at once. */
type Step =
  | { kind: 'user'; text: string }
  | { kind: 'model'; text: string; calls: { output: string; isError: boolean }[]; deferFrom: number }
  | { kind: 'compaction'; from: number; to: number; summary: string };

const text = fc.string({ maxLength: 40 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('user' as const), text }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('model' as const),
      text,
      calls: fc.array(fc.record({ output: text, isError: fc.boolean() }), { maxLength: 3 }),
      deferFrom: fc.nat({ max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('compaction' as const),
      from: fc.nat(),
      to: fc.nat(),
      summary: text,
    }),
  },
);

/**
 * Appends the events of `planned` to `events` (ids unique by position). A model step's results from call
 * `deferFrom` on are returned instead, for the caller to append at the next step, as results of a step
 * whose model event was written ahead arrive after it.
 */
function append(events: SessionEvent[], planned: Step): SessionEvent[] {
  const id = () => `e${events.length}`;
  if (planned.kind === 'user') events.push({ ...base, id: id(), kind: 'user', text: planned.text });
  else if (planned.kind === 'compaction') {
    const ids = events.filter((e) => e.kind !== 'compaction').map((e) => e.id);
    if (ids.length < 2) return [];
    const fromIndex = planned.from % ids.length;
    const toIndex = planned.to % ids.length;
    events.push({
      ...base,
      id: id(),
      kind: 'compaction',
      fromEventId: ids[Math.min(fromIndex, toIndex)]!,
      toEventId: ids[Math.max(fromIndex, toIndex)]!,
      summary: planned.summary,
    });
  } else {
    const modelId = id();
    const calls = planned.calls.map((_, k) => ({ toolCallId: `${modelId}-c${k}`, toolName: 'lookup', input: { k } }));
    events.push({ ...base, id: modelId, kind: 'model', text: planned.text, toolCalls: calls });
    const later: SessionEvent[] = [];
    planned.calls.forEach((call, index) =>
      (index < planned.deferFrom ? events : later).push({
        ...base,
        id: `${modelId}-r${index}`,
        kind: 'tool-result',
        toolCallId: calls[index]!.toolCallId,
        toolName: 'lookup',
        output: call.output,
        isError: call.isError,
      }),
    );
    return later;
  }
  return [];
}

/** What a pipeline may do to the items: nothing, the plain processors, or arbitrary edits. */
type Edit = 'none' | 'clear' | 'fifo' | 'replace-one' | 'append-one' | 'drop-tail';
const edit = fc.constantFrom<Edit>('none', 'clear', 'fifo', 'replace-one', 'append-one', 'drop-tail');

async function applyEdit(request: ContextRequest, kind: Edit, seed: number): Promise<void> {
  const ctx = { task: '' } as Parameters<ReturnType<typeof fifoHistory>['process']>[1];
  const items = request.items;
  if (kind === 'clear') await clearToolResults({ keepLast: seed % 3 }).process(request, ctx);
  else if (kind === 'fifo') await fifoHistory({ lastTurns: 1 + (seed % 4) }).process(request, ctx);
  else if (kind === 'replace-one' && items.length > 0) {
    const index = seed % items.length;
    items[index] = { ...items[index]! } as ContextItem;
  } else if (kind === 'append-one') items.push({ type: 'user', text: `extra ${seed}` });
  else if (kind === 'drop-tail') items.length = Math.max(0, items.length - 1 - (seed % 3));
}

describe('RequestHistory', () => {
  // How many renders vouched for more than a couple of messages of the prompt before them.
  let vouched = 0;
  it.each([false, true])(
    'measures and renders every step exactly as a full recount and a full render would, on random histories (reusePrompt %s)',
    async (reusePrompt) => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              step,
              edit,
              seed: fc.nat(),
              encoding: fc.constantFrom<EncodingName>('o200k_base', 'cl100k_base'),
              withSystem: fc.boolean(),
            }),
            {
              maxLength: 25,
            },
          ),
          async (plan) => {
            const events: SessionEvent[] = [];
            const history = new RequestHistory();
            // Every prompt handed out, with a deep copy of it as it was then: a model may keep its prompt.
            // With reusePrompt, only those of steps that did not get the kept array itself.
            const handedOut: { prompt: unknown; then: unknown }[] = [];
            let kept: unknown;
            let deferred: SessionEvent[] = [];
            // The previous prompt as it was rendered, for what the next render says it shares with it.
            let previous: readonly unknown[] = [];
            let renders = 0;
            for (const { step: planStep, edit: planEdit, seed, encoding, withSystem } of plan) {
              events.push(...deferred);
              deferred = append(events, planStep);
              history.sync(events);
              // The kept items are what a conversion of the whole list gives.
              expect(history.items).toEqual(eventsToItems(events));
              const items = planEdit === 'none' ? history.items : history.items.slice();
              const request: ContextRequest = {
                instruction: withSystem
                  ? [
                      { part: 'instruction', text: 'You look records up.' },
                      { part: 'paged', text: `<page>${seed}</page>` },
                    ]
                  : [],
                items,
                tools: [tool],
              };
              await applyEdit(request, planEdit, seed);
              expect(history.measure(request, encoding)).toEqual(recount(request, encoding));
              const rendered = history.render(request, reusePrompt);
              expect(rendered).toEqual(renderPrompt(request));
              const { render, unchanged } = history.continuity;
              expect(render).toBe((renders += 1));
              if (unchanged > 3) vouched += 1;
              for (let index = 1; index < unchanged; index++) expect(rendered.prompt[index]).toBe(previous[index]);
              previous = rendered.prompt.slice();
              // The kept array is handed out only under reusePrompt, and only for the whole history with a
              // system message; it is then the same array at every such step.
              const whole =
                withSystem &&
                request.items.length === history.items.length &&
                request.items.every((item, i) => item === history.items[i]);
              if (reusePrompt && whole) {
                kept ??= rendered.prompt;
                expect(rendered.prompt).toBe(kept);
              } else {
                expect(rendered.prompt).not.toBe(kept);
                handedOut.push({ prompt: rendered.prompt, then: structuredClone(rendered.prompt) });
              }
            }
            for (const { prompt, then } of handedOut) expect(prompt).toEqual(then);
          },
        ),
        { numRuns: 150 },
      );
    },
  );

  it('vouched for long runs of messages of the previous prompt in the renders above', () => {
    expect(vouched).toBeGreaterThan(50);
  });

  it('rebuilds when the event list is replaced rather than appended to', () => {
    const history = new RequestHistory();
    const first: SessionEvent[] = [];
    append(first, { kind: 'model', text: 'a', calls: [{ output: 'one', isError: false }], deferFrom: 1 });
    history.sync(first);
    const second: SessionEvent[] = [];
    append(second, { kind: 'user', text: 'something else entirely' });
    append(second, { kind: 'model', text: 'b', calls: [{ output: 'two', isError: true }], deferFrom: 1 });
    history.sync(second);
    const request: ContextRequest = { instruction: [], items: history.items, tools: [] };
    expect(history.items).toEqual(eventsToItems(second));
    expect(history.measure(request, 'o200k_base')).toEqual(recount(request, 'o200k_base'));
    expect(history.render(request)).toEqual(renderPrompt(request));
  });

  it('hands out a new prompt array each time, so a prompt kept by a model does not grow with the history', () => {
    const history = new RequestHistory();
    const events: SessionEvent[] = [];
    append(events, { kind: 'user', text: 'start' });
    history.sync(events);
    const before = history.render({ instruction: [], items: history.items, tools: [] }).prompt;
    const length = before.length;
    append(events, { kind: 'model', text: 'm', calls: [{ output: 'o', isError: false }], deferFrom: 1 });
    history.sync(events);
    const after = history.render({ instruction: [], items: history.items, tools: [] }).prompt;
    expect(before).toHaveLength(length);
    expect(after.length).toBeGreaterThan(length);
  });
});
