/**
 * The mark of the step block: the message after the history that carries the part of the instruction that
 * changes per step. The mark lets a reader of a prompt (the offline model's prompt view) tell the block
 * from the history; providers ignore provider options under a name not their own.
 */

/** The provider options that mark a message as the step block. */
export const STEP_BLOCK_MARK = { pagewise: { stepBlock: true } } as const;

/** Whether `message` is a step block (it carries {@link STEP_BLOCK_MARK}). */
export function isStepBlock(message: { providerOptions?: Record<string, unknown> | undefined }): boolean {
  const own = message.providerOptions?.pagewise as { stepBlock?: unknown } | undefined;
  return own?.stepBlock === true;
}
