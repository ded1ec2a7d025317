/**
 * Checks every adapter's tests share: a large tool result with a fact deep inside it, and the tool
 * call/result pairing of each request a framework sent.
 */
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { findBrokenToolPair } from '../context/request.js';
import { callOptionsToRequest } from './measure.js';

/** A catalogue of `lineCount` lines, about 25 tokens each; line `needle` carries a code found nowhere else. */
export function catalogue(lineCount = 200, needle = 137): { text: string; fact: string } {
  const fact = `SKU-${needle} restock code QZ-${needle * 7919}`;
  const lines = Array.from({ length: lineCount }, (_, lineIndex) =>
    lineIndex === needle
      ? `${fact}: warehouse east, bin ${lineIndex % 17}, aisle ${lineIndex % 5}.`
      : `SKU-${lineIndex} widget model ${lineIndex * 31} priced ${((lineIndex * 37) % 1000) / 10} EUR, warehouse ${lineIndex % 2 ? 'east' : 'west'}, bin ${lineIndex % 17}.`,
  );
  return { text: lines.join('\n'), fact };
}

/** The first broken tool call/result pair over the requests, or undefined when all are intact. */
export function brokenPairs(
  calls: readonly Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>[],
): string | undefined {
  for (const [requestIndex, call] of calls.entries()) {
    const broken = findBrokenToolPair(callOptionsToRequest(call).items);
    if (broken) return `request ${requestIndex}: ${broken}`;
  }
  return undefined;
}
