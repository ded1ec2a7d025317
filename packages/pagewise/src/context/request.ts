/**
 * The model request as context processors see it: instruction sections, history items and tool
 * definitions, each labelled with the ledger part it counts towards. Rendering to the AI SDK prompt
 * happens once, after the last processor.
 */
import type {
  JSONSchema7,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { STEP_BLOCK_MARK } from '../models/step-block.js';
import type { Session, ToolCallRecord } from '../session/types.js';
import { countTokens, countTokensKeepingIds, type EncodingName } from '../tokens/tokenizer.js';
import { emptyParts, type Ledger, type PartTokens, type PromptPart } from '../tokens/ledger.js';

/** A section of the agent's instruction. */
export interface InstructionSection {
  /** `instruction` for the agent's own text, `paged` for paged-in content. */
  part: 'instruction' | 'paged';
  text: string;
  /** A label for debugging (`agent`, `working-set`, ...). */
  source?: string;
  /**
   * The section changes from one model call to the next (a reading plan, saved results, the working set):
   * it is rendered in the step block after the history, not in the system message, so the prompt's
   * prefix stays the same from call to call and the provider's prompt cache can serve it (see
   * {@link stepBlockText}). Default: true for a `paged` section, false for an `instruction` one.
   */
  perStep?: boolean;
}

/** One item of history, as the model will see it. */
export type ContextItem =
  | { type: 'user'; text: string; eventId?: string }
  | { type: 'assistant'; text: string; toolCalls: ToolCallRecord[]; eventId?: string }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: string; isError: boolean; eventId?: string }
  /** A summary standing for compacted events. */
  | { type: 'summary'; text: string; eventId?: string };

/** A tool as offered to the model. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JSONSchema7;
}

/** The request being assembled for one model call. */
export interface ContextRequest {
  instruction: InstructionSection[];
  items: ContextItem[];
  tools: ToolDefinition[];
}

/** What processors may read besides the request. */
export interface ProcessorContext {
  session: Readonly<Session>;
  invocationId: string;
  agentName: string;
  /** The text of the user message that started this invocation. */
  task: string;
  services: ReadonlyMap<string, unknown>;
  signal: AbortSignal;
  /** The run's ledger, so processors that call models (compressors) record their cost. */
  ledger: Ledger;
  /**
   * Appends a compaction event to the session (persisted like any event), so a processor that
   * summarizes history leaves the raw events in place behind it.
   */
  appendCompaction(event: {
    fromEventId: string;
    toEventId: string;
    summary: string;
    guideline?: string;
  }): Promise<void>;
}

/** A part of the request a processor may change. */
export type RequestField = 'instruction' | 'items' | 'tools';

/** One stage of the request pipeline. It may change the request in place. */
export interface ContextProcessor {
  readonly name: string;
  /**
   * The parts of the request this processor may change; omitted, it may change any. A processor that
   * leaves `items` out is handed the session's history items as they are kept between steps (no copy),
   * so it must neither change that array nor its items; one that may change them gets a copy, and the
   * pipeline then measures and renders only the items that differ from the history.
   */
  readonly touches?: readonly RequestField[];
  process(request: ContextRequest, context: ProcessorContext): void | Promise<void>;
}

/** Whether `processor` may change the history items of the request (it says so, or says nothing). */
export function touchesItems(processor: ContextProcessor): boolean {
  return processor.touches === undefined || processor.touches.includes('items');
}

const assistantText = new WeakMap<ContextItem, string>();

/** The text of one item for token counting: what the model reads, without transport framing. */
export function itemText(item: ContextItem): string {
  switch (item.type) {
    case 'user':
    case 'summary':
      return item.text;
    case 'tool-result':
      return item.output;
    case 'assistant': {
      let text = assistantText.get(item);
      if (text === undefined) {
        text = item.text;
        for (const call of item.toolCalls) {
          const callText = `${call.toolName}${typeof call.input === 'string' ? call.input : JSON.stringify(call.input)}`;
          text = text ? `${text}\n${callText}` : callText;
        }
        assistantText.set(item, text);
      }
      return text;
    }
  }
}

const toolText = new WeakMap<ToolDefinition, string>();

/** The serialized form of a tool definition that is counted as its schema tokens. */
export function toolDefinitionText(tool: ToolDefinition): string {
  let text = toolText.get(tool);
  if (text === undefined) {
    text = JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.inputSchema });
    toolText.set(tool, text);
  }
  return text;
}

/** Index of the first item of the latest observation: the tool results after the last assistant turn. */
export function latestObservationStart(items: readonly ContextItem[]): number {
  let start = items.length;
  while (start > 0 && items[start - 1]!.type === 'tool-result') start -= 1;
  return start;
}

