/**
 * The runner's own words for a failure, for a person to read: the message as
 * the runner wrote it (never normalized: a signature template masks digits
 * and temp paths, which is right for matching and wrong for reading), with
 * what the runner put in the body where the message alone says little:
 *
 * - a message that says nothing (pytest's `collection failure`, an empty
 *   one): the body's `E   ` lines (pytest: `ModuleNotFoundError: No module
 *   named 'x'`), else its first line that names an error;
 * - a message the runner cut itself (vitest shortens long values with `…`):
 *   the body's `Expected:` / `Received:` lines, which it does not cut.
 *
 * Line breaks become ` ↵ `, and the whole is cut to a cap, with an ellipsis.
 */
import { truncateUtf8 } from './text.js';

export const ASSERTION_TEXT_MAX = 300;

const SAYS_NOTHING = /^\s*(collection failure|failed|failure|error|errored|test failed)?\s*$/i;
const NAMES_ERROR = /^\s*(?:[\w$.]+(?:Error|Exception|Failure)|Error|panic)\b/;
const EXPECTED_RECEIVED = /^\s*(Expected|Received)\b.*:/;

function lines(s: string): string[] {
  return s
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** One line of at most `max` characters, cut with an ellipsis. */
export function capText(s: string, max = ASSERTION_TEXT_MAX): string {
  const flat = s.replace(/[ \t]+/g, ' ').trim();
  if (flat.length <= max) return flat;
  return `${truncateUtf8(flat.slice(0, max - 1), max * 4)}…`;
}

export function assertionText(f: { message: string; body?: string }, max = ASSERTION_TEXT_MAX): string {
  const body = f.body ?? '';
  let parts = lines(f.message);
  if (parts.length === 0 || SAYS_NOTHING.test(f.message)) {
    const bodyLines = body.split(/\r?\n/);
    const pytest = bodyLines.filter((l) => /^E\s{2,}\S/.test(l)).map((l) => l.replace(/^E\s+/, ''));
    const named = lines(body).find((l) => NAMES_ERROR.test(l));
    const fromBody = pytest.length > 0 ? pytest : named !== undefined ? [named] : lines(body).slice(0, 1);
    parts = [...parts, ...fromBody];
  } else if (f.message.includes('…')) {
    const shown = new Set(parts);
    for (const l of lines(body)) if (EXPECTED_RECEIVED.test(l) && !shown.has(l)) parts.push(l);
  }
  return capText(parts.join(' ↵ '), max);
}
