import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTRACT_BYTES } from '../../../src/config/contract-file.js';
import { ContractSnapshot } from '../../../src/config/contract-snapshot.js';
import { ContractFileError, InputError, InternalError, type Problem } from '../../../src/errors.js';
import {
  type ClaimLedger,
  type ClaimLedgerEntry,
  formatClaimLedger,
  formatTimestamp,
  isTimestamp,
  parseClaimLedger,
  type RunResult,
  readClaimLedger,
  recordRun,
  reopenEntry,
  serializeValidated,
  type WindowRun,
  windowFromRuns,
} from '../../../src/freeze/claim-ledger.js';
import { entryResult } from '../../../src/freeze/claim-votes.js';
import { tempDir } from '../../helpers/gitdir.js';

const FILE = 'freeze/ledger.json';
const T1 = '2026-09-12T21:14:00Z';
const T2 = '2026-09-13T08:00:00Z';

const SEED = {
  window_runs: 20,
  entries: {
    refund_cap: { status: 'open', fails_in_window: 0 },
    timeout_status: { status: 'blocked', fails_in_window: 3, last_fail: T1 },
    idempotency: { status: 'open', fails_in_window: 0 },
  },
};

const text = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/** The problems of a ledger the parser must reject. */
function problemsOf(source: string): Problem[] {
  try {
    parseClaimLedger(source, FILE);
  } catch (err) {
    if (err instanceof ContractFileError) {
      expect(err.code).toBe('CONTRACT_INVALID');
      return err.problems;
    }
    throw err;
  }
  throw new Error('expected the ledger to be rejected');
}

/** The one problem of a ledger with one broken rule, as `line: path: message`. */
function onlyProblem(source: string): string {
  const problems = problemsOf(source);
  expect(problems).toHaveLength(1);
  const [p] = problems;
  expect(p?.file).toBe(FILE);
  return `${p?.line}: ${p?.path}: ${p?.message}`;
}

/** A ledger with one entry `e` (entry key on line 4 of the formatted text). */
const withEntry = (e: Record<string, unknown>, top: Record<string, unknown> = {}) =>
  text({ window_runs: 5, entries: { refund_cap: e }, ...top });

