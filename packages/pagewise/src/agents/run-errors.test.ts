import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContextWindowExceededError, SystemError } from '../errors.js';
import { observationCompressor } from '../compression/observation.js';
import { scriptedModel } from '../models/scripted.js';
import { decodeEvent, encodeEvent } from '../session/event-codec.js';
import { InMemorySessionStore } from '../session/memory-store.js';
import type { RunErrorEvent, SessionEvent } from '../session/types.js';
import { Agent } from './agent.js';
import { findInterrupted } from './resume.js';
import { Runner } from './runner.js';
import { tool } from './tool.js';

const key = { appName: 'pagewise', userId: 'u', sessionId: 's' };
const errorsOf = (events: readonly SessionEvent[]) => events.filter((e): e is RunErrorEvent => e.kind === 'error');

describe('the runner records failures in the session', () => {
  it('a run that exceeds the context window ends with a run error event, and stays resumable', async () => {
    const store = new InMemorySessionStore();
    const big = tool({
      name: 'big',
      description: 'returns a lot',
      inputSchema: z.object({}),
      execute: () => 'word '.repeat(400),
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'big', input: {} }] }, 'never reached']);
    const runner = new Runner({ agent: new Agent({ name: 'a', tools: [big] }), model, store, contextWindow: 300 });
    const err = await runner.run({ ...key, message: 'go' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextWindowExceededError);
    const session = (await store.getSession(key))!;
    const last = session.events.at(-1)!;
    expect(last.kind).toBe('error');
    const recorded = last as RunErrorEvent;
    expect(recorded.scope).toBe('run');
    expect(recorded.code).toBe((err as ContextWindowExceededError).code);
    expect(recorded.message).toBe((err as Error).message);
    expect(recorded.author).toBe('a');
    // The error event is not a step: the interrupted invocation is still found, and the stored form reads back.
    expect(findInterrupted(session)?.task).toBe('go');
    expect(decodeEvent(encodeEvent(recorded))).toEqual(recorded);
  });

  it('a secret in the error message is redacted before it is stored', async () => {
    const secret = 'sk-test-abcdefghijklmnopqrstuvwx';
    process.env.OPENAI_API_KEY = secret;
    try {
      const store = new InMemorySessionStore();
      const model = scriptedModel([]);
      model.doGenerate = () => Promise.reject(new SystemError('provider-server-error', `upstream echoed ${secret}`));
      const runner = new Runner({ agent: new Agent({ name: 'a' }), model, store });
      await expect(runner.run({ ...key, message: 'go' })).rejects.toThrow();
      const [recorded] = errorsOf((await store.getSession(key))!.events);
      expect(recorded?.code).toBe('provider-server-error');
      expect(recorded?.message).toContain('upstream echoed');
      expect(recorded?.message).not.toContain(secret);
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it('a failed compression is recorded as a compression error event and the run goes on to its answer', async () => {
    const store = new InMemorySessionStore();
    const down = {
      name: 'down',
      compress: () => Promise.reject(new SystemError('provider-server-error', 'Compressor overloaded.')),
    };
    const lookup = tool({
      name: 'lookup',
      description: 'reads',
      inputSchema: z.object({}),
      execute: () => 'line of a long report\n'.repeat(200),
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 'lookup', input: {} }] }, 'done']);
    const runner = new Runner({
      agent: new Agent({ name: 'a', tools: [lookup] }),
      model,
      store,
      observationProcessors: [observationCompressor({ compressor: down, thresholdTokens: 50 })],
    });
    const result = await runner.run({ ...key, message: 'go' });
    expect(result.text).toBe('done');
    const events = (await store.getSession(key))!.events;
    const errors = errorsOf(events);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ scope: 'compression', code: 'provider-server-error', fault: 'system' });
    expect(errors[0]!.message).toContain('Compressor overloaded.');
    // Recorded after the step it happened in, before the final answer.
    expect(events.map((e) => e.kind)).toEqual(['user', 'model', 'tool-result', 'error', 'model']);
  });
});
