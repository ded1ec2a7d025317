/**
 * The history bridge reads only the messages that changed since a session's last call: these tests give it
 * histories that change in the ways a wrong reuse would miss, and compare what it returns with what a bridge that
 * reads everything returns for the same messages.
 */
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ContextItem, ContextProcessor } from '../context/request.js';
import { Ledger } from '../tokens/ledger.js';
import { modelMessagesCodec } from './ai-sdk/messages.js';
import { HistoryBridge, type BridgeContext } from './history-bridge.js';

/** Rewrites every tool result from its item, so what the bridge read of a result shows in what it returns. */
function quoting(seen: ContextItem[][] = []): ContextProcessor {
  return {
    name: 'quoting',
    process(request) {
      seen.push(request.items.slice());
      request.items = request.items.map((item) =>
        item.type === 'tool-result' ? { ...item, output: `read: ${item.output}` } : item,
      );
    },
  };
}

const context = (sessionId = 's1'): BridgeContext => ({
  sessionId,
  agentName: 'agent',
  invocationId: 'i1',
  task: 'task',
  ledger: new Ledger(),
});

const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const call = (id: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'search', input: { id } }],
});
const result = (id: string, value: string): ModelMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'search', output: { type: 'text', value } }],
});

/** A task and `steps` call/result pairs. */
function history(steps: number, tag = ''): ModelMessage[] {
  const messages = [user(`task${tag}`)];
  for (let step = 0; step < steps; step++)
    messages.push(call(`c${step}${tag}`), result(`c${step}${tag}`, `r${step}${tag}`));
  return messages;
}

/** What a bridge that has seen nothing returns for `messages`. */
async function fromScratch(messages: readonly ModelMessage[]): Promise<readonly ModelMessage[]> {
  return new HistoryBridge([quoting()]).apply(messages, modelMessagesCodec, context());
}

/** The bridge's answer for each history in turn, on one session. */
async function inTurn(histories: readonly (readonly ModelMessage[] | (() => readonly ModelMessage[]))[]) {
  const bridge = new HistoryBridge([quoting()]);
  const out: (readonly ModelMessage[])[] = [];
  for (const entry of histories) {
    const messages = typeof entry === 'function' ? entry() : entry;
    out.push(structuredClone(await bridge.apply(messages, modelMessagesCodec, context())));
  }
  return out;
}

describe('HistoryBridge: reading only what changed', () => {
  it('takes the events of unchanged messages as they were: the same history items reach the processors', async () => {
    const seen: ContextItem[][] = [];
    const bridge = new HistoryBridge([quoting(seen)]);
    const messages = history(6);
    await bridge.apply(messages, modelMessagesCodec, context());
    // The framework's copy of the same messages, with one more step.
    await bridge.apply(structuredClone([...messages, call('c6'), result('c6', 'r6')]), modelMessagesCodec, context());
    const [first, second] = seen;
    expect(second).toHaveLength(first!.length + 2);
    // All but the last event of the first call are the same objects; the last is read again and stays the same.
    first!.forEach((item, index) => expect(second![index]).toBe(item));
  });

  it('reads a result replaced by an edited one', async () => {
    const messages = history(6);
    const edited = [...messages.slice(0, 4), result('c1', 'edited'), ...messages.slice(5)];
    const [, second] = await inTurn([messages, edited]);
    expect(second).toEqual(structuredClone(await fromScratch(edited)));
    expect(JSON.stringify(second)).toContain('read: edited');
  });

  it('reads an output changed in place', async () => {
    const messages = history(6);
    const [, second] = await inTurn([
      messages,
      () => {
        const part = (messages[4] as Extract<ModelMessage, { role: 'tool' }>).content[0]!;
        (part as { output: { type: 'text'; value: string } }).output.value = 'changed in place';
        return messages;
      },
    ]);
    expect(JSON.stringify(second)).toContain('read: changed in place');
    expect(second).toEqual(structuredClone(await fromScratch(messages)));
  });

  it('reads a history that diverges from the last call after a shared start', async () => {
    const messages = history(6);
    const diverging = [...messages.slice(0, 5), ...history(4, 'x').slice(1)];
    const [, second] = await inTurn([messages, diverging]);
    expect(second).toEqual(structuredClone(await fromScratch(diverging)));
  });

  it('reads a history cut short, and one grown again from it', async () => {
    const messages = history(8);
    const short = messages.slice(0, 7);
    const regrown = [...short, call('n1'), result('n1', 'again')];
    const [, second, third] = await inTurn([messages, short, regrown]);
    expect(second).toEqual(structuredClone(await fromScratch(short)));
    expect(third).toEqual(structuredClone(await fromScratch(regrown)));
  });
});
