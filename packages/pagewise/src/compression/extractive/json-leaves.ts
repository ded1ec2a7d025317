/**
 * JSON observations as leaves: scalar fields with their key paths and records, error and label fields, record
 * relevance, and the pruned render of the kept leaves.
 */
import { countTokens } from '../../tokens/tokenizer.js';
import { hasDigit } from '../../text/characters.js';
import { fieldNamePattern } from '../../text/field-names.js';
import { ID_FIELD } from '../../text/identifiers.js';
import { isJsonScalar, JsonNumber, parseJsonSource, stringifyJsonSource } from '../json-source.js';
import { groupBy, isErrorStatus } from './units.js';
import { PIECE, type SearchedQuery, normalized, pathWords, weightedRelevance } from './search.js';

// ---------------------------------------------------------------------------------------------
// JSON

type JsonPath = readonly (string | number)[];

export { pathWords };
export type JsonContainer = Record<string, unknown> | unknown[];

export interface JsonLeaf {
  path: JsonPath;
  value: unknown;
  /** The nearest object key above the value (for an array item, the array's key). */
  key: string | undefined;
  /** Indices into `path` of the steps that enter a record: array items, and entries of id-keyed maps. */
  records: readonly number[];
  /**
   * A field of an id-keyed map's entry that repeats the entry's key (`"7160999700": {"item_id": "7160999700"}`).
   * The key already shows it: kept alone it renders as the bare key (`"7160999700": {}`), beside other kept
   * fields of its record not at all.
   */
  repeatsKey?: true;
}

/**
 * The input as a JSON object or array, numbers as written ({@link parseJsonSource}), or undefined for
 * anything else (text, a bare scalar).
 */
export function parseJsonContainer(input: string): JsonContainer | undefined {
  const trimmed = input.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  // Walked with type checks only, no shape assumed: any well-formed JSON container is valid here.
  const value = parseJsonSource(trimmed);
  return typeof value === 'object' && value !== null && !(value instanceof JsonNumber)
    ? (value as JsonContainer)
    : undefined;
}

// Top-level fields that make a JSON result an error result, kept whole whatever the budget; in any case.
const fieldNames = (names: readonly string[]): RegExp => fieldNamePattern(names, [], 'iu');
const ERROR_KEY = fieldNames([
  'errors?',
  'exception',
  'fault',
  'error_?(?:message|code|description)',
  'errorMessage',
  'errorCode',
]);
const STATUS_KEY = fieldNames(['status', 'status_?code', 'statusCode', 'http_?status', 'code']);
// What says why, beside a non-2xx status.
const MESSAGE_KEY = fieldNames(['message', 'msg', 'detail', 'details', 'reason', 'description', 'title']);

/**
 * The top-level keys of an error result: its `error` fields (when not empty), or a non-2xx status with
 * the message beside it. Empty for anything else.
 */
export function errorKeys(root: JsonContainer): Set<string> {
  const keys = new Set<string>();
  if (Array.isArray(root)) return keys;
  const entries = Object.entries(root);
  for (const [key, value] of entries) {
    const empty = value === null || value === false || (Array.isArray(value) && value.length === 0) || value === '';
    if (ERROR_KEY.test(key) && !empty) keys.add(key);
  }
  const status = entries.find(
    ([key, value]) => STATUS_KEY.test(key) && (value instanceof JsonNumber || typeof value === 'string'),
  );
  if (status && isErrorStatus(String(status[1]))) {
    keys.add(status[0]);
    for (const [key] of entries) if (MESSAGE_KEY.test(key)) keys.add(key);
  }
  if (keys.size > 0) for (const [key] of entries) if (ERROR_KEY.test(key)) keys.add(key);
  return keys;
}

export const ID_KEY = ID_FIELD;
// Inside records that are ranked against each other, an id's `idInRecord` feature is its record's relevance,
// down to this share: the ids of an irrelevant record (one of 20 catalogue variants) then still outrank that
// record's other fields, but no longer the relevant record's fields.
export const MIN_ID_SHARE = 0.25;

