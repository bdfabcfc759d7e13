/**
 * A finding that a base test (or property) failed on the head's code names
 * the test-side edit that hid it: the edits of that test, of its file, and of
 * the files that configure it go into `evidence.testEdits`, and the first of
 * them into one clause of the message. An edit shown this way is not
 * reported again on its own (TEST_WEAKENED).
 */
import { pytestNodeId, type TestIdParts, testFileOf } from '../../runners/tests/presets.js';
import type { Finding, LayerContext } from '../types.js';
import { type TestEditAnalysis, type TestQuery, testEditsOf } from './analysis.js';
import { editLocation, type TestEdit } from './model.js';

/** At most this many edits are kept in one finding's evidence; the rest are counted. */
export const MAX_ATTACHED = 20;

/** An edit as evidence: where (file, line on each side), which test, what, and the code before and after. */
export function editEvidence(e: TestEdit): Record<string, unknown> {
  const line = e.headLine ?? e.baseLine;
  return {
    kind: e.kind,
    file: e.file,
    ...(e.baseFile !== undefined ? { baseFile: e.baseFile } : {}),
    ...(line !== undefined ? { line } : {}),
    ...(e.baseLine !== undefined ? { baseLine: e.baseLine } : {}),
    ...(e.headLine !== undefined ? { headLine: e.headLine } : {}),
    ...(e.test !== undefined ? { test: e.test } : {}),
    ...(e.headTest !== undefined ? { headTest: e.headTest } : {}),
    description: e.description,
    ...(e.before !== undefined ? { before: e.before } : {}),
    ...(e.after !== undefined ? { after: e.after } : {}),
  };
}

/** The clause a message gets: what the head did, and where. */
export function editClause(edits: readonly TestEdit[]): string {
  const first = edits[0];
  if (!first) return '';
  const more =
    edits.length > 1 ? ` (and ${edits.length - 1} more test-side edit(s), in evidence.testEdits)` : '';
  return `the head ${first.description} at ${editLocation(first)}${more}`;
}

/** The finding with the edits as its evidence; the same finding when there are none. */
export function withEdits(f: Finding, edits: readonly TestEdit[]): Finding {
  if (edits.length === 0) return f;
  return {
    ...f,
    message: `${f.message}; ${editClause(edits)}`,
    evidence: {
      ...f.evidence,
      testEdits: edits.slice(0, MAX_ATTACHED).map(editEvidence),
      ...(edits.length > MAX_ATTACHED ? { testEditsCount: edits.length } : {}),
    },
  };
}

/** How a finding names its test, by the runner's own id parts. */
export function queryOf(preset: string | undefined, t: TestIdParts): TestQuery | undefined {
  if (preset === 'pytest') {
    const nodeid = pytestNodeId(t);
    const cut = nodeid.indexOf('::');
    if (cut < 0) return undefined;
    return { file: nodeid.slice(0, cut), name: nodeid.slice(cut + 2) };
  }
  const file = testFileOf(preset, t);
  return file === undefined ? undefined : { file, name: t.name };
}

/** A pytest node id (`tests/test_a.py::TestX::test_y[p]`) as a query. */
export function queryOfNodeId(nodeid: string): TestQuery | undefined {
  const cut = nodeid.indexOf('::');
  return cut < 0 ? { file: nodeid } : { file: nodeid.slice(0, cut), name: nodeid.slice(cut + 2) };
}

/**
 * The run's analysis for attaching, or undefined when it could not be made:
 * a finding keeps its own evidence then, and the test-edits layer, which
 * asks for the same analysis, reports why it failed.
 */
export async function analysisFor(ctx: LayerContext): Promise<TestEditAnalysis | undefined> {
  try {
    return await testEditsOf(ctx);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return undefined;
  }
}

/**
 * Each finding with the edits behind it: `query` says which test a finding is
 * about (undefined: it is not about one). The edits attached are marked as
 * explained.
 */
export async function attachEdits(
  ctx: LayerContext,
  findings: readonly Finding[],
  query: (f: Finding) => TestQuery | undefined,
): Promise<Finding[]> {
  const queries = findings.map(query);
  if (queries.every((q) => q === undefined)) return [...findings];
  const analysis = await analysisFor(ctx);
  if (!analysis || analysis.edits.length === 0) return [...findings];
  return findings.map((f, i) => {
    const q = queries[i];
    if (!q) return f;
    const edits = analysis.forTest(q);
    analysis.explain(edits);
    return withEdits(f, edits);
  });
}
