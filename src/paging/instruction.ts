/**
 * The paged instruction: the agent's own instruction, its saved results, and the working set fenced as
 * untrusted data, re-rendered before every model call.
 */
import type { InstructionContext, InstructionProvider } from '../agents/agent.js';
import type { InstructionSection } from '../context/request.js';
import { renderFencedNotes } from './fence.js';
import { savedResults } from './tools.js';
import type { PagingService } from './service.js';

/** Options of {@link pagedInstruction}. */
export interface PagedInstructionOptions {
  /** The agent's own instruction: a string or a provider. */
  base: string | ((ctx: InstructionContext) => string | Promise<string>);
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
    // One boundary per render for both fenced blocks: it is unguessable either way, and drawn once.
    const boundary = options.service.boundary();
    const { text, entries } = await options.service.render(ctx.state, ctx.session.sessionId, boundary);
    const lines = [base];
    const used = entries.reduce((s, e) => s + e.tokens, 0);
    lines.push(`\nWorking set: ${entries.length} pages, ${used} of ${options.service.ramBudgetTokens} tokens.`);
    if (options.showResults ?? true) {
      // Saved results are model-written and may quote untrusted pages: fenced as data, never as instruction.
      const notes = renderFencedNotes('Saved results', Object.entries(savedResults(ctx.state)), boundary);
      if (notes) lines.push(notes);
    }
    const sections: InstructionSection[] = [{ part: 'instruction', text: lines.join('\n'), source: ctx.agentName }];
    if (text) sections.push({ part: 'paged', text, source: 'working-set' });
    return sections;
  };
}