function refusal(f: () => unknown): InputError {
  try {
    f();
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected an InputError');
}

function ledgerOf(
  windowRuns: number,
  entries: ClaimLedgerEntry[],
  extra: Partial<ClaimLedger> = {},
): ClaimLedger {
  return { windowRuns, entries: new Map(entries.map((e) => [e.id, e])), ...extra };
}

const open = (id: string, more: Partial<ClaimLedgerEntry> = {}): ClaimLedgerEntry => ({
  id,
  status: 'open',
  failsInWindow: 0,
  ...more,
});

/** Records `results` (one per run, for entry `id`) with run ids r1, r2, … */
function runs(ledger: ClaimLedger, id: string, results: RunResult[]): ClaimLedger {
  let l = ledger;
  for (const r of results) {
    l = recordRun(l, { results: new Map([[id, r]]), at: T1, runId: `r${(l.runsRecorded ?? 0) + 1}` }).ledger;
  }
  return l;
}

describe('claim ledger: reading', () => {
  it("reads the seed's ledger, entries in file order with the line of each key", () => {
    const ledger = parseClaimLedger(text(SEED), FILE);
    expect(ledger.windowRuns).toBe(20);
    expect(ledger.runsRecorded).toBeUndefined();
    expect(ledger.lastRun).toBeUndefined();
    expect([...ledger.entries.values()]).toEqual([
      { id: 'refund_cap', status: 'open', failsInWindow: 0, line: 4 },
      { id: 'timeout_status', status: 'blocked', failsInWindow: 3, lastFail: T1, line: 8 },
      { id: 'idempotency', status: 'open', failsInWindow: 0, line: 13 },
    ]);
  });

  it('reads our optional fields', () => {
    const ledger = parseClaimLedger(
      text({
        window_runs: 20,
        entries: {
          idempotency: {
            status: 'open',
            fails_in_window: 0,
            recent: 'PP-P',
            checks: ['tests/test_x.py::test_prop'],
            reopened: { owner: 'alice', reason: 'fixed the clock', at: '2026-10-01T10:00:00Z' },
          },
        },
        runs_recorded: 12,
        last_run: 'gh-run-1234',
      }),
      FILE,
    );
    expect(ledger.runsRecorded).toBe(12);
    expect(ledger.lastRun).toBe('gh-run-1234');
    expect(ledger.entries.get('idempotency')).toEqual({
      id: 'idempotency',
      status: 'open',
      failsInWindow: 0,
      recent: 'PP-P',
      checks: ['tests/test_x.py::test_prop'],
      reopened: { owner: 'alice', reason: 'fixed the clock', at: '2026-10-01T10:00:00Z' },
      line: 4,
    });
  });

  it('keeps file order for ids that look like integers (JavaScript would list them first)', () => {
    const source =
      '{"window_runs": 3, "entries": {"b": {"status": "open", "fails_in_window": 0},\n"42": {"status": "open", "fails_in_window": 0},\n"a.b:c-d": {"status": "open", "fails_in_window": 0}}}';
    expect([...parseClaimLedger(source, FILE).entries.keys()]).toEqual(['b', '42', 'a.b:c-d']);
  });

  it('accepts a blocked entry whose failures slid out of the window', () => {
    const ledger = parseClaimLedger(
      withEntry({ status: 'blocked', fails_in_window: 0, last_fail: T1 }),
      FILE,
    );
    expect(ledger.entries.get('refund_cap')?.status).toBe('blocked');
  });

  it('rejects text that is not JSON, and a repeated key, located', () => {
    expect(onlyProblem('{"window_runs": 20,\n "entries": {]}')).toMatch(/^2: : is not valid JSON/);
    expect(
      onlyProblem(
        '{"window_runs": 20, "entries": {\n"a": {"status": "open", "fails_in_window": 0},\n"a": {}}}',
      ),
    ).toMatch(/^3: : is not valid JSON: .*duplicate/i);
  });

  it.each([
    [0, 'expected at least 1, got the number 0.'],
    [1001, 'expected at most 1000, got the number 1001.'],
    [2.5, 'expected an integer, got the number 2.5.'],
    ['20', 'expected an integer, got the string "20".'],
  ])('rejects window_runs %j, located', (window, message) => {
    expect(onlyProblem(text({ window_runs: window, entries: {} }))).toBe(`2: window_runs: ${message}`);
  });

  it('rejects a ledger without window_runs or entries', () => {
    expect(problemsOf(text({})).map((p) => `${p.line}: ${p.path}: ${p.message}`)).toEqual([
      '1: entries: is required: expected an object (a mapping of keys to values).',
      '1: window_runs: is required: expected an integer.',
    ]);
    expect(onlyProblem(text({ window_runs: 20, entries: [] }))).toBe(
      '3: entries: expected an object (a mapping of keys to values), got a list.',
    );
  });

  it.each(['refund cap', 'a#b', ''])('rejects the freeze id %j, located at its key', (id) => {
    const line = onlyProblem(
      text({ window_runs: 5, entries: { [id]: { status: 'open', fails_in_window: 0 } } }),
    );
    expect(line).toMatch(
      new RegExp(`^4: entries\\.${id.replace(/[#]/g, '\\$&')}: is not a freeze id: expected letters`),
    );
  });

  it('rejects a status other than open or blocked', () => {
    expect(onlyProblem(withEntry({ status: 'frozen', fails_in_window: 0 }))).toBe(
      '5: entries.refund_cap.status: expected one of "open", "blocked", got the string "frozen".',
    );
  });

  it.each([
    [-1, 'expected at least 0, got the number -1.'],
    [1.5, 'expected an integer, got the number 1.5.'],
    [null, 'expected an integer, got null.'],
  ])('rejects fails_in_window %j', (fails, message) => {
    expect(onlyProblem(withEntry({ status: 'blocked', fails_in_window: fails }))).toBe(
      `6: entries.refund_cap.fails_in_window: ${message}`,
    );
  });

  it('rejects more failures than the window holds', () => {
    expect(onlyProblem(withEntry({ status: 'blocked', fails_in_window: 6, last_fail: T1 }))).toBe(
      '6: entries.refund_cap.fails_in_window: is 6, more than window_runs (5): a window of 5 runs holds at most 5 failures.',
    );
  });

  it.each([
    ['2026-09-12 21:14:00', 'not in YYYY-MM-DDTHH:MM:SSZ form'],
    ['2026-09-12T21:14:00+02:00', 'not in YYYY-MM-DDTHH:MM:SSZ form'],
    ['2026-09-12T21:14:00.123Z', 'not in YYYY-MM-DDTHH:MM:SSZ form'],
    ['2026-02-30T10:00:00Z', 'which is not a real date and time'],
    ['2026-09-12T24:00:00Z', 'which is not a real date and time'],
    ['2026-09-12T23:60:00Z', 'which is not a real date and time'],
    ['2026-09-12T23:59:60Z', 'which is not a real date and time'],
  ])('rejects last_fail %j', (value, why) => {
    expect(onlyProblem(withEntry({ status: 'blocked', fails_in_window: 1, last_fail: value }))).toBe(
      `7: entries.refund_cap.last_fail: expected a UTC time such as 2026-09-12T21:14:00Z, got '${value}', ${why}.`,
    );
  });

  it('requires last_fail when the window holds a failure, located at the entry', () => {
    expect(onlyProblem(withEntry({ status: 'blocked', fails_in_window: 2 }))).toBe(
      "4: entries.refund_cap.last_fail: is required when fails_in_window is 2: expected the time of the entry's last failure, such as 2026-09-12T21:14:00Z.",
    );
  });

  it('rejects an open entry with a failure in its window, naming the reopen command', () => {
    expect(onlyProblem(withEntry({ status: 'open', fails_in_window: 1, last_fail: T1 }))).toBe(
      "5: entries.refund_cap.status: is 'open' with 1 failure(s) in the window: one failure inside the window blocks the entry, so expected 'blocked'; reopen it with `patchgate freeze reopen refund_cap --reason TEXT --owner WHO`.",
    );
  });

  it('rejects recent with other characters than P, F and -', () => {
    expect(onlyProblem(withEntry({ status: 'open', fails_in_window: 0, recent: 'PpX' }))).toBe(
      '7: entries.refund_cap.recent: expected one character per recorded run: P (passed), F (failed) or - (did not run), got the string "PpX".',
    );
  });

  it('rejects recent longer than the window', () => {
    expect(onlyProblem(withEntry({ status: 'open', fails_in_window: 0, recent: 'PPPPPP' }))).toBe(
      '7: entries.refund_cap.recent: holds 6 runs, more than window_runs (5): the window keeps only the last 5 runs, oldest first.',
    );
  });

  it('rejects a failure count that is not the number of F in recent', () => {
    expect(
      onlyProblem(withEntry({ status: 'blocked', fails_in_window: 2, last_fail: T1, recent: 'PF-P' })),
    ).toBe(
      "6: entries.refund_cap.fails_in_window: is 2, but recent 'PF-P' holds 1 failure(s): fails_in_window is the number of F in recent, so the two must agree.",
    );
  });

  it('rejects empty checks and blank test ids', () => {
    expect(onlyProblem(withEntry({ status: 'open', fails_in_window: 0, checks: [] }))).toBe(
      '7: entries.refund_cap.checks: expected at least 1 item(s), got a list.',
    );
    expect(onlyProblem(withEntry({ status: 'open', fails_in_window: 0, checks: ['t::a', ' '] }))).toBe(
      '9: entries.refund_cap.checks[1]: expected a test id, got an empty or blank string.',
    );
  });

  it('rejects a reopen without who, why or a real time, and with unknown keys', () => {
    const problems = problemsOf(
      withEntry({
        status: 'open',
        fails_in_window: 0,
        reopened: { owner: ' ', at: '2026-10-01', by: 'x' },
      }),
    );
    expect(problems.map((p) => `${p.line}: ${p.path}: ${p.message}`)).toEqual([
      '7: entries.refund_cap.reopened.reason: is required: expected a string.',
      '8: entries.refund_cap.reopened.owner: expected who reopened the entry, got an empty or blank string.',
      "9: entries.refund_cap.reopened.at: expected a UTC time such as 2026-09-12T21:14:00Z, got '2026-10-01', not in YYYY-MM-DDTHH:MM:SSZ form.",
      "10: entries.refund_cap.reopened.by: unknown key 'by'.",
    ]);
  });

  it('rejects bad runs_recorded and last_run, and unknown keys at every level', () => {
    const problems = problemsOf(
      text({
        window_runs: 5,
        entries: { refund_cap: { status: 'open', fails_in_window: 0, owner: 'x' } },
        runs_recorded: -2,
        last_run: '',
        version: 1,
      }),
    );
    expect(problems.map((p) => `${p.line}: ${p.path}: ${p.message}`)).toEqual([
      "7: entries.refund_cap.owner: unknown key 'owner'.",
      '10: runs_recorded: expected at least 0, got the number -2.',
      '11: last_run: expected the id of the last recorded run, got an empty or blank string.',
      "12: version: unknown key 'version'; expected only '$schema', 'window_runs', 'entries', 'runs_recorded', 'last_run'.",
    ]);
  });

  it('reports shape and consistency problems of several entries at once, by line', () => {
    const problems = problemsOf(
      text({
        window_runs: 3,
        entries: {
          a: { status: 'open', fails_in_window: 1 },
          'b c': { status: 'blocked', fails_in_window: 'x' },
          d: { status: 'blocked', fails_in_window: 1, last_fail: T1, recent: 'PPPP' },
        },
      }),
    );
    expect(problems.map((p) => `${p.line}: ${p.path}`)).toEqual([
      '4: entries.a.last_fail',
      '5: entries.a.status',
      '8: entries.b c',
      '10: entries.b c.fails_in_window',
      '14: entries.d.fails_in_window',
      '16: entries.d.recent',
    ]);
    expect(problems.every((p) => p.file === FILE)).toBe(true);
  });

  it('reads a ledger from a folder and from a snapshot; a missing one is an input error saying how to create it', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'freeze'));
    writeFileSync(path.join(dir, FILE), text(SEED));
    const options = { maxBytes: DEFAULT_CONTRACT_BYTES };
    expect((await readClaimLedger(dir, FILE, 'the working tree', options)).entries.size).toBe(3);
    const snapshot = ContractSnapshot.of('the base revision abc123', { [FILE]: text(SEED) });
    expect((await readClaimLedger(snapshot, FILE, snapshot.revision, options)).windowRuns).toBe(20);

    const missing = ContractSnapshot.of('the base revision abc123', { [FILE]: undefined });
    const err = await readClaimLedger(missing, FILE, missing.revision, options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe('CONTRACT_INVALID');
    expect((err as InputError).message).toMatch(
      /^freeze\/ledger\.json does not exist in the base revision abc123; a human creates it \(an empty one is \{"window_runs": 20, "entries": \{\}\}/,
    );
    await expect(readClaimLedger(dir, 'freeze/other.json', 'the working tree', options)).rejects.toThrow(
      /does not exist in the working tree/,
    );
  });
});