/** A serialized prompt: the segments the ledger counts, each with its part. */
export interface PromptSegment {
  part: PromptPart;
  text: string;
}

/**
 * Serializes a request into the segments that are counted: each instruction section, each history item,
 * each tool definition. The ledger's prompt count is the sum of the segments' token counts.
 */
export function serializeRequest(request: ContextRequest): PromptSegment[] {
  const out: PromptSegment[] = [];
  let header = false;
  for (const section of request.instruction) {
    if (!header && isPerStep(section)) {
      out.push({ part: 'instruction', text: STEP_BLOCK_HEADER });
      header = true;
    }
    out.push({ part: section.part, text: section.text });
  }
  const obsStart = latestObservationStart(request.items);
  request.items.forEach((item, index) =>
    out.push({ part: index >= obsStart ? 'observation' : 'history', text: itemText(item) }),
  );
  for (const tool of request.tools) out.push({ part: 'tools', text: toolDefinitionText(tool) });
  return out;
}

// Counts per item and tool object: history items are the same objects from step to step (see
// eventsToItems), so a step counts only what is new, without serializing or hashing the rest again.
const itemTokens: Record<EncodingName, WeakMap<object, number>> = {
  o200k_base: new WeakMap(),
  cl100k_base: new WeakMap(),
};

/**
 * Records a known token count for a history item (read from its event, see `SessionEvent.tokens`), so
 * {@link measureRequest} does not count the item's text again.
 */
export function presetItemTokens(item: ContextItem, encoding: EncodingName, tokens: number): void {
  itemTokens[encoding].set(item, tokens);
}

/**
 * The token count of one history item, counted once per item object and encoding. With `keepTokenIds` the
 * text's token ids are kept for the prompt-cache model, which encodes the same text when the item is sent
 * (see `countTokensKeepingIds`).
 */
export function itemTokenCount(item: ContextItem, encoding: EncodingName, keepTokenIds = false): number {
  return tokensOf(item, encoding, () => itemText(item), keepTokenIds);
}

function tokensOf(key: object, encoding: EncodingName, text: () => string, keepTokenIds = false): number {
  const cache = itemTokens[encoding];
  let tokens = cache.get(key);
  if (tokens === undefined) {
    tokens = keepTokenIds ? countTokensKeepingIds(text(), encoding) : countTokens(text(), encoding);
    cache.set(key, tokens);
  }
  return tokens;
}

/** The token count of tool definitions, each counted once per definition object and encoding. */
export function toolsTokenCount(tools: readonly ToolDefinition[], encoding: EncodingName): number {
  let tokens = 0;
  for (const tool of tools) tokens += tokensOf(tool, encoding, () => toolDefinitionText(tool));
  return tokens;
}

/**
 * Counts a request's prompt tokens by part: the same figures as counting each segment of
 * {@link serializeRequest}, with history items and tool definitions counted once per object.
 */
export function measureRequest(
  request: ContextRequest,
  encoding: EncodingName = 'o200k_base',
): { parts: PartTokens; total: number } {
  const parts = emptyParts();
  countInstruction(request.instruction, parts, encoding);
  const items = request.items;
  const obsStart = latestObservationStart(items);
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    parts[index >= obsStart ? 'observation' : 'history'] += tokensOf(item, encoding, () => itemText(item));
  }
  parts.tools += toolsTokenCount(request.tools, encoding);
  const total = parts.instruction + parts.paged + parts.history + parts.observation + parts.tools;
  return { parts, total };
}

/**
 * Adds the tokens of instruction sections to `parts` by their part, and the step block's header to
 * `instruction` when a section is rendered in the step block.
 */
export function countInstruction(
  sections: readonly InstructionSection[],
  parts: PartTokens,
  encoding: EncodingName,
): void {
  let header = false;
  for (const section of sections) {
    parts[section.part] += countTokens(section.text, encoding);
    if (!header && isPerStep(section)) {
      parts.instruction += countTokens(STEP_BLOCK_HEADER, encoding);
      header = true;
    }
  }
}

/** Whether `section` is rendered in the step block after the history (see {@link InstructionSection.perStep}). */
export function isPerStep(section: InstructionSection): boolean {
  return section.perStep ?? section.part === 'paged';
}

/** Joins the instruction sections that stay the same from call to call into the system text the model receives. */
export function systemText(request: ContextRequest): string {
  let text = '';
  for (const section of request.instruction)
    if (!isPerStep(section)) text = text ? `${text}\n\n${section.text}` : section.text;
  return text;
}

