/**
 * Trace import: every format read from a sample written in that format, a malformed record of each
 * refused with the line or field named, and an unknown format refused with the list of formats.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PagewiseError, InMemorySessionStore } from 'pagewise';
import { TraceFormatError } from './errors.js';
import { tracesFromStore } from './formats/pagewise-session.js';
import { detectFormat, parseTraces, readTraces } from './import.js';
import { TRACE_FORMATS, type ReplayTrace } from './trace.js';

const testdata = path.join(import.meta.dirname, 'testdata');
const fixture = (name: string): Promise<string> => readFile(path.join(testdata, name), 'utf8');

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'pagewise-replay-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** The shape every sample of the return conversation must come out as. */
function expectReturnConversation(trace: ReplayTrace): void {
  const kinds = trace.items.map((i) => i.type);
  expect(kinds).toEqual([
    'user',
    'assistant',
    'tool-result',
    'assistant',
    'tool-result',
    'assistant',
    'tool-result',
    'assistant',
    'user',
    'assistant',
    'tool-result',
    'assistant',
  ]);
  const call = trace.items[9];
  expect(call?.type === 'assistant' && call.toolCalls[0]?.toolName).toBe('return_delivered_order_items');
  expect(
    call?.type === 'assistant' && (call.toolCalls[0]?.input as { payment_method_id?: string }).payment_method_id,
  ).toBe('gift_card_9911020');
  const details = trace.items[4];
  expect(details?.type === 'tool-result' && details.toolName).toBe('get_user_details');
  expect(details?.type === 'tool-result' && JSON.parse(details.output).user_id).toBe('mei_kovacs_8020');
}

function expectError(fn: () => unknown, ...parts: string[]): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(TraceFormatError);
  expect(PagewiseError.isInstance(caught)).toBe(true);
  for (const part of parts) expect((caught as Error).message).toContain(part);
}

