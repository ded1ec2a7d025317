/**
 * Auto-paging: any tool result above a threshold is stored as a page and replaced in history by a
 * receipt with a handle the model can `page_in`. The paging pattern applied to every tool.
 */
import type { ObservationProcessor } from '../context/observation.js';
import { countTokens } from '../tokens/tokenizer.js';
import { TOOL_PAGE_SCHEME, type PagingService } from './service.js';
import { PAGING_TOOL_NAMES } from './tools.js';

/** Options of {@link autoPaging}. */
export interface AutoPagingOptions {
  service: PagingService;
  /** Results above this many tokens become pages. Default 1,024. */
  thresholdTokens?: number;
  /** Tools whose results are never paged (the paging tools always are excluded). */
  exclude?: string[];
}

/** The URI of the page that holds a tool call's result. */
export function toolPageUri(toolName: string, toolCallId: string): string {
  return `${TOOL_PAGE_SCHEME}${toolName}/${encodeURIComponent(toolCallId)}`;
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
      const uri = toolPageUri(obs.toolName, obs.toolCallId);
      await options.service.pageStore.put({
        namespace: options.service.namespaceOf(uri, ctx.sessionId),
        uri,
        title: `${obs.toolName} result`,
        body: obs.output,
        mediaType: 'text/plain',
        meta: { toolName: obs.toolName, input: obs.input as never },
      });
      return {
        ...obs,
        output: `[pagewise] ${obs.toolName} returned ${tokens} tokens, stored as page "${uri}" instead of being shown. Call page_in with uris ["${uri}"] to read it, or calculate over it.`,
      };
    },
  };
}
