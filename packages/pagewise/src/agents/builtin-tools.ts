/**
 * Tools the runner offers by itself: `transfer_to_agent` (when an agent has sub-agents or peers) and
 * an optional `escalate` tool that ends the invocation.
 */
import { z } from 'zod';
import { tool, type Tool } from './tool.js';

/** Name of the automatic transfer tool. */
export const TRANSFER_TOOL = 'transfer_to_agent';

/** Builds the transfer tool for the given target agents. */
export function transferTool(targets: { name: string; description: string }[]): Tool<{ agent_name: string }> {
  const names = targets.map((t) => t.name) as [string, ...string[]];
  return tool({
    name: TRANSFER_TOOL,
    description:
      'Hand the conversation to another agent, which continues from here. Agents: ' +
      targets.map((t) => `${t.name}${t.description ? ` (${t.description})` : ''}`).join('; '),
    inputSchema: z.object({ agent_name: z.enum(names).describe('The agent to hand over to.') }),
    execute: ({ agent_name }, ctx) => {
      ctx.actions.transferToAgent(agent_name);
      return `Transferred to ${agent_name}.`;
    },
  });
}

/** A tool that ends the invocation with a final message. Add it to an agent's tools to offer it. */
export const escalateTool: Tool<{ reason: string }> = tool({
  name: 'escalate',
  description: 'End the task now and return control to the user, with a final message saying why or what was found.',
  inputSchema: z.object({ reason: z.string().max(20_000).describe('The final message to the user.') }),
  execute: ({ reason }, ctx) => {
    ctx.actions.escalate(reason);
    return 'Escalated; the invocation ends.';
  },
});
