/**
 * Replayable traces without a model: the gold action sequences of tau2-bench's banking_knowledge tasks
 * executed against the domain's own records. Each trace is an OpenAI Chat Completions record: the
 * customer's situation as the user message, then the agent's calls with real results: the knowledge-base
 * documents the task requires, the customer's record (looked up by the name the verification uses), and
 * every gold action of the agent, reads answered with the matching records of db.json, writes with their
 * confirmation. The later gold actions are what the trace says was used. These are gold-action traces,
 * not model traces: the calls are the reference solution's, no model chose them.
 *
 * Tool signatures are not part of the data; a read action (`get_…`) is answered with the records of the
 * table whose fields its arguments name and whose name shares the most words with the tool's.
 *
 * The telecom tasks (tasks_small.json) are built the same way from db.toml, user_db.toml and the
 * tech-support manual; see {@link buildTelecomTrace}.
 *
 * Usage: PAGEWISE_SHARED_DATA=<shared/data> npx tsx bench/replay-traces.ts [--domain banking|telecom]
 *   [--out traces.jsonl] [--limit N]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import { findDataPath } from '../packages/lab/src/util/data-path.js';
import { Agent, InMemorySessionStore, OfflineModel, Runner } from 'pagewise';
import { sessionTrace, type ReplayTrace } from '@pagewise/lab/replay';
import {
  checkAnswer,
  createRetailTools,
  generateRetailTasks,
  loadRetailData,
  RETAIL_INSTRUCTION,
  retailDataAvailable,
  retailDataMissing,
  retailOfflinePolicy,
} from '@pagewise/lab/scenarios/retail';

/** The tau2 banking_knowledge folder, or undefined when the data is absent. */
export function bankingDataDir(): string | undefined {
  const dir = findDataPath('tau2/banking_knowledge');
  return existsSync(path.join(dir, 'tasks.json')) ? dir : undefined;
}

interface GoldAction {
  name: string;
  arguments: Record<string, unknown>;
  requestor?: string;
}

interface BankingTask {
  id: string;
  user_scenario: { instructions: string };
  required_documents?: string[] | null;
  evaluation_criteria?: { actions?: GoldAction[] | null } | null;
}

type Row = Record<string, unknown>;
type Database = Record<string, { data: Record<string, Row> }>;

/** A Chat Completions message, as the trace files hold them. */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One trace record: `{ id, messages, success }`. */
export interface GoldTrace {
  id: string;
  messages: ChatMessage[];
  success: boolean;
}

const words = (name: string): Set<string> =>
  new Set(
    name
      .toLowerCase()
      .split(/[^a-z]+/u)
      .filter((w) => w.length > 2 && !['get', 'all', 'by', 'the'].includes(w))
      .map((w) => w.replace(/s$/u, '')),
  );

/** The records a read action returns: rows whose fields equal every argument, in the best-named table. */
function readRecords(db: Database, tool: string, args: Record<string, unknown>): Row[] {
  const keys = Object.keys(args);
  if (keys.length === 0) return [];
  const toolWords = words(tool);
  let best: { score: number; rows: Row[] } = { score: -1, rows: [] };
  for (const [table, { data }] of Object.entries(db)) {
    const rows = Object.values(data).filter((row) => keys.every((k) => k in row && String(row[k]) === String(args[k])));
    if (rows.length === 0) continue;
    const score = [...words(table)].filter((w) => toolWords.has(w)).length;
    if (score > best.score) best = { score, rows };
  }
  return best.rows;
}

function parseJsonObject(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return {};
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** Builds the gold-action trace of one task. */
export function buildBankingTrace(
  task: BankingTask,
  db: Database,
  documents: ReadonlyMap<string, { title: string; content: string }>,
  system: string,
): GoldTrace {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: task.user_scenario.instructions },
  ];
  let calls = 0;
  const call = (name: string, args: Record<string, unknown>, result: string): void => {
    const id = `call_${task.id}_${++calls}`;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: result });
  };
  for (const docId of task.required_documents ?? []) {
    const doc = documents.get(docId);
    if (doc) call('read_document', { document_id: docId }, `# ${doc.title}\n\n${doc.content}`);
  }
  const actions = (task.evaluation_criteria?.actions ?? []).filter((a) => a.requestor !== 'user');
  const verification = actions.find((a) => a.name === 'log_verification');
  const name = verification?.arguments.name;
  if (typeof name === 'string') {
    const users = Object.values(db.users?.data ?? {}).filter((u) => u.name === name);
    if (users.length > 0) call('get_user_information_by_name', { name }, JSON.stringify(users));
  }
  for (const action of actions) {
    let result: unknown = { status: 'SUCCESS' };
    if (action.name === 'unlock_discoverable_agent_tool') {
      result = { status: 'SUCCESS', unlocked: action.arguments.agent_tool_name };
    } else if (action.name === 'call_discoverable_agent_tool') {
      const tool = String(action.arguments.agent_tool_name ?? '');
      const args = parseJsonObject(action.arguments.arguments);
      result = tool.startsWith('get_') ? readRecords(db, tool, args) : { status: 'SUCCESS', tool, ...args };
    }
    call(action.name, action.arguments, JSON.stringify(result));
  }
  return { id: task.id, messages, success: true };
}