describe('claim ledger: timestamps', () => {
  it('accepts only real UTC times to the second', () => {
    expect(isTimestamp('2024-02-29T23:59:59Z')).toBe(true);
    expect(isTimestamp('2023-02-29T00:00:00Z')).toBe(false);
    expect(isTimestamp('2026-09-12T21:14:00z')).toBe(false);
    expect(formatTimestamp(new Date('2026-09-12T21:14:00.987Z'))).toBe('2026-09-12T21:14:00Z');
  });
});

describe('claim ledger: recording runs', () => {
  it('one failure flips an open entry to blocked, with the time of the run', () => {
    const ledger = ledgerOf(20, [open('refund_cap'), open('idempotency')]);
    const { ledger: next, changes } = recordRun(ledger, {
      results: new Map<string, RunResult>([
        ['refund_cap', 'fail'],
        ['idempotency', 'pass'],
      ]),
      at: T1,
      runId: 'gh-1',
    });
    expect(changes).toEqual([{ id: 'refund_cap', from: 'open', to: 'blocked', result: 'fail' }]);
    expect(next.entries.get('refund_cap')).toEqual({
      id: 'refund_cap',
      status: 'blocked',
      failsInWindow: 1,
      lastFail: T1,
      recent: 'F',
    });
    expect(next.entries.get('idempotency')).toEqual({
      id: 'idempotency',
      status: 'open',
      failsInWindow: 0,
      recent: 'P',
    });
    expect(next.runsRecorded).toBe(1);
    expect(next.lastRun).toBe('gh-1');
    // Pure: the input ledger is as it was.
    expect(ledger.entries.get('refund_cap')).toEqual(open('refund_cap'));
  });

  it('counts an entry the run did not report as - (did not run)', () => {
    const { ledger: next, changes } = recordRun(ledgerOf(20, [open('a', { recent: 'PP' })]), {
      results: new Map(),
      at: T1,
    });
    expect(changes).toEqual([]);
    expect(next.entries.get('a')).toMatchObject({ status: 'open', recent: 'PP-', failsInWindow: 0 });
    expect(next.lastRun).toBeUndefined();
  });

  it('later passes never clear a blocked entry', () => {
    const ledger = runs(ledgerOf(20, [open('a')]), 'a', ['fail', ...Array<RunResult>(30).fill('pass')]);
    const a = ledger.entries.get('a');
    expect(a?.status).toBe('blocked');
    expect(a?.failsInWindow).toBe(0);
    expect(a?.recent).toBe('P'.repeat(20));
    expect(a?.lastFail).toBe(T1);
  });

  it('slides the window by runs: 21 runs of a window of 20 push out a failure of run 1, and the entry stays blocked', () => {
    let ledger = ledgerOf(20, [open('a')]);
    ledger = runs(ledger, 'a', ['fail', ...Array<RunResult>(19).fill('pass')]);
    expect(ledger.entries.get('a')).toMatchObject({ failsInWindow: 1, status: 'blocked' });
    expect(ledger.entries.get('a')?.recent).toBe(`F${'P'.repeat(19)}`);
    ledger = runs(ledger, 'a', ['pass']);
    expect(ledger.runsRecorded).toBe(21);
    expect(ledger.entries.get('a')).toMatchObject({
      failsInWindow: 0,
      status: 'blocked',
      recent: 'P'.repeat(20),
    });
  });

  it('keeps hand-written failures without recent as the newest of the window, then slides them out', () => {
    let ledger = ledgerOf(5, [{ id: 'a', status: 'blocked', failsInWindow: 2, lastFail: T1 }]);
    ledger = runs(ledger, 'a', ['pass']);
    expect(ledger.entries.get('a')).toMatchObject({ recent: 'FFP', failsInWindow: 2 });
    ledger = runs(ledger, 'a', ['pass', 'pass', 'pass']);
    expect(ledger.entries.get('a')).toMatchObject({ recent: 'FPPPP', failsInWindow: 1, status: 'blocked' });
    ledger = runs(ledger, 'a', ['pass']);
    expect(ledger.entries.get('a')).toMatchObject({ recent: 'PPPPP', failsInWindow: 0, status: 'blocked' });
  });

  it('refuses to record the same run id twice, which would double-count its failures', () => {
    const once = recordRun(ledgerOf(20, [open('a')]), {
      results: new Map([['a', 'fail']]),
      at: T1,
      runId: 'gh-7',
    });
    const err = refusal(() =>
      recordRun(once.ledger, { results: new Map([['a', 'fail']]), at: T2, runId: 'gh-7' }),
    );
    expect(err.code).toBe('USAGE');
    expect(err.message).toMatch(/^run gh-7 is already recorded/);
    expect(once.ledger.entries.get('a')?.failsInWindow).toBe(1);
  });

  it('refuses an invalid time, a blank run id and results for unknown entries', () => {
    const ledger = ledgerOf(20, [open('a'), open('b')]);
    expect(refusal(() => recordRun(ledger, { results: new Map(), at: '2026-09-12' })).message).toMatch(
      /not in YYYY-MM-DDTHH:MM:SSZ form/,
    );
    expect(refusal(() => recordRun(ledger, { results: new Map(), at: T1, runId: ' ' })).message).toMatch(
      /blank/,
    );
    expect(refusal(() => recordRun(ledger, { results: new Map([['zz', 'pass']]), at: T1 })).message).toMatch(
      /'zz'.*known ids: a, b/,
    );
  });
});

