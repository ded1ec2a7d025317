/**
 * ATIF, the Agent Trajectory Interchange Format of the Harbor project (RFC 0001, v1.0 to v1.4): a root
 * with `schema_version`, `session_id`, `agent` and `steps`; each step has a `source` (system, user,
 * agent), a `message`, and for agent steps `tool_calls` (`tool_call_id`, `function_name`, `arguments`)
 * and an `observation` whose `results` answer them by `source_call_id`. ATIF has no outcome field of its
 * own: a `reward` or `success` in the root's `extra` (or in `final_metrics.extra`) is read as one.
 */
import { z } from 'zod';
import type { ContextItem } from 'pagewise/context';
import { TraceFormatError } from '../errors.js';
import type { ReplayTrace } from '../trace.js';
import { parseAt } from './shared.js';

const Step = z
  .object({
    step_id: z.number().int(),
    source: z.enum(['system', 'user', 'agent']),
    message: z.string(),
    tool_calls: z
      .array(
        z
          .object({
            tool_call_id: z.string(),
            function_name: z.string().min(1),
            arguments: z.record(z.string(), z.unknown()),
          })
          .loose(),
      )
      .optional()
      .nullable(),
    observation: z
      .object({
        results: z.array(
          z
            .object({ source_call_id: z.string().optional().nullable(), content: z.string().optional().nullable() })
            .loose(),
        ),
      })
      .loose()
      .optional()
      .nullable(),
  })
  .loose();

const Outcome = z.object({ reward: z.number().optional(), success: z.boolean().optional() }).loose();

const Trajectory = z
  .object({
    schema_version: z.string().regex(/^ATIF-v1\.\d+$/u, 'expected "ATIF-v1.<minor>"'),
    session_id: z.string(),
    agent: z.object({ name: z.string(), version: z.string() }).loose(),
    steps: z.array(z.unknown()),
    extra: Outcome.optional().nullable(),
    final_metrics: z.object({ extra: Outcome.optional().nullable() }).loose().optional().nullable(),
  })
  .loose();

/** Whether `value` claims to be an ATIF trajectory (its schema version says so). */
export function isAtif(value: unknown): boolean {
  const version = (value as { schema_version?: unknown } | null)?.schema_version;
  return typeof version === 'string' && version.startsWith('ATIF');
}

/** Reads an ATIF trajectory (already parsed) into a trace. */
export function readAtif(value: unknown, meta: { source: string }): ReplayTrace {
  const trajectory = parseAt(Trajectory, value, meta.source);
  const items: ContextItem[] = [];
  const system: string[] = [];
  trajectory.steps.forEach((raw, index) => {
    const at = `steps[${index}]`;
    const step = parseAt(Step, raw, meta.source, at);
    if (step.source === 'system') {
      system.push(step.message);
      return;
    }
    if (step.source === 'user') {
      items.push({ type: 'user', text: step.message });
      return;
    }
    const calls = step.tool_calls ?? [];
    items.push({
      type: 'assistant',
      text: step.message,
      toolCalls: calls.map((c) => ({ toolCallId: c.tool_call_id, toolName: c.function_name, input: c.arguments })),
    });
    const names = new Map(calls.map((c) => [c.tool_call_id, c.function_name]));
    (step.observation?.results ?? []).forEach((result, resultIndex) => {
      const callId = result.source_call_id;
      // A result without a call (an action outside tool calling) has no tool to group it by.
      const toolName = callId ? names.get(callId) : 'action';
      if (toolName === undefined)
        throw new TraceFormatError(
          meta.source,
          `${at}.observation.results[${resultIndex}].source_call_id: "${callId}" is not a tool_call_id of step ${step.step_id}`,
        );
      items.push({
        type: 'tool-result',
        toolCallId: callId ?? `${step.step_id}-${resultIndex}`,
        toolName,
        output: result.content ?? '',
        isError: false,
      });
    });
  });
  const outcome = { ...(trajectory.final_metrics?.extra ?? {}), ...(trajectory.extra ?? {}) };
  return {
    id: trajectory.session_id,
    format: 'atif',
    source: meta.source,
    system: system.join('\n\n'),
    items,
    ...(typeof outcome.reward === 'number' ? { reward: outcome.reward } : {}),
    ...(typeof outcome.success === 'boolean' ? { success: outcome.success } : {}),
  };
}