/** The gold-action traces of every banking_knowledge task with an agent action (at most `limit`). */
export function bankingTraces(dir: string, limit = Infinity): GoldTrace[] {
  const tasks = JSON.parse(readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as BankingTask[];
  const db = JSON.parse(readFileSync(path.join(dir, 'db.json'), 'utf8')) as Database;
  const documents = new Map<string, { title: string; content: string }>();
  for (const line of readFileSync(path.join(dir, 'documents.jsonl'), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const doc = JSON.parse(line) as { id: string; title: string; content: string };
    documents.set(doc.id, doc);
  }
  const policy = path.join(dir, 'prompts', 'components', 'policy_header.md');
  const system = existsSync(policy) ? readFileSync(policy, 'utf8') : '';
  return tasks
    .filter((t) => (t.evaluation_criteria?.actions ?? []).some((a) => a.requestor !== 'user'))
    .slice(0, limit)
    .map((t) => buildBankingTrace(t, db, documents, system));
}

/** The tau2 telecom folder, or undefined when the data is absent. */
export function telecomDataDir(): string | undefined {
  const dir = findDataPath('tau2/telecom');
  return existsSync(path.join(dir, 'tasks_small.json')) && existsSync(path.join(dir, 'db.toml')) ? dir : undefined;
}

interface TelecomTask {
  id: string;
  user_scenario: { instructions: { reason_for_call?: string; known_info?: string | null } | string };
  evaluation_criteria?: { actions?: GoldAction[] | null } | null;
}

/** The manual section each task category needs, by a word of its top-level heading. */
const MANUAL_SECTIONS: Readonly<Record<string, string>> = {
  service_issue: 'Cellular Service',
  mobile_data_issue: 'Mobile Data',
  mms_issue: 'MMS',
};

/** The top-level (`# `) sections of a markdown manual, by heading. */
function manualSections(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  let heading: string | undefined;
  let body: string[] = [];
  const flush = (): void => {
    if (heading !== undefined) sections.set(heading, body.join('\n').trim());
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('# ')) {
      flush();
      heading = line.slice(2).trim();
      body = [line];
    } else body.push(line);
  }
  flush();
  return sections;
}

/** The records of any table of `db` whose `*_id` field equals `id`. */
function recordsById(db: Record<string, unknown>, id: string): Row[] {
  const out: Row[] = [];
  for (const table of Object.values(db)) {
    if (!Array.isArray(table)) continue;
    for (const row of table as Row[]) {
      if (Object.entries(row).some(([k, v]) => k.endsWith('_id') && v === id)) out.push(row);
    }
  }
  return out;
}

/**
 * Builds the gold-action trace of one telecom task: the main policy as the system prompt, the customer's
 * reason for calling and what they know as the user message; the customer and line found by the phone
 * number the user gives (with the line's plan), the tech-support manual's section for the task's category,
 * then every gold action. A user-side action (one the customer performs on the phone) follows a read of the
 * device's record in user_db.toml; every action is answered with a confirmation. The task's initialization
 * (the fault it plants on the device) is not simulated: the device record is the domain's default.
 */
export function buildTelecomTrace(
  task: TelecomTask,
  db: Record<string, unknown>,
  device: Row | undefined,
  manual: ReadonlyMap<string, string>,
  system: string,
): GoldTrace {
  const scenario = task.user_scenario.instructions;
  const situation =
    typeof scenario === 'string' ? scenario : [scenario.reason_for_call, scenario.known_info].filter(Boolean).join(' ');
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: situation },
  ];
  let calls = 0;
  const call = (name: string, args: Record<string, unknown>, result: unknown): void => {
    const id = `call_${++calls}`;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    messages.push({
      role: 'tool',
      tool_call_id: id,
      content: typeof result === 'string' ? result : JSON.stringify(result),
    });
  };
  const phone = /\b\d{3}-\d{3}-\d{4}\b/u.exec(situation)?.[0];
  if (phone) {
    const rows = (table: string): Row[] => (Array.isArray(db[table]) ? (db[table] as Row[]) : []);
    const customer = rows('customers').find((c) => c.phone_number === phone);
    if (customer) call('get_customer_by_phone', { phone_number: phone }, customer);
    const line = rows('lines').find((l) => l.phone_number === phone);
    if (line && typeof line.line_id === 'string') {
      call('get_details_by_id', { id: line.line_id }, line);
      if (typeof line.plan_id === 'string')
        call('get_details_by_id', { id: line.plan_id }, recordsById(db, line.plan_id)[0]);
    }
  }
  const category = /^\[([a-z_]+)\]/u.exec(task.id)?.[1];
  const actions = task.evaluation_criteria?.actions ?? [];
  const heading = category ? MANUAL_SECTIONS[category] : undefined;
  const wanted = [...manual.keys()].filter(
    (section) =>
      (heading !== undefined && section.includes(heading)) ||
      (section.startsWith('What the user can do') && actions.some((a) => a.requestor === 'user')),
  );
  for (const section of wanted)
    call('read_document', { document_id: `tech_support_manual#${section}` }, manual.get(section)!);
  let deviceRead = false;
  for (const action of actions) {
    if (action.requestor === 'user' && device && !deviceRead) {
      call('check_device_status', {}, device);
      deviceRead = true;
    }
    const args = action.arguments ?? {};
    const result =
      action.name.startsWith('get_') && typeof args.id === 'string' ? recordsById(db, args.id) : { status: 'SUCCESS' };
    call(action.name, args, result);
  }
  return { id: task.id, messages, success: true };
}

