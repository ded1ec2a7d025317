/**
 * Auto-paging: any tool result above a threshold is stored as a page and replaced in history by a
 * receipt with a handle the model can `page_in`. The paging pattern applied to every tool.
 */
import type { ObservationProcessor } from '../context/observation.js';
import { countTokens } from '../tokens/tokenizer.js';
import type { PagingService } from './service.js';
import { findResultPage, keepResultPage } from './result-pages.js';
import { PAGING_TOOL_NAMES } from './tools.js';

export { toolPageUri } from './result-pages.js';

/** Options of {@link autoPaging}. */
export interface AutoPagingOptions {
  service: PagingService;
  /** Results above this many tokens become pages. Default 1,024. */
  thresholdTokens?: number;
  /** Tools whose results are never paged (the paging tools always are excluded). */
  exclude?: string[];
}

/** Creates the auto-paging observation processor. */
export function autoPaging(options: AutoPagingOptions): ObservationProcessor {
  const threshold = options.thresholdTokens ?? 1024;
  const exclude = new Set<string>([...PAGING_TOOL_NAMES, ...(options.exclude ?? [])]);
  return {
    name: `auto-paging(${threshold})`,
    async process(obs, ctx) {
      if (obs.isError || exclude.has(obs.toolName)) return obs;
      const tokens = countTokens(obs.output);
      if (tokens <= threshold) return obs;
      // A result is paged once: its receipt met again, or the raw text again, gets the same receipt.
      const known = await findResultPage(options.service, ctx.sessionId, obs);
      if (known.status === 'shown') return obs;
      const receipt = `[pagewise] ${obs.toolName} returned ${tokens} tokens, stored as page "${known.uri}" instead of being shown. Call page_in with uris ["${known.uri}"] to read it, or calculate over it.`;
      await keepResultPage(options.service, ctx.sessionId, {
        uri: known.uri,
        toolCallId: obs.toolCallId,
        raw: obs.output,
        shown: receipt,
        title: `${obs.toolName} result`,
        meta: { toolName: obs.toolName, input: obs.input as never },
      });
      return { ...obs, output: receipt };
    },
  };
}