/**
 * The first line of the step block: what the block is, so the model reads it as the current part of its
 * instruction rather than as a new message of the user.
 */
export const STEP_BLOCK_HEADER =
  '[pagewise] The rest of your instruction, current at this step (re-rendered at every call; not a message from the user):';

/**
 * The text of the step block: the header, then the sections that change per step, or `''` when there are
 * none. Paged content in it keeps its fence: the block only moves the sections, it never unwraps them.
 */
export function stepBlockText(request: ContextRequest): string {
  let text = '';
  for (const section of request.instruction)
    if (isPerStep(section)) text = text ? `${text}\n\n${section.text}` : section.text;
  return text ? `${STEP_BLOCK_HEADER}\n\n${text}` : '';
}

/** A rendered instruction taken apart for a framework adapter: see {@link splitInstruction}. */
export interface SplitInstruction {
  /** The sections that stay the same from call to call: the system message's text. */
  system: string;
  /** The step block's text (header first), or `''` when nothing changes per step. */
  stepBlock: string;
}

/**
 * Splits what an instruction provider rendered into the system text and the step block, as the runner lays a
 * request out: a framework adapter sends `system` as the framework's system message and `stepBlock` as a last
 * user message after the history, never stored in it, so the framework's history stays a cacheable prefix. A
 * string is split at the step block's header, as {@link instructionText} joins them (a string without it is all
 * system text).
 */
export function splitInstruction(rendered: string | readonly InstructionSection[]): SplitInstruction {
  if (typeof rendered === 'string') {
    const at = rendered.indexOf(STEP_BLOCK_HEADER);
    return at < 0
      ? { system: rendered, stepBlock: '' }
      : { system: rendered.slice(0, at).trimEnd(), stepBlock: rendered.slice(at) };
  }
  const request = { instruction: [...rendered], items: [], tools: [] };
  return { system: systemText(request), stepBlock: stepBlockText(request) };
}

/**
 * A rendered instruction as one string, for a framework whose instruction hook takes one (ADK's instruction
 * provider, OpenAI Agents' `instructions`): the system text, then the step block with its header, which the
 * adapter's per-call hook moves after the history ({@link splitInstruction}). Without that hook the string is the
 * whole instruction, the changing part last.
 */
export function instructionText(rendered: string | readonly InstructionSection[]): string {
  const { system, stepBlock } = splitInstruction(rendered);
  return system && stepBlock ? `${system}\n\n${stepBlock}` : system || stepBlock;
}

/**
 * The step block as the last message of a prompt: a user message (Anthropic and Google accept system
 * messages only at the start), rendered anew at every call and never stored in the history.
 */
export function stepBlockMessage(request: ContextRequest): LanguageModelV3Message | undefined {
  const text = stepBlockText(request);
  if (!text) return undefined;
  return { role: 'user', content: [{ type: 'text', text }], providerOptions: STEP_BLOCK_MARK };
}

type ToolResultPart = Extract<LanguageModelV3Message, { role: 'tool' }>['content'][number];

// Rendered forms per item and tool: a message for a user, summary or assistant item, a part for a tool
// result (consecutive results share one message, built per render). Never mutated once cached.
const rendered = new WeakMap<ContextItem, LanguageModelV3Message | ToolResultPart>();
const renderedTools = new WeakMap<ToolDefinition, LanguageModelV3FunctionTool>();

/** A history item rendered: a message, or the part of a tool message for a tool result. Cached per item. */
export type RenderedItem = LanguageModelV3Message | ToolResultPart;

/** The rendered form of one item, built once per item object; never mutate it. */
export function renderItem(item: ContextItem): RenderedItem {
  let renderedItem = rendered.get(item);
  if (renderedItem) return renderedItem;
  switch (item.type) {
    case 'user':
    case 'summary':
      renderedItem = { role: 'user', content: [{ type: 'text', text: item.text }] };
      break;
    case 'assistant': {
      const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
      if (item.text) content.push({ type: 'text', text: item.text });
      for (const call of item.toolCalls)
        content.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
      renderedItem = { role: 'assistant', content };
      break;
    }
    case 'tool-result':
      renderedItem = {
        type: 'tool-result',
        toolCallId: item.toolCallId,
        toolName: item.toolName,
        output: item.isError ? { type: 'error-text', value: item.output } : { type: 'text', value: item.output },
      };
  }
  rendered.set(item, renderedItem);
  return renderedItem;
}

