/**
 * What reruns a new failure costs, and what they show: a scripted session
 * answers each run with the outcome the script gives that side's next run,
 * and records which runs were asked for, of which tests, and which of them
 * overlapped in time. (The session's real runs are the e2e tests' business:
 * test/e2e/failure-class.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { flakeHistoryFrom, windowStart } from '../../../src/history/flake-history.js';
import type { TestResult } from '../../../src/history/run.js';
import { historyLocation, openHistory } from '../../../src/history/store.js';
import { writeRun } from '../../../src/history/write.js';
import type { TestOutcome } from '../../../src/junit/model.js';
import {
  type ClassifyOptions,
  classifyFailures,
  type NewFailure,
} from '../../../src/layers/failure-class.js';
import type { TestIdParts } from '../../../src/runners/tests/presets.js';
import type { SuiteRun } from '../../../src/runners/tests/session.js';
import { tempDir } from '../../helpers/gitdir.js';
import { historyRun, testResult } from '../../helpers/history-rows.js';

type Status = 'passed' | 'failed';
type Script = Record<string, Status[]>;

function outcome(name: string, status: Status): TestOutcome {
  return {
    id: `tests/test_a.py::${name}`,
    suite: 'pytest',
    classname: 'tests.test_a',
    name,
    file: 'tests/test_a.py',
    status,
    failures: status === 'failed' ? [{ kind: 'AssertionError', message: `assert ${name}`, body: '' }] : [],
  };
}

const failure = (name: string): NewFailure => ({
  test: outcome(name, 'failed'),
  kind: 'AssertionError',
  message: `assert ${name}`,
});

/** Runs answered from `head` and `base`: test name -> the status of its 1st, 2nd … run on that side. */
function scripted(head: Script, base: Script) {
  const calls: { side: 'head' | 'base'; tests: string[]; start: number; end: number }[] = [];
  let clock = 0;
  const seen = { head: new Map<string, number>(), base: new Map<string, number>() };
  const run = async (side: 'head' | 'base', subset: TestIdParts[]): Promise<SuiteRun> => {
    const call = { side, tests: subset.map((t) => t.name), start: clock++, end: -1 };
    calls.push(call);
    // Let the other side's run start before this one ends, as real runs would.
    await new Promise((r) => setTimeout(r, 5));
    call.end = clock++;
    const script = side === 'head' ? head : base;
    const tests = subset.map((t) => {
      const i = seen[side].get(t.name) ?? 0;
      seen[side].set(t.name, i + 1);
      const status = script[t.name]?.[i];
      if (status === undefined) throw new Error(`the script has no ${side} run ${i + 1} of ${t.name}`);
      return outcome(t.name, status);
    });
    return { label: `${side}-rerun-${calls.length}`, side, tests, run: {} as SuiteRun['run'] };
  };
  const tests: ClassifyOptions['tests'] = {
    baseHasTestFile: async () => true,
    baseRun: (subset) => run('base', subset),
    headRerun: (subset) => run('head', subset),
  };
  const overlapped = (a: (typeof calls)[number], b: (typeof calls)[number]) =>
    a.start < b.end && b.start < a.end;
  return { tests, calls, overlapped };
}

describe('classifyFailures', () => {
  it('judges a failure the head gives every time by the base’s first run, without rerunning the base', async () => {
    const s = scripted({ t: ['failed', 'failed'] }, { t: ['passed'] });
    const [c] = await classifyFailures({ tests: s.tests, scheme: 'seed', failures: [failure('t')] });
    expect(c).toEqual({ kind: 'deterministic', base: 'passed', reruns: ['failed', 'failed'] });
    expect(s.calls.map((c) => c.side)).toEqual(['base', 'head', 'head']);
  });

  it('reruns the base beside the head’s second rerun once the first passed: NEW_FLAKE’s evidence', async () => {
    const s = scripted({ t: ['passed', 'failed'] }, { t: ['passed', 'passed'] });
    const [c] = await classifyFailures({ tests: s.tests, scheme: 'seed', failures: [failure('t')] });
    expect(c).toEqual({
      kind: 'intermittent',
      reruns: ['passed', 'failed'],
      baseRuns: ['passed', 'passed'],
      baseFlaky: false,
      onBase: true,
    });
    const [base1, head1, head2, base2] = s.calls;
    expect(s.calls).toHaveLength(4);
    expect(s.overlapped(base1!, head1!)).toBe(true);
    expect(head2?.side).toBe('head');
    expect(base2?.side).toBe('base');
    expect(s.overlapped(head2!, base2!)).toBe(true);
  });

  it('gives a failure the last rerun passed as many base runs, after the head’s, and sees the base flake', async () => {
    const s = scripted({ t: ['failed', 'passed'] }, { t: ['passed', 'failed'] });
    const [c] = await classifyFailures({ tests: s.tests, scheme: 'seed', failures: [failure('t')] });
    expect(c).toEqual({
      kind: 'intermittent',
      reruns: ['failed', 'passed'],
      baseRuns: ['passed', 'failed'],
      baseFlaky: true,
      onBase: true,
    });
    expect(s.calls.map((c) => c.side)).toEqual(['base', 'head', 'head', 'base']);
    expect(s.overlapped(s.calls[2]!, s.calls[3]!)).toBe(false);
  });

  it('reruns on the base only the failures a head rerun passed, each with its own base runs', async () => {
    const s = scripted(
      { flaky: ['passed', 'passed'], broken: ['failed', 'failed'] },
      { flaky: ['passed', 'passed'], broken: ['passed'] },
    );
    const [flaky, broken] = await classifyFailures({
      tests: s.tests,
      scheme: 'seed',
      failures: [failure('flaky'), failure('broken')],
    });
    expect(flaky).toMatchObject({ kind: 'intermittent', baseRuns: ['passed', 'passed'] });
    expect(broken).toEqual({ kind: 'deterministic', base: 'passed', reruns: ['failed', 'failed'] });
    expect(s.calls.filter((c) => c.side === 'base').map((c) => c.tests)).toEqual([
      ['flaky', 'broken'],
      ['flaky'],
    ]);
  });

  it('with three rounds, catches up every base rerun a late pass is owed', async () => {
    const s = scripted({ t: ['failed', 'failed', 'passed'] }, { t: ['passed', 'passed', 'passed'] });
    const [c] = await classifyFailures({
      tests: s.tests,
      scheme: 'seed',
      failures: [failure('t')],
      reruns: 3,
    });
    expect(c).toMatchObject({ kind: 'intermittent', baseRuns: ['passed', 'passed', 'passed'] });
    expect(s.calls.map((c) => c.side)).toEqual(['base', 'head', 'head', 'head', 'base', 'base']);
  });

  it('calls a failure the base gives the same way pre-existing, and reruns nothing more of it', async () => {
    const s = scripted({ t: ['failed'] }, { t: ['failed'] });
    const [c] = await classifyFailures({ tests: s.tests, scheme: 'seed', failures: [failure('t')] });
    expect(c).toMatchObject({ kind: 'pre-existing' });
    expect(s.calls.map((c) => c.side)).toEqual(['base', 'head']);
  });
});

