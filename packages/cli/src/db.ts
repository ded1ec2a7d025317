/**
 * `pagewise db migrate`: applies the PostgreSQL schema migrations ahead of a deployment, for setups
 * where the app's database role may not run DDL (stores opened with `migrate: false`). Safe to run from
 * several hosts at once: one migrates, the others find nothing to do.
 */
import { openPgDatabase } from '@pagewise/postgres';
import { parseCommand } from './args.js';

/** Help text of `pagewise db`. */
export const DB_HELP = `Usage: pagewise db migrate [options]

  migrate            Apply pending PostgreSQL schema migrations

Options:
  --url <url>        PostgreSQL URL (default: $PAGEWISE_DATABASE_URL)
  --schema <name>    Schema for pagewise's tables, created if absent (default: the server's search_path)
  --json             Machine-readable output
`;

/** Runs `pagewise db <subcommand>`; returns the exit code. */
export async function dbCommand(argv: string[], out: (s: string) => void): Promise<number> {
  const { values, positionals } = parseCommand('db', argv, {
    url: { type: 'string' },
    schema: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  const [sub] = positionals;
  if (values.help || !sub) {
    out(DB_HELP);
    return values.help ? 0 : 1;
  }
  if (sub !== 'migrate') {
    out(`Unknown subcommand "${sub}".\n\n${DB_HELP}`);
    return 1;
  }
  const db = openPgDatabase({
    ...(values.url !== undefined ? { url: values.url } : {}),
    ...(values.schema !== undefined ? { schema: values.schema } : {}),
  });
  try {
    const result = await db.migrate();
    if (values.json) out(JSON.stringify({ database: db.label, schema: db.schema ?? null, ...result }));
    else if (result.applied.length)
      out(
        `Applied migration${result.applied.length > 1 ? 's' : ''} ${result.applied.join(', ')} to ${db.label}; the schema is at version ${result.version}.`,
      );
    else out(`${db.label} is already at schema version ${result.version}; nothing to apply.`);
    return 0;
  } finally {
    await db.close();
  }
}