describe('claim ledger: which results are failures', () => {
  it('a retried (flaky) pass is a failure, as is a failure next to a passing rerun', () => {
    expect(entryResult([{ status: 'flaky' }])).toBe('fail');
    expect(entryResult([{ status: 'passed' }, { status: 'failed' }])).toBe('fail');
    expect(entryResult([{ status: 'error' }])).toBe('fail');
  });

  it('a pass needs a vote; skips and expected failures cast none', () => {
    expect(entryResult([{ status: 'passed' }, { status: 'skipped' }])).toBe('pass');
    expect(entryResult([{ status: 'skipped' }, { status: 'xfailed' }])).toBe('absent');
    expect(entryResult([])).toBe('absent');
  });
});

describe('claim ledger: reopening', () => {
  const blocked: ClaimLedgerEntry = {
    id: 'timeout_status',
    status: 'blocked',
    failsInWindow: 3,
    lastFail: T1,
    recent: 'FPFF',
    checks: ['tests/test_t.py::test_timeout'],
    line: 8,
  };

  it('clears the window and records who and why, keeping last_fail', () => {
    const ledger = ledgerOf(20, [open('refund_cap'), blocked]);
    const next = reopenEntry(ledger, 'timeout_status', { owner: 'alice', reason: 'fixed the clock', at: T2 });
    expect(next.entries.get('timeout_status')).toEqual({
      id: 'timeout_status',
      status: 'open',
      failsInWindow: 0,
      lastFail: T1,
      recent: '',
      checks: ['tests/test_t.py::test_timeout'],
      reopened: { owner: 'alice', reason: 'fixed the clock', at: T2 },
    });
    expect([...next.entries.keys()]).toEqual(['refund_cap', 'timeout_status']);
    expect(ledger.entries.get('timeout_status')).toEqual(blocked);
    // A reopened entry is blocked again by its next failure, and only by a failure.
    const after = runs(next, 'timeout_status', ['pass', 'fail']);
    expect(after.entries.get('timeout_status')).toMatchObject({
      status: 'blocked',
      recent: 'PF',
      failsInWindow: 1,
    });
  });

  it('refuses an unknown id, naming the known ones', () => {
    const err = refusal(() =>
      reopenEntry(ledgerOf(20, [open('refund_cap'), blocked]), 'timeout', {
        owner: 'a',
        reason: 'b',
        at: T2,
      }),
    );
    expect(err.code).toBe('USAGE');
    expect(err.message).toBe("no entry 'timeout' in the ledger (known ids: refund_cap, timeout_status)");
  });

  it('refuses an entry that is not blocked, and a reopen without who, why or a real time', () => {
    const ledger = ledgerOf(20, [open('refund_cap'), blocked]);
    expect(
      refusal(() => reopenEntry(ledger, 'refund_cap', { owner: 'a', reason: 'b', at: T2 })).message,
    ).toMatch(/^entry 'refund_cap' is not blocked/);
    expect(
      refusal(() => reopenEntry(ledger, 'timeout_status', { owner: ' ', reason: 'b', at: T2 })).message,
    ).toMatch(/owner/);
    expect(
      refusal(() => reopenEntry(ledger, 'timeout_status', { owner: 'a', reason: '', at: T2 })).message,
    ).toMatch(/reason/);
    expect(
      refusal(() => reopenEntry(ledger, 'timeout_status', { owner: 'a', reason: 'b', at: 'now' })).message,
    ).toMatch(/YYYY-MM-DDTHH:MM:SSZ/);
  });
});

