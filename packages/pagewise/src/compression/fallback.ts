/**
 * What a failed compression costs: only the compression. A compressor that fails (a provider outage, a
 * timeout, an output that cannot stand in for its input) leaves the processor with what it had, the
 * raw observation or the previous summary, and an entry with an `error` in the run's ledger says so.
 * Only an abort of the run and a configuration that can never work (a missing key) still end the run.
 */
import { AbortedError, PagewiseError } from '../errors.js';
import { ProviderError, toProviderError } from '../models/provider-error.js';
import { emptyParts, type Ledger, type LedgerError } from '../tokens/ledger.js';
import type { GuidelineTarget } from './guideline.js';

/**
 * The error of a failed compression as a pagewise error, when the processor should fall back; throws
 * when the run itself should end (its signal aborted, a configuration error, a bug in a backend).
 */
export function recoverableCompressionError(error: unknown, signal: AbortSignal | undefined): PagewiseError {
  if (signal?.aborted) throw new AbortedError();
  const wrapped = toProviderError(error);
  if (!PagewiseError.isInstance(wrapped)) throw error;
  if (wrapped.code === 'aborted') throw wrapped;
  // A provider that answered (even with 401 or 404) failed this call; a missing key or a bad spec fails every call.
  if (wrapped.fault === 'configuration' && !(wrapped instanceof ProviderError)) throw wrapped;
  return wrapped;
}

/** Records a failed compression in the ledger (see the module comment). */
export function recordCompressionError(
  ledger: Ledger | undefined,
  who: { agentName: string; invocationId: string; target: GuidelineTarget; backend: string },
  error: PagewiseError,
  fallback: LedgerError['fallback'],
): void {
  ledger?.record({
    kind: 'compressor',
    agent: `${who.agentName}:${who.target}-compressor`,
    model: who.backend,
    invocationId: who.invocationId,
    parts: emptyParts(),
    promptTokens: 0,
    completionTokens: 0,
    modelMs: 0,
    frameworkMs: 0,
    at: Date.now(),
    error: { code: error.code, message: error.message, fault: error.fault, retryable: error.retryable, fallback },
  });
}
