import path from 'node:path';
import { InputError } from '../errors.js';

/**
 * Paths in config and contract files are repo-relative, POSIX, normalized.
 * Anything else (absolute, `..`, backslashes, empty) is rejected rather than
 * guessed at, because a path that escapes the repo could make the gate read
 * or protect the wrong file.
 */
export function checkRepoPath(p: string): string | undefined {
  if (isPlainRepoPath(p)) return undefined;
  if (p.length === 0) return 'must not be empty';
  if (p.includes('\0')) return 'must not contain NUL bytes';
  if (p.includes('\\')) return 'must use forward slashes (/), not backslashes';
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p))
    return 'must be relative to the repository root, not absolute';
  const segments = p.replace(/\/+$/, '').split('/');
  if (segments.some((s) => s === '..')) return "must not contain '..' (paths may not leave the repository)";
  if (segments.some((s) => s === '' || s === '.') && p !== '.')
    return "must be normalized (no '//' or './' segments)";
  return undefined;
}

const CH_NUL = 0x00;
const CH_DOT = 0x2e;
const CH_SLASH = 0x2f;
const CH_COLON = 0x3a;
const CH_BACKSLASH = 0x5c;

/**
 * The common case in one pass, for a lock of a million paths: non-empty
 * segments joined by single slashes, none `.` or `..`, no NUL or backslash,
 * no `x:` prefix. Every path it accepts `checkRepoPath` accepts; anything
 * else takes the checks that explain what is wrong.
 */
function isPlainRepoPath(p: string): boolean {
  const n = p.length;
  if (n === 0 || p.charCodeAt(1) === CH_COLON) return false;
  let segStart = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? p.charCodeAt(i) : CH_SLASH;
    if (c === CH_NUL || c === CH_BACKSLASH) return false;
    if (c === CH_SLASH) {
      const len = i - segStart;
      if (len === 0) return false;
      if (
        len <= 2 &&
        p.charCodeAt(segStart) === CH_DOT &&
        (len === 1 || p.charCodeAt(segStart + 1) === CH_DOT)
      )
        return false;
      segStart = i + 1;
    }
  }
  return true;
}

/** Normalizes a checked repo path: no trailing slash (except the root '.'). */
export function normalizeRepoPath(p: string): string {
  const trimmed = p.replace(/\/+$/, '');
  return trimmed === '' ? '.' : trimmed;
}

export function assertRepoPath(p: string, where: string): string {
  const problem = checkRepoPath(p);
  if (problem) throw new InputError('PATH_INVALID', `${where}: path '${p}' ${problem}`, { path: p, where });
  return normalizeRepoPath(p);
}

/** True when `child` (absolute) is `parent` or inside it. */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