function renderTool(tool: ToolDefinition): LanguageModelV3FunctionTool {
  let renderedTool = renderedTools.get(tool);
  if (!renderedTool) {
    renderedTool = { type: 'function', name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
    renderedTools.set(tool, renderedTool);
  }
  return renderedTool;
}

type ToolMessage = Extract<LanguageModelV3Message, { role: 'tool' }>;

// The tool message of a run of results, by the run's first item: reused while the run is the same items.
const toolMessages = new WeakMap<ContextItem, ToolMessage>();

function toolMessage(items: readonly ContextItem[], start: number, end: number, first: ToolResultPart): ToolMessage {
  const cached = toolMessages.get(items[start]!);
  if (cached && cached.content.length === end - start) {
    let same = true;
    for (let index = start + 1; index < end && same; index++)
      same = cached.content[index - start] === renderItem(items[index]!);
    if (same) return cached;
  }
  const content: ToolResultPart[] = [first];
  for (let index = start + 1; index < end; index++) content.push(renderItem(items[index]!) as ToolResultPart);
  const message: ToolMessage = { role: 'tool', content };
  toolMessages.set(items[start]!, message);
  return message;
}

/**
 * Renders the request as an AI SDK prompt and tool list, in the order that keeps the prompt's prefix
 * stable from call to call: the system message (the sections that stay the same), the history, then the
 * step block (the sections that change per step, see {@link stepBlockMessage}). Consecutive tool results
 * become one tool message; summaries become user messages. Items render once: the messages of items seen
 * in an earlier render are reused, so the objects of a prompt must be treated as read-only.
 */
export function renderPrompt(request: ContextRequest): {
  prompt: LanguageModelV3Prompt;
  tools: LanguageModelV3FunctionTool[];
} {
  const prompt: LanguageModelV3Message[] = [];
  const system = systemText(request);
  if (system) prompt.push({ role: 'system', content: system });
  renderMessages(request.items, 0, prompt);
  const step = stepBlockMessage(request);
  if (step) prompt.push(step);
  return { prompt, tools: renderTools(request.tools) };
}

/** The tools of a request as the AI SDK takes them, each rendered once per definition object. */
export function renderTools(tools: readonly ToolDefinition[]): LanguageModelV3FunctionTool[] {
  return tools.map(renderTool);
}

/**
 * Appends to `out` the messages of `items` from index `start` on (which must not be inside a run of tool
 * results): one per user, summary or assistant item, one per run of consecutive tool results.
 */
export function renderMessages(items: readonly ContextItem[], start: number, out: LanguageModelV3Message[]): void {
  for (let index = start; index < items.length;) {
    const renderedItem = renderItem(items[index]!);
    if ('role' in renderedItem) {
      out.push(renderedItem);
      index += 1;
      continue;
    }
    let end = index + 1;
    while (end < items.length && items[end]!.type === 'tool-result') end += 1;
    out.push(toolMessage(items, index, end, renderedItem));
    index = end;
  }
}

/**
 * Checks that every tool call in the items has its result right after it, and every result its call.
 * Returns a description of the first break, or undefined when the pairs are intact.
 */
export function findBrokenToolPair(items: readonly ContextItem[]): string | undefined {
  // One pass without allocation: it runs after every processor of every step.
  let owner = -1;
  for (let index = 0; index <= items.length; index++) {
    const item = items[index];
    if (item?.type === 'tool-result') {
      if (owner < 0 || !callsInclude(items[owner] as AssistantItem, item.toolCallId))
        return `tool result ${item.toolCallId} at item ${index} is not preceded by its call`;
      continue;
    }
    // The turn of the last assistant item ends here: each of its calls needs a result in it. The last turn
    // of a request may not wait for its results either, since a request is only built between steps.
    if (owner >= 0) {
      const missing = unanswered(items, owner, index);
      if (missing !== undefined) return `tool call ${missing} at item ${owner} has no result after it`;
    }
    owner = item?.type === 'assistant' && item.toolCalls.length > 0 ? index : -1;
  }
  return undefined;
}

type AssistantItem = Extract<ContextItem, { type: 'assistant' }>;

function callsInclude(item: AssistantItem, toolCallId: string): boolean {
  for (const call of item.toolCalls) if (call.toolCallId === toolCallId) return true;
  return false;
}

/** The first call of the assistant item at `owner` without a result among items owner+1..end-1. */
function unanswered(items: readonly ContextItem[], owner: number, end: number): string | undefined {
  for (const call of (items[owner] as AssistantItem).toolCalls) {
    let found = false;
    for (let later = owner + 1; later < end && !found; later++)
      found = (items[later] as { toolCallId?: string }).toolCallId === call.toolCallId;
    if (!found) return call.toolCallId;
  }
  return undefined;
}
