/**
 * `pagewise sessions list|show|delete`: inspect the sessions in the SQLite store.
 */
import { existsSync } from 'node:fs';
import { NotFoundError, type SessionEvent } from 'pagewise';
import { SqliteSessionStore, defaultDatabasePath } from '@pagewise/sqlite';
import { parseCommand } from './args.js';
import { commandLine } from './invocation.js';
import { didYouMean } from './suggest.js';

const SUBCOMMANDS = ['list', 'show', 'delete'];

export const SESSIONS_HELP = `Usage: pagewise sessions <list|show|delete> [options]

  list                       List sessions (newest last)
  show <session-id>          Print a session's state and events
  delete <session-id>        Delete a session and its events

Options:
  --db <file>       SQLite database (default: .pagewise/pagewise.db)
  --app <name>      App name (default: pagewise)
  --user <id>       Only this user (list); the session's user (show/delete; default: any)
  --json            Machine-readable output
`;

function describeEvent(e: SessionEvent): string {
  switch (e.kind) {
    case 'user':
      return `user: ${e.text}`;
    case 'model':
      return `${e.author}: ${e.text}${e.toolCalls.map((c) => ` → ${c.toolName}(${JSON.stringify(c.input)})`).join('')}`;
    case 'tool-result':
      return `${e.toolName} ${e.isError ? 'error' : 'result'}: ${e.output}`;
    case 'transfer':
      return `transfer ${e.from} → ${e.to}`;
    case 'escalate':
      return `escalate: ${e.reason}`;
    case 'compaction':
      return `compaction of ${e.fromEventId}..${e.toEventId}: ${e.summary}`;
    case 'error':
      return `${e.scope === 'run' ? 'run failed' : 'compression failed'} (${e.code}): ${e.message}`;
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
      if (values.json) out(JSON.stringify(all, null, 2));
      else if (all.length === 0) out(`No sessions for app "${appName}".`);
      else
        for (const s of all)
          out(
            `${s.sessionId}  user=${s.userId}  events=${s.eventCount}  version=${s.version}  updated=${new Date(s.updatedAt).toISOString()}`,
          );
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
        out(`state: ${JSON.stringify(session.state)}`);
        session.events.forEach((e, i) =>
          out(
            `${String(i).padStart(4)}  ${describeEvent(e)
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
