/**
 * The multi-domain suite alone (bench/compression-eval/suite.ts), both scorers against every baseline at
 * the compressor's achieved ratio, item by item: the table `bench/compression-real-data.ts` ends with, for
 * one split and some sets, so a change can be judged on the tuning split in a short run before the test
 * split is looked at once. The generated long chats (`--set long`) are compressed whole as a history with no
 * question known, at each ratio of `LONG_CHAT_RATIOS` (bench/compression-eval/long-chat-run.ts), and once per
 * later question with the question as the task; `--by-domain` gives them a row per style.
 *
 * Usage: PAGEWISE_SHARED_DATA=<data folder> node --conditions=@pagewise/source --import tsx
 *        bench/compression-suite.ts [--split tune|test] [--set <part of a set's name>]... [--by-domain] [--filings]
 *
 * `--filings` adds the real 10-Q filing pages (bench/compression-eval/filings.ts; minutes the first time, while
 * the PDFs are read into the document cache).
 */
import { pathToFileURL } from 'node:url';
import { longChatItems, longChatQuestionItems, suiteItems, type Split } from './compression-eval/suite.js';
import { historyCompression, runLongChats } from './compression-eval/long-chat-run.js';
import { defaultCompressor, learnedCompressor, runSuite, suiteTable } from './compression-eval/suite-run.js';
import { fmt } from './stats.js';

/** What the command line asks for: the split (`test` by default) and the sets (all when empty). */
export interface SuiteArguments {
  split: Split;
  sets: string[];
  /** Whether the real filing pages are added (`--filings`). */
  filings: boolean;
  /** A row per style of the long chats. */
  byDomain: boolean;
}

/** Reads `--split` and every `--set` of `argv`. */
export function suiteArguments(argv: readonly string[]): SuiteArguments {
  const sets: string[] = [];
  let split: Split = 'test';
  let filings = false;
  let byDomain = false;
  for (let at = 0; at < argv.length; at += 1) {
    const value = argv[at + 1];
    if (argv[at] === '--split') {
      if (value !== 'test' && value !== 'tune') throw new Error('--split takes `test` or `tune`.');
      split = value;
      at += 1;
    } else if (argv[at] === '--filings') {
      filings = true;
    } else if (argv[at] === '--set') {
      if (value === undefined || value.startsWith('--')) throw new Error('--set takes part of a set’s name.');
      sets.push(value.toLowerCase());
      at += 1;
    } else if (argv[at] === '--by-domain') byDomain = true;
  }
  return { split, sets, byDomain, filings };
}

/** Runs the suite on the split and sets `argv` asks for and prints its table. */
export async function main(argv: readonly string[] = []): Promise<void> {
  const { split, sets, byDomain, filings } = suiteArguments(argv);
  const wanted = (item: { set: string; split: Split }): boolean =>
    item.split === split && (sets.length === 0 || sets.some((s) => item.set.toLowerCase().includes(s)));
  const items = (await suiteItems({ filings })).filter(wanted);
  const splitChats = longChatItems().filter((item) => item.split === split);
  const chats = [...splitChats.filter(wanted), ...longChatQuestionItems(splitChats).filter(wanted)];
  if (items.length === 0 && chats.length === 0) {
    console.log(`No suite items on the ${split} split${sets.length > 0 ? ` for ${sets.join(', ')}` : ''}.`);
    return;
  }
  const figures = [
    ...runSuite(items, [
      { name: 'pagewise (default scoring)', compress: defaultCompressor },
      { name: 'pagewise (learned scoring)', compress: learnedCompressor },
    ]),
    // Plain chats are ranked alike under either scorer (`scoring` applies to tool results), so the long chats
    // run once.
    ...(await runLongChats(chats, [{ name: 'pagewise (default scoring)', compress: historyCompression() }], {
      byDomain,
    })),
  ];
  console.log(suiteTable(figures, split === 'test' ? 'test split' : 'tuning split'));
  console.log(
    `\nMean achieved ratio per method: ${figures
      .map((f) => `${f.set}: ${f.methods.map((m) => `${m.method} ${fmt(m.meanRatio)}`).join(', ')}`)
      .join('; ')}.`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2));
