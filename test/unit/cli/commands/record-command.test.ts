import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../../src/cli/atomic-write.js';
import { freezeCommand } from '../../../../src/cli/commands/freeze.js';
import { type RecordDeps, recordCommand } from '../../../../src/cli/commands/record.js';
import { exitCodeForError } from '../../../../src/cli/exit-codes.js';
import type { CliIO } from '../../../../src/cli/io.js';
import { usage } from '../../../../src/cli/usage.js';
import { asPatchgateError, ContractFileError, type PatchgateError } from '../../../../src/errors.js';
import { parseClaimLedger } from '../../../../src/freeze/claim-ledger.js';
import { parseJUnitFile } from '../../../../src/junit/index.js';
import { memoryIO } from '../../../helpers/cli-io.js';
import { GitDir } from '../../../helpers/gitdir.js';

/**
 * The commands driven in-process on a temp git repository, with JUnit XML
 * written by the real runner: pytest runs a small test file where one test
 * passes, one fails, one is skipped, and one fails on its first run and
 * passes on its rerun (two reports, as a CI job that retries failures has).
 */

const PYTEST_FILE = `import os
import pytest

def test_refund_cap():
    assert 100 <= 100

def test_timeout():
    assert False, "the call timed out"

@pytest.mark.skip(reason="needs the sandbox")
def test_sandboxed():
    assert True

def test_retried():
    marker = os.path.join(os.environ["MARKER_DIR"], "ran-once")
    if not os.path.exists(marker):
        open(marker, "w").close()
        assert False, "failed on the first try"
`;

let work = '';
/** The first run of the whole file. */
let firstRun = '';
/** The rerun of the test that failed on its first try, which passes. */
let rerun = '';

function pytest(cwd: string, junit: string, args: string[]): void {
  const r = spawnSync(
    '/usr/bin/python3',
    ['-m', 'pytest', `--junitxml=${junit}`, '-p', 'no:cacheprovider', '-q', ...args],
    {
      cwd,
      env: {
        ...process.env,
        PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1',
        PYTHONDONTWRITEBYTECODE: '1',
        MARKER_DIR: cwd,
      },
      encoding: 'utf8',
    },
  );
  // 0: all passed, 1: some failed; anything else means pytest itself did not run.
  if (r.status !== 0 && r.status !== 1) throw new Error(`pytest exited ${r.status}: ${r.stdout}${r.stderr}`);
}

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'pg-record-pytest-'));
  mkdirSync(path.join(work, 'tests'));
  writeFileSync(path.join(work, 'tests/test_claims.py'), PYTEST_FILE);
  firstRun = path.join(work, 'first.xml');
  rerun = path.join(work, 'rerun.xml');
  pytest(work, firstRun, ['tests/test_claims.py']);
  pytest(work, rerun, ['tests/test_claims.py::test_retried']);
}, 60_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

const AT = '2026-09-12T21:14:00Z';
const LEDGER = 'freeze/ledger.json';

const LEDGER_TEXT = `${JSON.stringify(
  {
    window_runs: 20,
    entries: {
      refund_cap: { status: 'open', fails_in_window: 0, checks: ['tests/test_claims.py::test_refund_cap'] },
      timeout_status: { status: 'open', fails_in_window: 0, checks: ['tests/test_claims.py::test_timeout'] },
      idempotency: { status: 'open', fails_in_window: 0, checks: ['tests/test_claims.py::test_retried'] },
      sandboxed: { status: 'open', fails_in_window: 0, checks: ['tests/test_claims.py::test_sandboxed'] },
      unbound: { status: 'open', fails_in_window: 0 },
    },
  },
  null,
  2,
)}\n`;

const deps = (more: Partial<RecordDeps> = {}): RecordDeps => ({
  parseReport: (file) => parseJUnitFile(file, { file }),
  now: () => new Date('2030-01-02T03:04:05.678Z'),
  ...more,
});

/** Runs a command as `main` would: its exit code, and the error it reported. */
async function exitOf(run: () => Promise<number>): Promise<{ code: number; error?: PatchgateError }> {
  try {
    return { code: await run() };
  } catch (err) {
    const code = (err as { code?: string }).code;
    const e =
      typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')
        ? usage((err as Error).message)
        : asPatchgateError(err);
    return { code: exitCodeForError(e), error: e };
  }
}

function repoWith(ledger: string | null = LEDGER_TEXT): GitDir {
  return GitDir.create(ledger === null ? { 'README.md': 'x\n' } : { [LEDGER]: ledger });
}

