import type { HistoryRun, TestResult } from '../../src/history/run.js';

/** One test's result in one side of a run: a single pass unless `fields` say otherwise. */
export function testResult(
  id: string,
  side: TestResult['side'],
  fields: Partial<TestResult> = {},
): TestResult {
  return { side, testId: id, runs: 1, passed: 1, failed: 0, skipped: 0, flaky: false, ...fields };
}

/** An accepted check of github.com/acme/app with nothing in it, unless `fields` say otherwise. */
export function historyRun(fields: Partial<HistoryRun> = {}): HistoryRun {
  return {
    repository: 'github.com/acme/app',
    kind: 'check',
    recordedAt: '2026-11-02T10:00:00.000Z',
    baseCommit: 'b'.repeat(40),
    headCommit: 'h'.repeat(40),
    verdict: 'accept',
    authors: [],
    findings: [],
    tests: [],
    artifacts: [],
    ...fields,
  };
}
