import type { Finding } from '../layers/types.js';
import { displayText } from '../util/display-text.js';
import { checkRepoPath } from '../util/repo-path.js';
import type { Scorecard } from './scorecard.js';

/**
 * GitHub Actions workflow commands (`::error file=…,line=…,title=…::message`)
 * for the findings that point at a file of the repository: the Checks tab and
 * the pull request's diff show them on that file and line. Findings with no
 * such file are in summary.md and the scorecard.
 */

/** Escaping of a command's message: `%`, CR and LF (as @actions/core does). */
export function escapeData(s: string): string {
  return s.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** Escaping of a property value: the message's, plus `:` and `,`, which end a property. */
export function escapeProperty(s: string): string {
  return escapeData(s).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

export interface FileLocation {
  file: string;
  line?: number;
}

const asLine = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 1
    ? v
    : typeof v === 'string' && /^[1-9][0-9]*$/.test(v)
      ? Number(v)
      : undefined;

const repoRelative = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' && checkRepoPath(v) === undefined ? v : undefined;

/**
 * Where a finding points: its evidence's `file` (+ `line`), else `path`
 * (+ `line`), else `source: {file, line}`. Only a repo-relative path counts:
 * an absolute path or one leaving the repository is not a file of the diff.
 */
export function findingLocation(f: Pick<Finding, 'evidence'>): FileLocation | undefined {
  const ev = f.evidence;
  const source =
    ev.source !== null && typeof ev.source === 'object' ? (ev.source as Record<string, unknown>) : {};
  const candidates: [unknown, unknown][] = [
    [ev.file, ev.line],
    [ev.path, ev.line],
    [source.file, source.line],
  ];
  for (const [file, line] of candidates) {
    const rel = repoRelative(file);
    if (rel === undefined) continue;
    const n = asLine(line);
    return n === undefined ? { file: rel } : { file: rel, line: n };
  }
  return undefined;
}

/**
 * One workflow command per finding that points at a repository file: `error` for reject and error,
 * `warning` for warn. The message and file are the patch's words: display-safe (no escape sequence for the
 * log viewer, no bidi override) before the command's own escaping, which keeps them on the command's line.
 */
export function renderGithubAnnotations(card: Pick<Scorecard, 'findings'>): string {
  const out: string[] = [];
  for (const f of card.findings) {
    const at = findingLocation(f);
    if (!at) continue;
    const command = f.severity === 'warn' ? 'warning' : 'error';
    const props = [
      `file=${escapeProperty(displayText(at.file))}`,
      ...(at.line !== undefined ? [`line=${at.line}`] : []),
      `title=${escapeProperty(displayText(f.code))}`,
    ];
    out.push(`::${command} ${props.join(',')}::${escapeData(displayText(f.message))}\n`);
  }
  return out.join('');
}
