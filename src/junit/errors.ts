import { InputError } from '../errors.js';

/**
 * A report that is not well-formed XML, not JUnit, or not safe to read. The
 * message starts with `file:line:column` (1-based column, counted in Unicode
 * characters) so editors and CI logs can jump to it. A report the runner wrote
 * badly is the user's to fix, hence an input error; the gate never treats it
 * as a pass.
 */
export class JUnitParseError extends InputError {
  readonly file: string | undefined;
  readonly line: number;
  readonly column: number;
  /** The message without its location prefix. */
  readonly reason: string;

  constructor(reason: string, where: { file?: string | undefined; line: number; column: number }) {
    const file = where.file;
    super('JUNIT_INVALID', `${file ?? '<stream>'}:${where.line}:${where.column}: ${reason}`, {
      file,
      line: where.line,
      column: where.column,
      reason,
    });
    this.file = file;
    this.line = where.line;
    this.column = where.column;
    this.reason = reason;
  }
}
