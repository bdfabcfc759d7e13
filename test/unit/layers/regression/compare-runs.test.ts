import { describe, expect, it } from 'vitest';
import type { TestOutcome, TestStatus } from '../../../../src/junit/model.js';
import { byId, disagreements, outcomeOf } from '../../../../src/layers/regression/compare-runs.js';

function t(id: string, status: TestStatus, message = ''): TestOutcome {
  const [classname = '', name = id] = id.split('::');
  return {
    id,
    suite: 'pytest',
    classname,
    name,
    status,
    failures:
      status === 'failed' || status === 'error' ? [{ kind: 'AssertionError', message, body: '' }] : [],
  };
}

const run = (...tests: TestOutcome[]) => byId(tests);
const A = 'tests.test_calc::test_add';
const B = 'tests.test_calc::test_sub';

describe('outcomeOf', () => {
  it('is absent for no testcases', () => {
    expect(outcomeOf(undefined)).toBe('absent');
    expect(outcomeOf([])).toBe('absent');
  });

  it.each([
    ['passed', 'passed'],
    ['failed', 'failed'],
    ['error', 'failed'],
    ['flaky', 'failed'],
    ['skipped', 'skipped'],
    ['xfailed', 'skipped'],
  ] as const)('reads a single %s testcase as %s', (status, outcome) => {
    expect(outcomeOf([t(A, status)])).toBe(outcome);
  });

  it('is failed when any repeat of a test failed: a retry is no acquittal', () => {
    expect(outcomeOf([t(A, 'failed'), t(A, 'passed')])).toBe('failed');
    expect(outcomeOf([t(A, 'passed'), t(A, 'failed')])).toBe('failed');
    expect(outcomeOf([t(A, 'skipped'), t(A, 'error')])).toBe('failed');
  });

  it('is skipped only when every repeat was skipped, passed when one passed', () => {
    expect(outcomeOf([t(A, 'skipped'), t(A, 'xfailed')])).toBe('skipped');
    expect(outcomeOf([t(A, 'skipped'), t(A, 'passed')])).toBe('passed');
  });
});

describe('byId', () => {
  it('groups repeats of an id in report order and keeps ids apart', () => {
    const first = t(A, 'failed', 'first');
    const second = t(A, 'passed');
    const other = t(B, 'passed');
    const m = byId([first, other, second]);
    expect([...m.keys()]).toEqual([A, B]);
    expect(m.get(A)).toEqual([first, second]);
    expect(m.get(A)?.[0]).toBe(first);
    expect(m.get(B)).toEqual([other]);
  });

  it('is empty for no tests', () => {
    expect(byId([]).size).toBe(0);
  });
});

describe('disagreements', () => {
  it('reports a test that failed on the overlay and passed on the base, with its testcases', () => {
    const failing = t(A, 'failed', 'assert 4 == 3');
    const out = disagreements(run(failing, t(B, 'passed')), run(t(A, 'passed'), t(B, 'passed')), new Set());
    expect(out).toEqual([{ id: A, overlay: 'failed', base: 'passed', tests: [failing] }]);
  });

  it('reports nothing for a test that failed on both (the patch did not do it)', () => {
    expect(disagreements(run(t(A, 'failed')), run(t(A, 'failed')), new Set([A]))).toEqual([]);
  });

  it('reports nothing for a test that was skipped or missing on the base', () => {
    expect(disagreements(run(t(A, 'failed')), run(t(A, 'skipped')), new Set())).toEqual([]);
    expect(disagreements(run(t(A, 'failed')), run(), new Set([A]))).toEqual([]);
  });

  it('reports a test skipped on the overlay that passed on the base as skipped', () => {
    const out = disagreements(run(t(A, 'skipped')), run(t(A, 'passed')), new Set([A]));
    expect(out).toEqual([{ id: A, overlay: 'skipped', base: 'passed', tests: [t(A, 'skipped')] }]);
  });

  it('reports an expected test missing from the overlay run as absent', () => {
    const out = disagreements(run(t(B, 'passed')), run(t(A, 'passed'), t(B, 'passed')), new Set([A, B]));
    expect(out).toEqual([{ id: A, overlay: 'absent', base: 'passed', tests: [] }]);
  });

  it('does not report a base test that was not expected on the overlay', () => {
    expect(disagreements(run(), run(t(A, 'passed')), new Set())).toEqual([]);
  });

  it('reports a test retried on the overlay (one attempt failed) as failed', () => {
    const attempts = [t(A, 'failed', 'flaky'), t(A, 'passed')];
    const out = disagreements(byId(attempts), run(t(A, 'passed')), new Set([A]));
    expect(out).toEqual([{ id: A, overlay: 'failed', base: 'passed', tests: attempts }]);
  });

  it('reports nothing for a test that passed on the overlay, whatever the base did', () => {
    expect(disagreements(run(t(A, 'passed')), run(t(A, 'failed')), new Set([A]))).toEqual([]);
  });

  it('lists disagreements sorted by id', () => {
    const ids = ['z::t', 'a::t', 'm::t'];
    const out = disagreements(
      run(...ids.map((id) => t(id, 'failed'))),
      run(...ids.map((id) => t(id, 'passed'))),
      new Set(),
    );
    expect(out.map((d) => d.id)).toEqual(['a::t', 'm::t', 'z::t']);
  });
});
