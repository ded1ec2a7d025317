/**
 * The names `pagewise/compression` keeps for one release after a rename: each is the renamed export itself, so code
 * written against the old name behaves as before.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as compression from '../compression.js';
import type {
  ExtractiveBackendOptions,
  ExtractiveCompressorOptions,
  LlmBackendOptions,
  LlmCompressorOptions,
  ResolveBackendOptions,
  ResolveCompressorOptions,
} from '../compression.js';

describe('deprecated names of pagewise/compression', () => {
  it.each([
    ['extractiveCompressor', 'extractiveBackend'],
    ['llmCompressor', 'llmBackend'],
    ['resolveCompressor', 'resolveBackend'],
  ] as const)('%s is %s', (old, renamed) => {
    expect(typeof compression[renamed]).toBe('function');
    expect(compression[old]).toBe(compression[renamed]);
  });

  it('the old option types are the new ones', () => {
    expectTypeOf<ExtractiveCompressorOptions>().toEqualTypeOf<ExtractiveBackendOptions>();
    expectTypeOf<LlmCompressorOptions>().toEqualTypeOf<LlmBackendOptions>();
    expectTypeOf<ResolveCompressorOptions>().toEqualTypeOf<ResolveBackendOptions>();
  });

  it('the old name builds the same backend', () => {
    expect(compression.extractiveCompressor({ keepHandles: false }).name).toBe(
      compression.extractiveBackend({ keepHandles: false }).name,
    );
    expect(compression.resolveCompressor('extractive').name).toBe('extractive');
  });
});
