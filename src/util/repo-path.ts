import path from 'node:path';
import { InputError } from '../errors.js';

/**
 * Paths in config and contract files are repo-relative, POSIX, normalized.
 * Anything else (absolute, `..`, backslashes, empty) is rejected rather than
 * guessed at, because a path that escapes the repo could make the gate read
 * or protect the wrong file.
 */
export function checkRepoPath(p: string): string | undefined {
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
