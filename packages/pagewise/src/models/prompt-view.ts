/**
 * A plain view of a model request, for rule-based models that read only their prompt: the system text,
 * the step block, the turns in order, and the names of the offered tools.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { isStepBlock } from './step-block.js';

/** One turn of the conversation as the model sees it. */
export type PromptTurn =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: { toolCallId: string; toolName: string; input: unknown }[] }
  | { role: 'tool'; results: { toolCallId: string; toolName: string; output: string; isError: boolean }[] };

/** What a prompt-reading policy gets to see: nothing beyond the request itself. */
export interface PromptView {
  /** All system messages joined by blank lines: the part of the instruction that stays the same from call to call. */
  system: string;
  /**
   * The step block: the part of the instruction that changes per step (working set, saved results, reading
   * plan), rendered after the history; `''` when the prompt has none. Not a turn.
   */
  stepBlock: string;
  /** The whole instruction wherever the layout put it: {@link system}, then {@link stepBlock}. */
  instruction: string;
  turns: PromptTurn[];
  /** Names of the tools offered in this call. */
  toolNames: string[];
  /** The text of the first user message of the request (usually the task). */
  firstUserText: string;
  /** The text of the last user message of the request. */
  lastUserText: string;
  /** The whole prompt as one string (system, turns, tool outputs), for searching it for a fact. */
  fullText: string;
}

function outputToText(output: unknown): { text: string; isError: boolean } {
  const typed = output as { type?: string; value?: unknown };
  switch (typed?.type) {
    case 'text':
      return { text: String(typed.value), isError: false };
    case 'error-text':
      return { text: String(typed.value), isError: true };
    case 'json':
      return { text: JSON.stringify(typed.value), isError: false };
    case 'error-json':
      return { text: JSON.stringify(typed.value), isError: true };
    case 'execution-denied':
      return { text: 'execution denied', isError: true };
    case 'content':
      return {
        text: (Array.isArray(typed.value) ? typed.value : [])
          .map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : ''))
          .join('\n'),
        isError: false,
      };
    default:
      return { text: typeof output === 'string' ? output : JSON.stringify(output), isError: false };
  }
}

/** Builds a {@link PromptView} from a LanguageModelV3 prompt and tool list. */
export function viewPrompt(options: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>): PromptView {
  const prompt: LanguageModelV3Prompt = options.prompt;
  const system: string[] = [];
  const stepBlocks: string[] = [];
  const turns: PromptTurn[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      system.push(message.content);
    } else if (message.role === 'user' && isStepBlock(message)) {
      stepBlocks.push(message.content.map((p) => (p.type === 'text' ? p.text : '')).join(''));
    } else if (message.role === 'user') {
      const text = message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      turns.push({ role: 'user', text });
    } else if (message.role === 'assistant') {
      let text = '';
      const toolCalls: { toolCallId: string; toolName: string; input: unknown }[] = [];
      for (const part of message.content) {
        if (part.type === 'text') text += part.text;
        else if (part.type === 'tool-call')
          toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      }
      turns.push({ role: 'assistant', text, toolCalls });
    } else if (message.role === 'tool') {
      const results: { toolCallId: string; toolName: string; output: string; isError: boolean }[] = [];
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const { text, isError } = outputToText(part.output);
        results.push({ toolCallId: part.toolCallId, toolName: part.toolName, output: text, isError });
      }
      turns.push({ role: 'tool', results });
    }
  }
  const userTurns = turns.filter((t): t is Extract<PromptTurn, { role: 'user' }> => t.role === 'user');
  const systemText = system.join('\n\n');
  const stepBlock = stepBlocks.join('\n\n');
  const instruction = systemText && stepBlock ? `${systemText}\n\n${stepBlock}` : systemText || stepBlock;
  const fullText = [
    instruction,
    ...turns.map((turn) =>
      turn.role === 'user'
        ? turn.text
        : turn.role === 'assistant'
          ? [turn.text, ...turn.toolCalls.map((c) => `${c.toolName}(${JSON.stringify(c.input)})`)].join('\n')
          : turn.results.map((r) => r.output).join('\n'),
    ),
  ].join('\n\n');
  return {
    system: systemText,
    stepBlock,
    instruction,
    turns,
    toolNames: (options.tools ?? []).map((t) => t.name),
    firstUserText: userTurns[0]?.text ?? '',
    lastUserText: userTurns[userTurns.length - 1]?.text ?? '',
    fullText,
  };
}
