/**
 * Token counting on hostile runs (issue 31 item 1): one pre-token of n characters (spaces, a whitespace
 * mix, line breaks, punctuation), counted by pagewise's `countTokens` (long pieces merged with a heap) and
 * by gpt-tokenizer's own `countTokens` (quadratic merge), side by side at the sizes the latter finishes
 * in seconds; pagewise alone at the sizes the probe used (40k to 240k). Every contender is run once
 * untimed at every size before it is timed. Each round makes a fresh text (a few more characters than the
 * last, so neither pagewise's count cache nor gpt-tokenizer's merge cache holds its long piece) and both
 * contenders count that same text, in rotated order. Medians of `--rounds` runs.
 *
 *   npx tsx bench/hostile-tokens.ts [--rounds 3]
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { countTokens } from '../packages/pagewise/src/tokens/tokenizer.js';
import { fmt, spread } from './stats.js';

const requireCjs = createRequire(import.meta.url);
const library = requireCjs('gpt-tokenizer/cjs/encoding/o200k_base') as {
  countTokens(text: string, options: { allowedSpecial: Set<string>; disallowedSpecial: Set<string> }): number;
};
const PLAIN = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

const UNITS: Record<string, string> = { spaces: ' ', 'space-tab': ' \t', newlines: '\n', 'dash-emdash': '-—' };
const SIDE_BY_SIDE = [5_000, 10_000, 20_000];
const PAGEWISE_ONLY = [40_000, 80_000, 160_000, 240_000];

let salt = 0;
function text(unit: string, chars: number): string {
  salt += 1;
  return `x${unit.repeat(Math.ceil(chars / unit.length) + salt)}x`;
}

function time(count: (t: string) => number, sample: string): { ms: number; tokens: number } {
  const started = performance.now();
  const tokens = count(sample);
  return { ms: performance.now() - started, tokens };
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { rounds: { type: 'string' } } });
  const rounds = Number(values.rounds ?? 3);
  const contenders: Record<string, (t: string) => number> = {
    pagewise: (t) => countTokens(t),
    'gpt-tokenizer': (t) => library.countTokens(t, PLAIN),
  };
  console.log('| input | chars | pagewise ms (median) | gpt-tokenizer ms (median) | ratio | tokens equal |');
  console.log('| --- | ---: | ---: | ---: | ---: | --- |');
  for (const [name, unit] of Object.entries(UNITS)) {
    for (const chars of [...SIDE_BY_SIDE, ...PAGEWISE_ONLY]) {
      const names = SIDE_BY_SIDE.includes(chars) ? Object.keys(contenders) : ['pagewise'];
      for (const name of names) time(contenders[name]!, text(unit, chars));
      const ms: Record<string, number[]> = {};
      const tokens: Record<string, number[]> = {};
      for (let round = 0; round < rounds; round += 1) {
        const sample = text(unit, chars);
        // Rotated, so load changes hit both contenders alike.
        for (const name of round % 2 === 0 ? names : [...names].reverse()) {
          const run = time(contenders[name]!, sample);
          (ms[name] ??= []).push(run.ms);
          (tokens[name] ??= []).push(run.tokens);
        }
      }
      const ours = spread(ms.pagewise!).median;
      const theirs = ms['gpt-tokenizer'] ? spread(ms['gpt-tokenizer']).median : undefined;
      const equal = tokens['gpt-tokenizer']
        ? String(tokens.pagewise!.every((t, i) => t === tokens['gpt-tokenizer']![i]))
        : '—';
      console.log(
        `| ${name} | ${chars.toLocaleString('en-US')} | ${fmt(ours)} | ${theirs === undefined ? '—' : fmt(theirs)} | ${theirs === undefined ? '—' : `${fmt(theirs / ours)}×`} | ${equal} |`,
      );
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
