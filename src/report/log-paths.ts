/**
 * The runs' logs live in a temp folder that is removed when the gate ends;
 * `check` copies them into the out folder's `tests/` first. A path into the
 * temp folder in a finding would point at nothing by the time anyone reads
 * it, so every such path (in the message and anywhere in the evidence) is
 * written relative to the scorecard instead: `tests/overlay-run.stdout.log`.
 */
import type { Artifact, Finding } from '../layers/types.js';

/** Where the logs are, relative to the scorecard (see OutFolder.logDir). */
export const LOGS_IN_OUT = 'tests';

function relocate(s: string, from: string, to: string): string {
  if (!s.includes(from)) return s;
  return s.split(`${from}/`).join(`${to}/`).split(from).join(to);
}

/** `value` with every string's `from` prefix replaced; the same object when nothing changed. */
function relocateValue(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return relocate(value, from, to);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = relocateValue(v, from, to);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const r = relocateValue(v, from, to);
    if (r !== v) changed = true;
    out[k] = r;
  }
  return changed ? out : value;
}

/**
 * The finding with paths into `logDir` made relative to the out folder; the
 * same object when it has none. Evidence is bounded in depth before this
 * runs (boundFinding), so the walk's recursion is too.
 */
/** Any JSON value with paths into `logDir` made relative to the out folder (what a shard leaves for the merge). */
export function relocateLogValue(value: unknown, logDir: string, to = LOGS_IN_OUT): unknown {
  return logDir === '' ? value : relocateValue(value, logDir, to);
}

/** An artifact's text with paths into `logDir` made relative to the out folder. */
export function relocateArtifact(a: Artifact, logDir: string, to = LOGS_IN_OUT): Artifact {
  if (logDir === '') return a;
  const content =
    typeof a.content === 'string'
      ? relocate(a.content, logDir, to)
      : a.content.map((c) => relocate(c, logDir, to));
  return { ...a, content };
}

export function relocateLogPaths(f: Finding, logDir: string, to = LOGS_IN_OUT): Finding {
  if (logDir === '') return f;
  const message = relocate(f.message, logDir, to);
  const evidence = relocateValue(f.evidence, logDir, to) as Finding['evidence'];
  return message === f.message && evidence === f.evidence ? f : { ...f, message, evidence };
}
