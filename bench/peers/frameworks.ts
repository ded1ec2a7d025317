/**
 * The frameworks of the peer benchmark, each running the same scripted work through its own public API:
 * pagewise (memory and SQLite stores), the AI SDK's `generateText` loop, ADK JS's `InMemoryRunner`,
 * OpenAI Agents JS with a memory session, and Mastra's `Agent`. Each gets a scripted model in its own
 * model interface; every one of them calls the same {@link OutsideClock}.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { FINAL_TEXT, RECORD_DESCRIPTION, recordTool, seedTurn, STEPS, decide, type PeerFramework } from './common.js';
import { pagewiseMemory, pagewiseSqlite } from './pagewise.js';
import { scriptedV3 } from './scripted-v3.js';

const recordSchema = z.object({ i: z.number().int(), note: z.string() });

/** A pre-filled history of `events` messages in AI SDK form (the AI SDK and Mastra both take it), then the task. */
function aiSdkHistory(events: number): unknown[] {
  const messages: unknown[] = [{ role: 'user', content: 'Start recording.' }];
  for (let turnIndex = 0; messages.length < events; turnIndex++) {
    const turn = seedTurn(turnIndex);
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `s${turnIndex}`, toolName: 'record', input: turn.args }],
    });
    messages.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `s${turnIndex}`,
          toolName: 'record',
          output: { type: 'text', value: turn.result },
        },
      ],
    });
  }
  messages.push({ role: 'user', content: 'Record the new observations.' });
  return messages;
}

// ---------------------------------------------------------------------------------------------------
// AI SDK 6: generateText with a tool loop; history is the messages array (no persistence).

/**
 * The AI SDK's `generateText` tool loop over the pre-filled history; `wrap` (when given) wraps the scripted model
 * anew for each invocation, as a user adds middleware.
 */
function aiSdkLoop(name: string, wrap?: () => Promise<(model: unknown) => unknown>): PeerFramework {
  return {
    name,
    async prepare(events, clock) {
      const { generateText, tool, stepCountIs } = await import('ai');
      const wrapper = await wrap?.();
      const messages = aiSdkHistory(events);
      const scripted = scriptedV3(clock);
      const tools = {
        record: tool({
          description: RECORD_DESCRIPTION,
          inputSchema: recordSchema,
          execute: async (a) => recordTool(a),
        }),
      };
      return async () => {
        const result = await generateText({
          model: (wrapper ? wrapper(scripted) : scripted) as never,
          system: 'You record observations.',
          messages: messages as never,
          tools,
          stopWhen: stepCountIs(STEPS + 2),
        });
        if (result.text !== FINAL_TEXT) throw new Error(`${name}: unexpected final text ${result.text}`);
      };
    },
  };
}

const aiSdk = aiSdkLoop('AI SDK 6 generateText');

// The same loop with pagewise's `compressionMiddleware()` at its defaults, made for each invocation so its first
// call meets the whole history (as in a new process): what an AI SDK user adds, beside the plain loop.
const aiSdkMiddleware = aiSdkLoop('AI SDK 6 generateText + compressionMiddleware()', async () => {
  const { wrapLanguageModel } = await import('ai');
  const dist = new URL('../../packages/pagewise/dist/', import.meta.url);
  const { compressionMiddleware } = await import(new URL('ai-sdk.js', dist).href);
  return (model) => wrapLanguageModel({ model: model as never, middleware: compressionMiddleware() });
});

// ---------------------------------------------------------------------------------------------------
// Mastra: an Agent with the same tool and model; history passed as messages (no memory store).

const mastra: PeerFramework = {
  name: 'Mastra 1.71 Agent',
  async prepare(events, clock) {
    const { Agent } = await import('@mastra/core/agent');
    const { createTool } = await import('@mastra/core/tools');
    const messages = aiSdkHistory(events);
    const model = scriptedV3(clock);
    const record = createTool({
      id: 'record',
      description: RECORD_DESCRIPTION,
      inputSchema: recordSchema,
      execute: async (input: { i: number; note: string }) => recordTool(input),
    } as never);
    const agent = new Agent({
      id: 'recorder',
      name: 'recorder',
      instructions: 'You record observations.',
      model: model as never,
      tools: { record },
    } as never);
    return async () => {
      const result = await agent.generate(messages as never, { maxSteps: STEPS + 2 } as never);
      if (result.text !== FINAL_TEXT) throw new Error(`Mastra: unexpected final text ${result.text}`);
    };
  },
};

// ---------------------------------------------------------------------------------------------------
// ADK JS 2.0: LlmAgent + FunctionTool on an InMemoryRunner; history pre-filled through the session service.

