/**
 * The text an adapter shows the model when a pagewise tool fails. A tool error may quote a key from the
 * environment (a client library echoing its request, a URL with credentials): the framework sends this
 * text to the model and may store it in its own session events, so it goes through the same redaction as
 * the runner's tool results and CLI output.
 */
import { redactSecrets } from '../errors.js';

/** `Error: <tool> failed: <reason>`, with every secret from the environment replaced by its name. */
export function toolFailureText(toolName: string, error: unknown): string {
  return redactSecrets(`Error: ${toolName} failed: ${error instanceof Error ? error.message : String(error)}`);
}

/** `Error: invalid arguments for <tool>: <reason>`, redacted like {@link toolFailureText}. */
export function invalidArgumentsText(toolName: string, reason: string): string {
  return redactSecrets(`Error: invalid arguments for ${toolName}: ${reason}`);
}