const read = (repo: GitDir, file = LEDGER) => readFileSync(repo.path(file), 'utf8');
const entries = (repo: GitDir, file = LEDGER) => parseClaimLedger(read(repo, file), file).entries;

function record(repo: GitDir, args: string[], d: RecordDeps = deps(), io?: CliIO) {
  const mem = memoryIO(repo.dir);
  const run = exitOf(() => recordCommand(args, io ?? mem.io, d));
  return run.then((r) => ({ ...r, out: mem.out(), err: mem.err() }));
}

function freeze(repo: GitDir, args: string[]) {
  const mem = memoryIO(repo.dir);
  return exitOf(() => freezeCommand(args, mem.io, { now: () => new Date('2026-10-01T10:00:00Z') })).then(
    (r) => ({
      ...r,
      out: mem.out(),
      err: mem.err(),
    }),
  );
}

describe('patchgate record', () => {
  it('blocks the entry whose test failed, at the time of the run, and writes the ledger in place', async () => {
    const repo = repoWith();
    const r = await record(repo, ['--junit', firstRun, '--junit', rerun, '--run-id', 'gh-1', '--at', AT]);
    expect(r.error).toBeUndefined();
    expect(r.code).toBe(0);
    const e = entries(repo);
    expect(e.get('timeout_status')).toMatchObject({
      status: 'blocked',
      failsInWindow: 1,
      lastFail: AT,
      recent: 'F',
    });
    expect(e.get('refund_cap')).toMatchObject({ status: 'open', failsInWindow: 0, recent: 'P' });
    expect(e.get('refund_cap')?.lastFail).toBeUndefined();
    expect(r.out).toContain('timeout_status: open → blocked (failed in run gh-1)\n');
    expect(r.out).toMatch(
      /recorded run gh-1 \(2026-09-12T21:14:00Z\) in freeze\/ledger\.json: 5 entries, 2 failed, 1 passed, 2 did not run; 2 newly blocked, 2 blocked in all/,
    );
    expect(r.out).toContain("never record from an agent's branch");
    const parsed = parseClaimLedger(read(repo), LEDGER);
    expect([parsed.runsRecorded, parsed.lastRun]).toEqual([1, 'gh-1']);
    // Atomic: the ledger was replaced through a temp file that is gone.
    expect(readdirSync(repo.path('freeze'))).toEqual(['ledger.json']);
  });

  it('counts a test that failed and passed on its rerun as a failure: a retry never clears it', async () => {
    const repo = repoWith();
    await record(repo, ['--junit', firstRun, '--junit', rerun, '--run-id', 'gh-1', '--at', AT]);
    expect(entries(repo).get('idempotency')).toMatchObject({ status: 'blocked', recent: 'F', lastFail: AT });
    // The rerun's pass alone (the report a retrying job keeps last) still is a pass, and does not unblock it.
    const again = await record(repo, ['--junit', rerun, '--run-id', 'gh-2', '--at', '2026-09-13T00:00:00Z']);
    expect(again.code).toBe(0);
    expect(entries(repo).get('idempotency')).toMatchObject({ status: 'blocked', recent: 'FP', lastFail: AT });
  });

  it("records a skipped check and an entry without checks as '-', warning about the entry nothing binds", async () => {
    const repo = repoWith();
    const r = await record(repo, ['--junit', firstRun, '--at', AT]);
    expect(r.code).toBe(0);
    const e = entries(repo);
    expect(e.get('sandboxed')).toMatchObject({ status: 'open', recent: '-' });
    expect(e.get('unbound')).toMatchObject({ status: 'open', recent: '-' });
    expect(r.err).toContain('patchgate: warning: unbound: no checks');
    expect(r.err).not.toContain('sandboxed');
    expect(r.out).toContain('(failed in the run at 2026-09-12T21:14:00Z)');
  });

  it("takes an entry's checks from the claim matrix when it has none, matching the report's own test id", async () => {
    const repo = repoWith();
    const seen: string[] = [];
    const r = await record(
      repo,
      ['--junit', firstRun, '--at', AT],
      deps({
        claimChecks: async (root) => {
          seen.push(root);
          return new Map([['unbound', ['pytest::tests.test_claims::test_timeout']]]);
        },
      }),
    );
    expect(r.code).toBe(0);
    expect(seen).toEqual([repo.dir]);
    expect(entries(repo).get('unbound')).toMatchObject({ status: 'blocked', recent: 'F' });
    expect(r.err).not.toContain('unbound');
  });

  it("warns when none of an entry's checks is in the reports (a renamed test stops voting)", async () => {
    const repo = repoWith();
    const r = await record(repo, ['--junit', rerun, '--at', AT]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(
      /warning: refund_cap: none of its checks \(tests\/test_claims\.py::test_refund_cap\) is in the report/,
    );
  });

  it('uses the clock when --at is not given, and refuses a --at that is not a real UTC time', async () => {
    const repo = repoWith();
    expect((await record(repo, ['--junit', firstRun])).code).toBe(0);
    expect(entries(repo).get('timeout_status')?.lastFail).toBe('2030-01-02T03:04:05Z');
    const before = read(repo);
    for (const at of ['2026-09-31T10:00:00Z', '2026-09-12', 'yesterday']) {
      const r = await record(repo, ['--junit', firstRun, '--at', at]);
      expect(r.code).toBe(2);
      expect(r.error?.code).toBe('USAGE');
      expect(r.error?.message).toContain(`--at must be a UTC time such as 2026-09-12T21:14:00Z`);
    }
    expect(read(repo)).toBe(before);
  });

  it('--dry-run prints the changes and writes nothing', async () => {
    const repo = repoWith();
    const r = await record(repo, ['--junit', firstRun, '--run-id', 'gh-1', '--at', AT, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('timeout_status: open → blocked (failed in run gh-1)');
    expect(r.out).toContain('dry run: freeze/ledger.json was not written');
    expect(read(repo)).toBe(LEDGER_TEXT);
    expect(readdirSync(repo.path('freeze'))).toEqual(['ledger.json']);
  });

  it('refuses to record the same run id twice, leaving the ledger as the first run wrote it', async () => {
    const repo = repoWith();
    expect((await record(repo, ['--junit', firstRun, '--run-id', 'gh-9', '--at', AT])).code).toBe(0);
    const once = read(repo);
    const r = await record(repo, ['--junit', firstRun, '--run-id', 'gh-9', '--at', AT]);
    expect(r.code).toBe(2);
    expect(r.error?.message).toMatch(/^run gh-9 is already recorded/);
    expect(read(repo)).toBe(once);
  });

  it('refuses a ledger that does not parse, with its located problems, and leaves it untouched', async () => {
    const broken = LEDGER_TEXT.replace('"window_runs": 20', '"window_runs": 0');
    const repo = repoWith(broken);
    const r = await record(repo, ['--junit', firstRun, '--at', AT]);
    expect(r.code).toBe(2);
    expect(r.error).toBeInstanceOf(ContractFileError);
    expect((r.error as ContractFileError).problems).toEqual([
      {
        file: LEDGER,
        path: 'window_runs',
        line: 2,
        column: 18,
        message: 'expected at least 1, got the number 0.',
      },
    ]);
    expect(read(repo)).toBe(broken);
    expect(readdirSync(repo.path('freeze'))).toEqual(['ledger.json']);
  });

  it('names the missing ledger and how to create one', async () => {
    const repo = repoWith(null);
    const r = await record(repo, ['--junit', firstRun, '--at', AT]);
    expect(r.code).toBe(2);
    expect(r.error?.message).toContain(`freeze/ledger.json does not exist in the working tree (${repo.dir})`);
    expect(r.error?.message).toContain('{"window_runs": 20, "entries": {}}');
  });

  it('reads the ledger named by --ledger, else the configured one', async () => {
    const repo = GitDir.create({ 'ci/claims-ledger.json': LEDGER_TEXT, 'sub/.keep': '' });
    const mem = memoryIO(repo.path('sub'));
    const configured = deps({ ledgerPath: async () => 'ci/claims-ledger.json' });
    expect(
      (await exitOf(() => recordCommand(['--junit', firstRun, '--at', AT], mem.io, configured))).code,
    ).toBe(0);
    expect(entries(repo, 'ci/claims-ledger.json').get('timeout_status')?.status).toBe('blocked');
    const flagged = await record(
      repo,
      ['--junit', firstRun, '--ledger', 'ci/none.json', '--at', AT],
      configured,
    );
    expect(flagged.error?.message).toContain('ci/none.json does not exist');
    const outside = await record(repo, ['--junit', firstRun, '--ledger', '../x.json', '--at', AT]);
    expect(outside.code).toBe(2);
  });

  it('is a usage error without --junit, with an unknown flag, and with a blank run id', async () => {
    const repo = repoWith();
    expect((await record(repo, ['--at', AT])).error?.message).toMatch(/--junit FILE is required/);
    expect((await record(repo, ['--junit', firstRun, '--bogus'])).code).toBe(2);
    expect((await record(repo, ['--junit', firstRun, '--run-id', ' '])).code).toBe(2);
    expect(read(repo)).toBe(LEDGER_TEXT);
  });

  it('prints help that says to run it on the main branch, never on an agent branch', async () => {
    const r = await record(repoWith(), ['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/on the main branch after merges, never on an agent's branch/);
  });
});

describe('patchgate freeze reopen', () => {
  async function blockedRepo(): Promise<GitDir> {
    const repo = repoWith();
    await record(repo, ['--junit', firstRun, '--run-id', 'gh-1', '--at', AT]);
    return repo;
  }

  it('reopens a blocked entry: window cleared, who and why recorded, last_fail kept', async () => {
    const repo = await blockedRepo();
    const r = await freeze(repo, [
      'reopen',
      'timeout_status',
      '--reason',
      'raised the client timeout',
      '--owner',
      'alice',
    ]);
    expect(r.error).toBeUndefined();
    expect(r.code).toBe(0);
    expect(entries(repo).get('timeout_status')).toEqual({
      id: 'timeout_status',
      status: 'open',
      failsInWindow: 0,
      lastFail: AT,
      recent: '',
      checks: ['tests/test_claims.py::test_timeout'],
      reopened: { owner: 'alice', reason: 'raised the client timeout', at: '2026-10-01T10:00:00Z' },
      line: 12,
    });
    expect(r.out).toContain('reopened timeout_status in freeze/ledger.json: blocked → open');
    expect(r.out).toContain('commit freeze/ledger.json in its own commit');
    expect(readdirSync(repo.path('freeze'))).toEqual(['ledger.json']);
    // The other entries are as the run left them.
    expect(entries(repo).get('idempotency')?.status).toBe('blocked');
  });

  it('refuses an unknown id, naming the known ones, and leaves the ledger untouched', async () => {
    const repo = await blockedRepo();
    const before = read(repo);
    const r = await freeze(repo, ['reopen', 'timeout', '--reason', 'x', '--owner', 'alice']);
    expect(r.code).toBe(2);
    expect(r.error?.message).toBe(
      "no entry 'timeout' in the ledger (known ids: refund_cap, timeout_status, idempotency, sandboxed, unbound)",
    );
    expect(read(repo)).toBe(before);
  });

  it('refuses an entry that is not blocked', async () => {
    const repo = await blockedRepo();
    const r = await freeze(repo, ['reopen', 'refund_cap', '--reason', 'x', '--owner', 'alice', '--at', AT]);
    expect(r.code).toBe(2);
    expect(r.error?.message).toMatch(/^entry 'refund_cap' is not blocked/);
  });

  it('is a usage error without a reason or an owner, without an id, or with another subcommand', async () => {
    const repo = await blockedRepo();
    const before = read(repo);
    const cases: [string[], RegExp][] = [
      [['reopen', 'timeout_status', '--owner', 'alice'], /--reason is required/],
      [['reopen', 'timeout_status', '--reason', '  ', '--owner', 'alice'], /--reason is required/],
      [['reopen', 'timeout_status', '--reason', 'x'], /--owner is required/],
      [['reopen', '--reason', 'x', '--owner', 'alice'], /name the entry to reopen/],
      [
        ['reopen', 'timeout_status', '--reason', 'x', '--owner', 'a', '--at', 'soon'],
        /--at must be a UTC time/,
      ],
      [['close', 'timeout_status'], /unknown freeze subcommand 'close' \(expected: reopen, window\)/],
      [[], /freeze needs a subcommand/],
    ];
    for (const [args, message] of cases) {
      const r = await freeze(repo, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.error?.code).toBe('USAGE');
      expect(r.error?.message).toMatch(message);
    }
    expect(read(repo)).toBe(before);
  });
});

describe('writeFileAtomic', () => {
  it('leaves the target and no temp file behind when the rename fails', async () => {
    const repo = GitDir.create({ 'freeze/ledger.json/keep': 'x' });
    await expect(writeFileAtomic(repo.path(LEDGER), '{}\n', LEDGER)).rejects.toThrow(
      /could not write freeze\/ledger\.json/,
    );
    expect(readdirSync(repo.path('freeze'))).toEqual(['ledger.json']);
    expect(readFileSync(repo.path('freeze/ledger.json/keep'), 'utf8')).toBe('x');
  });
});