/** The gold-action traces of the telecom tasks in tasks_small.json that have a gold action (at most `limit`). */
export function telecomTraces(dir: string, limit = Infinity): GoldTrace[] {
  const tasks = JSON.parse(readFileSync(path.join(dir, 'tasks_small.json'), 'utf8')) as TelecomTask[];
  const db = parseToml(readFileSync(path.join(dir, 'db.toml'), 'utf8')) as Record<string, unknown>;
  const userDbPath = path.join(dir, 'user_db.toml');
  const device = existsSync(userDbPath)
    ? ((parseToml(readFileSync(userDbPath, 'utf8')) as { device?: Row }).device ?? undefined)
    : undefined;
  const manualPath = path.join(dir, 'tech_support_manual.md');
  const manual = manualSections(existsSync(manualPath) ? readFileSync(manualPath, 'utf8') : '');
  const policy = path.join(dir, 'main_policy.md');
  const system = existsSync(policy) ? readFileSync(policy, 'utf8') : '';
  return tasks
    .filter((t) => (t.evaluation_criteria?.actions ?? []).length > 0)
    .slice(0, limit)
    .map((t) => buildTelecomTrace(t, db, device, manual, system));
}

/**
 * Traces of the project's own runs: `count` generated retail-tool-use tasks (seed 1) run by the offline rules
 * model over the tau-bench retail records, each session as a trace with its outcome (1 when the answer is
 * right) as the reward. Not an LLM's traces: the calls are the rules model's. A string says why there are
 * none (the data is missing).
 */
export async function retailRunTraces(count = 24): Promise<ReplayTrace[] | string> {
  if (!retailDataAvailable()) return retailDataMissing();
  const data = await loadRetailData();
  const traces: ReplayTrace[] = [];
  for (const task of generateRetailTasks(data, { count, seed: 1 })) {
    const runner = new Runner({
      agent: new Agent({ name: 'retail_agent', instruction: RETAIL_INSTRUCTION, tools: createRetailTools(data) }),
      model: new OfflineModel({ policies: [retailOfflinePolicy] }),
      store: new InMemorySessionStore(),
      contextWindow: 0,
      limits: { maxSteps: 60 },
    });
    const result = await runner.run({ userId: 'replay', message: task.prompt });
    traces.push({
      ...sessionTrace(result.session, `retail ${task.id}`),
      reward: checkAnswer(task, result.text) ? 1 : 0,
    });
  }
  return traces;
}

const invokedDirectly = process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]));
if (invokedDirectly) {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, limit: { type: 'string' }, domain: { type: 'string', default: 'banking' } },
  });
  if (values.domain !== 'banking' && values.domain !== 'telecom') {
    console.error(`--domain ${values.domain}: expected banking or telecom.`);
    process.exit(1);
  }
  const dir = values.domain === 'telecom' ? telecomDataDir() : bankingDataDir();
  if (!dir) {
    console.error(
      `tau2/${values.domain === 'telecom' ? 'telecom' : 'banking_knowledge'} not found: set PAGEWISE_SHARED_DATA to the shared data folder.`,
    );
    process.exit(1);
  }
  const limit = values.limit ? Number(values.limit) : Infinity;
  const traces = values.domain === 'telecom' ? telecomTraces(dir, limit) : bankingTraces(dir, limit);
  const text = traces.map((t) => JSON.stringify(t)).join('\n') + '\n';
  if (values.out) {
    writeFileSync(values.out, text);
    console.error(`${traces.length} gold-action traces written to ${values.out}`);
  } else process.stdout.write(text);
}
