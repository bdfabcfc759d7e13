/**
 * The evidence a regression finding carries: the runner's own failure text
 * (capped, never masked), the module a file failed to import, many findings
 * of one test file grouped, and log paths into the out folder.
 */
import { describe, expect, it } from 'vitest';
import { ASSERTION_TEXT_MAX, assertionText } from '../../../../src/junit/assertion-text.js';
import type { TestOutcome } from '../../../../src/junit/model.js';
import { GROUP_ABOVE, groupByFile } from '../../../../src/layers/regression/group-findings.js';
import { causeFor, loadFailures } from '../../../../src/layers/regression/vanish-cause.js';
import { MAX_ATTACHED } from '../../../../src/layers/test-edits/attach.js';
import type { Finding } from '../../../../src/layers/types.js';
import { relocateLogPaths } from '../../../../src/report/log-paths.js';
import { failureSignature } from '../../../../src/signatures/signature.js';

describe("assertionText: the runner's own words", () => {
  it('keeps the digits and the URL a template masks (vitest, which cut the message itself: its Expected/Received lines)', () => {
    const message =
      "expected '<svg xmlns=\"http://www.w3.org/2000/sv…' to be '<svg xmlns=\"http://www.w3.org/2000/sv…' // Object.is equality";
    const body = `AssertionError: ${message}\n\nExpected: "<svg xmlns="http://www.w3.org/2000/svg" width="12">"\nReceived: "<svg xmlns="http://www.w3.org/2000/svg" width="10">"\n\n ❯ src/c.test.ts:2:132`;
    const text = assertionText({ message, body });
    expect(text).toContain('http://www.w3.org/2000/sv');
    expect(text).toContain('Expected: "<svg xmlns="http://www.w3.org/2000/svg" width="12">"');
    expect(text).toContain('Received: "<svg xmlns="http://www.w3.org/2000/svg" width="10">"');
    // The template masks what the text keeps.
    expect(failureSignature('AssertionError', message, 'patchgate').template).toContain('www.w<N>.org/<N>');
  });

  it("names the missing module of pytest's collection failure", () => {
    const body =
      "ImportError while importing test module '/tmp/x/tests/test_a.py'.\nHint: make sure your test modules/packages have valid Python names.\nTraceback:\ntests/test_a.py:1: in <module>\n    import typing_extensions\nE   ModuleNotFoundError: No module named 'typing_extensions'";
    expect(assertionText({ message: 'collection failure', body })).toBe(
      "collection failure ↵ ModuleNotFoundError: No module named 'typing_extensions'",
    );
  });

  it('an empty message takes the first line of the body that names an error', () => {
    expect(assertionText({ message: '', body: 'at x\nTypeError: boom\n    at y' })).toBe('TypeError: boom');
  });

  it('is capped with an ellipsis, line breaks shown as ↵', () => {
    const text = assertionText({ message: `assert 1 == 2\n${'x'.repeat(1000)}` });
    expect(text.length).toBe(ASSERTION_TEXT_MAX);
    expect(text.endsWith('…')).toBe(true);
    expect(text.startsWith('assert 1 == 2 ↵ xxx')).toBe(true);
  });
});

const outcome = (over: Partial<TestOutcome>): TestOutcome => ({
  id: 'x',
  suite: 'pytest',
  classname: '',
  name: '',
  status: 'error',
  failures: [],
  ...over,
});

describe('loadFailures / causeFor: why base tests vanished', () => {
  const pytestError = outcome({
    id: 'pytest::tests.test_a',
    classname: '',
    name: 'tests.test_a',
    failures: [
      {
        kind: 'ImportError',
        message: 'collection failure',
        body: "E   ModuleNotFoundError: No module named 'typing_extensions'",
      },
    ],
  });
  const vitestError = outcome({
    id: 'src/a.test.ts::src/a.test.ts',
    suite: 'src/a.test.ts',
    classname: 'src/a.test.ts',
    name: 'src/a.test.ts',
    status: 'failed',
    failures: [
      {
        kind: 'Error',
        message: "Cannot find package 'left-pad' imported from '/tmp/o/src/a.test.ts'",
        body: '',
      },
    ],
  });

  it("reads pytest's module error and vitest's file error, never a base test's own failure", () => {
    const found = loadFailures(
      [pytestError, vitestError, outcome({ id: 'base', classname: 'tests.test_b', name: 'test_b' })],
      (id) => id === 'base',
    );
    expect(found).toEqual([
      {
        file: 'tests/test_a.py',
        test: 'pytest::tests.test_a',
        text: "collection failure ↵ ModuleNotFoundError: No module named 'typing_extensions'",
      },
      {
        file: 'src/a.test.ts',
        test: 'src/a.test.ts::src/a.test.ts',
        text: "Cannot find package 'left-pad' imported from '/tmp/o/src/a.test.ts'",
      },
    ]);
  });

  it("a test of the failing file gets its own file's cause; pytest stops the whole run at one, vitest does not", () => {
    const failures = loadFailures([pytestError], () => false);
    expect(causeFor('tests/test_a.py', failures, true)).toMatchObject({ own: true, file: 'tests/test_a.py' });
    expect(causeFor('tests/test_b.py', failures, true)).toMatchObject({
      own: false,
      file: 'tests/test_a.py',
    });
    expect(causeFor('tests/test_b.py', failures, false)).toBeUndefined();
  });
});

