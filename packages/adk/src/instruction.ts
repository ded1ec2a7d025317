/**
 * The paged instruction as an ADK `InstructionProvider`: re-rendered by ADK before every model call,
 * it expands only the pages of the working set (ADK `temp:` state), fenced as untrusted data. ADK does
 * not inject `{state}` placeholders into a provider's text, so page content cannot reach state.
 */
import type { InstructionProvider as AdkInstructionProvider, ReadonlyContext } from '@google/adk';
import type { InstructionProvider } from 'pagewise';
import { instructionText } from 'pagewise/context';
import { pagedInstruction, type PagedInstructionOptions } from 'pagewise/paging';
import type { Session } from 'pagewise';
import { adkStateRecord } from './state.js';

/**
 * Runs a pagewise instruction provider as an ADK one: the sections that stay the same, then the ones that change
 * per step under the step block's header. `PagewiseAdkPlugin` moves that block after the history at every model
 * call, so the system instruction and the history stay a cacheable prefix; without the plugin the whole text is
 * the system instruction.
 */
export function adkInstruction(
  provider: InstructionProvider,
  services: ReadonlyMap<string, unknown> = new Map(),
): AdkInstructionProvider {
  return async (ctx: ReadonlyContext) => {
    const state = adkStateRecord(ctx.state);
    const adkSession = ctx.invocationContext.session;
    const session: Session = {
      appName: adkSession.appName,
      userId: ctx.userId,
      sessionId: ctx.sessionId,
      state,
      // The provider sees state, not history: ADK keeps the events.
      events: [],
      version: 0,
      createdAt: 0,
      updatedAt: 0,
    };
    const out = await provider({ state, session, invocationId: ctx.invocationId, agentName: ctx.agentName, services });
    // The changing part last, under the step block's header: the plugin moves it after the history.
    return instructionText(out);
  };
}

/**
 * Creates the paged instruction provider for an ADK agent: the agent's own instruction, its saved
 * results, and the working set fenced.
 *
 * @example
 * new LlmAgent({ name: 'analyst', model, instruction: adkPagedInstruction({ base: 'Answer from the reports.', service: paging }), tools });
 */
export function adkPagedInstruction(options: PagedInstructionOptions): AdkInstructionProvider {
  return adkInstruction(pagedInstruction(options));
}
