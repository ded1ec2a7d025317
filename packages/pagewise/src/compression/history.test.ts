import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventsToItems, groupTurns } from '../context/history.js';
import { clearToolResults, fifoHistory } from '../context/processors.js';
import {
  findBrokenToolPair,
  measureRequest,
  type ContextProcessor,
  type ContextRequest,
  type ProcessorContext,
} from '../context/request.js';
import { ConfigurationError } from '../errors.js';
import { scriptedModel } from '../models/scripted.js';
import type { CompactionEvent, Session, SessionEvent } from '../session/types.js';
import { Ledger } from '../tokens/ledger.js';
import { countTokens } from '../tokens/tokenizer.js';
import type { CompressionInput, CompressorBackend } from './backend.js';
import { DEFAULT_OBSERVATION_GUIDELINE } from './default-guidelines.js';
import { historyCompressor, historyTokens, summaryBody, summaryOverhead, type HistoryMode } from './history.js';
import { llmBackend } from './llm-backend.js';
import { promptingSummarizer } from './prompting.js';
import { shortBoundary } from './transcript.js';

const TASK = 'Look up orders #W1 to #W6 and report the pending ones.';
const base = { invocationId: 'inv', author: 'agent', timestamp: 0 };

function user(id: string, text: string): SessionEvent {
  return { ...base, id, kind: 'user', author: 'user', text };
}
function call(id: string, callIds: string[]): SessionEvent {
  return {
    ...base,
    id,
    kind: 'model',
    text: '',
    toolCalls: callIds.map((c) => ({ toolCallId: c, toolName: 'get_order', input: { order_id: c } })),
  };
}
function result(id: string, callId: string, output: string): SessionEvent {
  return { ...base, id, kind: 'tool-result', toolCallId: callId, toolName: 'get_order', output, isError: false };
}
/** Step `stepNumber`: a call to get_order and its result, 60-odd tokens. */
function step(stepNumber: number): SessionEvent[] {
  return [
    call(`m${stepNumber}`, [`c${stepNumber}`]),
    result(
      `r${stepNumber}`,
      `c${stepNumber}`,
      JSON.stringify({
        order_id: `#W${stepNumber}`,
        status: stepNumber % 2 ? 'pending' : 'delivered',
        note: 'record '.repeat(40),
      }),
    ),
  ];
}

function session(events: SessionEvent[]): Session {
  return {
    appName: 'app',
    userId: 'u',
    sessionId: 's',
    state: {},
    events,
    version: events.length,
    createdAt: 0,
    updatedAt: 0,
  };
}

function processorContext(conversation: Session, ledger = new Ledger()): ProcessorContext {
  return {
    session: conversation,
    invocationId: 'inv',
    agentName: 'agent',
    task: TASK,
    services: new Map(),
    signal: new AbortController().signal,
    ledger,
    appendCompaction: async (compaction) => {
      const event: CompactionEvent = {
        ...base,
        id: `k${conversation.events.filter((e) => e.kind === 'compaction').length + 1}`,
        kind: 'compaction',
        ...compaction,
      };
      conversation.events.push(event);
    },
  };
}

function request(conversation: Session): ContextRequest {
  return {
    instruction: [{ part: 'instruction', text: 'You look up orders.' }],
    items: eventsToItems(conversation.events),
    tools: [],
  };
}

/** A backend that records its inputs and answers `summary <n>`. */
function recordingBackend(): CompressorBackend & { inputs: CompressionInput[] } {
  const inputs: CompressionInput[] = [];
  return {
    name: 'recording',
    inputs,
    compress: async (input) => {
      inputs.push(input);
      return `summary ${inputs.length}`;
    },
  };
}

