import { describe, expect, it } from 'vitest';
import { eventsToItems } from '../context/history.js';
import { measureRequest, type ContextRequest, type ProcessorContext } from '../context/request.js';
import { OfflineModel } from '../models/offline.js';
import { scriptedModel } from '../models/scripted.js';
import type { CompactionEvent, Session, SessionEvent } from '../session/types.js';
import { Ledger } from '../tokens/ledger.js';
import { countTokens } from '../tokens/tokenizer.js';
import { DEFAULT_HISTORY_GUIDELINE } from './default-guidelines.js';
import { summaryBody } from './history.js';
import { firstSentence, NAIVE_STEP_CHARS, naiveSummarizer, querySummarizer } from './offline-summarizer.js';
import { GENERIC_SUMMARY_GUIDELINE, promptingSummarizer } from './prompting.js';

const TASK = 'Find the pending orders.';
const base = { invocationId: 'inv', author: 'agent', timestamp: 0 };
const events: SessionEvent[] = [
  { ...base, id: 'u0', kind: 'user', author: 'user', text: TASK },
  {
    ...base,
    id: 'm1',
    kind: 'model',
    text: 'Looking it up. Then I will answer.',
    toolCalls: [{ toolCallId: 'c1', toolName: 'get_order', input: { id: 1 } }],
  },
  {
    ...base,
    id: 'r1',
    kind: 'tool-result',
    toolCallId: 'c1',
    toolName: 'get_order',
    output: `Order 1 is pending. ${'Details follow. '.repeat(60)}`,
    isError: false,
  },
  {
    ...base,
    id: 'm2',
    kind: 'model',
    text: '',
    toolCalls: [{ toolCallId: 'c2', toolName: 'get_order', input: { id: 2 } }],
  },
  {
    ...base,
    id: 'r2',
    kind: 'tool-result',
    toolCallId: 'c2',
    toolName: 'get_order',
    output: 'x'.repeat(500),
    isError: false,
  },
];

function setup(): { session: Session; request: ContextRequest; context: ProcessorContext; ledger: Ledger } {
  const session: Session = {
    appName: 'a',
    userId: 'u',
    sessionId: 's',
    state: {},
    events: [...events],
    version: 5,
    createdAt: 0,
    updatedAt: 0,
  };
  const ledger = new Ledger();
  const context: ProcessorContext = {
    session,
    invocationId: 'inv',
    agentName: 'agent',
    task: TASK,
    services: new Map(),
    signal: new AbortController().signal,
    ledger,
    appendCompaction: async (compaction) => {
      session.events.push({ ...base, id: 'k1', kind: 'compaction', ...compaction } satisfies CompactionEvent);
    },
  };
  return { session, request: { instruction: [], items: eventsToItems(session.events), tools: [] }, context, ledger };
}

describe('the naive summarizer (offline stand-in)', () => {
  it('keeps the first sentence of each step, at most 200 characters', () => {
    expect(firstSentence('Order 1 is pending.  It ships soon.')).toBe('Order 1 is pending.');
    expect(firstSentence('no end in sight\nat all')).toBe('no end in sight at all');
    const cut = firstSentence('y'.repeat(500));
    expect(Array.from(cut)).toHaveLength(NAIVE_STEP_CHARS + 1);
    expect(cut.endsWith('…')).toBe(true);
  });

  it('ignores the guideline and the budget, and keeps the previous summary first', async () => {
    const backend = naiveSummarizer();
    const turns = [eventsToItems(events.slice(1, 3))];
    const input = {
      target: 'history' as const,
      task: TASK,
      history: '',
      turns,
      previousSummary: 'earlier: order 0 delivered',
      observation: '',
      maxTokens: 1,
    };
    const genericSummary = await backend.compress(
      { ...input, guideline: GENERIC_SUMMARY_GUIDELINE },
      { invocationId: 'i', agentName: 'a' },
    );
    const historySummary = await backend.compress(
      { ...input, guideline: DEFAULT_HISTORY_GUIDELINE },
      { invocationId: 'i', agentName: 'a' },
    );
    expect(genericSummary).toBe(historySummary);
    expect(genericSummary.split('\n')).toEqual([
      'earlier: order 0 delivered',
      '- [assistant] Looking it up.',
      '- [result of get_order] Order 1 is pending.',
    ]);
  });
});

