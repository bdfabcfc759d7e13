/**
 * One intended breaking change can fail hundreds of base tests of one file:
 * listed one by one they push every other finding (the contract and policy
 * ones) out of the summary a reviewer reads. Past `GROUP_ABOVE` findings of
 * one code in one test file, they become one finding for the file, with the
 * count and the list of tests (each with what it did and the runner's text),
 * in test-id order. Deterministic: the same findings give the same groups.
 */
import { MAX_ATTACHED } from '../test-edits/attach.js';
import type { Finding, Severity } from '../types.js';

/** More REGRESSION (or TEST_VANISHED) findings than this in one test file are shown as one. */
export const GROUP_ABOVE = 5;
/** Tests listed in a group's evidence; the count is always the real one. */
export const GROUP_LIST_MAX = 1000;

const GROUPED = new Set(['REGRESSION', 'TEST_VANISHED']);
const RANK: Record<Severity, number> = { error: 0, reject: 1, warn: 2 };

const memberOf = (f: Finding) => ({
  test: f.evidence.test,
  overlay: f.evidence.overlay,
  ...(f.evidence.kind !== undefined ? { kind: f.evidence.kind } : {}),
  ...(f.evidence.text !== undefined ? { text: f.evidence.text } : {}),
  ...(f.evidence.cause !== undefined ? { cause: f.evidence.cause } : {}),
  ...(f.evidence.template !== undefined ? { template: f.evidence.template } : {}),
});

export function groupByFile(findings: readonly Finding[], above = GROUP_ABOVE): Finding[] {
  const groups = new Map<string, Finding[]>();
  const keyOf = (f: Finding) =>
    GROUPED.has(f.code) && typeof f.evidence.file === 'string'
      ? `${f.code}\u241f${f.evidence.file}`
      : undefined;
  for (const f of findings) {
    const k = keyOf(f);
    if (k === undefined) continue;
    const g = groups.get(k);
    if (g) g.push(f);
    else groups.set(k, [f]);
  }
  const out: Finding[] = [];
  for (const f of findings) {
    const k = keyOf(f);
    const g = k === undefined ? undefined : groups.get(k);
    if (!g || g.length <= above) {
      out.push(f);
      continue;
    }
    // Placed where its first member was; the other members are dropped as they come.
    if (g[0] === f) out.push(group(g, above));
  }
  return out;
}

function group(members: Finding[], above: number): Finding {
  const sorted = [...members].sort((a, b) => {
    const x = String(a.evidence.test);
    const y = String(b.evidence.test);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const first = sorted[0]!;
  const file = String(first.evidence.file);
  const severity = sorted.reduce<Severity>((s, f) => (RANK[f.severity] < RANK[s] ? f.severity : s), 'warn');
  const names = sorted.slice(0, 3).map((f) => String(f.evidence.test));
  const edits = new Map<string, unknown>();
  for (const f of sorted)
    for (const e of (f.evidence.testEdits as unknown[] | undefined) ?? []) edits.set(JSON.stringify(e), e);
  const what = first.code === 'TEST_VANISHED' ? 'did not run at all' : 'fail or are skipped';
  const firstText = first.evidence.text ?? first.evidence.cause;
  const list = [...edits.values()] as { description?: unknown; file?: unknown; line?: unknown }[];
  const lead = list[0];
  const clause = lead
    ? `; the head ${String(lead.description)} at ${String(lead.file)}${typeof lead.line === 'number' ? `:${lead.line}` : ''}${list.length > 1 ? ` (and ${list.length - 1} more test-side edit(s), in evidence.testEdits)` : ''}`
    : '';
  return {
    code: first.code,
    layer: first.layer,
    severity,
    message: `${sorted.length} base tests of ${file} pass on the base but ${what} on the head's code (more than ${above} in one file, shown as one): ${names.join(', ')}${sorted.length > 3 ? ` and ${sorted.length - 3} more` : ''}${firstText !== undefined ? `; the first: ${String(firstText)}` : ''}${clause}`,
    evidence: {
      file,
      count: sorted.length,
      tests: sorted.slice(0, GROUP_LIST_MAX).map(memberOf),
      ...(list.length > 0 ? { testEdits: list.slice(0, MAX_ATTACHED) } : {}),
      ...(list.length > MAX_ATTACHED ? { testEditsCount: list.length } : {}),
      ...(first.evidence.override !== undefined ? { override: first.evidence.override } : {}),
      next: first.evidence.next,
    },
  };
}
