/**
 * The hunks of a patch, from git's own zero-context diff (`git diff -U0`).
 *
 * `parseUnifiedDiff` is a pure function on the diff text. It reads each hunk
 * body by the line counts of its `@@` header, never by the look of a line, so
 * a removed line that reads `-- x` (shown as `--- x`) or an added `++ y` is
 * content, not a file header. It handles new and deleted files (`/dev/null`),
 * `\ No newline at end of file`, binary files (listed, no hunks), git's
 * C-quoted paths (`"a/caf\303\251 \"x\".py"`), the tab git appends to a `---`
 * / `+++` path that holds a space, and CRLF (a `\r` before the newline is not
 * part of a line's text).
 *
 * `diffHunks` runs git for base..head, head a commit or a tree id (the
 * working tree's snapshot), with every repository setting that could change
 * the output pinned (prefixes, renames, external diff and textconv drivers,
 * inter-hunk context, submodule format).
 */

import { pushAll } from '../util/arrays.js';
import type { Git } from './git.js';

export interface DiffLine {
  /** 1-based line number: in the head for an added line, in the base for a removed one. */
  line: number;
  text: string;
}

export interface Hunk {
  /** Repository path: the head's, or the base's for a deleted file. */
  file: string;
  /** With `oldLines` 0, the base line after which lines were added (0: the top of the file). */
  oldStart: number;
  oldLines: number;
  /** With `newLines` 0, the head line after which lines were removed (0: the top of the file). */
  newStart: number;
  newLines: number;
  added: DiffLine[];
  removed: DiffLine[];
}

export interface ParsedDiff {
  hunks: Hunk[];
  /** Paths git reports as binary: no hunks, nothing to read a claim from. */
  binary: string[];
}

const ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  '\\': 92,
};

/**
 * Reads a C-quoted string (git's quoting of unusual paths) starting at
 * `s[from] === '"'`: the decoded text (octal escapes are UTF-8 bytes) and the
 * index after the closing quote; undefined when it is not well formed.
 */
export function readQuoted(s: string, from = 0): { value: string; end: number } | undefined {
  if (s[from] !== '"') return undefined;
  const bytes: number[] = [];
  for (let i = from + 1; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '"') return { value: Buffer.from(bytes).toString('utf8'), end: i + 1 };
    if (c !== '\\') {
      pushAll(bytes, Buffer.from(c, 'utf8'));
      continue;
    }
    const next = s[i + 1];
    if (next === undefined) return undefined;
    const octal = /^[0-7]{3}/.exec(s.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8) & 0xff);
      i += 3;
    } else if (next in ESCAPES) {
      bytes.push(ESCAPES[next] as number);
      i += 1;
    } else return undefined;
  }
  return undefined;
}

/** A `---` / `+++` path: null for /dev/null, the prefix (`a/`, `b/`) removed. */
function headerPath(rest: string): string | null | undefined {
  let p: string;
  if (rest.startsWith('"')) {
    const q = readQuoted(rest);
    if (!q) return undefined;
    p = q.value;
  } else {
    // An unquoted path holds no tab: git adds one after a path with a space (for GNU patch).
    const tab = rest.indexOf('\t');
    p = tab >= 0 ? rest.slice(0, tab) : rest;
  }
  if (p === '/dev/null') return null;
  return stripPrefix(p);
}

function stripPrefix(p: string): string {
  return /^[ab]\//.test(p) ? p.slice(2) : p;
}

/**
 * The path of a `diff --git a/X b/Y` line. Without renames X and Y are the
 * same path, which settles where a path with spaces splits; a quoted side is
 * read as such.
 */
function gitHeaderPath(rest: string): string | undefined {
  if (rest.startsWith('"')) {
    const a = readQuoted(rest);
    if (!a) return undefined;
    const tail = rest.slice(a.end + 1);
    const b = tail.startsWith('"') ? readQuoted(tail)?.value : tail;
    return stripPrefix(b ?? a.value);
  }
  if ((rest.length - 5) % 2 === 0 && rest.length > 5) {
    const p = rest.slice(2, 2 + (rest.length - 5) / 2);
    if (rest === `a/${p} b/${p}`) return p;
  }
  const quotedB = rest.indexOf(' "b/');
  if (quotedB >= 0) return readQuoted(rest, quotedB + 1)?.value.slice(2);
  const b = rest.lastIndexOf(' b/');
  return b >= 0 ? rest.slice(b + 3) : undefined;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Parses `git diff` output (any context, though -U0 is what the gate asks for) into hunks. */
export function parseUnifiedDiff(text: string): ParsedDiff {
  const lines = text.split('\n');
  const hunks: Hunk[] = [];
  const binary: string[] = [];
  let fromHeader: string | undefined;
  let oldPath: string | null | undefined;
  let newPath: string | null | undefined;
  const fileName = (): string | undefined => newPath ?? oldPath ?? fromHeader;
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, '');
    if (line.startsWith('diff --git ')) {
      fromHeader = gitHeaderPath(line.slice('diff --git '.length));
      oldPath = undefined;
      newPath = undefined;
      continue;
    }
    if (line.startsWith('--- ')) {
      oldPath = headerPath(line.slice(4));
      continue;
    }
    if (line.startsWith('+++ ')) {
      newPath = headerPath(line.slice(4));
      continue;
    }
    if (line.startsWith('Binary files ') || line === 'GIT binary patch') {
      const name = fileName();
      if (name !== undefined && !binary.includes(name)) binary.push(name);
      continue;
    }
    const m = HUNK_HEADER.exec(line);
    if (!m) continue;
    const file = fileName();
    const hunk: Hunk = {
      file: file ?? '',
      oldStart: Number(m[1]),
      oldLines: m[2] === undefined ? 1 : Number(m[2]),
      newStart: Number(m[3]),
      newLines: m[4] === undefined ? 1 : Number(m[4]),
      added: [],
      removed: [],
    };
    let oldLeft = hunk.oldLines;
    let newLeft = hunk.newLines;
    let oldNo = hunk.oldStart;
    let newNo = hunk.newStart;
    while ((oldLeft > 0 || newLeft > 0) && i + 1 < lines.length) {
      const raw = lines[++i] as string;
      if (raw.startsWith('\\')) continue; // "\ No newline at end of file"
      const body = raw.replace(/\r$/, '').slice(1);
      const sign = raw[0];
      if (sign === '-' && oldLeft > 0) {
        hunk.removed.push({ line: oldNo++, text: body });
        oldLeft--;
      } else if (sign === '+' && newLeft > 0) {
        hunk.added.push({ line: newNo++, text: body });
        newLeft--;
      } else if (sign === ' ' || raw === '' || raw === '\r') {
        // A context line (only with context > 0; some settings drop the space of an empty one).
        oldNo++;
        newNo++;
        oldLeft--;
        newLeft--;
      } else {
        // Not a body line: the diff was cut short. Read the line again as a header.
        i--;
        break;
      }
    }
    if (file !== undefined) hunks.push(hunk);
  }
  return { hunks, binary };
}

/**
 * The hunks of base..head (commits or tree ids), from git. Every setting of
 * the repository's config that changes the diff's shape is overridden on the
 * command line: the prefixes, rename detection, relative paths, external diff
 * and textconv drivers (which would run a command the repository names),
 * context between hunks and the submodule format.
 */
export async function diffHunks(git: Git, base: string, head: string): Promise<ParsedDiff> {
  const out = await git.out([
    'diff',
    '-U0',
    '--inter-hunk-context=0',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    '--no-relative',
    '--submodule=short',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    base,
    head,
    '--',
  ]);
  return parseUnifiedDiff(out);
}