describe('promptingSummarizer', () => {
  it('uses the extractive stand-in on the offline model, with no model call', async () => {
    const { request, context, ledger } = setup();
    await promptingSummarizer({ model: new OfflineModel(), thresholdTokens: 100 }).process(request, context);
    const summary = request.items[1];
    expect(summary?.type).toBe('summary');
    const body = summary?.type === 'summary' ? (summaryBody(summary.text) ?? '') : '';
    // The extractive backend's summary format: one entry a step (arguments the result shows left out).
    expect(body).toContain('- get_order → Order 1 is pending.');
    expect(ledger.entries).toHaveLength(0);
  });

  it('with a budget, summarizes only when the request would exceed it, into the room left', async () => {
    const small = setup();
    await promptingSummarizer({ budgetTokens: 5000 }).process(small.request, small.context);
    expect(small.request.items.some((i) => i.type === 'summary')).toBe(false);
    const tight = setup();
    const before = measureRequest(tight.request).total;
    await promptingSummarizer({ budgetTokens: 200 }).process(tight.request, tight.context);
    expect(before).toBeGreaterThan(200);
    expect(tight.request.items.some((i) => i.type === 'summary')).toBe(true);
    expect(measureRequest(tight.request).total).toBeLessThanOrEqual(200);
  });

  it('asks a real model with one generic prompt, and records the call', async () => {
    const model = scriptedModel(['The user wants pending orders; order 1 is pending.']);
    const { request, context, ledger } = setup();
    await promptingSummarizer({ model, thresholdTokens: 100 }).process(request, context);
    const prompt = model.views[0]?.turns[0];
    const text = prompt?.role === 'user' ? prompt.text : '';
    expect(
      text.startsWith('Summarize the conversation so far so that it can be continued from your summary alone.'),
    ).toBe(true);
    expect(text).toContain('[result of get_order] Order 1 is pending.');
    expect(text).not.toMatch(/Runtime values|\{\{/u);
    expect(request.items[1]?.type === 'summary' && summaryBody(request.items[1].text)).toBe(
      'The user wants pending orders; order 1 is pending.',
    );
    expect(ledger.entries.map((e) => e.kind)).toEqual(['compressor']);
  });
});

describe('the query-aware extractive summarizer (offline stand-in)', () => {
  const record = {
    order_id: '#W2611340',
    status: 'delivered',
    address: { address1: '445 Maple Drive', city: 'Charlotte', zip: '28262' },
    items: [
      { name: 'T-Shirt', item_id: '8349118980', price: 53.43, options: { color: 'blue', size: 'S' } },
      { name: 'Water Bottle', item_id: '5565631513', price: 48.84, options: { capacity: '750ml' } },
    ],
    payment_history: [{ transaction_type: 'payment', amount: 102.27, payment_method_id: 'gift_card_1' }],
  };
  const turns = [
    [
      {
        type: 'assistant' as const,
        text: '',
        toolCalls: [{ toolCallId: 'c1', toolName: 'get_order_details', input: { order_id: '#W2611340' } }],
      },
      {
        type: 'tool-result' as const,
        toolCallId: 'c1',
        toolName: 'get_order_details',
        output: JSON.stringify(record, null, 2),
        isError: false,
      },
    ],
  ];
  const input = (maxTokens: number, task = 'How much did the customer spend on T-Shirt items delivered?') => ({
    target: 'history' as const,
    guideline: GENERIC_SUMMARY_GUIDELINE,
    task,
    history: '',
    turns,
    previousSummary: '',
    observation: '',
    maxTokens,
  });
  const ctx = { invocationId: 'i', agentName: 'a' };

  it('keeps whole fields as JSON within the budget, never a cut value', async () => {
    for (const budget of [30, 60, 120, 400]) {
      const text = await querySummarizer().compress(input(budget), ctx);
      expect(countTokens(text)).toBeLessThanOrEqual(budget);
      const json = /→ (\{.*\})/u.exec(text)?.[1];
      if (json !== undefined) {
        const kept = JSON.parse(json) as Record<string, unknown>;
        // Every kept value is a value of the record, whole.
        const values = JSON.stringify(record);
        for (const value of Object.values(kept).filter((x) => typeof x === 'string'))
          expect(values).toContain(`"${value}"`);
      }
    }
  });

  it('prefers the fields the task asks about and ids over prose-like details', async () => {
    const text = await querySummarizer().compress(input(70), ctx);
    expect(text).toContain('T-Shirt');
    expect(text).toContain('53.43');
    expect(text).toContain('#W2611340');
    expect(text).not.toContain('Maple Drive');
  });

  it('folds the previous summary back in and keeps it within the budget', async () => {
    const first = await querySummarizer().compress(input(120), ctx);
    const again = await querySummarizer().compress({ ...input(120), previousSummary: first, turns: [] }, ctx);
    expect(countTokens(again)).toBeLessThanOrEqual(120);
    expect(again).toContain('53.43');
  });

  it("reads a previous summary's step lines back under their own labels, other lines as earlier steps", async () => {
    const previousSummary = '- get_order → T-Shirt delivered for 53.43\nnot a step line\n- split\r → line';
    const text = await querySummarizer().compress({ ...input(400), previousSummary, turns: [] }, ctx);
    expect(text).toMatch(/^- get_order → /mu);
    expect(text).toContain('- earlier → not a step line');
    // A line terminator inside a line makes it no step line.
    expect(text).not.toMatch(/^- split/mu);
  });

  it('keeps a field a tool result names __proto__ as a field of the summarized record', async () => {
    const observation = '{"__proto__": {"status": "pending"}, "order_id": "#W1"}';
    const text = await querySummarizer().compress(
      { ...input(400, 'Is order #W1 pending?'), target: 'observation', turns: [], observation, toolName: 'get_order' },
      ctx,
    );
    const json = /→ (\{.*\})/u.exec(text)?.[1];
    expect(json).toBeDefined();
    const kept = JSON.parse(json!) as Record<string, unknown>;
    expect(Object.keys(kept)).toEqual(['__proto__', 'order_id']);
    expect(kept).toStrictEqual(JSON.parse(observation));
    expect(({} as Record<string, unknown>).status).toBeUndefined();
  });
});