describe('claim ledger: writing', () => {
  it('formats in a fixed key order, omitting what is not set', () => {
    const ledger = ledgerOf(
      20,
      [
        open('refund_cap'),
        {
          id: 'idempotency',
          reopened: { at: T2, reason: 'fixed', owner: 'alice' },
          checks: ['t::a'],
          recent: '',
          failsInWindow: 0,
          status: 'open',
          lastFail: T1,
          line: 99,
        },
      ],
      { lastRun: 'gh-1', runsRecorded: 3 },
    );
    expect(formatClaimLedger(ledger)).toBe(`{
  "window_runs": 20,
  "entries": {
    "refund_cap": {
      "status": "open",
      "fails_in_window": 0
    },
    "idempotency": {
      "status": "open",
      "fails_in_window": 0,
      "last_fail": "${T1}",
      "recent": "",
      "checks": [
        "t::a"
      ],
      "reopened": {
        "owner": "alice",
        "reason": "fixed",
        "at": "${T2}"
      }
    }
  },
  "runs_recorded": 3,
  "last_run": "gh-1"
}
`);
    expect(formatClaimLedger(ledgerOf(20, []))).toBe('{\n  "window_runs": 20,\n  "entries": {}\n}\n');
  });

  it("formats the seed's ledger as the seed writes it, key for key", () => {
    expect(JSON.parse(formatClaimLedger(parseClaimLedger(text(SEED), FILE)))).toEqual(SEED);
  });

  it('refuses to serialize a ledger that would not parse back, as our bug', () => {
    const bad = ledgerOf(20, [open('a', { failsInWindow: 1, lastFail: T1 })]);
    expect(() => serializeValidated(bad, FILE)).toThrow(InternalError);
    expect(() => serializeValidated(bad, FILE)).toThrow(
      /refusing to write freeze\/ledger\.json: [\s\S]*'open' with 1 failure/,
    );
    expect(() => serializeValidated(ledgerOf(20, [open('a b')]), FILE)).toThrow(InternalError);
    // The map key is the id: an entry filed under another key does not read back as itself.
    const misfiled: ClaimLedger = { windowRuns: 20, entries: new Map([['b', open('a')]]) };
    expect(() => serializeValidated(misfiled, FILE)).toThrow(/does not read back as written/);
    expect(serializeValidated(ledgerOf(20, [open('a')]), FILE)).toBe(
      formatClaimLedger(ledgerOf(20, [open('a')])),
    );
  });
});