describe('historyCompressor: T_hist', () => {
  it('compresses exactly when the history exceeds the threshold', async () => {
    const events = [user('u0', TASK), ...step(1), ...step(2), ...step(3)];
    const tokens = historyTokens(eventsToItems(events));

    const atThreshold = session([...events]);
    const req = request(atThreshold);
    const backend = recordingBackend();
    await historyCompressor({ compressor: backend, thresholdTokens: tokens }).process(
      req,
      processorContext(atThreshold),
    );
    expect(backend.inputs).toHaveLength(0);
    expect(atThreshold.events.some((e) => e.kind === 'compaction')).toBe(false);
    expect(req.items).toEqual(eventsToItems(events));

    const above = session([...events]);
    const reqAbove = request(above);
    await historyCompressor({ compressor: backend, thresholdTokens: tokens - 1 }).process(
      reqAbove,
      processorContext(above),
    );
    expect(backend.inputs).toHaveLength(1);
    expect(above.events.filter((e) => e.kind === 'compaction')).toHaveLength(1);
  });

  it('with a request budget, compresses only when the request would exceed it, into the room left', async () => {
    const events = [user('u0', TASK), ...step(1), ...step(2), ...step(3), ...step(4)];
    const whole = measureRequest(request(session([...events]))).total;

    const fits = session([...events]);
    const backend = recordingBackend();
    await historyCompressor({ compressor: backend, thresholdTokens: 1, budgetTokens: whole }).process(
      request(fits),
      processorContext(fits),
    );
    expect(backend.inputs).toHaveLength(0);

    const over = session([...events]);
    const req = request(over);
    const budget = whole - 1;
    const processor = historyCompressor({ compressor: backend, budgetTokens: budget, keepLastTurns: 1 });
    expect(processor.name).toBe(`acon-hist(recording, budget ${budget}, accumulate)`);
    await processor.process(req, processorContext(over));
    expect(backend.inputs).toHaveLength(1);
    // The room: the budget less the instruction, a fifth of what is left, the task and last turn, the frame.
    const free = budget - measureRequest({ instruction: req.instruction, items: [], tools: [] }).total;
    const kept = measureRequest({
      instruction: [],
      items: eventsToItems(events).filter((i) => ['u0', 'm4', 'r4'].includes(i.eventId ?? '')),
      tools: [],
    }).total;
    const frame = summaryOverhead(shortBoundary());
    expect(backend.inputs[0]?.maxTokens).toBe(free - Math.floor(free / 5) - kept - frame);
    expect(measureRequest(req).total).toBeLessThanOrEqual(budget);
    expect(() => historyCompressor({ budgetTokens: 0 })).toThrow(/budgetTokens must be an integer ≥ 1/);
  });

  it('keeps the task and the last k turns, summarizes the rest, and persists a compaction over their event ids', async () => {
    const conversation = session([user('u0', TASK), ...step(1), ...step(2), ...step(3), ...step(4)]);
    const req = request(conversation);
    const backend = recordingBackend();
    await historyCompressor({ compressor: backend, thresholdTokens: 100, keepLastTurns: 2 }).process(
      req,
      processorContext(conversation),
    );
    const compaction = conversation.events.find((e): e is CompactionEvent => e.kind === 'compaction');
    expect(compaction).toMatchObject({ fromEventId: 'm1', toEventId: 'r2', guideline: 'history-default@1' });
    expect(req.items.map((i) => i.eventId)).toEqual(['u0', 'k1', 'm3', 'r3', 'm4', 'r4']);
    expect(req.items[1]?.type === 'summary' && summaryBody(req.items[1].text)).toBe('summary 1');
    // The backend was given the task and the two summarized turns, whole.
    expect(backend.inputs[0]).toMatchObject({ target: 'history', task: TASK, previousSummary: '', maxTokens: 50 });
    expect(backend.inputs[0]?.turns.map((t) => t.map((i) => i.eventId))).toEqual([
      ['m1', 'r1'],
      ['m2', 'r2'],
    ]);
    // Nothing was deleted: the raw events are all still there, and the next request starts from the summary.
    expect(conversation.events.filter((e) => e.kind !== 'compaction')).toHaveLength(9);
    expect(eventsToItems(conversation.events).map((i) => i.eventId)).toEqual(['u0', 'k1', 'm3', 'r3', 'm4', 'r4']);
  });

  it('refuses an observation guideline and bad numbers', () => {
    expect(() => historyCompressor({ guideline: DEFAULT_OBSERVATION_GUIDELINE })).toThrow(ConfigurationError);
    expect(() => historyCompressor({ keepLastTurns: -1 })).toThrow(/keepLastTurns/u);
    expect(() => historyCompressor({ maxSummaryTokens: 0 })).toThrow(/maxSummaryTokens/u);
    expect(() => historyCompressor({ mode: 'rolling' as HistoryMode })).toThrow(/mode/u);
  });
});

