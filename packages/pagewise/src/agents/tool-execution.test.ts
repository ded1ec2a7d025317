import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AbortedError } from '../errors.js';
import { scriptedModel } from '../models/scripted.js';
import { Agent } from './agent.js';
import { Runner } from './runner.js';
import { definitionOf } from './tool-execution.js';
import { tool } from './tool.js';

describe('definitionOf: the tool declaration the model sees', () => {
  const search = tool({
    name: 'search',
    description: 'Search the reports.',
    inputSchema: z.object({
      query: z.string(),
      limit: z.number().int().default(5),
      filter: z.object({ region: z.string().optional() }).optional(),
      extra: z.looseObject({ note: z.string() }).optional(),
    }),
    execute: ({ limit }) => `limit ${limit}`,
  });

  it('lists a field with a default as optional, since the model may leave it out', () => {
    const schema = definitionOf(search).inputSchema as { required?: string[]; properties: Record<string, unknown> };
    expect(schema.required).toEqual(['query']);
    expect(schema.properties.limit).toMatchObject({ type: 'integer', default: 5 });
    expect(search.inputSchema.parse({ query: 'x' })).toEqual({ query: 'x', limit: 5 });
  });

  it('closes every object the schema does not open, and writes no $schema', () => {
    const schema = definitionOf(search).inputSchema as Record<string, unknown> & {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.$schema).toBeUndefined();
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.filter!.additionalProperties).toBe(false);
    // A loose object stays open, as its schema says.
    expect(schema.properties.extra!.additionalProperties).toEqual({});
  });
});

describe('running a call: tools that return without a promise', () => {
  const run = async (execute: Parameters<typeof tool>[0]['execute'], limits = {}) => {
    const testTool = tool({ name: 't', description: 'test tool', inputSchema: z.object({}), execute });
    const model = scriptedModel([{ toolCalls: [{ toolName: 't', input: {} }] }, 'done']);
    const result = await new Runner({ agent: new Agent({ name: 'a', tools: [testTool] }), model, limits }).run({
      userId: 'u',
      message: 'go',
    });
    return { result, toolResult: result.session.events.find((e) => e.kind === 'tool-result') };
  };

  it('keep their result, state writes and actions, however short the time limit: they finished before it', async () => {
    const { result, toolResult } = await run(
      (_args, ctx) => {
        ctx.state.set('wrote', 1);
        ctx.actions.escalate('stop here');
        return { ok: true };
      },
      { maxToolTimeMs: 0 },
    );
    expect(toolResult).toMatchObject({
      isError: false,
      output: JSON.stringify({ ok: true }, null, 2),
      delta: { wrote: 1 },
    });
    expect(result.stopReason).toBe('escalate');
    expect(result.text).toBe('stop here');
  });

  it('that throw give an error result, and their state writes are dropped', async () => {
    const { result, toolResult } = await run((_args, ctx) => {
      ctx.state.set('wrote', 1);
      throw new Error('boom');
    });
    expect(toolResult).toMatchObject({ isError: true, output: 'Error: t failed: boom' });
    expect(result.session.state.wrote).toBeUndefined();
  });

  it('see their signal aborted when the run was aborted before they read it', async () => {
    const controller = new AbortController();
    let aborted: boolean | undefined;
    const abortingTool = tool({
      name: 't',
      description: 'aborts the run, then reads its own signal',
      inputSchema: z.object({}),
      execute: (_args, ctx) => {
        controller.abort();
        aborted = ctx.signal.aborted;
        return 'ok';
      },
    });
    const model = scriptedModel([{ toolCalls: [{ toolName: 't', input: {} }] }, 'done']);
    const runner = new Runner({ agent: new Agent({ name: 'a', tools: [abortingTool] }), model });
    await expect(runner.run({ userId: 'u', message: 'go', signal: controller.signal })).rejects.toBeInstanceOf(
      AbortedError,
    );
    expect(aborted).toBe(true);
  });
});
