/**
 * `pagewise sessions list|show|delete`: inspect the sessions in the SQLite store.
 */
import { existsSync } from 'node:fs';
import { NotFoundError, type JsonValue, type Session, type SessionEvent, type SessionSummary } from 'pagewise';
import { SqliteSessionStore, defaultDatabasePath } from '@pagewise/sqlite';
import { parseCommand } from './args.js';
import { commandLine } from './invocation.js';
import { didYouMean } from './suggest.js';

const SUBCOMMANDS = ['list', 'show', 'delete'];

export const SESSIONS_HELP = `Usage: pagewise sessions <list|show|delete> [options]

  list                       List sessions (oldest first): id, user, created and updated times,
                             events, model calls, tokens, agents and the first message
  show <session-id>          Print a session's state (one key a line, long values cut) and events
  delete <session-id>        Delete a session and its events

Options:
  --db <file>       SQLite database (default: .pagewise/pagewise.db)
  --app <name>      App name (default: pagewise)
  --user <id>       Only this user (list); the session's user (show/delete; default: any)
  --raw             show: print the state as its whole JSON, nothing cut
  --json            Machine-readable output
`;

/** Characters of a state value `sessions show` prints before it cuts the rest (`--raw` prints all). */
const STATE_VALUE_CHARS = 160;
/** Characters of the first message `sessions list` shows. */
const PREVIEW_CHARS = 60;

/** What `sessions list` adds to a store's summary of a session, read from its events. */
interface SessionFacts {
  /** Model responses recorded. */
  modelCalls: number;
  /** Prompt and completion tokens of those responses, as the ledger counted them. */
  promptTokens: number;
  completionTokens: number;
  /** The agents that answered, in order of first appearance. */
  agents: string[];
  /** The first user message, cut to a preview. */
  firstMessage: string;
}

function factsOf(session: Session): SessionFacts {
  const facts: SessionFacts = { modelCalls: 0, promptTokens: 0, completionTokens: 0, agents: [], firstMessage: '' };
  for (const event of session.events) {
    if (event.kind === 'user' && facts.firstMessage === '') facts.firstMessage = oneLine(event.text, PREVIEW_CHARS);
    if (event.kind !== 'model') continue;
    facts.modelCalls += 1;
    facts.promptTokens += event.usage?.promptTokens ?? 0;
    facts.completionTokens += event.usage?.completionTokens ?? 0;
    if (!facts.agents.includes(event.author)) facts.agents.push(event.author);
  }
  return facts;
}

