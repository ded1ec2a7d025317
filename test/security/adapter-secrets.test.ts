/**
 * Issue 31 item 5: each adapter returned a failing tool's `error.message` as is, so a key from the
 * environment quoted in an error reached the model's input in all three frameworks, and ADK stored it in
 * its session events. Each framework runs its own loop here; the tool throws an error quoting the value of
 * OPENAI_API_KEY, and neither the next model request nor ADK's stored events may hold that value.
 */
import { InMemorySessionService, LlmAgent, Runner as AdkRunner } from '@google/adk';
import { Agent as OaAgent, Runner as OaRunner } from '@openai/agents';
import {
  assistantMessage,
  functionCall,
  modelResponder,
  ScriptedModel as OaScriptedModel,
} from '@openai/agents/testing';
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { tool } from '../../packages/pagewise/src/agents/tool.js';
import { AiSdkLlm } from '../../packages/adk/src/ai-sdk-llm.js';
import { adkTool } from '../../packages/adk/src/tools.js';
import { aiSdkTool } from '../../packages/pagewise/src/adapters/ai-sdk/paging.js';
import { openAiAgentsTool, pagingContext } from '../../packages/openai-agents/src/paging.js';
import { ScriptedModel } from '../../packages/pagewise/src/models/scripted.js';

const KEY = 'sk-proj-issue31-item5-0123456789abcdefghij';
const REDACTED = '[redacted OPENAI_API_KEY]';

/** A pagewise tool whose failure quotes the key, as a client library echoing its request might. */
const leaky = tool({
  name: 'lookup',
  description: 'fails quoting the key it used',
  inputSchema: z.object({ q: z.string() }),
  execute: () => {
    throw new Error(`upstream refused request with Authorization: Bearer ${process.env.OPENAI_API_KEY}`);
  },
});

beforeEach(() => {
  vi.stubEnv('OPENAI_API_KEY', KEY);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function usage(): LanguageModelV3GenerateResult['usage'] {
  return {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
}

describe('issue 31 item 5: the adapters sent secrets to the model', () => {
  it('aiSdkTool: the AI SDK loop shows the model the failure with the key redacted', async () => {
    const prompts: string[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options: LanguageModelV3CallOptions) => {
        prompts.push(JSON.stringify(options.prompt));
        return prompts.length === 1
          ? {
              content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"q":"x"}' }],
              finishReason: { unified: 'tool-calls', raw: undefined },
              usage: usage(),
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'done' }],
              finishReason: { unified: 'stop', raw: undefined },
              usage: usage(),
              warnings: [],
            };
      },
    });
    const lookup = aiSdkTool(leaky, { state: {}, sessionId: 's', invocationId: () => 'i' });
    const result = await generateText({ model, prompt: 'go', tools: { lookup }, stopWhen: stepCountIs(3) });
    expect(result.text).toBe('done');
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain('lookup failed');
    expect(prompts[1]).toContain(REDACTED);
    expect(prompts.join('\n')).not.toContain(KEY);
  });

  it('openAiAgentsTool: the Agents SDK runner shows the model the failure with the key redacted', async () => {
    const inputs: string[] = [];
    const model = new OaScriptedModel([
      modelResponder(({ request }) => {
        inputs.push(JSON.stringify(request.input));
        return [functionCall('lookup', { q: 'x' }, { callId: 'c1' })];
      }),
      modelResponder(({ request }) => {
        inputs.push(JSON.stringify(request.input));
        return [assistantMessage('done')];
      }),
    ]);
    const agent = new OaAgent({ name: 'a', model, tools: [openAiAgentsTool(leaky)] });
    const result = await new OaRunner({ tracingDisabled: true }).run(agent, 'go', { context: pagingContext() });
    expect(result.finalOutput).toBe('done');
    expect(inputs[1]).toContain('lookup failed');
    expect(inputs[1]).toContain(REDACTED);
    expect(inputs.join('\n')).not.toContain(KEY);
  });

  it("adkTool: ADK's runner shows the model the failure with the key redacted and never stores the key", async () => {
    const scripted = new ScriptedModel([{ toolCalls: [{ toolName: 'lookup', input: { q: 'x' } }] }, 'done'], {
      modelId: 'scripted',
    });
    const agent = new LlmAgent({
      name: 'a',
      model: new AiSdkLlm(scripted),
      instruction: 'use lookup',
      tools: [adkTool(leaky)],
    });
    const sessionService = new InMemorySessionService();
    const runner = new AdkRunner({ appName: 'item5', agent, sessionService });
    const session = await sessionService.createSession({ appName: 'item5', userId: 'u' });
    for await (const _ of runner.runAsync({
      userId: 'u',
      sessionId: session.id,
      newMessage: { role: 'user', parts: [{ text: 'go' }] },
    }));
    scripted.assertComplete();
    const prompts = scripted.calls.map((c) => JSON.stringify(c.prompt));
    expect(prompts[1]).toContain('lookup failed');
    expect(prompts[1]).toContain(REDACTED);
    expect(prompts.join('\n')).not.toContain(KEY);
    const stored = await sessionService.getSession({ appName: 'item5', userId: 'u', sessionId: session.id });
    const events = JSON.stringify(stored?.events);
    expect(events).toContain(REDACTED);
    expect(events).not.toContain(KEY);
  });
});