function regression(i: number, file: string, severity: Finding['severity'] = 'reject'): Finding {
  return {
    code: 'REGRESSION',
    layer: 'regression',
    severity,
    message: `base test t${i} fails`,
    evidence: {
      test: `pytest::x::t${String(i).padStart(3, '0')}`,
      file,
      overlay: 'failed',
      kind: 'AssertionError',
      text: `assert ${i} == 0`,
      template: 'AssertionError|assert <N> == <N>',
      next: 'fix it',
    },
  };
}

describe('groupByFile', () => {
  const policy: Finding = {
    code: 'CONTRACT_TOUCHED',
    layer: 'contracts',
    severity: 'reject',
    message: 'touched',
    evidence: {},
  };

  it(`keeps ${GROUP_ABOVE} findings of one file as they are`, () => {
    const list = Array.from({ length: GROUP_ABOVE }, (_, i) => regression(i, 'tests/test_a.py'));
    expect(groupByFile(list)).toEqual(list);
  });

  it('turns 195 REGRESSION findings of one file into one, with the count and every test, in id order; others untouched', () => {
    const many = Array.from({ length: 195 }, (_, i) => regression(194 - i, 'tests/test_a.py'));
    const other = regression(1, 'tests/test_b.py');
    const out = groupByFile([policy, ...many, other]);
    expect(out.map((f) => f.code)).toEqual(['CONTRACT_TOUCHED', 'REGRESSION', 'REGRESSION']);
    const g = out[1]!;
    expect(g.evidence).toMatchObject({ file: 'tests/test_a.py', count: 195, next: 'fix it' });
    const tests = g.evidence.tests as { test: string; text: string }[];
    expect(tests).toHaveLength(195);
    expect(tests[0]).toEqual({
      test: 'pytest::x::t000',
      overlay: 'failed',
      kind: 'AssertionError',
      text: 'assert 0 == 0',
      template: 'AssertionError|assert <N> == <N>',
    });
    expect(g.message).toMatch(
      /^195 base tests of tests\/test_a\.py pass on the base but fail or are skipped/,
    );
    expect(out[2]).toBe(other);
    // Deterministic: the same findings in another order give the same group.
    expect(groupByFile([...many].reverse())[0]).toEqual(g);
  });

  it("carries the members' test-side edits, once each, and names the first in its message", () => {
    const edit = {
      kind: 'generator-narrowed',
      file: 'tests/test_a.py',
      line: 12,
      description: 'narrowed the strategy of `x`',
    };
    const many = Array.from({ length: 8 }, (_, i) => {
      const f = regression(i, 'tests/test_a.py');
      return { ...f, evidence: { ...f.evidence, testEdits: [edit] } };
    });
    const [g] = groupByFile(many);
    expect(g?.evidence.testEdits).toEqual([edit]);
    expect(g?.message).toContain('; the head narrowed the strategy of `x` at tests/test_a.py:12');
  });

  it('caps the edits it carries like any finding, with the count, and names the threshold it was given', () => {
    const many = Array.from({ length: 30 }, (_, i) => {
      const f = regression(i, 'tests/test_a.py');
      const edit = {
        kind: 'test-deleted',
        file: 'tests/test_a.py',
        line: i + 1,
        description: `deleted t${i}`,
      };
      return { ...f, evidence: { ...f.evidence, testEdits: [edit] } };
    });
    const [g] = groupByFile(many, 10);
    expect(g?.evidence.testEdits).toHaveLength(MAX_ATTACHED);
    expect(g?.evidence.testEditsCount).toBe(30);
    expect(g?.message).toContain('(more than 10 in one file, shown as one)');
  });
});

describe('relocateLogPaths', () => {
  it('points every path into the temp logs at the out folder copy, in the message and at any depth of the evidence', () => {
    const dir = '/tmp/patchgate-123-logs';
    const f: Finding = {
      code: 'HEAD_RUN_BROKEN',
      layer: 'regression',
      severity: 'reject',
      message: `the test command (overlay-run) ran no test; logs: ${dir}/overlay-run.stdout.log, ${dir}/overlay-run.stderr.log`,
      evidence: {
        stdout: `${dir}/overlay-run.stdout.log`,
        nested: { logs: [`${dir}/seeds/x.log`] },
        other: '/tmp/else',
      },
    };
    const out = relocateLogPaths(f, dir);
    expect(out.message).toBe(
      'the test command (overlay-run) ran no test; logs: tests/overlay-run.stdout.log, tests/overlay-run.stderr.log',
    );
    expect(out.evidence).toEqual({
      stdout: 'tests/overlay-run.stdout.log',
      nested: { logs: ['tests/seeds/x.log'] },
      other: '/tmp/else',
    });
    // Nothing to move: the very same finding.
    expect(relocateLogPaths(out, dir)).toBe(out);
  });
});