describe('historyCompressor: reset and accumulate', () => {
  /** Compresses steps 1–3 (keeping step 3), then adds step 4 and compresses again. */
  async function twoRounds(
    mode: HistoryMode,
  ): Promise<{ inputs: CompressionInput[]; conversation: Session; items: ContextRequest['items'] }> {
    const conversation = session([user('u0', TASK), ...step(1), ...step(2), ...step(3)]);
    const backend = recordingBackend();
    const cHist = historyCompressor({ compressor: backend, thresholdTokens: 100, keepLastTurns: 1, mode });
    await cHist.process(request(conversation), processorContext(conversation));
    conversation.events.push(...step(4));
    const req = request(conversation);
    await cHist.process(req, processorContext(conversation));
    return { inputs: backend.inputs, conversation, items: req.items };
  }

  it('accumulate folds only the new turns into the previous summary', async () => {
    const { inputs, conversation, items } = await twoRounds('accumulate');
    expect(inputs[0]?.turns.flat().map((i) => i.eventId)).toEqual(['m1', 'r1', 'm2', 'r2']);
    expect(inputs[1]?.previousSummary).toBe('summary 1');
    expect(inputs[1]?.turns.flat().map((i) => i.eventId)).toEqual(['m3', 'r3']);
    expect(inputs[1]?.history).not.toContain('#W1');
    const compactions = conversation.events.filter((e): e is CompactionEvent => e.kind === 'compaction');
    expect(compactions.map((c) => [c.fromEventId, c.toEventId])).toEqual([
      ['m1', 'r2'],
      ['m1', 'r3'],
    ]);
    expect(items.map((i) => i.eventId)).toEqual(['u0', 'k2', 'm4', 'r4']);
  });

  it('reset summarizes every raw event of the range again, ignoring the previous summary', async () => {
    const { inputs, conversation, items } = await twoRounds('reset');
    expect(inputs[1]?.previousSummary).toBe('');
    expect(inputs[1]?.turns.flat().map((i) => i.eventId)).toEqual(['m1', 'r1', 'm2', 'r2', 'm3', 'r3']);
    expect(inputs[1]?.history).toContain('#W1');
    expect(inputs[1]?.history).not.toContain('summary 1');
    const last = conversation.events.filter((e): e is CompactionEvent => e.kind === 'compaction').at(-1);
    expect([last?.fromEventId, last?.toEventId]).toEqual(['m1', 'r3']);
    expect(items.map((i) => i.eventId)).toEqual(['u0', 'k2', 'm4', 'r4']);
  });
});

describe('historyCompressor with the LLM backend', () => {
  it('prompts with the guideline, every placeholder filled, uses the answer and records the call', async () => {
    const model = scriptedModel(['## Runtime values\n| order | #W1 | pending |'], { modelId: 'small' });
    const ledger = new Ledger();
    const conversation = session([user('u0', TASK), ...step(1), ...step(2), ...step(3)]);
    const req = request(conversation);
    await historyCompressor({
      compressor: llmBackend({ model }),
      thresholdTokens: 100,
      maxSummaryTokens: 300,
    }).process(req, processorContext(conversation, ledger));
    const prompt = model.views[0]?.turns[0];
    const text = prompt?.role === 'user' ? prompt.text : '';
    expect(text).not.toMatch(/\{\{|\}\}/u);
    expect(text).toContain(TASK);
    expect(text).toContain('"order_id":"#W2"');
    expect(text).toContain('at most 300 tokens');
    expect(text).toContain('Summary of the earlier history (empty before the first compression):\n\n');
    expect(req.items[1]?.type === 'summary' && summaryBody(req.items[1].text)).toBe(
      '## Runtime values\n| order | #W1 | pending |',
    );
    expect(ledger.entries).toHaveLength(1);
    expect(ledger.entries[0]).toMatchObject({
      kind: 'compressor',
      model: 'scripted:small',
      agent: 'agent:history-compressor',
      promptTokens: countTokens(text),
    });
    expect(ledger.entries[0]?.parts.history).toBe(ledger.entries[0]?.promptTokens);
  });
});

