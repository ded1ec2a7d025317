/**
 * The call log: an optional sink that receives every agent model call as it was sent (the request the
 * processors produced, its ledger entry and the response), so a run can be inspected call by call later.
 * The ledger keeps only token counts; the paged working set lives in `temp:` state, which is never
 * persisted, so the request is the only record of what the model saw.
 */
import type { ContextRequest } from '../context/request.js';
import type { ToolCallRecord } from '../session/types.js';
import type { LedgerEntry } from '../tokens/ledger.js';

/** One agent model call, exactly as sent. */
export interface ModelCallRecord {
  appName: string;
  userId: string;
  sessionId: string;
  invocationId: string;
  /** The call's ledger entry: prompt tokens by part, provider usage, timings. */
  entry: LedgerEntry;
  /** The request after every processor: instruction sections (paged ones fenced), history items, tools. */
  request: ContextRequest;
  /** What the model answered. */
  response: { text: string; toolCalls: ToolCallRecord[]; finishReason?: string };
  /** The id of the model event the response is stored as. */
  eventId: string;
}

/** Receives model calls; pass one as `callLog` to the Runner. A failing log fails the step. */
export interface CallLog {
  recordCall(call: ModelCallRecord): void | Promise<void>;
}

/** Schema version of a stored call-log body. */
export const CALL_LOG_SCHEMA = 1;

/** Labels stored with every call of a log (e.g. `{ strategy: 'paging' }`), for filtering in the inspector. */
export type CallTags = Record<string, string>;

/** The columns a store writes for one call: token figures as numbers, the rest as a JSON body. */
export function callLogRow(call: ModelCallRecord, tags: CallTags = {}) {
  return {
    appName: call.appName,
    userId: call.userId,
    sessionId: call.sessionId,
    invocationId: call.invocationId,
    eventId: call.eventId,
    agent: call.entry.agent,
    model: call.entry.model,
    promptTokens: call.entry.promptTokens,
    completionTokens: call.entry.completionTokens,
    tags: JSON.stringify(tags),
    body: JSON.stringify({ entry: call.entry, request: call.request, response: call.response }),
    createdAt: call.entry.at,
    schemaVersion: CALL_LOG_SCHEMA,
  };
}
