/**
 * `patchgate freeze window`: the freeze-window ledger computed from the
 * main-branch runs of the run history (`record --history`), with real pytest
 * reports, rather than carried forward one `record` at a time.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { calcRepo } from '../helpers/calc-repo.js';
import { type GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { pytestReport } from '../helpers/pytest-report.js';

const LEDGER = 'freeze/ledger.json';

function ledgerRepo(): GitDir {
  return calcRepo({
    files: {
      [LEDGER]: `${JSON.stringify({
        window_runs: 3,
        entries: { adds: { status: 'open', fails_in_window: 0, checks: ['tests/test_add.py::test_add'] } },
      })}\n`,
    },
  });
}

const record = (repo: GitDir, junit: string, runId: string, at: string) =>
  runCli(['record', '--junit', junit, '--history', '--ledger', LEDGER, '--run-id', runId, '--at', at], {
    cwd: repo.dir,
  });
const readLedger = (repo: GitDir) => JSON.parse(readFileSync(repo.path(LEDGER), 'utf8'));

describe('patchgate freeze window', () => {
  it("computes the window from every main-branch run the history holds, a run whose ledger the job did not commit included; only a human's reopen opens it again", async () => {
    const repo = ledgerRepo();
    expect((await record(repo, pytestReport(repo), 'r1', '2026-11-01T10:00:00Z')).code).toBe(0);
    expect(readLedger(repo).entries.adds.recent).toBe('P');
    // The job that recorded r1 never committed the ledger.
    repo.git('checkout', '--', LEDGER);
    // Each main-branch run is of a commit of its own (the history marks a commit that passes and fails as flaky).
    repo.write({ 'src/calc.py': 'def add(a, b):\n    return a - b\n' }).commit('main: break add');
    expect((await record(repo, pytestReport(repo), 'r2', '2026-11-01T11:00:00Z')).code).toBe(0);
    repo.git('checkout', '--', LEDGER);
    expect(readLedger(repo).entries.adds).toEqual({
      status: 'open',
      fails_in_window: 0,
      checks: ['tests/test_add.py::test_add'],
    });

    const dry = await runCli(['freeze', 'window', '--ledger', LEDGER, '--dry-run'], { cwd: repo.dir });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("adds: open '' → blocked 'PF'");
    expect(dry.stdout).toContain('from 2 main-branch run(s)');
    expect(readLedger(repo).entries.adds.status).toBe('open');

    const r = await runCli(['freeze', 'window', '--ledger', LEDGER], { cwd: repo.dir });
    expect(r.code).toBe(0);
    const ledger = readLedger(repo);
    expect(ledger.entries.adds).toMatchObject({
      status: 'blocked',
      fails_in_window: 1,
      recent: 'PF',
      last_fail: '2026-11-01T11:00:00Z',
    });
    expect(ledger).toMatchObject({ runs_recorded: 2, last_run: 'r2' });

    // Passes after it never unblock it; a human reopen starts the window again, after the reopen's time.
    repo.write({ 'src/calc.py': 'def add(a, b):\n    return a + b\n' }).commit('main: fix add');
    expect((await record(repo, pytestReport(repo), 'r3', '2026-11-01T12:00:00Z')).code).toBe(0);
    // (record itself carried r3 onto the blocked entry; the window leaves a blocked entry as it is.)
    await runCli(['freeze', 'window', '--ledger', LEDGER], { cwd: repo.dir });
    expect(readLedger(repo).entries.adds).toMatchObject({ status: 'blocked', recent: 'PFP' });
    const reopen = await runCli(
      [
        'freeze',
        'reopen',
        'adds',
        '--ledger',
        LEDGER,
        '--reason',
        'add fixed',
        '--owner',
        'hana',
        '--at',
        '2026-11-01T12:30:00Z',
      ],
      { cwd: repo.dir },
    );
    expect(reopen.code).toBe(0);
    expect((await record(repo, pytestReport(repo), 'r4', '2026-11-01T13:00:00Z')).code).toBe(0);
    await runCli(['freeze', 'window', '--ledger', LEDGER], { cwd: repo.dir });
    expect(readLedger(repo).entries.adds).toMatchObject({ status: 'open', fails_in_window: 0, recent: 'P' });
  }, 60_000);

  it('is an error (exit 2) without a history, or with one that holds no main-branch run', async () => {
    const repo = ledgerRepo();
    const none = await runCli(['freeze', 'window', '--ledger', LEDGER], { cwd: repo.dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('there is no run history at .patchgate/history.sqlite');
    // A check's run is of a patch, never of the main branch.
    repo.git('checkout', '-q', '-b', 'agent');
    const check = await runCli(
      ['check', '--base', 'main', '--history', '--out', tempDir('pg-out-'), '--quiet'],
      {
        cwd: repo.dir,
      },
    );
    expect(check.code).toBe(0);
    const empty = await runCli(['freeze', 'window', '--ledger', LEDGER], { cwd: repo.dir });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('holds no main-branch run');
    expect(readLedger(repo).entries.adds.status).toBe('open');
  }, 60_000);
});
