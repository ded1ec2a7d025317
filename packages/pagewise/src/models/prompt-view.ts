/**
 * A plain view of a model request, for rule-based models that read only their prompt: the system text,
 * the turns in order, and the names of the offered tools.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from '@ai-sdk/provider';

/** One turn of the conversation as the model sees it. */
export type PromptTurn =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: { toolCallId: string; toolName: string; input: unknown }[] }
  | { role: 'tool'; results: { toolCallId: string; toolName: string; output: string; isError: boolean }[] };

/** What a prompt-reading policy gets to see: nothing beyond the request itself. */
export interface PromptView {
  /** All system messages joined by blank lines. */
  system: string;
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
  const o = output as { type?: string; value?: unknown };
  switch (o?.type) {
    case 'text':
      return { text: String(o.value), isError: false };
    case 'error-text':
      return { text: String(o.value), isError: true };
    case 'json':
      return { text: JSON.stringify(o.value), isError: false };
    case 'error-json':
      return { text: JSON.stringify(o.value), isError: true };
    case 'execution-denied':
      return { text: 'execution denied', isError: true };
    case 'content':
      return {
        text: (Array.isArray(o.value) ? o.value : [])
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
  const turns: PromptTurn[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      system.push(message.content);
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
  const fullText = [
    systemText,
    ...turns.map((t) =>
      t.role === 'user'
        ? t.text
        : t.role === 'assistant'
          ? [t.text, ...t.toolCalls.map((c) => `${c.toolName}(${JSON.stringify(c.input)})`)].join('\n')
          : t.results.map((r) => r.output).join('\n'),
    ),
  ].join('\n\n');
  return {
    system: systemText,
    turns,
    toolNames: (options.tools ?? []).map((t) => t.name),
    firstUserText: userTurns[0]?.text ?? '',
    lastUserText: userTurns[userTurns.length - 1]?.text ?? '',
    fullText,
  };
}
