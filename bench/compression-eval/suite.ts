/**
 * The multi-domain compression suite: every set as items of one shape (a text, the query it is
 * compressed for, a grader and a unit labeller), each item in a tuning or a test split, so the learned
 * scorer can be fitted on the tuning items of some domains and measured on the test items of another.
 *
 * Sets and their domains (leave-one-domain-out holds out a whole domain):
 * - `hotpotqa`: HotpotQA dev paragraphs; evidence the supporting sentences. Tuning: the first
 *   {@link TUNING_SPLIT}.hotpotQuestions questions (those the hand-set weights were tuned on).
 * - `tatqa`: TAT-QA dev pages, table as markdown and one cell per line; evidence as {@link evidenceOf}
 *   grades it, less the items the whole page does not satisfy. Tuning: the first {@link TUNING_SPLIT}.tatqaContexts contexts.
 * - `report`: the project's report pages in English and Japanese; split by hashed page id.
 * - `chat`: generated multi-session chats written as a `User:`/`Assistant:` transcript, compressed for the
 *   question; evidence the fact sentences. Tuning: seeds 101–103; test: seeds 201–205.
 * - `banking`: tau2 banking_knowledge. Documents: each required document of a task is an observation,
 *   the query the task's instructions; evidence the gold actions' values (tool names and string or
 *   numeric arguments) that the document holds, each satisfied when a sentence of the document holding it
 *   is kept whole. Documents holding no such value are left out (nothing to grade). Records: per task, the
 *   user its gold actions name and every record of theirs in db.json, as one JSON observation; evidence the
 *   gold values present as leaves.
 * - `telecom`: tau2 telecom tech_support_manual.md and main_policy.md cut into pages at `## ` headings; per
 *   task of tasks_small.json and page, evidence the gold action names and string arguments the page holds
 *   (as sentences kept whole), query the customer's reason for calling.
 * - `retail`: tau-bench retail records (user, orders, products) as the retail tools return them, for
 *   generated retail tasks; evidence the gold answer's values present in each record (cents as dollars) and
 *   the amounts it is computed from (item prices of a stated item total, payments of a summed spend).
 *
 * - `filings` (only when asked for: reading the PDFs the first time takes minutes): pages of real 10-Q filings
 *   holding a question's answer; evidence each answer figure with its row label (bench/compression-eval/filings.ts).
 *
 * New sets are split by a hash of the task (FNV-1a of its id, mod 10 below {@link TUNE_SHARE_TENTHS}:
 * tuning), so all observations of one task fall on the same side. JSON observations are written
 * pretty-printed with two spaces, as many APIs return them; the minify + head baseline gets the same
 * whitespace saving the compressor gets.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { splitSentences } from '../../packages/pagewise/src/text/sentences.js';
import {
  generateRetailTasks,
  loadRetailData,
  type RetailData,
  type RetailOrder,
  type RetailTask,
} from '@pagewise/lab/scenarios/retail';
import type { ModelMessage } from 'ai';
import { generateChat } from './chats.js';
import { filingItems } from './filings.js';
import {
  generateLongChat,
  holdsValue,
  LONG_CHAT_DOMAINS,
  LONG_CHAT_SEEDS,
  messageText,
  type LongChatDomain,
} from './long-chats.js';
import {
  hotpotEvidence,
  hotpotObservation,
  loadHotpot,
  loadTatQa,
  sharedDataDir,
  sharedFile,
  TUNING_SPLIT,
} from './data.js';
import { keepsEvidence, loadReportPages } from './report-pages.js';
import { evidenceOf, questionRecall, renderTatPage } from './tatqa.js';

/** Which side of the split an item is on. */
export type Split = 'tune' | 'test';

/** One observation to compress, with what grades the output and what labels its units. */
export interface SuiteItem {
  set: string;
  domain: string;
  id: string;
  split: Split;
  text: string;
  query: string;
  /** JSON observation (baselines: minify + head, random lines of the pretty form). */
  json: boolean;
  /** A chat transcript (baseline: last turns). */
  chat: boolean;
  /** Evidence items the output is graded on. */
  evidenceCount: number;
  /** Evidence items kept by `output` (0..evidenceCount). */
  kept(output: string): number;
  /** Whether a unit of the input (a sentence, line, row or JSON value as written) holds evidence. */
  holds(unitText: string): boolean;
  /**
   * JSON records: the evidence items that are short scalar values ({@link isShortValue}), graded apart as
   * the set's "short values" row; absent when the item has none.
   */
  short?: { count: number; kept(output: string): number };
}

