/**
 * pagewise state over a plain record, for frameworks that keep no session state of their own (the AI
 * SDK) or keep it in a user context object (the OpenAI Agents SDK). `temp:` keys live until
 * {@link clearTempKeys} ends the invocation.
 */
import type { StateAccess } from '../agents/tool.js';
import type { JsonValue } from '../session/types.js';

/** A {@link StateAccess} that reads and writes `record` in place. */
export function recordStateAccess(record: Record<string, JsonValue>): StateAccess {
  return {
    get: <T extends JsonValue = JsonValue>(key: string) => record[key] as T | undefined,
    has: (key) => Object.hasOwn(record, key),
    set: (key, value) => {
      record[key] = value;
    },
    delete: (key) => {
      delete record[key];
    },
    increment: (key, by = 1) => {
      const v = record[key];
      record[key] = (typeof v === 'number' ? v : 0) + by;
    },
    keys: (prefix = '') => Object.keys(record).filter((k) => k.startsWith(prefix)),
  };
}

/** Removes the `temp:` keys: the invocation is over, its working set paged out. */
export function clearTempKeys(record: Record<string, JsonValue>): void {
  for (const k of Object.keys(record)) if (k.startsWith('temp:')) delete record[k];
}