/** A text on one line (line breaks as ⏎), cut to `max` characters with an ellipsis. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A time as `2026-12-04 03:33:34` (UTC), short enough for a column. */
function when(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** The sessions as a table with a header; the last column (the first message) is not padded. */
function sessionsTable(rows: readonly (SessionSummary & SessionFacts)[]): string[] {
  const header = [
    'session',
    'user',
    'created (UTC)',
    'updated (UTC)',
    'events',
    'calls',
    'tokens',
    'agents',
    'first message',
  ];
  const cells = rows.map((row) => [
    row.sessionId,
    row.userId,
    when(row.createdAt),
    when(row.updatedAt),
    row.eventCount.toLocaleString('en-US'),
    row.modelCalls.toLocaleString('en-US'),
    (row.promptTokens + row.completionTokens).toLocaleString('en-US'),
    row.agents.join(',') || '-',
    row.firstMessage,
  ]);
  const numeric = new Set([4, 5, 6]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => cell[column]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((value, column) =>
        column === values.length - 1
          ? value
          : numeric.has(column)
            ? value.padStart(widths[column]!)
            : value.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)];
}

/**
 * A session's state, one key a line in key order, each value as JSON cut to {@link STATE_VALUE_CHARS} characters
 * with how much was left out; a state of several kilobytes on one line is unreadable in a terminal.
 */
function stateLines(state: Record<string, JsonValue>): string[] {
  const keys = Object.keys(state).sort();
  if (keys.length === 0) return ['state: (empty)'];
  const lines = [`state (${keys.length} ${keys.length === 1 ? 'key' : 'keys'}; --raw prints it whole):`];
  for (const key of keys) {
    const text = JSON.stringify(state[key]);
    const left = text.length - STATE_VALUE_CHARS;
    lines.push(
      `  ${key}: ${left > 0 ? `${text.slice(0, STATE_VALUE_CHARS)}… (${left.toLocaleString('en-US')} more chars)` : text}`,
    );
  }
  return lines;
}

function describeEvent(event: SessionEvent): string {
  switch (event.kind) {
    case 'user':
      return `user: ${event.text}`;
    case 'model':
      return `${event.author}: ${event.text}${event.toolCalls.map((c) => ` → ${c.toolName}(${JSON.stringify(c.input)})`).join('')}`;
    case 'tool-result':
      return `${event.toolName} ${event.isError ? 'error' : 'result'}: ${event.output}`;
    case 'transfer':
      return `transfer ${event.from} → ${event.to}`;
    case 'escalate':
      return `escalate: ${event.reason}`;
    case 'compaction':
      return `compaction of ${event.fromEventId}..${event.toEventId}: ${event.summary}`;
    case 'error':
      return `${event.scope === 'run' ? 'run failed' : 'compression failed'} (${event.code}): ${event.message}`;
  }
}

/** Runs the sessions command. */
export async function sessionsCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  const { values, positionals } = parseCommand('sessions', argv, {
    db: { type: 'string' },
    app: { type: 'string' },
    user: { type: 'string' },
    raw: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  const [sub, id] = positionals;
  if (values.help || !sub) {
    out(SESSIONS_HELP);
    return values.help ? 0 : 1;
  }
  if (!SUBCOMMANDS.includes(sub)) {
    err(`Unknown subcommand "${sub}".${didYouMean(sub, SUBCOMMANDS)}\n\n${SESSIONS_HELP}`);
    return 1;
  }
  const file = values.db ?? defaultDatabasePath();
  // Reading sessions must not create a database (or its folder) where there was none.
  if (!existsSync(file)) throw new NotFoundError('Database', file, 'Pass the --db that analyze used.');
  const store = new SqliteSessionStore({ path: file });
  const appName = values.app ?? 'pagewise';
  try {
    const all = await store.listSessions({ appName, ...(values.user ? { userId: values.user } : {}) });
    if (sub === 'list') {
      const rows: (SessionSummary & SessionFacts)[] = [];
      for (const summary of all) {
        const session = await store.getSession(summary);
        if (session) rows.push({ ...summary, ...factsOf(session) });
      }
      if (values.json) out(JSON.stringify(rows, null, 2));
      else if (rows.length === 0) out(`No sessions for app "${appName}".`);
      else for (const line of sessionsTable(rows)) out(line);
      return 0;
    }
    if (!id) {
      err(`pagewise sessions ${sub} needs a session id. Run \`${commandLine(['sessions', 'list'])}\` to see them.`);
      return 1;
    }
    const found = all.find((s) => s.sessionId === id);
    if (!found)
      throw new NotFoundError(
        'Session',
        id,
        `Run \`${commandLine(['sessions', 'list', '--app', appName])}\` to see the sessions.`,
      );
    if (sub === 'show') {
      const session = (await store.getSession(found))!;
      if (values.json) out(JSON.stringify(session, null, 2));
      else {
        out(`session ${session.sessionId} (user ${session.userId}, version ${session.version})`);
        if (values.raw) out(`state: ${JSON.stringify(session.state, null, 2)}`);
        else for (const line of stateLines(session.state)) out(line);
        session.events.forEach((event, index) =>
          out(
            `${String(index).padStart(4)}  ${describeEvent(event)
              .replace(/\s*\n\s*/g, ' ⏎ ')
              .slice(0, 300)}`,
          ),
        );
      }
      return 0;
    }
    if (sub === 'delete') {
      await store.deleteSession(found);
      out(`Deleted session ${id}.`);
      return 0;
    }
    out(`Unknown subcommand "${sub}".\n\n${SESSIONS_HELP}`);
    return 1;
  } finally {
    await store.close();
  }
}