/** Tenths of each hashed set that are tuning items. */
export const TUNE_SHARE_TENTHS = 4;

/** FNV-1a, 32 bits: a stable hash of an id for the split. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The split of a task id by its hash. */
export function hashedSplit(id: string): Split {
  return fnv1a(id) % 10 < TUNE_SHARE_TENTHS ? 'tune' : 'test';
}

/** A value written as the output would show it: a JSON string literal, or a number as written. */
function needleOf(value: string | number): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

/** Whether `text` holds `needle` not inside a longer number or word. */
function holdsBounded(text: string, needle: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}.])${escape(needle)}(?![\\p{L}\\p{N}]|\\.\\d)`, 'u').test(text);
}

/** The scalar values of gold tool-call arguments (nested JSON strings parsed), booleans and blanks left out. */
export function goldValues(value: unknown, into: (string | number)[] = []): (string | number)[] {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        return goldValues(JSON.parse(trimmed), into);
      } catch {
        // Not JSON: the string itself.
      }
    }
    if (trimmed.length >= 2) into.push(trimmed);
  } else if (typeof value === 'number') into.push(value);
  else if (Array.isArray(value)) for (const element of value) goldValues(element, into);
  else if (typeof value === 'object' && value !== null)
    for (const fieldValue of Object.values(value)) goldValues(fieldValue, into);
  return into;
}

/**
 * A prose item graded by sentences: per value, the sentences (of the text's lines) holding it; a value
 * counts as kept when the output keeps one of them whole.
 */
function sentenceItem(
  base: Omit<SuiteItem, 'evidenceCount' | 'kept' | 'holds' | 'json' | 'chat'>,
  values: readonly string[],
): SuiteItem | undefined {
  const sentences = base.text
    .split('\n')
    .flatMap((line) => splitSentences(line))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const lowered = values.map((v) => v.toLowerCase());
  const groups = lowered
    .map((v) => sentences.filter((s) => s.toLowerCase().includes(v)))
    .filter((group) => group.length > 0);
  if (groups.length === 0) return undefined;
  return {
    ...base,
    json: false,
    chat: false,
    evidenceCount: groups.length,
    kept: (output) => groups.filter((group) => group.some((s) => output.includes(s))).length,
    holds: (unit) => {
      const lower = unit.toLowerCase();
      return lowered.some((v) => lower.includes(v));
    },
  };
}

/** Longest string value, in characters, that counts as a short value (a code, an id, a date). */
export const SHORT_VALUE_CHARS = 20;

/**
 * Whether a gold value is a short scalar: a number (an amount, a count), or a string of at most
 * {@link SHORT_VALUE_CHARS} characters without whitespace (a 3-letter code, an id, a date, a phone number).
 * These cost a record a few tokens each, so a compressor has no excuse to lose them to a head cut.
 */
export function isShortValue(value: string | number): boolean {
  return typeof value === 'number' || (value.length <= SHORT_VALUE_CHARS && !/\s/u.test(value));
}

/** A JSON item graded by values: each gold value present as a leaf, kept when the output holds it. */
function jsonItem(
  base: Omit<SuiteItem, 'evidenceCount' | 'kept' | 'holds' | 'json' | 'chat' | 'text'>,
  record: unknown,
  values: readonly (string | number)[],
): SuiteItem | undefined {
  const compact = JSON.stringify(record);
  const needles = [...new Set(values.map(needleOf))].filter((n) => holdsBounded(compact, n));
  if (needles.length === 0) return undefined;
  const shortNeedles = [...new Set(values.filter(isShortValue).map(needleOf))].filter((n) => needles.includes(n));
  return {
    ...base,
    text: JSON.stringify(record, null, 2),
    json: true,
    chat: false,
    evidenceCount: needles.length,
    kept: (output) => needles.filter((n) => holdsBounded(output, n)).length,
    holds: (unit) => needles.some((n) => holdsBounded(unit, n)),
    ...(shortNeedles.length > 0
      ? {
          short: {
            count: shortNeedles.length,
            kept: (output: string) => shortNeedles.filter((n) => holdsBounded(output, n)).length,
          },
        }
      : {}),
  };
}

function readJson(relative: string): unknown {
  return JSON.parse(readFileSync(path.join(sharedDataDir(), relative), 'utf8'));
}

// ---------------------------------------------------------------------------------------------
// Sets

/** HotpotQA dev: the ten paragraphs, evidence the supporting sentences. */
export function hotpotItems(): SuiteItem[] {
  const file = sharedFile('hotpotqa/dev.jsonl');
  if (!('path' in file)) return [];
  return loadHotpot(file.path).map((example, index) => {
    const evidence = hotpotEvidence(example);
    return {
      set: 'HotpotQA',
      domain: 'hotpotqa',
      id: example._id,
      split: index < TUNING_SPLIT.hotpotQuestions ? 'tune' : 'test',
      text: hotpotObservation(example),
      query: example.question,
      json: false,
      chat: false,
      evidenceCount: evidence.length,
      kept: (output) => evidence.filter((s) => output.includes(s)).length,
      holds: (unit) => evidence.some((s) => unit.includes(s) || s.includes(unit.trim())),
    };
  });
}

/** TAT-QA dev pages in both table forms, graded as {@link questionRecall} grades them. */
export function tatqaItems(): SuiteItem[] {
  const file = sharedFile('tatqa/dev.json');
  if (!('path' in file)) return [];
  const items: SuiteItem[] = [];
  loadTatQa(file.path).forEach((context, ci) => {
    for (const form of ['markdown', 'cells'] as const) {
      const page = renderTatPage(context, form);
      for (const question of context.questions) {
        // Items the page itself does not satisfy (a derivation's constant, a rounded figure) no output can
        // keep: left out, so each set's ceiling is 1.
        const evidence = evidenceOf(context, question).filter(
          (alternatives) => questionRecall(page, page.text, [alternatives]) === 1,
        );
        if (evidence.length === 0) continue;
        // Unit labels: a unit holding an evidence cell (with its row label, as the grader asks), a span or a number.
        const needles = evidence.flat().map((alternative) =>
          alternative.kind === 'text'
            ? { all: [alternative.text.toLowerCase()] }
            : alternative.kind === 'number'
              ? { all: [String(alternative.value)] }
              : {
                  all: [
                    (
                      page.rows[alternative.row]?.cells.find((c) => c.col === alternative.col)?.text ?? ''
                    ).toLowerCase(),
                    ...(form === 'markdown' ? [alternative.label.toLowerCase()] : []),
                  ],
                },
        );
        items.push({
          set: `TAT-QA (${form === 'markdown' ? 'markdown' : 'cell per line'})`,
          domain: 'tatqa',
          id: `${question.uid}-${form}`,
          split: ci < TUNING_SPLIT.tatqaContexts ? 'tune' : 'test',
          text: page.text,
          query: question.question,
          json: false,
          chat: false,
          evidenceCount: evidence.length,
          kept: (output) => (questionRecall(page, output, evidence) ?? 0) * evidence.length,
          holds: (unit) => {
            const lower = unit.toLowerCase();
            return needles.some((n) => n.all.every((s) => s !== '' && lower.includes(s)));
          },
        });
      }
    }
  });
  return items;
}

/** The project's report pages, English and Japanese. */
export function reportItems(): SuiteItem[] {
  return loadReportPages().flatMap((page) =>
    (['en', 'ja'] as const).flatMap((lang) =>
      page[lang].questions.map((question, qi) => ({
        set: `Report pages (${lang === 'en' ? 'English' : 'Japanese'})`,
        domain: 'report',
        id: `${page.id}-${lang}-${qi}`,
        split: hashedSplit(page.id),
        text: page[lang].text,
        query: question.question,
        json: false,
        chat: false,
        evidenceCount: question.evidence.length,
        kept: (output: string) => question.evidence.filter((e) => keepsEvidence(output, e)).length,
        holds: (unit: string) =>
          question.evidence.some((item) =>
            'sentence' in item ? unit.includes(item.sentence) : unit.includes(item.row) && unit.includes(item.value),
          ),
      })),
    ),
  );
}

/** Chat seeds of the tuning and the test split. */
export const CHAT_SEEDS = { tune: [101, 102, 103], test: [201, 202, 203, 204, 205] } as const;

/** Generated chats as a transcript, one question at a time. */
export function chatItems(): SuiteItem[] {
  const items: SuiteItem[] = [];
  for (const split of ['tune', 'test'] as const) {
    for (const seed of CHAT_SEEDS[split]) {
      const chat = generateChat(seed);
      const transcript = chat.messages
        .map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${typeof m.content === 'string' ? m.content : ''}`)
        .join('\n');
      chat.questions.forEach((question, qi) =>
        items.push({
          set: 'Generated chats (transcript)',
          domain: 'chat',
          id: `chat-${seed}-${qi}`,
          split,
          text: transcript,
          query: question.question,
          json: false,
          chat: true,
          evidenceCount: question.evidence.length,
          kept: (output) => question.evidence.filter((s) => output.includes(s)).length,
          holds: (unit) =>
            question.evidence.some((s) => unit.includes(s) || s.includes(unit.replace(/^\w+: /u, '').trim())),
        }),
      );
    }
  }
  return items;
}