// The field that names a record: a kept field of a record comes with it, as a table cell with its row label.
export const LABEL_KEY = fieldNamePattern(['name', 'title', 'label'], ['_name', 'Name']);

/**
 * Per leaf, the leaves naming its innermost record, when they are other leaves: the record's own id and
 * its name. A price without the item it is the price of is not evidence, so a kept field of a record
 * (an item of an order, a row of a table) comes with what says which record it belongs to. Only
 * scalar fields directly in the record name it: an id inside a nested part names that part. A field below
 * the top also comes with the whole object's id (`rootId`, -1 for none).
 */
export function recordLabels(leaves: readonly JsonLeaf[], rootId: number): number[][] {
  const recordOf = (leaf: JsonLeaf): string | undefined => {
    const at = leaf.records[leaf.records.length - 1];
    return at === undefined ? undefined : JSON.stringify(leaf.path.slice(0, at + 1));
  };
  const ids = new Map<string, number>();
  const names = new Map<string, number>();
  leaves.forEach((leaf, index) => {
    const record = recordOf(leaf);
    const at = leaf.records[leaf.records.length - 1];
    // A direct scalar field of the record: `items[1].name`, not `items[1].options.name`.
    if (record === undefined || at === undefined || leaf.key === undefined || leaf.path.length !== at + 2) return;
    if (ID_KEY.test(leaf.key)) {
      if (!ids.has(record)) ids.set(record, index);
    } else if (LABEL_KEY.test(leaf.key) && !names.has(record)) names.set(record, index);
  });
  // The id of the whole object (`rootId`, an order's `order_id`): a kept item of the order is evidence about
  // that order only if the order is named too.
  return leaves.map((leaf, index) => {
    const record = recordOf(leaf);
    const own = record === undefined ? [] : [ids.get(record), names.get(record)];
    if (rootId >= 0 && leaf.path.length > 1) own.push(rootId);
    return [...new Set(own)].filter((i): i is number => i !== undefined && i !== index);
  });
}

/** Whether a leaf is the id of the whole object: `order_id` at the top of an order. */
export function isRootId(leaf: JsonLeaf): boolean {
  return leaf.path.length === 1 && typeof leaf.path[0] === 'string' && ID_KEY.test(leaf.path[0]);
}

/**
 * Per leaf, the normalized BM25 relevance of the record holding it; `cut` gives the index of the
 * record step that ends the record path (-1: no record). Zero when there is only one record.
 */
export function recordRelevance(
  leaves: readonly JsonLeaf[],
  leafTexts: readonly string[],
  query: SearchedQuery,
  cut: (leaf: JsonLeaf) => number,
): { scores: number[]; ranked: boolean } {
  // Fields outside any record (a product's own name and id beside its variants) are no record: ranked
  // with the records, they would set the scale and push the relevant record below full relevance.
  const recordOf = leaves.map((leaf) => {
    const at = cut(leaf);
    return at < 0 ? undefined : JSON.stringify(leaf.path.slice(0, at + 1));
  });
  const records = groupBy(
    leaves.map((_, i) => i).filter((i) => recordOf[i] !== undefined),
    (i) => recordOf[i],
  );
  if (records.size < 2) return { scores: leaves.map(() => 0), ranked: false };
  // Scaled back to 0..1: a record's relevance lifts its fields by at most the container weight.
  const scores = normalized(
    weightedRelevance(
      [...records.values()].map((members) => members.map((i) => leafTexts[i]).join(PIECE)),
      query,
    ),
  );
  const byRecord = new Map([...records.keys()].map((record, i) => [record, scores[i] ?? 0]));
  return { scores: recordOf.map((record) => (record === undefined ? 0 : (byRecord.get(record) ?? 0))), ranked: true };
}

