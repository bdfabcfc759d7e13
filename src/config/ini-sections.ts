/**
 * INI files the way pytest reads them. pytest parses `pytest.ini`,
 * `tox.ini` and `setup.cfg` with `iniconfig` (not `configparser`), so the
 * overlay's split must see the very sections iniconfig sees, or a line it
 * reads as part of `[pytest]` could stay the head's. What iniconfig does
 * (2.x, pytest 8/9):
 *
 * - the text is read with universal newlines and split with `str.splitlines`,
 *   so `\r`, `\v`, `\f`, `\x1c`-`\x1e`, `\x85`, U+2028 and U+2029 end lines too;
 * - a header is a line whose first character is `[` (an indented `[x]` is a
 *   continuation of the value above) and that ends in `]` once everything
 *   from the first `#` or `;` on is cut; its name is kept as written (case,
 *   inner spaces);
 * - a line starting with whitespace continues the last value, across blank
 *   lines; `#` and `;` start comments only at the start of a line;
 * - a key before any header, a duplicate section or key, a continuation with
 *   nothing to continue, or a line that is neither is an error: pytest then
 *   refuses the file.
 */

import { pushAll } from '../util/arrays.js';

/** Python's `str.isspace()` characters (JavaScript's `\s` differs: it has U+FEFF, lacks \x1c-\x1f and \x85). */
const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING = new RegExp(`^[${PY_SPACE}]+`);
const TRAILING = new RegExp(`[${PY_SPACE}]+$`);
const IS_SPACE = new RegExp(`^[${PY_SPACE}]$`);
/** Line ends as universal newlines plus `str.splitlines` see them (`\r\n` is one). */
const BREAKS = '\\r\\n\\v\\f\\x1c-\\x1e\\x85\\u2028\\u2029';
const LINE = new RegExp(`[^${BREAKS}]*(?:\\r\\n|[${BREAKS}]|$)`, 'gy');
const BREAK_AT_END = new RegExp(`(?:\\r\\n|[${BREAKS}])$`);

const rstrip = (s: string) => s.replace(TRAILING, '');
const strip = (s: string) => s.replace(LEADING, '').replace(TRAILING, '');

export class IniParseError extends Error {
  readonly code = 'INI_PARSE';
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'IniParseError';
  }
}

/** One section as iniconfig reads it, with the exact source lines it spans (line ends included). */
export interface IniSection {
  /** Undefined for the lines before the first header (only blank lines and comments are allowed there). */
  name: string | undefined;
  lines: string[];
  /** 1-based line of the header. */
  line: number;
  values: Map<string, string>;
  /** 1-based line of each key. */
  keyLines: Map<string, number>;
}

/** Source lines with their line ends, as Python splits them. */
export function iniLines(text: string): string[] {
  const out: string[] = [];
  LINE.lastIndex = 0;
  while (LINE.lastIndex < text.length) {
    const m = LINE.exec(text);
    if (!m || m[0] === '') break;
    out.push(m[0]);
  }
  return out;
}

type Parsed =
  | { kind: 'blank' }
  | { kind: 'section'; name: string }
  | { kind: 'value'; name: string; value: string }
  | { kind: 'continuation'; value: string };

function parseLine(raw: string, lineno: number): Parsed {
  const lead = raw.replace(LEADING, '');
  // `''.lstrip()[:1] in "#;"` is true in Python: an all-space line is a comment line too.
  if (lead === '' || lead[0] === '#' || lead[0] === ';') return { kind: 'blank' };
  const line = rstrip(raw);
  if (line === '') return { kind: 'blank' };
  if (line[0] === '[') {
    let cut = line;
    for (const c of '#;') cut = rstrip(cut.split(c)[0] ?? '');
    if (cut.endsWith(']')) return { kind: 'section', name: cut.slice(1, -1) };
    return { kind: 'continuation', value: strip(line) };
  }
  if (IS_SPACE.test(line[0] ?? '')) return { kind: 'continuation', value: strip(line) };
  const eq = line.indexOf('=');
  const colon = line.indexOf(':');
  let cut: number;
  if (eq >= 0 && (colon < 0 || colon > eq)) cut = eq;
  else if (colon >= 0) cut = colon;
  else throw new IniParseError(lineno, `unexpected line: ${JSON.stringify(line)}`);
  return { kind: 'value', name: strip(line.slice(0, cut)), value: strip(line.slice(cut + 1)) };
}

