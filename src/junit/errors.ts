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

const CHAR_REF = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/;
const SHOWN_MAX = 24;

/**
 * What is wrong with a character reference the XML parser refused, given the
 * text between `&` and `;`. Runners that escape control characters (bats
 * writes ESC as `&#27;`) produce references XML forbids; saying which one
 * tells the user where the report went wrong.
 */
export function charRefReason(entity: string, xmlVersion: string): string {
  const text = entity.length > SHOWN_MAX ? `${entity.slice(0, SHOWN_MAX)}…` : entity;
  const shown = `&${text.replace(/\n/g, '\\n')};`;
  const m = CHAR_REF.exec(entity);
  if (!m) return `malformed character reference ${shown}: expected &#digits; or &#xhex;`;
  const code = m[1] !== undefined ? Number.parseInt(m[1], 16) : Number.parseInt(m[2]!, 10);
  if (!(code <= 0x10ffff)) return `character reference ${shown} is past U+10FFFF, the last Unicode character`;
  const u = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const reason = `character reference ${shown} (${u}) is not allowed in XML ${xmlVersion}`;
  return code === 0x1b
    ? `${reason} (ESC, as in ANSI colour codes: turn colour output off for the tests)`
    : reason;
}