function collectLeaves(
  value: unknown,
  path: JsonPath,
  key: string | undefined,
  records: readonly number[],
  into: JsonLeaf[],
): void {
  if (Array.isArray(value) && value.length > 0 && !(path.length > 0 && isScalarList(value))) {
    const inner = [...records, path.length];
    value.forEach((item, i) => collectLeaves(item, [...path, i], key, inner, into));
  } else if (!isJsonScalar(value) && !Array.isArray(value) && Object.keys(value as object).length > 0) {
    const inner = isRecordMap(value as object) ? [...records, path.length] : records;
    for (const [key, child] of Object.entries(value as object)) collectLeaves(child, [...path, key], key, inner, into);
  } else {
    // Scalars, and empty containers: `"errors": []` says something.
    const at = records[records.length - 1];
    const mapKey = at !== undefined && at === path.length - 2 ? path[at] : undefined;
    const repeatsKey =
      typeof mapKey === 'string' &&
      (typeof value === 'string' || value instanceof JsonNumber) &&
      String(value) === mapKey;
    into.push({ path, value, key, records, ...(repeatsKey ? { repeatsKey } : {}) });
  }
}

/** The leaves of `root`, in document order: the units of a JSON input. */
export function jsonLeaves(root: JsonContainer): JsonLeaf[] {
  const leaves: JsonLeaf[] = [];
  collectLeaves(root, [], undefined, [], leaves);
  return leaves;
}

/**
 * `root` with every leaf kept, as the compressor writes a selection: compact, numbers as written, a field
 * that repeats its entry's key shown as the key. Everything the input says, in fewer tokens.
 */
export function compactJson(root: JsonContainer): string {
  const leaves = jsonLeaves(root);
  return stringifyJsonSource(keptJson(root, leaves, leaves.keys()));
}

/** Longest list of scalars kept or dropped as one field. */
const MAX_ATOMIC_LIST = 32;

/**
 * A short list of scalars (the order ids of a customer, the tags of a record) is one field: cut to some of
 * its items, it would still read as the whole list and say something false (a customer with one order
 * where they have two). Kept whole or left out, it cannot mislead.
 */
function isScalarList(value: readonly unknown[]): boolean {
  return value.length <= MAX_ATOMIC_LIST && value.every(isJsonScalar);
}

/**
 * An object keyed by ids (`{"1008948180": {...}, "1096508426": {...}}`) is a collection of records,
 * like an array: its entries are ranked as records. Keys holding a digit read as ids; field names
 * rarely hold one.
 */
function isRecordMap(value: object): boolean {
  const entries = Object.entries(value);
  return entries.length >= 2 && entries.every(([k, v]) => !isJsonScalar(v) && hasDigit(k));
}

/**
 * Matches a leaf's object keys (array indices left out) against field rules: a rule is a key, or keys
 * joined by dots that must follow each other (`items.price`), `*` standing for any one key
 * (`variants.*.options`).
 */
export function fieldMatcher(rules: readonly string[]): (keys: readonly string[]) => boolean {
  const specs = rules.map((rule) => rule.split('.'));
  return (keys) =>
    specs.some((spec) => {
      for (let start = 0; start + spec.length <= keys.length; start += 1) {
        if (spec.every((part, j) => part === '*' || part === keys[start + j])) return true;
      }
      return false;
    });
}

export function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : stringifyJsonSource(value);
}

/**
 * Estimated tokens a leaf adds: `"key":value,`, plus the brackets of containers it opens first, and for a
 * list it opens the cut-list marker, which the list shows unless every item is kept.
 */
export function leafCost(leaf: JsonLeaf, opened: Set<string>): number {
  const last = leaf.path[leaf.path.length - 1];
  // A field repeating its entry's key renders as nothing beyond the entry's key and braces (counted below).
  let cost = leaf.repeatsKey
    ? 0
    : countTokens(`${typeof last === 'string' ? `${JSON.stringify(last)}:` : ''}${stringifyJsonSource(leaf.value)},`);
  // The JSON of each prefix path, built as it grows: `[` and `]` around the steps' JSON joined by commas.
  let steps = '';
  for (let depth = 0; depth < leaf.path.length; depth += 1) {
    if (depth > 0) steps += `${depth > 1 ? ',' : ''}${JSON.stringify(leaf.path[depth - 1])}`;
    const prefix = `[${steps}]`;
    if (opened.has(prefix)) continue;
    opened.add(prefix);
    const step = leaf.path[depth - 1];
    if (depth > 0) cost += typeof step === 'string' ? countTokens(`${JSON.stringify(step)}:{},`) : 2;
    if (typeof leaf.path[depth] === 'number') cost += markerTokens();
  }
  return cost;
}