/** The file as iniconfig reads it, section by section; throws IniParseError where iniconfig (and so pytest) refuses it. */
export function parseIni(text: string): IniSection[] {
  const sections: IniSection[] = [
    { name: undefined, lines: [], line: 1, values: new Map(), keyLines: new Map() },
  ];
  const seen = new Set<string>();
  let last: { section: IniSection; key: string } | undefined;
  iniLines(text).forEach((raw, i) => {
    const lineno = i + 1;
    const p = parseLine(raw, lineno);
    let current = sections[sections.length - 1] as IniSection;
    if (p.kind === 'section') {
      if (p.name === '') throw new IniParseError(lineno, 'empty section name');
      if (seen.has(p.name)) throw new IniParseError(lineno, `duplicate section ${JSON.stringify(p.name)}`);
      seen.add(p.name);
      current = { name: p.name, lines: [], line: lineno, values: new Map(), keyLines: new Map() };
      sections.push(current);
      last = undefined;
    } else if (p.kind === 'value') {
      if (current.name === undefined) throw new IniParseError(lineno, 'no section header defined');
      if (current.values.has(p.name))
        throw new IniParseError(lineno, `duplicate name ${JSON.stringify(p.name)}`);
      current.values.set(p.name, p.value);
      current.keyLines.set(p.name, lineno);
      last = { section: current, key: p.name };
    } else if (p.kind === 'continuation') {
      if (!last) throw new IniParseError(lineno, 'unexpected value continuation');
      const before = last.section.values.get(last.key) ?? '';
      last.section.values.set(last.key, before ? `${before}\n${p.value}` : p.value);
    }
    current.lines.push(raw);
  });
  return sections;
}

/** Whether a section name is one of `patterns` (a trailing `*` matches any rest: `coverage:*`). */
export function sectionMatches(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

function sameSections(a: IniSection[], b: IniSection[]): boolean {
  if (a.length !== b.length) return false;
  const byName = new Map(b.map((s) => [s.name, s]));
  return a.every((s) => {
    const t = byName.get(s.name);
    if (!t || t.values.size !== s.values.size) return false;
    for (const [k, v] of s.values) if (t.values.get(k) !== v) return false;
    return true;
  });
}

/** The lines, the last one ended if it was not (the file's last line may lack a line end). */
function ended(lines: string[]): string[] {
  const last = lines[lines.length - 1];
  return last === undefined || BREAK_AT_END.test(last) ? lines : [...lines.slice(0, -1), `${last}\n`];
}

/**
 * The head's file with its test sections replaced by the base's, each
 * section's source lines kept as written. Both texts must parse
 * (IniParseError otherwise). Returns the head's text itself when the test
 * sections read the same on both sides.
 */
export function mergeIniSections(patterns: readonly string[], base: string, head: string): string {
  const isTest = (s: IniSection) => s.name !== undefined && sectionMatches(s.name, patterns);
  const baseTests = parseIni(base).filter(isTest);
  const headSections = parseIni(head);
  if (sameSections(baseTests, headSections.filter(isTest))) return head;
  const out: string[] = [];
  let inserted = false;
  const insert = () => {
    if (inserted) return;
    inserted = true;
    // The line before must end, or the base's header would be glued to it.
    pushAll(out, ended(out.splice(0)));
    for (const s of baseTests) pushAll(out, ended(s.lines));
  };
  for (const s of headSections) {
    // The base's test sections take the place of the head's first one.
    if (isTest(s)) insert();
    else pushAll(out, s.lines);
  }
  if (baseTests.length > 0) insert();
  const merged = out.join('');
  // What pytest will read must be exactly the base's test sections and the head's others.
  const again = parseIni(merged);
  if (
    !sameSections(again.filter(isTest), baseTests) ||
    !sameSections(
      again.filter((s) => !isTest(s)),
      headSections.filter((s) => !isTest(s)),
    )
  )
    throw new Error(
      'internal: the merged INI file does not read as the base test sections and the head rest',
    );
  return merged;
}