/** The name of the long-chat set; the ratio is added to it per row. */
export const LONG_CHAT_SET = 'Generated long chats, question-agnostic';

/**
 * A long chat compressed as a whole history with no question known (`compressMessages` with the user's current
 * message as the task), graded on the latest value of every fact asked about later.
 */
export interface LongChatItem {
  set: string;
  domain: LongChatDomain;
  id: string;
  split: Split;
  messages: ModelMessage[];
  /** The user's current message: the task of the history compressor, not a later question. */
  task: string;
  /** The later questions, for reading the results; never given to the compressor. */
  questions: string[];
  /** The latest value of each asked fact; an earlier value of a superseded fact does not count. */
  evidence: string[];
  evidenceCount: number;
  /** Evidence values `output` holds, each as a whole word or number. */
  kept(output: string): number;
}

/**
 * The generated long chats (bench/compression-eval/long-chats.ts), one per style and seed: tuning seeds
 * {@link LONG_CHAT_SEEDS}.tune, test seeds {@link LONG_CHAT_SEEDS}.test; the domain is the chat's style, so a
 * style can be held out whole.
 */
export function longChatItems(): LongChatItem[] {
  const items: LongChatItem[] = [];
  for (const split of ['tune', 'test'] as const) {
    for (const seed of LONG_CHAT_SEEDS[split]) {
      for (const domain of LONG_CHAT_DOMAINS) {
        const chat = generateLongChat(domain, seed);
        const asked = chat.facts.filter((fact) => fact.asked);
        const evidence = asked.map((fact) => fact.values[fact.values.length - 1] ?? '');
        items.push({
          set: LONG_CHAT_SET,
          domain,
          id: `long-${domain}-${seed}`,
          split,
          messages: chat.messages,
          task: messageText(chat.messages[chat.messages.length - 1]!),
          questions: asked.map((fact) => fact.question),
          evidence,
          evidenceCount: evidence.length,
          kept: (output) => evidence.filter((value) => holdsValue(output, value)).length,
        });
      }
    }
  }
  return items;
}

