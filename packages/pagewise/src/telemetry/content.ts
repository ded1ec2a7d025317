/**
 * Message content for `chat` spans, in the shape of the OpenTelemetry GenAI semantic conventions
 * (`gen_ai.system_instructions`, `gen_ai.input.messages`, `gen_ai.output.messages`): messages of `role`
 * and `parts`, a part being `text`, `reasoning`, `tool_call` (`id`, `name`, `arguments`),
 * `tool_call_response` (`id`, `response`) or `file` (its media type only; file data is never recorded).
 * Every string is redacted of secrets as the runner redacts them in errors.
 */
import type { LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider';
import { redactSecrets, secretsFromEnv, type Secret } from '../errors.js';
import type { ModelCallContent } from './types.js';

/** One part of a GenAI message. */
export type GenAiPart =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown }
  | { type: 'file'; mime_type: string };

/** One GenAI message. */
export interface GenAiMessage {
  role: 'user' | 'assistant' | 'tool';
  parts: GenAiPart[];
  finish_reason?: string;
}

function outputValue(output: LanguageModelV3ToolResultOutput): unknown {
  switch (output.type) {
    case 'text':
    case 'error-text':
    case 'json':
    case 'error-json':
      return output.value;
    case 'content':
      return output.value.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n');
    default:
      return `[${output.type}]`;
  }
}

function redactDeep(value: unknown, secrets: readonly Secret[], depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value, secrets);
  if (typeof value !== 'object' || value === null || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, secrets, depth + 1)]));
}

/** The system instructions and input messages of a prompt. */
function inputOf(prompt: LanguageModelV3Prompt): { system: GenAiPart[]; messages: GenAiMessage[] } {
  const system: GenAiPart[] = [];
  const messages: GenAiMessage[] = [];
  for (const message of prompt) {
    if (message.role === 'system') {
      system.push({ type: 'text', content: message.content });
      continue;
    }
    const parts: GenAiPart[] = [];
    for (const part of message.content) {
      if (part.type === 'text') parts.push({ type: 'text', content: part.text });
      else if (part.type === 'reasoning') parts.push({ type: 'reasoning', content: part.text });
      else if (part.type === 'file') parts.push({ type: 'file', mime_type: part.mediaType });
      else if (part.type === 'tool-call')
        parts.push({ type: 'tool_call', id: part.toolCallId, name: part.toolName, arguments: part.input });
      else if (part.type === 'tool-result')
        parts.push({ type: 'tool_call_response', id: part.toolCallId, response: outputValue(part.output) });
    }
    messages.push({ role: message.role, parts });
  }
  return { system, messages };
}

/**
 * The content attributes of one model call: JSON strings under the GenAI attribute names, every string
 * redacted of the secrets of the environment (values of variables named like keys, tokens or passwords,
 * and the userinfo of URLs).
 */
export function contentAttributes(
  content: ModelCallContent,
  secrets: readonly Secret[] = secretsFromEnv(),
): Record<string, string> {
  const { system, messages } = inputOf(content.prompt);
  const parts: GenAiPart[] = [
    ...(content.text ? [{ type: 'text' as const, content: content.text }] : []),
    ...content.toolCalls.map((call) => ({
      type: 'tool_call' as const,
      id: call.toolCallId,
      name: call.toolName,
      arguments: call.input,
    })),
  ];
  const output: GenAiMessage[] = [
    { role: 'assistant', parts, ...(content.finishReason ? { finish_reason: content.finishReason } : {}) },
  ];
  const json = (value: unknown) => JSON.stringify(redactDeep(value, secrets));
  return {
    ...(system.length ? { 'gen_ai.system_instructions': json(system) } : {}),
    'gen_ai.input.messages': json(messages),
    'gen_ai.output.messages': json(output),
  };
}