let markerTokenCount: number | undefined;

/**
 * The tokens of a cut-list marker and its comma. Counted on first use, not when the module loads: counting
 * loads the tokenizer's tables, and importing pagewise must not (test/packaging/lean-import.test.ts).
 */
function markerTokens(): number {
  markerTokenCount ??= countTokens(`,${JSON.stringify(omittedMarker(99))}`);
  return markerTokenCount;
}

/** The kept leaves' paths as a tree: per step of a path, the node below it. */
interface KeptNode {
  /** A kept leaf ends here: its whole value shows. */
  kept: boolean;
  /** That leaf repeats its entry's key ({@link JsonLeaf.repeatsKey}): it shows only as that key. */
  repeatsKey: boolean;
  children: Map<string | number, KeptNode>;
}

function keptNode(): KeptNode {
  return { kept: false, repeatsKey: false, children: new Map() };
}

/** The tree of the paths of `leaves` at the indices `kept`. */
function keptTree(leaves: readonly JsonLeaf[], kept: Iterable<number>): KeptNode {
  const root = keptNode();
  for (const index of kept) {
    const leaf = leaves[index];
    if (leaf === undefined) continue;
    let node = root;
    for (const step of leaf.path) {
      let child = node.children.get(step);
      if (child === undefined) {
        child = keptNode();
        node.children.set(step, child);
      }
      node = child;
    }
    node.kept = true;
    if (leaf.repeatsKey) node.repeatsKey = true;
  }
  return root;
}

/**
 * `root` with only the leaves at the indices `kept` (of `leaves`, its {@link jsonLeaves}), as the compressor
 * writes a selection: arrays compacted, a cut list ending in its marker, a kept field that repeats its entry's
 * key shown only as that key; an empty container of `root`'s kind when nothing is kept. Only the parts holding
 * a kept leaf are walked.
 */
export function keptJson(root: JsonContainer, leaves: readonly JsonLeaf[], kept: Iterable<number>): JsonContainer {
  return (prune(root, keptTree(leaves, kept), true) as JsonContainer | undefined) ?? emptyLike(root);
}

/** The parts of `value` on a path of `node`; undefined when nothing under it is kept. */
function prune(value: unknown, node: KeptNode, atRoot: boolean): unknown {
  if (node.kept) return value;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    value.forEach((item, position) => {
      const child = node.children.get(position);
      const part = child === undefined ? undefined : prune(item, child, false);
      if (part !== undefined) items.push(part);
    });
    if (items.length === 0) return atRoot ? [omittedMarker(value.length)] : undefined;
    // A cut list says so: read as complete, it would say something false (one order where there are two).
    return items.length < value.length ? [...items, omittedMarker(value.length - items.length)] : items;
  }
  if (!isJsonScalar(value)) {
    const entries: [string, unknown][] = [];
    let repeated = false;
    for (const [key, item] of Object.entries(value as object)) {
      const child = node.children.get(key);
      if (child === undefined) continue;
      const part = prune(item, child, false);
      if (part === undefined) continue;
      if (child.repeatsKey) repeated = true;
      else entries.push([key, part]);
    }
    if (repeated) return Object.fromEntries(entries);
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return undefined;
}

/**
 * The last item of a JSON list the compressor cut: `"[… 3 more items]"`, the number of items left out.
 * The kept items come before it in their original order.
 */
export function omittedMarker(omitted: number): string {
  return `[… ${omitted} more item${omitted === 1 ? '' : 's'}]`;
}

function emptyLike(root: JsonContainer): JsonContainer {
  return Array.isArray(root) ? [] : {};
}
