import { describe, expect, it } from 'vitest';
import type { Artifact, Finding } from '../../../src/layers/types.js';
import {
  AGGREGATE_ABOVE,
  aggregateFindings,
  findingCount,
  findingsArtifactName,
} from '../../../src/report/aggregate.js';
import { renderMarkdown, verdictReason } from '../../../src/report/markdown.js';
import { type Scorecard, verdictOf } from '../../../src/report/scorecard.js';
import { stableLine } from '../../../src/report/stable-json.js';
import { renderTerminal } from '../../../src/report/terminal.js';

const missing = (i: number): Finding => ({
  code: 'FIXTURE_MISSING',
  layer: 'fixtures',
  severity: 'reject',
  message: `locked fixture testdata/f${String(i).padStart(7, '0')}.json is missing from the head`,
  evidence: { path: `testdata/f${String(i).padStart(7, '0')}.json`, owner: 'payments' },
});
const added = (i: number): Finding => ({
  code: 'FIXTURE_ADDED',
  layer: 'fixtures',
  severity: 'warn',
  message: `new fixture n${i}`,
  evidence: { path: `testdata/n${i}.json` },
});
const text = (a: Artifact) => (typeof a.content === 'string' ? a.content : a.content.join(''));

/** A deterministic shuffle, so the order findings arrive in is not the order they are listed in. */
function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  let seed = 7;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe('aggregateFindings', () => {
  it('leaves a code with at most 1000 findings as it is, in its order', () => {
    const findings = [added(1), ...Array.from({ length: AGGREGATE_ABOVE }, (_, i) => missing(i)), added(2)];
    const out = aggregateFindings(findings);
    expect(out.artifacts).toEqual([]);
    expect(out.findings).toEqual(findings);
  });

  it('past 1000 of one code, keeps one finding with the count, a sample, the first location and the artifact', () => {
    const all = Array.from({ length: AGGREGATE_ABOVE + 1 }, (_, i) => missing(i));
    const out = aggregateFindings([added(1), ...shuffled(all), added(2)]);
    expect(out.findings.map((f) => f.code)).toEqual(['FIXTURE_ADDED', 'FIXTURE_MISSING', 'FIXTURE_ADDED']);
    const one = out.findings[1] as Finding;
    const artifact = findingsArtifactName('fixtures', 'FIXTURE_MISSING');
    expect(artifact).toBe('findings.fixtures.FIXTURE_MISSING.json');
    expect(one).toMatchObject({ code: 'FIXTURE_MISSING', layer: 'fixtures', severity: 'reject' });
    expect(one.evidence).toMatchObject({
      aggregated: 1001,
      severities: { reject: 1001 },
      artifact,
      path: 'testdata/f0000000.json',
    });
    expect(one.evidence.sample).toEqual(all.slice(0, 10).map((f) => f.evidence));
    expect(one.message).toMatch(/^1001 FIXTURE_MISSING findings in the fixtures layer/);
    expect(one.message).toContain(artifact);
    expect(String(one.evidence.next)).toContain('Restore the fixture');
    expect(findingCount(one)).toBe(1001);
    expect(findingCount(all[0] as Finding)).toBe(1);

    expect(out.artifacts.map((a) => a.name)).toEqual([artifact]);
    const listed = JSON.parse(text(out.artifacts[0] as Artifact)) as {
      schema: string;
      layer: string;
      code: string;
      count: number;
      findings: Finding[];
    };
    expect(listed).toMatchObject({
      schema: 'patchgate/findings@1',
      layer: 'fixtures',
      code: 'FIXTURE_MISSING',
    });
    expect(listed.count).toBe(1001);
    // Every finding, in the scorecard's order (by path), however they arrived.
    expect(listed.findings).toEqual(all);
  });

  it('gives the same bytes for the same findings in any order, one finding a line', () => {
    const all = Array.from({ length: 1500 }, (_, i) => missing(i));
    const a = aggregateFindings(all);
    const b = aggregateFindings(shuffled(all));
    expect(text(b.artifacts[0] as Artifact)).toBe(text(a.artifacts[0] as Artifact));
    expect(b.findings).toEqual(a.findings);
    expect(text(a.artifacts[0] as Artifact).split('\n')).toHaveLength(1500 + 3);
  });

  it('writes each finding as the scorecard writes it (sorted keys), whatever the shape of its evidence', () => {
    const shapes: Finding['evidence'][] = [
      { z: 1, a: { y: [{ b: 2, a: 1 }], x: null }, m: 'é', é: 1, A: true },
      { 10: 'ten', 2: 'two', a: { 1: 'one', b: 'b' } },
      Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i])),
    ];
    for (const evidence of shapes) {
      const all = Array.from({ length: 1001 }, (_, i) => ({
        ...missing(i),
        evidence: { ...evidence, path: `p${i}` },
      }));
      const lines = text(aggregateFindings(all).artifacts[0] as Artifact)
        .split('\n')
        .slice(1, -2);
      expect(lines[0]).toBe(`${stableLine(all[0])},`);
      expect(lines[1000]).toBe(stableLine(all.find((f) => f.evidence.path === 'p999')));
    }
  });

  it('aggregates per layer and code, and keeps the most severe severity so the verdict never moves', () => {
    const warns = Array.from({ length: 1200 }, (_, i) => added(i));
    const rejectOne: Finding = { ...added(5000), severity: 'reject' };
    const other: Finding[] = Array.from({ length: 1200 }, (_, i) => ({ ...added(i), layer: 'hits' }));
    const input = [...warns, rejectOne, ...other];
    const out = aggregateFindings(input);
    expect(out.findings).toHaveLength(2);
    expect(out.findings.map((f) => [f.layer, f.code, f.severity])).toEqual([
      ['fixtures', 'FIXTURE_ADDED', 'reject'],
      ['hits', 'FIXTURE_ADDED', 'warn'],
    ]);
    expect(out.findings[0]?.evidence.severities).toEqual({ reject: 1, warn: 1200 });
    expect(verdictOf(out.findings)).toBe(verdictOf(input));
    expect(out.artifacts.map((a) => a.name)).toEqual([
      'findings.fixtures.FIXTURE_ADDED.json',
      'findings.hits.FIXTURE_ADDED.json',
    ]);
  });

  it('keeps the reports small: 200,000 findings become one line of the table and one of the summary', () => {
    const all = Array.from({ length: 200_000 }, (_, i) => missing(i));
    const out = aggregateFindings(all);
    expect(out.findings).toHaveLength(1);
    const card: Scorecard = {
      schema: 'patchgate/scorecard@1',
      verdict: 'reject',
      base: { ref: 'main', requested: 'a'.repeat(40), commit: 'b'.repeat(40) },
      head: { ref: 'HEAD', commit: 'c'.repeat(40), tree: 'd'.repeat(40), worktree: false },
      config: { file: 'patchgate.config.json', revision: 'base' },
      layers: [{ name: 'fixtures', status: 'reject', findings: 200_000 }],
      findings: out.findings,
      overrides: [],
      frozen: [],
      today: '2026-11-30',
      isolation: { mode: 'bwrap', user: 'separate' },
      timings: { revisionsMs: 0, setupMs: 0, cleanupMs: 0, totalMs: 5, layers: {} },
    };
    expect(verdictReason(card)).toBe('200000 finding(s) blocking the merge: FIXTURE_MISSING ×200000');
    expect(Buffer.byteLength(renderMarkdown(card))).toBeLessThan(4096);
    expect(renderTerminal(card, { color: false }).split('\n').length).toBeLessThan(40);
  });
});
