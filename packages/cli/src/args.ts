/**
 * Small helpers over node:util parseArgs shared by the commands: typed options and clear errors.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigurationError } from 'pagewise';

/** Parses `argv` for one command; unknown flags are a ConfigurationError naming the command's help. */
export function parseCommand<const T extends NonNullable<ParseArgsConfig['options']>>(
  command: string,
  argv: string[],
  options: T,
): { values: { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string }; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return parsed as unknown as {
      values: { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string };
      positionals: string[];
    };
  } catch (error) {
    throw new ConfigurationError(
      'bad-arguments',
      `${(error as Error).message}. Run \`pagewise ${command} --help\` for the options.`,
    );
  }
}

/** Reads an integer option, with a clear error naming the flag. */
export function intOption(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new ConfigurationError('bad-arguments', `--${name} must be an integer ≥ ${min}, got "${value}".`);
  return n;
}
