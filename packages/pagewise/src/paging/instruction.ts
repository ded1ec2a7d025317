/**
 * The paged instruction: the agent's own instruction, then its saved results and the working set in one
 * block fenced as untrusted data, re-rendered before every model call. The fenced block (and any other
 * per-step text) is placed in the step block after the history, so the system message stays the same
 * from call to call.
 */
import type { InstructionContext, InstructionProvider } from '../agents/agent.js';
import type { InstructionSection } from '../context/request.js';
import { savedResults } from './tools.js';
import type { PagingService } from './service.js';

/** Options of {@link pagedInstruction}. */
export interface PagedInstructionOptions {
  /**
   * The agent's own instruction: a string or a provider. It is the system message, so it should stay the
   * same from call to call; put what changes per step in {@link PagedInstructionOptions.perStep}.
   */
  base: string | ((ctx: InstructionContext) => string | Promise<string>);
  /**
   * Trusted text that changes from step to step (a reading plan, a progress line), rendered in the step
   * block after the history, before the fenced block. Omitted, the step block holds the fenced block only.
   */
  perStep?: (ctx: InstructionContext) => string | Promise<string>;
  service: PagingService;
  /** Show saved results in the instruction. Default true. */
  showResults?: boolean;
}

/**
 * Creates an instruction provider that expands only the wanted pages into the instruction. Paged
 * content is labelled `paged` for the ledger.
 */
export function pagedInstruction(options: PagedInstructionOptions): InstructionProvider {
  return async (ctx) => {
    const base = typeof options.base === 'string' ? options.base : await options.base(ctx);
    // Saved results are model-written and may quote untrusted pages: they open the pages' fenced block,
    // as data, never as instruction. One block, one boundary per render, its token use in the preface.
    const items = options.showResults === false ? [] : Object.entries(savedResults(ctx.state));
    const { text } = await options.service.render(ctx.state, ctx.session.sessionId, options.service.boundary(), {
      notes: { label: 'Saved results', items },
    });
    const sections: InstructionSection[] = [{ part: 'instruction', text: base, source: ctx.agentName }];
    const perStep = options.perStep ? await options.perStep(ctx) : '';
    if (perStep) sections.push({ part: 'instruction', text: perStep, source: ctx.agentName, perStep: true });
    if (text) sections.push({ part: 'paged', text, source: 'working-set' });
    return sections;
  };
}