const adk: PeerFramework = {
  name: 'ADK JS 2.0 InMemoryRunner',
  async prepare(events, clock) {
    const { BaseLlm, LlmAgent, FunctionTool, InMemoryRunner, createEvent } = await import('@google/adk');
    let call = 0;
    class ScriptedLlm extends BaseLlm {
      constructor() {
        super({ model: 'scripted' });
      }
      async *generateContentAsync() {
        clock.enter();
        const decision = decide(call++, STEPS);
        const response = decision.tool
          ? {
              content: {
                role: 'model',
                parts: [{ functionCall: { id: `c${call}`, name: 'record', args: decision.tool } }],
              },
            }
          : { content: { role: 'model', parts: [{ text: decision.text! }] } };
        clock.exit();
        yield response as never;
      }
      async connect(): Promise<never> {
        throw new Error('live connections are not scripted');
      }
    }
    const agent = new LlmAgent({
      name: 'recorder',
      model: new ScriptedLlm(),
      instruction: 'You record observations.',
      tools: [
        new FunctionTool({
          name: 'record',
          description: RECORD_DESCRIPTION,
          parameters: recordSchema,
          execute: async (a: { i: number; note: string }) => recordTool(a),
        } as never),
      ],
    });
    const runner = new InMemoryRunner({ agent, appName: 'bench' });
    const session = await runner.sessionService.createSession({ appName: 'bench', userId: 'u' });
    const append = (event: unknown) => runner.sessionService.appendEvent({ session, event: event as never });
    await append(
      createEvent({
        invocationId: 'seed',
        author: 'user',
        content: { role: 'user', parts: [{ text: 'Start recording.' }] },
      }),
    );
    for (let turnIndex = 0, eventCount = 1; eventCount < events; turnIndex++, eventCount += 2) {
      const turn = seedTurn(turnIndex);
      await append(
        createEvent({
          invocationId: 'seed',
          author: 'recorder',
          content: {
            role: 'model',
            parts: [{ functionCall: { id: `s${turnIndex}`, name: 'record', args: turn.args } }],
          },
        }),
      );
      await append(
        createEvent({
          invocationId: 'seed',
          author: 'recorder',
          content: {
            role: 'user',
            parts: [{ functionResponse: { id: `s${turnIndex}`, name: 'record', response: { result: turn.result } } }],
          },
        }),
      );
    }
    return async () => {
      let text = '';
      for await (const event of runner.runAsync({
        userId: 'u',
        sessionId: session.id,
        newMessage: { role: 'user', parts: [{ text: 'Record the new observations.' }] },
      })) {
        for (const part of event.content?.parts ?? []) if (part.text) text = part.text;
      }
      if (text !== FINAL_TEXT) throw new Error(`ADK: unexpected final text ${text}`);
    };
  },
};

// ---------------------------------------------------------------------------------------------------
// OpenAI Agents JS 0.20: Agent + tool, run() with a MemorySession pre-filled with items.

const openaiAgents: PeerFramework = {
  name: 'OpenAI Agents JS 0.20 MemorySession',
  async prepare(events, clock) {
    const { Agent, run, tool, MemorySession, Usage, setTracingDisabled } = await import('@openai/agents');
    // Tracing off, as every other framework here runs: no spans are built or exported for any of them.
    setTracingDisabled(true);
    let call = 0;
    const model = {
      async getResponse() {
        clock.enter();
        const decision = decide(call++, STEPS);
        const output = decision.tool
          ? [
              {
                type: 'function_call',
                callId: `c${call}`,
                name: 'record',
                arguments: JSON.stringify(decision.tool),
                status: 'completed',
              },
            ]
          : [
              {
                type: 'message',
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text: decision.text! }],
              },
            ];
        const response = { output, usage: new Usage(), responseId: `r${call}` };
        clock.exit();
        return response as never;
      },
      // eslint-disable-next-line require-yield
      async *getStreamedResponse(): AsyncIterable<never> {
        throw new Error('streaming is not scripted');
      },
    };
    const agent = new Agent({
      name: 'recorder',
      instructions: 'You record observations.',
      model: model as never,
      tools: [
        tool({
          name: 'record',
          description: RECORD_DESCRIPTION,
          parameters: recordSchema,
          execute: async (a) => recordTool(a),
        }),
      ],
    });
    const session = new MemorySession();
    const items: unknown[] = [{ role: 'user', content: 'Start recording.' }];
    for (let turnIndex = 0; items.length < events; turnIndex++) {
      const turn = seedTurn(turnIndex);
      items.push({
        type: 'function_call',
        callId: `s${turnIndex}`,
        name: 'record',
        arguments: JSON.stringify(turn.args),
        status: 'completed',
      });
      items.push({
        type: 'function_call_result',
        callId: `s${turnIndex}`,
        name: 'record',
        status: 'completed',
        output: { type: 'text', text: turn.result },
      });
    }
    await session.addItems(items as never);
    return async () => {
      const result = await run(agent, 'Record the new observations.', { session, maxTurns: STEPS + 2 });
      if (result.finalOutput !== FINAL_TEXT)
        throw new Error(`OpenAI Agents: unexpected final output ${String(result.finalOutput)}`);
    };
  },
};

/** Every framework of the benchmark, by key. */
export const FRAMEWORKS: Record<string, PeerFramework> = {
  'pagewise-memory': pagewiseMemory(),
  'pagewise-sqlite': pagewiseSqlite(() => mkdtempSync(path.join(os.tmpdir(), 'pagewise-peers-'))),
  'pagewise-memory-reuse': pagewiseMemory(true),
  'pagewise-sqlite-reuse': pagewiseSqlite(() => mkdtempSync(path.join(os.tmpdir(), 'pagewise-peers-')), true),
  'ai-sdk': aiSdk,
  'ai-sdk-middleware': aiSdkMiddleware,
  adk,
  'openai-agents': openaiAgents,
  mastra,
};