describe('OpenAI Chat Completions', () => {
  it('reads JSONL records with their reward, and a bare message array', async () => {
    const traces = parseTraces(await fixture('openai-chat.jsonl'), 'chats.jsonl');
    expect(traces.map((t) => [t.format, t.id, t.reward])).toEqual([
      ['openai-chat', 'return-yoga-mat', 1],
      ['openai-chat', 'order-status', 0],
    ]);
    expectReturnConversation(traces[0]!);
    expect(traces[0]!.system).toContain('retail support agent');
    expect(traces[1]!.source).toBe('chats.jsonl:2');
    const [array] = parseTraces(await fixture('openai-chat-array.json'), 'one.json');
    expectReturnConversation(array!);
    // A JSON list of {messages} records.
    const list = JSON.stringify(
      (await fixture('openai-chat.jsonl'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    );
    expect(parseTraces(list, 'list.json').map((t) => t.id)).toEqual(['return-yoga-mat', 'order-status']);
  });

  it('names the line and field of a malformed record', async () => {
    const lines = (await fixture('openai-chat.jsonl')).trim().split('\n');
    const bad = JSON.parse(lines[1]!);
    bad.messages[1].tool_calls[0].function.arguments = { user_id: 'x' };
    expectError(
      () => parseTraces(`${lines[0]}\n${JSON.stringify(bad)}\n`, 'chats.jsonl'),
      'chats.jsonl:2',
      'messages[1].tool_calls[0].function.arguments',
    );
    const orphan = JSON.parse(lines[1]!);
    orphan.messages[2].tool_call_id = 'nope';
    expectError(() => parseTraces(JSON.stringify(orphan), 'x.json'), 'messages[2].tool_call_id', '"nope"');
    expectError(() => parseTraces(`${lines[0]}\n{"messages": [}\n`, 'chats.jsonl'), 'chats.jsonl:2', 'not valid JSON');
    const reward = JSON.parse(lines[0]!);
    reward.reward = 'high';
    expectError(() => parseTraces(JSON.stringify(reward), 'r.json'), 'reward: expected a number');
  });
});

describe('AI SDK ModelMessage[]', () => {
  it('reads tool-call and tool-result parts', async () => {
    const [trace] = parseTraces(await fixture('ai-sdk.json'), 'ai.json');
    expect(trace!.format).toBe('ai-sdk');
    expectReturnConversation(trace!);
  });

  it('names the field of a malformed part', async () => {
    const messages = JSON.parse(await fixture('ai-sdk.json'));
    delete messages[4].content[0].toolName;
    expectError(() => parseTraces(JSON.stringify(messages), 'ai.json'), '[4].content[0].toolName');
  });
});

describe('OpenAI Agents SDK items', () => {
  it('reads run items and protocol items', async () => {
    const [trace] = parseTraces(await fixture('openai-agents.json'), 'run.json');
    expect(trace!.format).toBe('openai-agents');
    expectReturnConversation(trace!);
  });

  it('names the field of a malformed item', async () => {
    const items = JSON.parse(await fixture('openai-agents.json'));
    items[1].rawItem.arguments = 42;
    expectError(() => parseTraces(JSON.stringify(items), 'run.json'), '[1].rawItem.arguments');
  });

  it('keeps a call whose arguments are not JSON, as text, with a warning naming the item and the call', async () => {
    const items = JSON.parse(await fixture('openai-agents.json'));
    const { callId, name } = items[1].rawItem;
    items[1].rawItem.arguments = '{"first_name": "Mei", "last_';
    const [trace] = parseTraces(JSON.stringify(items), 'run.json');
    expectReturnConversation(trace!);
    expect(trace!.warnings).toHaveLength(1);
    expect(trace!.warnings![0]).toContain(
      `run.json: [1].rawItem.arguments (call ${callId} of ${name}): not valid JSON`,
    );
    const call = trace!.items.flatMap((item) => (item.type === 'assistant' ? item.toolCalls : []))[0];
    expect(call!.input).toBe('{"first_name": "Mei", "last_');
    expect(parseTraces(await fixture('openai-agents.json'), 'run.json')[0]!.warnings).toBeUndefined();
  });
});

describe('ATIF', () => {
  it('reads a v1.4 trajectory with tool calls, observations and the reward in extra', async () => {
    const [trace] = parseTraces(await fixture('atif.json'), 'trajectory.json');
    expect(trace!.format).toBe('atif');
    expect(trace!.id).toBe('7E3A1C2B-support-return');
    expect(trace!.reward).toBe(1);
    expect(trace!.system).toContain('retail support agent');
    expectReturnConversation(trace!);
  });

  it('names the step and field of a malformed trajectory', async () => {
    const trajectory = JSON.parse(await fixture('atif.json'));
    trajectory.steps[3].observation.results[0].source_call_id = 'call_99';
    expectError(
      () => parseTraces(JSON.stringify(trajectory), 't.json'),
      'steps[3].observation.results[0].source_call_id',
      'call_99',
    );
    const versionless = JSON.parse(await fixture('atif.json'));
    versionless.schema_version = 'ATIF-2';
    expectError(() => parseTraces(JSON.stringify(versionless), 't.json'), 'schema_version');
    const source = JSON.parse(await fixture('atif.json'));
    source.steps[2].source = 'tool';
    expectError(() => parseTraces(JSON.stringify(source), 't.json'), 'steps[2].source');
  });
});

describe('pagewise sessions', () => {
  it('reads a stored session JSON and every session of a store', async () => {
    const text = await fixture('pagewise-session.json');
    const [trace] = parseTraces(text, 'session.json');
    expect(trace!.format).toBe('pagewise-session');
    expect(trace!.id).toBe('support/mei_kovacs_8020/s_41d7');
    expectReturnConversation(trace!);

    const store = new InMemorySessionStore();
    const stored = JSON.parse(text);
    const session = await store.createSession({ appName: 'support', userId: 'u1', sessionId: 's1' });
    await store.appendEvents(session, stored.events);
    const [fromStore] = await tracesFromStore(store, { appName: 'support' });
    expect(fromStore!.items.map((i) => i.type)).toEqual(trace!.items.map((i) => i.type));
    expect(fromStore!.id).toBe('support/u1/s1');
  });

  it('names the event and field of a malformed session', async () => {
    const session = JSON.parse(await fixture('pagewise-session.json'));
    session.events[2].isError = 'no';
    expectError(() => parseTraces(JSON.stringify(session), 's.json'), 'events[2]', 'isError');
  });
});

describe('OpenTelemetry GenAI spans', () => {
  it('reads the conversation from the content of the last chat span', async () => {
    const [trace] = parseTraces(await fixture('otel-genai.json'), 'spans.json');
    expect(trace!.format).toBe('otel-genai');
    expectReturnConversation(trace!);
  });

  it('refuses spans without content, saying what is missing, and names a malformed attribute', async () => {
    const otlp = JSON.parse(await fixture('otel-genai.json'));
    const chat = otlp.resourceSpans[0].scopeSpans[0].spans[1];
    chat.attributes = chat.attributes.filter(
      (a: { key: string }) => !a.key.startsWith('gen_ai.input') && !a.key.startsWith('gen_ai.output'),
    );
    expectError(() => parseTraces(JSON.stringify(otlp), 'spans.json'), 'no message content', 'content capture');
    const broken = JSON.parse(await fixture('otel-genai.json'));
    const attr = broken.resourceSpans[0].scopeSpans[0].spans[1].attributes.find(
      (a: { key: string }) => a.key === 'gen_ai.input.messages',
    );
    attr.value.stringValue = '[{"role": "user"}]';
    expectError(
      () => parseTraces(JSON.stringify(broken), 'spans.json'),
      'spans[1].attributes["gen_ai.input.messages"][0].parts',
    );
  });
});

describe('detection and files', () => {
  it('refuses an unknown format with an error listing every format', () => {
    let caught: unknown;
    try {
      parseTraces(JSON.stringify({ conversation: [{ speaker: 'a', said: 'b' }] }), 'odd.json');
    } catch (error) {
      caught = error;
    }
    expect(PagewiseError.isInstance(caught)).toBe(true);
    for (const format of TRACE_FORMATS) expect((caught as Error).message).toContain(format);
    expect(detectFormat({ conversation: [] })).toBeUndefined();
  });

  it('reads a folder of files, ids unique across them, and refuses a missing path', async () => {
    await writeFile(path.join(tmp, 'a.json'), await fixture('openai-chat-array.json'));
    await writeFile(path.join(tmp, 'b.jsonl'), await fixture('openai-chat.jsonl'));
    await writeFile(path.join(tmp, 'notes.txt'), 'not a trace');
    const traces = await readTraces(tmp);
    expect(traces.map((t) => t.id)).toEqual(['a.json', 'return-yoga-mat', 'order-status']);
    expect(traces[2]!.source).toBe(path.join(tmp, 'b.jsonl:2'));
    await expect(readTraces(path.join(tmp, 'missing'))).rejects.toThrow(TraceFormatError);
  });
});