describe('no processor separates a tool call from its result', () => {
  // Histories of 1–12 turns: user messages, and model responses with 0–3 tool calls and their results.
  type TurnSpec = { kind: 'user'; text: string } | { calls: number; text: string; size: number };
  const turn: fc.Arbitrary<TurnSpec> = fc.oneof(
    fc.string({ maxLength: 40 }).map((text) => ({ kind: 'user' as const, text })),
    fc.record({
      calls: fc.integer({ min: 0, max: 3 }),
      text: fc.string({ maxLength: 20 }),
      size: fc.integer({ min: 1, max: 80 }),
    }),
  );

  function build(turns: TurnSpec[]): SessionEvent[] {
    const events: SessionEvent[] = [user('task', TASK)];
    turns.forEach((spec, turnIndex) => {
      if ('kind' in spec) {
        events.push(user(`u${turnIndex}`, spec.text || 'hello'));
        return;
      }
      const ids = Array.from({ length: spec.calls }, (_, j) => `c${turnIndex}.${j}`);
      events.push({
        ...base,
        id: `m${turnIndex}`,
        kind: 'model',
        text: spec.calls === 0 ? spec.text || 'ok' : spec.text,
        toolCalls: ids.map((c) => ({ toolCallId: c, toolName: 'get_order', input: {} })),
      });
      ids.forEach((c, j) => events.push(result(`r${turnIndex}.${j}`, c, 'data '.repeat(spec.size))));
    });
    return events;
  }

  it('holds for C_hist (both modes), the prompting baseline, FIFO and clearing, step after step', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom<HistoryMode>('reset', 'accumulate'),
        async (turns, threshold, keepLastTurns, mode) => {
          const all = build(turns);
          const processors: ContextProcessor[] = [
            historyCompressor({ thresholdTokens: threshold, keepLastTurns, mode }),
            promptingSummarizer({ thresholdTokens: threshold, keepLastTurns }),
            fifoHistory({ lastTurns: keepLastTurns + 1 }),
            clearToolResults({ keepLast: keepLastTurns }),
          ];
          for (const processor of processors) {
            // Grow the session event by event, as a run does, compressing before each "model call".
            const conversation = session([]);
            for (const event of all) {
              conversation.events.push(event);
              const req = request(conversation);
              if (findBrokenToolPair(req.items) !== undefined) continue; // mid-step: calls still waiting for results
              await processor.process(req, processorContext(conversation));
              expect(findBrokenToolPair(req.items), processor.name).toBeUndefined();
              // The task message is never summarized away by the compressors.
              if (processor.name.startsWith('acon') || processor.name.startsWith('summarize')) {
                expect(req.items.some((i) => i.type === 'user' && i.text === TASK)).toBe(true);
              }
              expect(groupTurns(req.items).flat()).toEqual(req.items);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('historyCompressor: nothing new, nothing done', () => {
  it.each<HistoryMode>(['reset', 'accumulate'])('%s does not summarize a lone summary again', async (mode) => {
    const conversation = session([user('u0', TASK), ...step(1), ...step(2)]);
    const backend = recordingBackend();
    const cHist = historyCompressor({ compressor: backend, thresholdTokens: 10, keepLastTurns: 1, mode });
    await cHist.process(request(conversation), processorContext(conversation));
    // Still above T_hist (the kept turn alone exceeds it), but only the summary could be compressed.
    await cHist.process(request(conversation), processorContext(conversation));
    expect(backend.inputs).toHaveLength(1);
    expect(conversation.events.filter((e) => e.kind === 'compaction')).toHaveLength(1);
  });
});

describe('historyCompressor: batched compaction', () => {
  /** A backend that writes as much as it may, as the extractive backend does on a long history. */
  const filling: CompressorBackend = {
    name: 'filling',
    compress: async (input) => 'fact '.repeat(input.maxTokens),
  };

  /**
   * Grows a session by 40 steps, running C_hist before each model call, and returns, for each compaction
   * (each rewrites the prompt from the summary on), the step and the history before and after it.
   */
  async function rewrites(batchRatio: number): Promise<{ step: number; before: number; after: number }[]> {
    const conversation = session([user('u0', TASK)]);
    // A summary budget and three kept turns that take most of T_hist, as on multi-objective QA.
    const cHist = historyCompressor({
      compressor: filling,
      thresholdTokens: 600,
      keepLastTurns: 3,
      maxSummaryTokens: 300,
      batchRatio,
    });
    const seen: { step: number; before: number; after: number }[] = [];
    for (let stepNumber = 1; stepNumber <= 40; stepNumber += 1) {
      conversation.events.push(...step(stepNumber));
      const count = conversation.events.filter((e) => e.kind === 'compaction').length;
      const req = request(conversation);
      const before = historyTokens(req.items);
      await cHist.process(req, processorContext(conversation));
      if (conversation.events.filter((e) => e.kind === 'compaction').length > count)
        seen.push({ step: stepNumber, before, after: historyTokens(req.items) });
    }
    return seen;
  }

  it('compacts a compacted history again once the steps since add a batch, no sooner and no later', async () => {
    const stepTokens = historyTokens(eventsToItems(step(1)));
    const batched = await rewrites(0.5);
    expect(batched.length).toBeGreaterThan(2);
    expect(batched[0]!.before).toBeGreaterThan(600);
    for (let index = 1; index < batched.length; index += 1) {
      // The history grew by at least half of T_hist (300) since the previous compaction, and by less than a step more.
      const grown = batched[index]!.before - batched[index - 1]!.after;
      expect(grown).toBeGreaterThanOrEqual(300);
      expect(grown).toBeLessThan(300 + stepTokens + 8);
    }
    // With a batch of a few tokens, the summary and kept turns bring it back above T_hist within a step or two.
    const eager = await rewrites(0.01);
    console.log('DBG', JSON.stringify(batched), JSON.stringify(eager.map((e) => e.step)), stepTokens);
    expect(eager.length).toBeGreaterThanOrEqual(2 * batched.length);
  });

  it('refuses a batch ratio that is not a positive number', () => {
    expect(() => historyCompressor({ batchRatio: 0 })).toThrow(/batchRatio must be a finite number > 0/u);
    expect(() => historyCompressor({ batchRatio: Number.NaN })).toThrow(ConfigurationError);
  });
});
