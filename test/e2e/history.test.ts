/**
 * The run history as a maintainer's CI uses it: `check --history` on an
 * agent's patch and `record --history` on the main branch write into the
 * repository's .patchgate/history.sqlite, and `patchgate history` answers
 * from it. Real repositories, real pytest runs through the sandbox, the real
 * SQLite file; the attacks are patches that try to plant, redirect or write
 * the history.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../helpers/cli-io.js';
import { type Files, GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';
import { postgresUnavailable, startPostgres } from '../helpers/postgres.js';

const CALC = 'def add(a, b):\n    return a + b\n';
const TESTS =
  'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_add_zero():\n    assert add(0, 7) == 7\n';

function pythonRepo(extra: Files = {}, config: Record<string, unknown> = {}): GitDir {
  return GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' } },
      ...config,
    }),
    '.gitignore': '.patchgate\n__pycache__\n.hypothesis\n',
    'src/calc.py': CALC,
    'tests/test_calc.py': TESTS,
    ...extra,
  });
}

function agentPatch(repo: GitDir, files: Files, author = 'Agent Smith <smith@agents.example>'): void {
  repo.git('checkout', '-q', '-b', 'agent');
  repo.write(files);
  repo.git('add', '-A');
  repo.git(
    'commit',
    '-q',
    `--author=${author}`,
    '-m',
    'agent: change add\n\nCo-authored-by: Jane <jane@example.com>',
  );
}

/** One `check` against main: of `head` (HEAD by default; null for the working tree), with `--history` unless told. */
async function check(
  repo: GitDir,
  {
    head = 'HEAD',
    history = true,
    extra = [],
  }: { head?: string | null; history?: boolean; extra?: string[] } = {},
) {
  const out = tempDir('pg-history-out-');
  const r = await runCli(
    [
      'check',
      '--base',
      'main',
      ...(head !== null ? ['--head', head] : []),
      '--out',
      out,
      '--today',
      '2026-12-01',
      ...(history ? ['--history'] : []),
      ...extra,
    ],
    { cwd: repo.dir },
  );
  return { ...r, out };
}

/**
 * A repository whose test flakes on the main branch when its CI says so
 * (FLAKE_MARKER, which the sandbox never passes on) and, on `agent`, as
 * `test` decides once `src/feature.py` is there; `config` adds to the config.
 */
function flakeRepo(test: string, config: Record<string, unknown> = {}, files: Files = {}): GitDir {
  const repo = pythonRepo(
    {
      'flake_signatures.json': '{"signatures": []}\n',
      '.gitignore': '.patchgate\n__pycache__\n.ran\n',
      'tests/test_flaky.py': test,
      ...files,
    },
    { signatures: {}, ...config },
  );
  repo.git('checkout', '-q', '-b', 'agent');
  repo.write({ 'src/feature.py': 'FEATURE = True\n' });
  repo.commit('agent: add a feature module');
  repo.git('checkout', '-q', 'main');
  return repo;
}

/** The findings of `agent` against main, judged with or without the history. */
async function agentFindings(repo: GitDir, history: boolean) {
  const r = await check(repo, { head: 'agent', history });
  return readScorecard(r.out, r).findings;
}

