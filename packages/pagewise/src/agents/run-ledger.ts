/**
 * The ledger of one run, mirrored into the runner's shared ledger when it has one, and the call log that
 * receives each agent call as sent.
 */
import type { ContextRequest } from '../context/request.js';
import type { Session, ToolCallRecord } from '../session/types.js';
import { Ledger, type LedgerEntry } from '../tokens/ledger.js';
import type { CallLog, ModelCallRecord } from './call-log.js';

function stripIndex(entry: LedgerEntry): Omit<LedgerEntry, 'index'> {
  const { index: _index, ...rest } = entry;
  return rest;
}

/** A run's own ledger plus the shared one: agent calls are recorded in both, processors' calls forwarded. */
export class RunLedger {
  readonly ledger = new Ledger();
  private readonly stopForwarding: (() => void) | undefined;
  private readonly stopForwardingCompressions: (() => void) | undefined;

  constructor(
    private readonly shared: Ledger | undefined,
    private readonly callLog?: CallLog,
  ) {
    // Calls that processors record (compressors) reach the shared ledger too, even if the run fails later.
    this.stopForwarding = shared
      ? this.ledger.subscribe((e) => e.kind !== 'agent' && void shared.record(stripIndex(e)))
      : undefined;
    this.stopForwardingCompressions = shared
      ? this.ledger.subscribeCompressions((record) => shared.recordCompression(record))
      : undefined;
  }

  /** Records an agent call in both ledgers; returns the run's entry. */
  record(entry: Omit<LedgerEntry, 'index'>): LedgerEntry {
    const recorded = this.ledger.record(entry);
    this.shared?.record(entry);
    return recorded;
  }

  /** Sets the framework time of the step whose call is entry `index` (the shared ledger's latest entry). */
  finishStep(index: number, stepStart: number, modelMs: number, toolMs: number): void {
    const ms = Math.max(0, performance.now() - stepStart - modelMs - toolMs);
    this.ledger.setFrameworkMs(index, ms);
    if (this.shared) this.shared.setFrameworkMs(this.shared.entries.length - 1, ms);
  }

  /** Passes an agent call, as sent, to the call log (when there is one); a failing log fails the step. */
  async logCall(
    session: Session,
    call: Pick<ModelCallRecord, 'invocationId' | 'entry' | 'eventId'> & { request: ContextRequest },
    answer: { text: string; toolCalls: ToolCallRecord[]; finishReason?: string | undefined },
  ): Promise<void> {
    if (!this.callLog) return;
    const { appName, userId, sessionId } = session;
    const { text, toolCalls, finishReason } = answer;
    const response = { text, toolCalls, ...(finishReason ? { finishReason } : {}) };
    // The items may be the history the runner keeps between steps, which grows: the log gets them as sent.
    const request = { ...call.request, items: call.request.items.slice() };
    await this.callLog.recordCall({ appName, userId, sessionId, ...call, request, response });
  }

  /** Stops forwarding to the shared ledger. */
  close(): void {
    this.stopForwarding?.();
    this.stopForwardingCompressions?.();
  }
}