// ---- properties ----

const ID = fc
  .stringMatching(/^[A-Za-z0-9_.:-]{1,12}$/)
  .filter((s) => s !== 'constructor' && s !== '__proto__');
const TIME = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
  .map(formatTimestamp);
const TEXT = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== '');

/** A valid ledger: every invariant the parser checks holds by construction. */
const ledgerArb: fc.Arbitrary<ClaimLedger> = fc.integer({ min: 1, max: 12 }).chain((windowRuns) => {
  const entryArb = fc
    .record(
      {
        recent: fc.option(fc.stringMatching(new RegExp(`^[PF-]{0,${windowRuns}}$`)), { nil: undefined }),
        handFails: fc.integer({ min: 0, max: windowRuns }),
        blocked: fc.boolean(),
        lastFail: fc.option(TIME, { nil: undefined }),
        checks: fc.option(fc.array(TEXT, { minLength: 1, maxLength: 3 }), { nil: undefined }),
        reopened: fc.option(fc.record({ owner: TEXT, reason: TEXT, at: TIME }), { nil: undefined }),
      },
      { requiredKeys: ['handFails', 'blocked'] },
    )
    .chain((r) => TIME.map((fallback) => ({ ...r, fallback })));
  return fc
    .record({
      entries: fc.uniqueArray(fc.tuple(ID, entryArb), { selector: ([id]) => id, maxLength: 6 }),
      runsRecorded: fc.option(fc.nat({ max: 10_000 }), { nil: undefined }),
      lastRun: fc.option(
        TEXT.filter((s) => !s.startsWith('prop-')),
        { nil: undefined },
      ),
    })
    .map(({ entries, runsRecorded, lastRun }) => {
      const map = new Map<string, ClaimLedgerEntry>();
      for (const [id, r] of entries) {
        const fails = r.recent !== undefined ? [...r.recent].filter((c) => c === 'F').length : r.handFails;
        const lastFail = r.lastFail ?? (fails > 0 ? r.fallback : undefined);
        map.set(id, {
          id,
          status: fails > 0 || r.blocked ? 'blocked' : 'open',
          failsInWindow: fails,
          ...(lastFail !== undefined ? { lastFail } : {}),
          ...(r.recent !== undefined ? { recent: r.recent } : {}),
          ...(r.checks !== undefined ? { checks: r.checks } : {}),
          ...(r.reopened !== undefined ? { reopened: r.reopened } : {}),
        });
      }
      return {
        windowRuns,
        entries: map,
        ...(runsRecorded !== undefined ? { runsRecorded } : {}),
        ...(lastRun !== undefined ? { lastRun } : {}),
      };
    });
});

