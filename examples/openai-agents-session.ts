/**
 * The OpenAI Agents setup of docs/adapters.md and packages/openai-agents/README.md, as one module: the
 * region between the `docs:` markers is the documentation's code block, character for character, and
 * packages/openai-agents/src/docs-setup.test.ts runs it against a local OpenAI-compatible server over
 * two runs of one session (Chat Completions and Responses). The model is the SDK's default OpenAI model,
 * so it needs OPENAI_API_KEY (or `setDefaultOpenAIClient`) to run against a real provider.
 */
// docs:start
import { Agent, MemorySession, run, type Tool } from '@openai/agents';
import { observationCompressor } from 'pagewise/compression';
import { compactPagingTurns, type PagingService } from 'pagewise/paging';
import {
  createOpenAiPagingTools,
  endPagingRun,
  pagedInstructions,
  pagewiseInputFilter,
  pagingContext,
  PagewiseSession,
  type PagingContext,
} from '@pagewise/openai-agents';

/** An analyst with paging and your own tools, whose runs share one session. */
export async function createAnalyst(paging: PagingService, tools: Tool<PagingContext>[] = []) {
  const pagingTools = createOpenAiPagingTools(paging);
  const analyst = new Agent<PagingContext>({
    name: 'analyst',
    instructions: pagedInstructions({ base: 'Answer from the reports.', service: paging }),
    tools: [...tools, pagingTools.page_in, pagingTools.save_result],
  });
  // One processor for the request and for the stored session: each result is compressed once, and its raw
  // text stays behind the handle for `page_in`.
  const observations = observationCompressor({ service: paging });
  const session = new PagewiseSession(new MemorySession(), { observationProcessors: [observations] });
  // Raw results are filed under the session's id, where the paging tools look for them.
  const context = pagingContext({ sessionId: await session.getSessionId() });
  const callModelInputFilter = pagewiseInputFilter({
    observationProcessors: [observations],
    processors: [compactPagingTurns()],
  });
  return {
    session,
    context,
    /** One run: the answer to `question`, with the session's history before it. */
    async ask(question: string) {
      const result = await run(analyst, question, { context, session, callModelInputFilter });
      endPagingRun(context);
      return result.finalOutput;
    },
  };
}
// docs:end