/** The name of the long-chat set compressed for each later question in turn. */
export const LONG_CHAT_QUESTION_SET = 'Generated long chats, question-aware';

/**
 * The long chats once per later question, the question as the task (as when history is compressed while the
 * question is asked): graded on that question's value alone. A guard for the question-agnostic ranking, which
 * must not bury what the question names.
 */
export function longChatQuestionItems(chats: readonly LongChatItem[] = longChatItems()): LongChatItem[] {
  return chats.flatMap((chat) =>
    chat.questions.map((question, index) => {
      const value = chat.evidence[index] ?? '';
      return {
        ...chat,
        set: LONG_CHAT_QUESTION_SET,
        id: `${chat.id}-q${index}`,
        task: question,
        questions: [question],
        evidence: [value],
        evidenceCount: 1,
        kept: (output: string) => (holdsValue(output, value) ? 1 : 0),
      };
    }),
  );
}

interface Tau2Task {
  id: string;
  user_scenario: { instructions: unknown };
  required_documents?: string[] | null;
  evaluation_criteria?: { actions?: { name: string; arguments: unknown }[] | null } | null;
}

function actionValues(task: Tau2Task): (string | number)[] {
  const actions = task.evaluation_criteria?.actions ?? [];
  return [...new Set(actions.flatMap((a) => [a.name, ...goldValues(a.arguments)]))];
}

