/**
 * The error of a trace that cannot be read: it names the file, the line (JSONL) or record, and the field,
 * so the user can fix the export rather than guess.
 */
import { ConfigurationError } from 'pagewise';

/** A trace file or record that is not in a format `pagewise replay` reads, or is malformed in one it does. */
export class TraceFormatError extends ConfigurationError {
  /** Where the problem is: `file`, `file:line` or `file#record`, then the field path when known. */
  readonly location: string;

  constructor(location: string, message: string) {
    super('invalid-trace', `${location}: ${message}`);
    this.name = 'TraceFormatError';
    this.location = location;
  }
}
