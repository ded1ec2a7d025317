/**
 * Counts an AI SDK model request the way the pagewise ledger counts its own: instruction and paged
 * parts of the system text and of the step block, history and latest observation, tool schemas, each
 * with the project's tokenizer. Adapters measure what a framework really sends with it, so figures compare across runners.
 */
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import {
  measureRequest,
  STEP_BLOCK_HEADER,
  type ContextItem,
  type ContextRequest,
  type InstructionSection,
} from '../context/request.js';
import { viewPrompt } from '../models/prompt-view.js';
import { fencedBlockStart } from '../paging/fence.js';
import type { PartTokens } from '../tokens/ledger.js';
import type { EncodingName } from '../tokens/tokenizer.js';

/** Splits a system text into its own instruction and the fenced pages. */
export function splitSystem(system: string): InstructionSection[] {
  // From the first fenced block's preface on, the system text is paged content.
  const at = fencedBlockStart(system);
  if (at < 0) return system ? [{ part: 'instruction', text: system }] : [];
  const own = system.slice(0, at).trimEnd();
  return [...(own ? [{ part: 'instruction' as const, text: own }] : []), { part: 'paged', text: system.slice(at) }];
}

/** An AI SDK request as a pagewise context request (for counting). */
export function callOptionsToRequest(options: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>): ContextRequest {
  const view = viewPrompt(options);
  const items: ContextItem[] = [];
  for (const turn of view.turns) {
    if (turn.role === 'user') items.push({ type: 'user', text: turn.text });
    else if (turn.role === 'assistant') items.push({ type: 'assistant', text: turn.text, toolCalls: turn.toolCalls });
    else for (const result of turn.results) items.push({ type: 'tool-result', ...result });
  }
  const tools = (options.tools ?? []).flatMap((tool) =>
    tool.type === 'function'
      ? [{ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema }]
      : [],
  );
  // The step block's header is counted by measureRequest, as for a request of the runner.
  const block = view.stepBlock.startsWith(STEP_BLOCK_HEADER)
    ? view.stepBlock.slice(STEP_BLOCK_HEADER.length).trimStart()
    : view.stepBlock;
  const perStep = splitSystem(block).map((section) => ({ ...section, perStep: true }));
  // Sections read from the system message were sent there: counted without the step block's header.
  const system = splitSystem(view.system).map((section) => ({ ...section, perStep: false }));
  return { instruction: [...system, ...perStep], items, tools };
}

/** Prompt tokens of an AI SDK request, by ledger part. */
export function measureCallOptions(
  options: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>,
  encoding: EncodingName = 'o200k_base',
): { parts: PartTokens; total: number } {
  return measureRequest(callOptionsToRequest(options), encoding);
}
