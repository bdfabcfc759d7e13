import { describe, expect, it } from 'vitest';
import type { Finding, Layer } from '../../../src/layers/types.js';
import { runGate } from '../../../src/pipeline.js';
import { boundDepth, boundFinding, cutNote, MAX_EVIDENCE_DEPTH } from '../../../src/report/bounded.js';
import { renderHtml } from '../../../src/report/html.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { stableStringify } from '../../../src/report/stable-json.js';
import { renderTerminal } from '../../../src/report/terminal.js';
import { fixtureRepo } from '../../helpers/fixture-repo.js';

/** A value `depth` arrays deep, built without recursion. */
function nested(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** How deep a value nests, measured without recursion. */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    max = Math.max(max, d + 1);
    for (const c of Object.values(v)) stack.push([c, d + 1]);
  }
  return max;
}

describe('boundDepth', () => {
  it('returns a value within the bound as the same object, uncopied', () => {
    const v = { a: [1, { b: 'c' }], d: null };
    expect(boundDepth(v)).toBe(v);
    const exact = nested(MAX_EVIDENCE_DEPTH);
    expect(boundDepth(exact)).toBe(exact);
  });

  it('cuts a value nested 100,000 deep at the bound, with a note where it was cut', () => {
    const cut = boundDepth({ shrunk: nested(100_000), kept: 'x' });
    expect(depthOf(cut)).toBe(MAX_EVIDENCE_DEPTH);
    expect(cut.kept).toBe('x');
    expect(JSON.stringify(cut)).toContain(cutNote(MAX_EVIDENCE_DEPTH));
  });
});

describe('evidence nested too deep for the reports', () => {
  const deep: Finding = {
    code: 'SEED_FAILED',
    layer: 'seeds',
    severity: 'reject',
    message: 'the property fails on a deep counterexample',
    evidence: { file: 'property_seeds.json', line: 1, shrunk: nested(100_000) },
  };

  it('crashes every reader unbounded, and none once bounded', () => {
    // The class of crash: JSON's recursive writers run out of stack.
    expect(() => stableStringify(deep)).toThrow(RangeError);
    const f = boundFinding(deep);
    expect(f.evidence.file).toBe('property_seeds.json');
    expect(() => stableStringify(f)).not.toThrow();
  });

  it('is bounded by the pipeline, so the scorecard and every report render', async () => {
    const head: Layer = {
      name: 'seeds',
      enabled: () => true,
      contractFiles: () => [],
      run: async () => ({ findings: [deep] }),
    };
    const card = await runGate({ cwd: fixtureRepo().dir, base: 'main', env: {}, layers: [head] });
    expect(card.verdict).toBe('reject');
    const shown = card.findings[0] as Finding;
    expect(depthOf(shown.evidence)).toBeLessThanOrEqual(MAX_EVIDENCE_DEPTH + 1);
    expect(stableStringify(card)).toContain(cutNote(MAX_EVIDENCE_DEPTH));
    expect(renderTerminal(card, { color: false })).toContain('SEED_FAILED');
    expect(renderMarkdown(card)).toContain('SEED_FAILED');
    expect(renderHtml(card)).toContain('SEED_FAILED');
  });
});
