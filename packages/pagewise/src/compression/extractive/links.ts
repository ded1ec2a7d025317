/**
 * What a text unit brings along and the second hop: its headings (a table row its caption and column headers), and
 * the entity links that lift a section a well-ranked unit names.
 */
import { hasLetterOrDigit } from '../../text/characters.js';
import { isStopword } from '../../text/stopwords.js';
import { isContentUnit } from '../../text/segment.js';
import type { TextUnit } from '../../text/segment.js';
import { piecesWords } from './search.js';

/**
 * Fewest paragraphs for entity links: with two, the paragraph a unit names is the only other one, which its
 * own relevance already ranks.
 */
export const MIN_LINKED_PARAGRAPHS = 3;

/** Shortest heading title that can be linked: shorter ones ("A", "Q3") are found inside unrelated words. */
export const MIN_TITLE_CHARS = 3;

/**
 * The second hop of multi-hop retrieval, by entity linking: a section named by a well-ranked unit of
 * another section is what that unit is about. A question about "Nathaniel Gist's reputed son" matches "He
 * was reputed to be the father of Sequoyah", and the answer is in the paragraph titled "Sequoyah", which
 * shares no word with the question. Per unit, the best first-pass score (as a share of the best overall) of
 * a unit outside its heading's section that mentions the heading's title; a title mentioned in many
 * paragraphs is a common word, not a name, and links nothing.
 */
export function titleLinks(units: readonly TextUnit[], blockCount: number, firstPass: readonly number[]): number[] {
  const hop = units.map(() => 0);
  const best = Math.max(0, ...firstPass);
  if (best <= 0 || blockCount < MIN_LINKED_PARAGRAPHS) return hop;
  const chains = units.map((u) => headingChain(units, u));
  const content = units.filter((u) => u.kind !== 'heading' && isContentUnit(u));
  const lowered = content.map((u) => u.text.toLowerCase());
  const links = new Map<number, number>();
  for (const heading of units) {
    if (heading.kind !== 'heading') continue;
    const title = titleOf(heading.text);
    if (title.length < MIN_TITLE_CHARS || piecesWords(title).every(isStopword)) continue;
    let link = 0;
    const linking = new Set<number>();
    content.forEach((unit, at) => {
      if (chains[unit.index]?.includes(heading.index) || !containsPhrase(lowered[at] ?? '', title)) return;
      linking.add(unit.block);
      link = Math.max(link, (firstPass[unit.index] ?? 0) / best);
    });
    if (linking.size > 0 && linking.size * 2 <= blockCount) links.set(heading.index, link);
  }
  if (links.size === 0) return hop;
  return units.map((u) => Math.max(0, ...[...(chains[u.index] ?? []), u.index].map((h) => links.get(h) ?? 0)));
}

/** A heading's title, lower-cased: without markdown marks, a trailing colon or a parenthesized qualifier. */
export function titleOf(heading: string): string {
  let title = heading.trim();
  let marks = 0;
  while (title[marks] === '#') marks += 1;
  title = title.slice(marks).trimStart();
  if (title.endsWith(':')) title = title.slice(0, -1).trimEnd();
  if (title.endsWith(')')) {
    // The qualifier opens at the first "(" after the ")" before the last one; "Fees (in (USD))" is left whole.
    const open = title.indexOf('(', title.lastIndexOf(')', title.length - 2) + 1);
    if (open >= 0) title = title.slice(0, open);
  }
  return title.trim().toLowerCase();
}

function containsPhrase(text: string, phrase: string): boolean {
  for (let at = text.indexOf(phrase); at >= 0; at = text.indexOf(phrase, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + phrase.length] ?? ' ';
    if (!hasLetterOrDigit(before) && !hasLetterOrDigit(after)) return true;
  }
  return false;
}

function headingChain(units: readonly TextUnit[], unit: TextUnit): number[] {
  const chain: number[] = [];
  for (let at = unit.heading; at !== undefined; at = units[at]?.heading) chain.unshift(at);
  return chain;
}

/** What a unit needs kept with it, in document order: its headings, then its headers or speaker label. */
export function requiredUnits(units: readonly TextUnit[], unit: TextUnit): number[] {
  const all = new Set(headingChain(units, unit));
  for (const requiredAt of unit.requires ?? []) {
    const required = units[requiredAt];
    if (!required) continue;
    for (const headingAt of headingChain(units, required)) all.add(headingAt);
    all.add(requiredAt);
  }
  return [...all].sort((a, b) => a - b);
}