describe('classifyFailures with a run history', () => {
  /** A real SQLite history in which `flaky` flaked on a main-branch run and `steady` only ever passed. */
  async function history() {
    const root = tempDir();
    const db = await openHistory(historyLocation({}, root));
    const main = (at: string, tests: TestResult[]) =>
      historyRun({
        repository: 'r',
        kind: 'record',
        recordedAt: at,
        baseCommit: undefined,
        headCommit: `m${at}`,
        verdict: undefined,
        tests,
      });
    const flaky = (failed: number) =>
      testResult('tests/test_a.py::flaky', 'main', {
        runs: 2,
        failed,
        flaky: failed > 0,
        signature: { sha256: 'f'.repeat(64), template: 'AssertionError|assert flaky' },
      });
    const steady = testResult('tests/test_a.py::steady', 'main');
    await writeRun(db, main('2026-11-20T00:00:00.000Z', [flaky(1), steady]));
    await writeRun(db, main('2026-11-25T00:00:00.000Z', [flaky(0), steady]));
    // Long ago: outside the window, it must not count.
    await writeRun(
      db,
      main('2026-01-01T00:00:00.000Z', [
        testResult('tests/test_a.py::old', 'main', { runs: 2, failed: 1, flaky: true }),
      ]),
    );
    return { db, history: flakeHistoryFrom(db, '.patchgate/history.sqlite', 'r', windowStart('2026-12-01')) };
  }

  it('takes a test that flaked on trusted runs in the window as flaky on the base, without a base rerun', async () => {
    const { db, history: h } = await history();
    try {
      const s = scripted({ flaky: ['passed', 'passed'] }, { flaky: ['passed'] });
      const [c] = await classifyFailures({
        tests: s.tests,
        scheme: 'seed',
        failures: [failure('flaky')],
        history: h,
      });
      expect(c).toEqual({
        kind: 'intermittent',
        reruns: ['passed', 'passed'],
        baseRuns: ['passed'],
        baseFlaky: true,
        onBase: true,
        remembered: {
          flakyRuns: 1,
          runs: 2,
          lastSeen: '2026-11-20T00:00:00.000Z',
          template: 'AssertionError|assert flaky',
          since: '2026-11-01',
          where: '.patchgate/history.sqlite',
        },
      });
      // The base's first run only: no base rerun was asked for.
      expect(s.calls.filter((c) => c.side === 'base')).toHaveLength(1);
    } finally {
      await db.close();
    }
  });

  it('still reruns the base for a test with a clean record, and for one whose flakes are outside the window', async () => {
    const { db, history: h } = await history();
    try {
      const s = scripted(
        { steady: ['passed', 'passed'], old: ['passed', 'passed'] },
        { steady: ['passed', 'passed'], old: ['passed', 'passed'] },
      );
      const classes = await classifyFailures({
        tests: s.tests,
        scheme: 'seed',
        failures: [failure('steady'), failure('old')],
        history: h,
      });
      expect(classes.map((c) => c.kind === 'intermittent' && c.baseFlaky)).toEqual([false, false]);
      expect(classes.map((c) => c.kind === 'intermittent' && c.remembered)).toEqual([undefined, undefined]);
      expect(s.calls.filter((c) => c.side === 'base').length).toBeGreaterThan(1);
    } finally {
      await db.close();
    }
  });
});