/** Two real pytest runs of main, the first failing the flaky test, recorded into the history by `record`. */
async function recordMainFlake(repo: GitDir): Promise<void> {
  const marker = path.join(tempDir(), 'marker');
  for (const [i, at] of ['2026-11-20T10:00:00Z', '2026-11-20T11:00:00Z'].entries()) {
    const junit = path.join(tempDir(), `main-${i}.xml`);
    pytest(repo, junit, { FLAKE_MARKER: marker });
    const r = await runCli(['record', '--junit', junit, '--history', '--at', at], { cwd: repo.dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }
}

async function historyJson(repo: GitDir, ...args: string[]) {
  const r = await runCli(['history', ...args, '--json'], { cwd: repo.dir });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as {
    repository: string;
    runs: { check: number; record: number };
    rows: Record<string, unknown>[];
  };
}

/** A real pytest run on the working tree, writing its JUnit report (a failing suite is a result). */
function pytest(repo: GitDir, junit: string, env: Record<string, string> = {}): void {
  try {
    execFileSync(
      '/usr/bin/python3',
      ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--junitxml=${junit}`, 'tests'],
      {
        cwd: repo.dir,
        env: { ...process.env, PYTHONPATH: 'src', ...env },
        stdio: 'ignore',
      },
    );
  } catch (err) {
    if ((err as { status?: number }).status !== 1) throw err;
  }
}

describe('check --history and record --history write the run history', { timeout: 240_000 }, () => {
  it('records a rejected patch with its findings, authors and test results, and answers from it', async () => {
    const repo = pythonRepo();
    agentPatch(repo, { 'src/calc.py': 'def add(a, b):\n    return a + b + (1 if a == 2 else 0)\n' });
    const r = await check(repo, { extra: ['--ci-run', '4242'] });
    const card = readScorecard(r.out, r);
    expect(card.verdict).toBe('reject');
    expect(card.findings.map((f) => f.code)).toContain('REGRESSION');
    const name = path.basename(repo.dir);
    expect(r.stderr).toContain(
      `patchgate: run 1 written to the run history (.patchgate/history.sqlite) as ${name}`,
    );
    const file = path.join(repo.dir, '.patchgate/history.sqlite');
    // Only the gate's user may read it: a sandboxed test (another uid) cannot read the history.
    expect(statSync(file).mode & 0o077).toBe(0);

    const rejections = await historyJson(repo, 'rejections', '--by', 'day');
    expect(rejections.repository).toBe(name);
    expect(rejections.runs).toEqual({ check: 1, record: 0 });
    expect(rejections.rows).toEqual([
      { period: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), code: 'REGRESSION', patches: 1 },
    ]);

    const agents = await historyJson(repo, 'agents');
    expect(agents.rows).toEqual([
      expect.objectContaining({
        email: 'jane@example.com',
        roles: ['co-author'],
        patches: 1,
        rejected: 1,
        codes: { REGRESSION: 1 },
      }),
      expect.objectContaining({
        email: 'smith@agents.example',
        names: ['Agent Smith'],
        roles: ['author'],
        patches: 1,
        rejected: 1,
      }),
      // The helper's committer identity (GIT_COMMITTER_*): a committer takes part in the patch too.
      expect.objectContaining({ email: 'test@example.com', roles: ['committer'], patches: 1, rejected: 1 }),
    ]);
    const table = await runCli(['history', 'agents'], { cwd: repo.dir });
    expect(table.stdout).toContain(
      `Patches by identity of ${name} in .patchgate/history.sqlite (1 check run(s), 0 main-branch record(s))`,
    );
    expect(table.stdout).toMatch(/1 +0 +1 +0 +Agent Smith <smith@agents\.example> +REGRESSION ×1/);

    // The base's run of the failing test is trusted; it passed there, with a duration.
    const slow = await historyJson(repo, 'slowest');
    expect(slow.rows.map((t) => t.testId)).toContain('pytest::tests.test_calc::test_add');
  });

  it('record --history on the main branch keeps a flake that two runs of one commit show, with its signature', async () => {
    const repo = pythonRepo({
      'tests/test_flaky.py':
        'import os\n\n\ndef test_sometimes():\n    marker = os.environ["FLAKE_MARKER"]\n    first = not os.path.exists(marker)\n    open(marker, "w").close()\n    assert not first, "first run of the day fails"\n',
    });
    const marker = path.join(tempDir(), 'marker');
    const one = path.join(tempDir(), 'one.xml');
    const two = path.join(tempDir(), 'two.xml');
    pytest(repo, one, { FLAKE_MARKER: marker });
    pytest(repo, two, { FLAKE_MARKER: marker });
    const first = await runCli(
      ['record', '--junit', one, '--history', '--run-id', '1', '--at', '2026-11-30T10:00:00Z'],
      {
        cwd: repo.dir,
      },
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'no ledger at freeze/ledger.json (none is configured): only the run history is written',
    );
    expect(first.stdout).toMatch(
      /run 1 written to the run history \(\.patchgate\/history\.sqlite\) as .*: 3 outcome\(s\) of [0-9a-f]{12}/,
    );
    const second = await runCli(
      ['record', '--junit', two, '--history', '--run-id', '2', '--at', '2026-11-30T11:00:00Z'],
      {
        cwd: repo.dir,
      },
    );
    expect(second.code).toBe(0);

    const flaky = await historyJson(repo, 'flaky');
    expect(flaky.rows).toEqual([
      {
        testId: 'pytest::tests.test_flaky::test_sometimes',
        file: 'tests/test_flaky.py',
        flakyRuns: 1,
        runs: 2,
        rate: 0.5,
        firstSeen: '2026-11-30T11:00:00.000Z',
        lastSeen: '2026-11-30T11:00:00.000Z',
        signature: expect.stringMatching(/^[0-9a-f]{64}$/),
        template: expect.stringContaining('first run of the day fails'),
      },
    ]);
    const text = await runCli(['history', 'flaky'], { cwd: repo.dir });
    expect(text.stdout).toMatch(
      /50\.0% +1\/2 +2026-11-30 11:00Z +2026-11-30 11:00Z +pytest::tests\.test_flaky::test_sometimes/,
    );
    expect(text.stdout).toContain(
      'file tests/test_flaky.py; no owner in CODEOWNERS; latest failure AssertionError|',
    );
  });

  it('refuses to report on a history that does not exist, and on a scope with no runs', async () => {
    const repo = pythonRepo();
    const none = await runCli(['history', 'flaky'], { cwd: repo.dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('patchgate: error: there is no run history at .patchgate/history.sqlite');
    expect(existsSync(path.join(repo.dir, '.patchgate'))).toBe(false);
    const junit = path.join(tempDir(), 'r.xml');
    pytest(repo, junit);
    expect((await runCli(['record', '--junit', junit, '--history'], { cwd: repo.dir })).code).toBe(0);
    const other = await runCli(['history', 'agents', '--repository', 'github.com/acme/elsewhere'], {
      cwd: repo.dir,
    });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('holds no runs of github.com/acme/elsewhere; runs get there with');
    const empty = path.join(tempDir(), 'empty.xml');
    writeFileSync(empty, '<testsuites><testsuite name="pytest" tests="0"/></testsuites>\n');
    const nothing = await runCli(['record', '--junit', empty, '--history'], { cwd: repo.dir });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain(
      `record: --history needs outcomes, and ${empty} hold(s) no test: nothing was written`,
    );
    const bad = await runCli(['history', 'slowest', '--since', '2026-02-30'], { cwd: repo.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      "--since must be a UTC date such as 2026-11-01 (YYYY-MM-DD, a real date), got '2026-02-30'",
    );
    const limit = await runCli(['history', 'flaky', '--limit', '0'], { cwd: repo.dir });
    expect(limit.stderr).toContain("--limit must be a whole number from 1 to 10000, got '0'");
    const both = await runCli(['history', 'flaky', '--repository', 'x', '--all-repositories'], {
      cwd: repo.dir,
    });
    expect(both.stderr).toContain('--repository and --all-repositories exclude each other');
    const ciRun = await runCli(['check', '--base', 'main', '--ci-run', '7'], { cwd: repo.dir });
    expect(ciRun.code).toBe(2);
    expect(ciRun.stderr).toContain('--ci-run is kept with the run in the history: it needs --history');
    const blankRun = await runCli(['check', '--base', 'main', '--history', '--ci-run', ' '], {
      cwd: repo.dir,
    });
    expect(blankRun.code).toBe(2);
    expect(blankRun.stderr).toContain(
      "check: --ci-run must name the CI run (e.g. GitHub's run id); it must not be blank",
    );
    const by = await runCli(['history', 'rejections', '--by', 'month'], { cwd: repo.dir });
    expect(by.code).toBe(2);
    expect(by.stderr).toContain("history rejections: --by must be day or week, got 'month'");
    const blankRepo = await runCli(['history', 'agents', '--repository', ''], { cwd: repo.dir });
    expect(blankRepo.code).toBe(2);
    expect(blankRepo.stderr).toContain(
      'history agents: --repository must name a repository; it must not be blank',
    );
    const dry = await runCli(['record', '--junit', junit, '--history', '--dry-run'], { cwd: repo.dir });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('dry run: the run history was not written');
    const after = await runCli(['history', 'agents', '--json'], { cwd: repo.dir });
    expect(JSON.parse(after.stdout).runs).toEqual({ check: 0, record: 1 });
  });
});

describe('a patch cannot plant, redirect or write the history', { timeout: 240_000 }, () => {
  it('refuses a history the patch committed, before any of its code runs, and leaves it as it was', async () => {
    const repo = pythonRepo({ '.gitignore': '__pycache__\n' });
    // A forged history that would vouch for the patch's flaky tests, committed with the patch: CI's checkout has it.
    const forged = 'SQLite format 3\u0000 forged history\n';
    agentPatch(repo, { '.patchgate/history.sqlite': forged });
    const r = await runCli(['check', '--base', 'main', '--history', '--out', tempDir()], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'patchgate: error: the run history .patchgate/history.sqlite is in a folder git tracks (.patchgate/history.sqlite): the patch under judgement could have written or redirected it',
    );
    expect(readFileSync(path.join(repo.dir, '.patchgate/history.sqlite'), 'utf8')).toBe(forged);
  });

  it('refuses a .patchgate that is a symlink, and writes nothing where it points', async () => {
    const repo = pythonRepo();
    const elsewhere = tempDir('pg-history-target-');
    repo.write({ '.patchgate': { symlink: elsewhere } });
    const r = await runCli(['record', '--junit', path.join(elsewhere, 'none.xml'), '--history'], {
      cwd: repo.dir,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('has a symlink on its path (.patchgate)');
    expect(existsSync(path.join(elsewhere, 'history.sqlite'))).toBe(false);
    expect(lstatSync(path.join(repo.dir, '.patchgate')).isSymbolicLink()).toBe(true);
  });

  it("a head test that writes into the user's history file cannot: the run recorded is the gate's alone", async () => {
    const repo = pythonRepo();
    const file = path.join(repo.dir, '.patchgate', 'history.sqlite');
    mkdirSync(path.dirname(file), { recursive: true });
    const attack = `import sqlite3


def test_forge_history():
    try:
        db = sqlite3.connect(${JSON.stringify(file)})
        db.execute("INSERT INTO patchgate_runs (repository, kind, recorded_at, head_commit, verdict) VALUES ('forged', 'check', '2026-01-01', 'f', 'accept')")
        db.commit()
        open(${JSON.stringify(`${file}.forged`)}, "w").write("written")
    except Exception as e:
        raise AssertionError(f"refused: {e}")
`;
    agentPatch(repo, { 'tests/test_forge.py': attack });
    const r = await check(repo);
    expect(r.stderr).toContain('patchgate: run 1 written to the run history');
    const runs = await historyJson(repo, 'agents', '--all-repositories');
    expect(runs.runs).toEqual({ check: 1, record: 0 });
    expect(runs.rows.map((a) => a.email)).toEqual([
      'jane@example.com',
      'smith@agents.example',
      'test@example.com',
    ]);
    expect(existsSync(`${file}.forged`)).toBe(false);
    // The attack ran, and SQLite itself refused it inside the sandbox: no access to the file, or a read-only view.
    const logs = readdirSync(path.join(r.out, 'tests')).filter((f) =>
      /^(head|overlay).*\.stdout\.log$/.test(f),
    );
    const said = logs.map((f) => readFileSync(path.join(r.out, 'tests', f), 'utf8')).join('\n');
    expect(said).toMatch(/refused: (unable to open database file|attempt to write a readonly database)/);
  });
});

describe('the history answers what base reruns answer today', { timeout: 240_000 }, () => {
  // Flaky on the main branch when its CI says so (FLAKE_MARKER, which the sandbox never passes on), and on a head
  // that has src/feature.py: there it fails its first run in a checkout and passes after.
  const FLAKY = `import os


def test_sometimes():
    marker = os.environ.get("FLAKE_MARKER")
    if marker:
        first = not os.path.exists(marker)
        open(marker, "w").close()
        assert not first, "first run of the day fails"
    if os.path.exists("src/feature.py"):
        here = os.path.join(os.path.dirname(__file__), ".ran")
        first = not os.path.exists(here)
        open(here, "w").close()
        assert not first, "first run of the day fails"
`;

  it('a failure the head gives once, of a test that flaked on the main branch, is pre-existing by the record', async () => {
    const repo = flakeRepo(FLAKY);
    await recordMainFlake(repo);
    const judge = (history: boolean) => agentFindings(repo, history);
    // Without the history, the base's reruns are stable: the patch made the test flaky.
    expect((await judge(false)).map((f) => f.code)).toContain('NEW_FLAKE');

    const withHistory = await judge(true);
    expect(withHistory.map((f) => f.code)).not.toContain('NEW_FLAKE');
    const f = withHistory.find((x) => x.code === 'PREEXISTING_FLAKE_UNFROZEN');
    expect(f?.message).toContain(
      'it is flaky on the base too (the run history saw it flake in 1 of 2 trusted run(s) since 2026-11-01, last on 2026-11-20T11:00:00.000Z)',
    );
    expect(f?.evidence).toMatchObject({
      test: 'pytest::tests.test_flaky::test_sometimes',
      headRuns: ['failed', 'passed', 'passed'],
      history: {
        flakyRuns: 1,
        runs: 2,
        since: '2026-11-01',
        where: '.patchgate/history.sqlite',
        template: expect.stringContaining('first run of the day fails'),
      },
    });
    // No base rerun: the base's first run of it is all the base ran (the record stood for the reruns).
    expect(f?.evidence.baseRuns).toEqual(['passed']);
  });
});

describe('the stability probe takes the base’s flakes from the history', { timeout: 240_000 }, () => {
  // Flaky on the main branch when its CI says so; on a head that has src/feature.py, it passes its first run in a
  // checkout and fails every run after: stable for the gate's first run, flaky to the stability probe.
  const FLAKY = `import os

try:
    import feature
except ImportError:
    feature = None


def test_sometimes():
    marker = os.environ.get("FLAKE_MARKER")
    if marker:
        first = not os.path.exists(marker)
        open(marker, "w").close()
        assert not first, "first run of the day fails"
    if feature is not None:
        here = os.path.join(os.path.dirname(__file__), ".ran")
        again = os.path.exists(here)
        open(here, "w").close()
        assert not again, "a second run fails"
`;

  it('a test the head makes flaky, that flaked on the main branch, is pre-existing by the record: no base reruns', async () => {
    const repo = flakeRepo(
      FLAKY,
      { stability: { runs: 3 } },
      { 'stability_freeze.json': '{"freezes": []}\n' },
    );
    await recordMainFlake(repo);
    const judge = async (history: boolean) =>
      (await agentFindings(repo, history)).filter((f) => f.layer === 'stability');
    // Without the history, the base's reruns are stable: the patch made it flaky.
    expect((await judge(false)).map((f) => f.code)).toEqual(['NEW_FLAKE']);
    const [f, ...rest] = await judge(true);
    expect(rest).toEqual([]);
    expect(f?.code).toBe('PREEXISTING_FLAKE_UNFROZEN');
    expect(f?.message).toContain(
      'is flaky on the base too (the run history saw it flake in 1 of 2 trusted run(s) since 2026-11-01, last on 2026-11-20T11:00:00.000Z)',
    );
    expect(f?.evidence).toMatchObject({
      test: 'pytest::tests.test_flaky::test_sometimes',
      headRuns: ['passed', 'failed', 'failed'],
      baseRuns: null,
      history: { flakyRuns: 1, runs: 2, since: '2026-11-01' },
    });
  });
});

describe('the history through the CLI, when things go wrong and on PostgreSQL', { timeout: 240_000 }, () => {
  const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

  it('a run the store cannot take after the verdict exits 2, after the reports are written, and leaves no half run', async () => {
    const repo = pythonRepo();
    agentPatch(repo, { 'src/calc.py': 'def add(a, b):\n    return b + a\n' });
    const out = tempDir('pg-history-out-');
    const file = path.join(repo.dir, '.patchgate', 'history.sqlite');
    const { main } = await import('../../src/cli/main.js');
    const { io, err } = memoryIO(repo.dir, {
      ...process.env,
      PATH: SYSTEM_PATH,
      NO_COLOR: '1',
      GITHUB_STEP_SUMMARY: '',
    });
    const argv = [
      'check',
      '--base',
      'main',
      '--head',
      'HEAD',
      '--out',
      out,
      '--today',
      '2026-12-01',
      '--history',
    ];
    // Someone else's process breaks the store while the gate runs (the gate opened and migrated it first).
    const code = await main(
      { ...io, argv },
      {
        onLayerStart: async (name) => {
          if (name !== 'contracts') return;
          const { default: Database } = await import('better-sqlite3');
          const other = new Database(file);
          other.exec('DROP TABLE patchgate_tests');
          other.close();
        },
      },
    );
    expect(code).toBe(2);
    expect(err()).toContain(`patchgate: error: the run history at ${file} cannot be used:`);
    expect(err()).toContain('no such table: patchgate_tests');
    expect(readScorecard(out).verdict).toBe('accept');
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT COUNT(*) AS n FROM patchgate_runs').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  const pgMissing = postgresUnavailable();
  it.skipIf(pgMissing !== undefined)(
    'records and answers from a PostgreSQL server when PATCHGATE_DATABASE_URL names one, and writes no file',
    async () => {
      const server = await startPostgres();
      try {
        const url = await server.database('cli_history');
        const repo = pythonRepo();
        const junit = path.join(tempDir(), 'r.xml');
        pytest(repo, junit);
        const env = { PATCHGATE_DATABASE_URL: url };
        const r = await runCli(['record', '--junit', junit, '--history', '--at', '2026-11-30T10:00:00Z'], {
          cwd: repo.dir,
          env,
        });
        expect(r.stderr).toBe('');
        expect(r.stdout).toContain(`written to the run history (${url})`);
        const slow = await runCli(['history', 'slowest', '--json'], { cwd: repo.dir, env });
        expect(slow.code).toBe(0);
        expect(JSON.parse(slow.stdout)).toMatchObject({ where: url, runs: { check: 0, record: 1 } });
        expect(
          JSON.parse(slow.stdout)
            .rows.map((t: { testId: string }) => t.testId)
            .sort(),
        ).toEqual(['pytest::tests.test_calc::test_add', 'pytest::tests.test_calc::test_add_zero']);
        expect(existsSync(path.join(repo.dir, '.patchgate'))).toBe(false);
      } finally {
        await server.stop();
      }
    },
  );
});

describe('a working-tree head and the store beside it', { timeout: 240_000 }, () => {
  it('leaves the untracked store out of the head: a protected .patchgate/history* is not touched by the gate’s own file', async () => {
    // No .gitignore entry for .patchgate: the store a CI cache restored is an untracked file of the checkout.
    const repo = GitDir.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        tests: { preset: 'pytest', env: { PYTHONPATH: 'src' } },
        contracts: { protect: ['.github/workflows/**', '.patchgate/history*'] },
      }),
      '.gitignore': '__pycache__\n',
      'src/calc.py': CALC,
      'tests/test_calc.py': TESTS,
    });
    repo.git('checkout', '-q', '-b', 'agent');
    repo.write({ 'src/calc.py': 'def add(a, b):\n    return b + a\n' });
    repo.commit('agent: commute');
    const once = async () => {
      const r = await check(repo, { head: null });
      return readScorecard(r.out, r);
    };
    expect((await once()).verdict).toBe('accept');
    expect(existsSync(path.join(repo.dir, '.patchgate', 'history.sqlite'))).toBe(true);
    // The second run finds the first's store in the working tree: still not part of the patch.
    const second = await once();
    expect(second.findings.map((f) => f.code)).not.toContain('CONTRACT_TOUCHED');
    expect(second.verdict).toBe('accept');
  });
});