const RESULT = fc.constantFrom<RunResult>('pass', 'fail', 'absent');

/** What `line` the parser adds is not part of the ledger. */
const withoutLines = (l: ClaimLedger) => [...l.entries.values()].map(({ line: _line, ...e }) => e);

describe('claim ledger: properties', () => {
  it('format then parse gives the same ledger back', () => {
    fc.assert(
      fc.property(ledgerArb, (ledger) => {
        const back = parseClaimLedger(formatClaimLedger(ledger), FILE);
        expect(withoutLines(back)).toEqual(withoutLines(ledger));
        expect([back.windowRuns, back.runsRecorded, back.lastRun]).toEqual([
          ledger.windowRuns,
          ledger.runsRecorded,
          ledger.lastRun,
        ]);
        expect(serializeValidated(back, FILE)).toBe(formatClaimLedger(ledger));
      }),
      { numRuns: 300 },
    );
  });

  it('under any run sequence: fails_in_window counts the F, recent fits the window, blocked is absorbing, the file stays valid', () => {
    const scenario = ledgerArb.chain((ledger) =>
      fc.tuple(
        fc.constant(ledger),
        fc.array(
          fc.tuple(
            fc.array(RESULT, { minLength: ledger.entries.size, maxLength: ledger.entries.size }),
            TIME,
          ),
          { maxLength: 30 },
        ),
      ),
    );
    fc.assert(
      fc.property(scenario, ([start, sequence]) => {
        let ledger = start;
        const ids = [...start.entries.keys()];
        for (const [i, [results, at]] of sequence.entries()) {
          const map = new Map<string, RunResult>();
          results.forEach((r, j) => {
            if (r !== 'absent' || j % 2 === 0) map.set(ids[j] ?? '', r);
          });
          const { ledger: next, changes } = recordRun(ledger, { results: map, at, runId: `prop-${i}` });
          for (const [id, e] of next.entries) {
            const before = ledger.entries.get(id);
            const recent = e.recent ?? '';
            expect(e.failsInWindow).toBe([...recent].filter((c) => c === 'F').length);
            expect(recent.length).toBeLessThanOrEqual(next.windowRuns);
            if (before?.status === 'blocked') expect(e.status).toBe('blocked');
            if (e.failsInWindow > 0) expect(e.status).toBe('blocked');
            if ((map.get(id) ?? 'absent') === 'fail') expect(e.lastFail).toBe(at);
            else expect(e.lastFail).toBe(before?.lastFail);
          }
          for (const c of changes) expect([c.from, c.to, c.result]).toEqual(['open', 'blocked', 'fail']);
          expect(next.runsRecorded).toBe((ledger.runsRecorded ?? 0) + 1);
          expect(parseClaimLedger(serializeValidated(next, FILE), FILE).entries.size).toBe(ids.length);
          ledger = next;
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('claim ledger: the window computed from recorded runs (freeze window)', () => {
  const at = (h: number) => `2026-09-13T${String(h).padStart(2, '0')}:00:00Z`;
  const run = (h: number, results: Record<string, RunResult>): WindowRun => ({
    at: at(h),
    runId: `r${h}`,
    results: new Map(Object.entries(results)),
  });

  it('is the last window_runs runs; a failure since the last reopen blocks an open entry, even one the window slid past', () => {
    const { ledger, changes } = windowFromRuns(ledgerOf(3, [open('a'), open('b'), open('c')]), [
      run(1, { a: 'fail', b: 'pass', c: 'pass' }),
      run(2, { a: 'pass', b: 'pass', c: 'pass' }),
      run(3, { a: 'pass', c: 'pass' }),
      run(4, { a: 'pass', b: 'fail', c: 'pass' }),
    ]);
    expect(ledger.entries.get('a')).toMatchObject({
      status: 'blocked',
      failsInWindow: 0,
      recent: 'PPP',
      lastFail: at(1),
    });
    expect(ledger.entries.get('b')).toMatchObject({
      status: 'blocked',
      failsInWindow: 1,
      recent: 'P-F',
      lastFail: at(4),
    });
    expect(ledger.entries.get('c')).toMatchObject({ status: 'open', failsInWindow: 0, recent: 'PPP' });
    expect(changes.map((c) => [c.id, c.to])).toEqual([
      ['a', 'blocked'],
      ['b', 'blocked'],
    ]);
    expect(ledger).toMatchObject({ runsRecorded: 4, lastRun: 'r4' });
  });

  it('gives the same window record gives, run by run', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<RunResult>('pass', 'fail', 'absent'), { maxLength: 30 }),
        (results) => {
          const start = ledgerOf(5, [open('a')]);
          const carried = runs(start, 'a', results);
          const computed = windowFromRuns(
            start,
            results.map((r, i) => ({ at: T1, runId: `r${i + 1}`, results: new Map([['a', r]]) })),
          ).ledger;
          const { lastFail: _x, ...c } = carried.entries.get('a') as ClaimLedgerEntry;
          const { lastFail: _y, ...w } = computed.entries.get('a') as ClaimLedgerEntry;
          // record keeps an empty window as no `recent` until the first run: compare what both say.
          expect({ ...w, recent: w.recent ?? '' }).toEqual({ ...c, recent: c.recent ?? '' });
        },
      ),
    );
  });

  it('never opens a blocked entry, and after a reopen counts only the runs after it', () => {
    const blocked = { id: 'a', status: 'blocked' as const, failsInWindow: 1, recent: 'F', lastFail: at(1) };
    const stays = windowFromRuns(ledgerOf(3, [blocked]), [
      run(1, { a: 'fail' }),
      run(2, { a: 'pass' }),
    ]).ledger;
    expect(stays.entries.get('a')).toEqual(blocked);
    const reopened = open('a', {
      recent: '',
      lastFail: at(1),
      reopened: { owner: 'o', reason: 'r', at: at(2) },
    });
    const after = windowFromRuns(ledgerOf(3, [reopened]), [
      run(1, { a: 'fail' }),
      run(2, { a: 'fail' }),
      run(3, { a: 'pass' }),
    ]).ledger;
    expect(after.entries.get('a')).toMatchObject({
      status: 'open',
      recent: 'P',
      failsInWindow: 0,
      lastFail: at(1),
    });
  });

  it("refuses a run whose time is not the ledger's timestamp form", () => {
    expect(() =>
      windowFromRuns(ledgerOf(3, [open('a')]), [{ at: '2026-09-13', results: new Map() }]),
    ).toThrow(InputError);
  });
});