/** tau2 banking_knowledge: the required documents of each task, and the records of the user it names. */
export function bankingItems(): SuiteItem[] {
  if (!('path' in sharedFile('tau2/banking_knowledge/tasks.json'))) return [];
  const tasks = readJson('tau2/banking_knowledge/tasks.json') as Tau2Task[];
  const documents = new Map(
    readFileSync(path.join(sharedDataDir(), 'tau2/banking_knowledge/documents.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { id: string; title: string; content: string })
      .map((d) => [d.id, d] as const),
  );
  const db = readJson('tau2/banking_knowledge/db.json') as Record<string, { data: Record<string, unknown> }>;
  const users = db.users?.data ?? {};
  const items: SuiteItem[] = [];
  for (const task of tasks) {
    const query = String(task.user_scenario.instructions);
    const values = actionValues(task);
    const split = hashedSplit(`banking-${task.id}`);
    const strings = values.filter((v): v is string => typeof v === 'string' && v.length >= 3);
    for (const docId of task.required_documents ?? []) {
      const doc = documents.get(docId);
      if (!doc) continue;
      const item = sentenceItem(
        {
          set: 'tau2 banking documents',
          domain: 'banking',
          id: `${task.id}-${docId}`,
          split,
          text: `# ${doc.title}\n\n${doc.content}`,
          query,
        },
        strings,
      );
      if (item) items.push(item);
    }
    // The user the gold actions name, with every record of theirs.
    const userId = values.find((v): v is string => typeof v === 'string' && v in users);
    if (userId === undefined) continue;
    const record: Record<string, unknown> = { user: users[userId] };
    for (const [table, { data }] of Object.entries(db)) {
      if (table === 'users') continue;
      const rows = Object.values(data).filter(
        (row) => typeof row === 'object' && row !== null && (row as { user_id?: unknown }).user_id === userId,
      );
      if (rows.length > 0) record[table] = rows;
    }
    const item = jsonItem(
      { set: 'tau2 banking records', domain: 'banking', id: `${task.id}-records`, split, query },
      record,
      values,
    );
    if (item) items.push(item);
  }
  return items;
}

/** Pages of a markdown manual: cut before each `## ` heading, the title line kept with each page. */
export function manualPages(text: string): string[] {
  const pages: string[] = [];
  let current: string[] = [];
  for (const line of text.split('\n')) {
    if (/^## /u.test(line) && current.some((l) => l.trim() !== '')) {
      pages.push(current.join('\n').trim());
      current = [];
    }
    current.push(line);
  }
  if (current.some((l) => l.trim() !== '')) pages.push(current.join('\n').trim());
  return pages;
}

/** tau2 telecom: manual pages against the gold actions of tasks_small.json. */
export function telecomItems(): SuiteItem[] {
  if (!('path' in sharedFile('tau2/telecom/tasks_small.json'))) return [];
  const tasks = readJson('tau2/telecom/tasks_small.json') as Tau2Task[];
  const pages = ['tech_support_manual.md', 'main_policy.md'].flatMap((file) =>
    manualPages(readFileSync(path.join(sharedDataDir(), 'tau2/telecom', file), 'utf8')).map((text, index) => ({
      id: `${file}#${index}`,
      text,
    })),
  );
  const items: SuiteItem[] = [];
  for (const task of tasks) {
    const instructions = task.user_scenario.instructions as { reason_for_call?: string; known_info?: string };
    const query = [instructions.reason_for_call, instructions.known_info].filter(Boolean).join('\n');
    const values = actionValues(task).filter((v): v is string => typeof v === 'string' && v.length >= 3);
    for (const page of pages) {
      const item = sentenceItem(
        {
          set: 'tau2 telecom manuals',
          domain: 'telecom',
          id: `${task.id}-${page.id}`,
          split: hashedSplit(`telecom-${task.id}`),
          text: page.text,
          query,
        },
        values,
      );
      if (item) items.push(item);
    }
  }
  return items;
}

/** Retail tasks drawn for the suite. */
export const RETAIL_TASKS = { count: 48, seed: 7 } as const;

/**
 * The amounts a retail gold answer is computed from, in dollars as the records write them: a stated item
 * total is the sum of its order's item prices, a spend the sum of its orders' payments less refunds. A
 * compressor that keeps the total's order but not its prices leaves the agent nothing to add up.
 */
export function retailOperands(task: RetailTask, data: RetailData): number[] {
  const order = (id: string): RetailOrder | undefined => data.orders.get(id);
  const payments = (record: RetailOrder | undefined): number[] =>
    (record?.payment_history ?? [])
      .filter((t) => t.transaction_type === 'payment' || t.transaction_type === 'refund')
      .map((t) => t.amount);
  const gold = task.gold;
  switch (gold.template) {
    case 'delivered-product-spend':
      return gold.orderIds.flatMap((id) => payments(order(id)));
    case 'modifiable-pending-orders':
      return gold.modifiable.flatMap((m) => (order(m.orderId)?.items ?? []).map((i) => i.price));
    case 'most-expensive-item':
      return [];
    case 'delivered-spend-comparison':
      return task.customers.flatMap((customer) =>
        (data.users.get(customer.userId)?.orders ?? [])
          .map(order)
          .filter((o) => o?.status === 'delivered')
          .flatMap(payments),
      );
  }
}

/**
 * tau-bench retail: the user, order and product records of generated tasks, against the gold answer's values
 * and the amounts it is computed from ({@link retailOperands}).
 */
export async function retailItems(): Promise<SuiteItem[]> {
  if (!('path' in sharedFile('tau-retail/users.json'))) return [];
  const data: RetailData = await loadRetailData(path.join(sharedDataDir(), 'tau-retail'));
  const tasks = generateRetailTasks(data, RETAIL_TASKS);
  const items: SuiteItem[] = [];
  for (const task of tasks) {
    const values: (string | number)[] = [];
    const walk = (value: unknown, key: string | undefined): void => {
      if (typeof value === 'number') values.push(key?.endsWith('Cents') ? Math.round(value) / 100 : value);
      else if (typeof value === 'string' && key !== 'template') values.push(value);
      else if (Array.isArray(value)) for (const element of value) walk(element, key);
      else if (typeof value === 'object' && value !== null)
        for (const [field, fieldValue] of Object.entries(value)) walk(fieldValue, field);
    };
    walk(task.gold, undefined);
    values.push(...retailOperands(task, data));
    const split = hashedSplit(task.id);
    const observations: [string, unknown][] = [];
    for (const customer of task.customers) {
      const user = data.users.get(customer.userId);
      if (!user) continue;
      observations.push([`user-${customer.userId}`, user]);
      for (const orderId of user.orders) {
        const order = data.orders.get(orderId);
        if (order) observations.push([`order-${orderId}`, order]);
      }
    }
    if (task.productName) {
      const product = [...data.products.values()].find((p) => p.name === task.productName);
      if (product) observations.push([`product-${product.product_id}`, product]);
    }
    for (const [id, record] of observations) {
      const item = jsonItem(
        { set: 'tau-retail records', domain: 'retail', id: `${task.id}-${id}`, split, query: task.prompt },
        record,
        values,
      );
      if (item) items.push(item);
    }
  }
  return items;
}

/** Every set of the suite whose data is present. */
export async function suiteItems(options: { filings?: boolean } = {}): Promise<SuiteItem[]> {
  return [
    ...hotpotItems(),
    ...tatqaItems(),
    ...reportItems(),
    ...chatItems(),
    ...bankingItems(),
    ...telecomItems(),
    ...(await retailItems()),
    ...(options.filings ? await filingItems() : []),
  ];
}
