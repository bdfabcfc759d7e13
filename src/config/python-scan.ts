/**
 * A Python source read just far enough to tell code from comments and
 * string literals: init looks for `session.run("pytest", …)` in a noxfile
 * and for file names in test modules, and neither may match a comment or a
 * call shown in a docstring. Python's own tokenizer (ast) would need an
 * interpreter; this scan knows the lexical rules that matter here: `#`
 * comments, string prefixes (r, b, u, f and their pairs), single- and
 * triple-quoted strings, backslash escapes and implicit line joins.
 */

export interface PyString {
  /** The literal's value: escapes resolved for non-raw strings, an f-string's fields kept as written. */
  value: string;
  /** Offsets of the whole literal (prefix and quotes included) in the source. */
  start: number;
  end: number;
}

export interface PyScan {
  /**
   * The source with every comment and string literal blanked to spaces
   * (newlines kept), so offsets and line numbers still match the source and
   * a pattern matched against it can only match code.
   */
  code: string;
  /** Every string literal, in source order. */
  strings: PyString[];
}

const PREFIX = /^(?:[rRbBuUfF]|[rR][bBfF]|[bBfF][rR])$/;
const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '0': '\0',
};

function resolveEscapes(body: string): string {
  return body.replace(/\\(.)/gs, (m, c: string) => ESCAPES[c] ?? (c === '\n' ? '' : m));
}

function blank(s: string): string {
  return s.replace(/[^\n]/g, ' ');
}

export function scanPython(text: string): PyScan {
  const strings: PyString[] = [];
  let code = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '#') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      code += blank(text.slice(i, stop));
      i = stop;
      continue;
    }
    if (c === '"' || c === "'") {
      // A prefix is the identifier characters right before the quote, when they form one.
      let p = code.length;
      while (p > 0 && /[A-Za-z]/.test(code[p - 1] as string)) p--;
      const prefix = code.slice(p);
      const isPrefix = PREFIX.test(prefix) && (p === 0 || !/[A-Za-z0-9_]/.test(code[p - 1] as string));
      const start = isPrefix ? p : i;
      const raw = isPrefix && /[rR]/.test(prefix);
      const triple = text.startsWith(c.repeat(3), i);
      const quote = triple ? c.repeat(3) : c;
      let j = i + quote.length;
      while (j < text.length) {
        const d = text[j] as string;
        if (d === '\\') {
          j += 2;
          continue;
        }
        if (!triple && d === '\n') break;
        if (text.startsWith(quote, j)) break;
        j++;
      }
      const bodyEnd = Math.min(j, text.length);
      const end = text.startsWith(quote, j) ? j + quote.length : bodyEnd;
      const body = text.slice(i + quote.length, bodyEnd);
      strings.push({ value: raw ? body : resolveEscapes(body), start, end });
      code = code.slice(0, start) + blank(text.slice(start, end));
      i = end;
      continue;
    }
    code += c;
    i++;
  }
  return { code, strings };
}

/** 1-based line of an offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * The arguments of a call whose `(` is at `open` in `scan.code`, as far as
 * they are string literals: `["pytest", "-x"]` for `run("pytest", "-x",
 * *session.posargs)`; the first argument that is not a literal ends the list
 * (its value is not known here). Adjacent literals are one argument, as in
 * Python.
 */
export function literalArgs(scan: PyScan, open: number): string[] {
  const out: string[] = [];
  const byStart = new Map(scan.strings.map((s) => [s.start, s]));
  let i = open + 1;
  const skipSpace = () => {
    while (i < scan.code.length && /\s/.test(scan.code[i] as string) && !byStart.has(i)) i++;
  };
  for (;;) {
    skipSpace();
    let value: string | undefined;
    for (let s = byStart.get(i); s !== undefined; s = byStart.get(i)) {
      value = (value ?? '') + s.value;
      i = s.end;
      skipSpace();
    }
    if (value === undefined) return out;
    if (scan.code[i] !== ',' && scan.code[i] !== ')') return out;
    out.push(value);
    if (scan.code[i] === ')') return out;
    i++;
  }
}
