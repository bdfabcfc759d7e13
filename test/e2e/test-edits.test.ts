/**
 * Evidence that names the edit behind it, on real pytest + Hypothesis:
 * each test is an agent's patch (a real git repository, the built CLI, head
 * code in the real sandbox) that weakens the test side one way. With a
 * regression beneath, the base test's finding names that edit (file, line,
 * what changed); without one, it is TEST_WEAKENED on its own. Also: the
 * runner's own failure text, the module an import error names, a run in
 * which nothing ran, many regressions of one file grouped, log paths into
 * the out folder, and a skip the patch added told to restore the test.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Files, GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { type Finding, readScorecard, type Scorecard } from '../helpers/out.js';

type Edit = {
  kind: string;
  file: string;
  line?: number;
  test?: string;
  description: string;
  before?: string;
  after?: string;
};

async function judge(repo: GitDir, env: Record<string, string> = {}) {
  const out = tempDir('pg-edits-out-');
  const r = await runCli(
    ['check', '--base', 'main', '--head', 'HEAD', '--out', out, '--today', '2026-12-01'],
    {
      cwd: repo.dir,
      env,
    },
  );
  const card = readScorecard(out, r);
  return { ...r, out, card, codes: card.findings.map((f) => f.code) };
}

const CALC = 'def double(x):\n    return 2 * x\n\n\ndef add(a, b):\n    return a + b\n';
/** Wrong from 10 on: only inputs the narrowed strategies below never draw find it. */
const BROKEN =
  'def double(x):\n    return 2 * x if x < 10 else 2 * x + 1\n\n\ndef add(a, b):\n    return a + b if a < 10 else a + b + 1\n';
const PROP = (settings: string, strategy: string) => `from hypothesis import given, settings, strategies as st
from calc import double


${settings}@given(x=${strategy})
def test_double(x):
    assert double(x) == 2 * x
`;
const TEST_ADD =
  'import pytest\nfrom calc import add\n\n\ndef test_add():\n    assert add(20, 3) == 23\n\n\ndef test_add_small():\n    assert add(2, 3) == 5\n';

function pythonRepo(extra: Files = {}, config: Record<string, unknown> = {}): GitDir {
  return GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' }, ...config },
      signatures: {},
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    '.gitignore': '.patchgate\n__pycache__\n.hypothesis\n',
    'src/calc.py': CALC,
    'tests/test_double.py': PROP('@settings(max_examples=200)\n', 'st.integers()'),
    'tests/test_add.py': TEST_ADD,
    ...extra,
  });
}

function patch(repo: GitDir, files: Files, message = 'agent: tidy'): void {
  repo.git('checkout', '-q', '-b', 'agent');
  repo.write(files);
  repo.commit(message);
}

const edits = (f: Finding | undefined) => (f?.evidence.testEdits ?? f?.evidence.edits ?? []) as Edit[];
const find = (card: Scorecard, code: string, test?: RegExp) =>
  card.findings.find((f) => f.code === code && (test === undefined || test.test(String(f.evidence.test))));

describe(
  'a regression hidden by a test-side edit names the edit (pytest + Hypothesis)',
  { timeout: 240_000 },
  () => {
    it('a narrowed strategy and lowered max_examples: REGRESSION says so in one clause, with both lines and the counterexample', async () => {
      const repo = pythonRepo();
      patch(repo, {
        'src/calc.py': BROKEN,
        'tests/test_double.py': PROP('@settings(max_examples=20)\n', 'st.integers(0, 9)'),
      });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('reject');
      const f = find(r.card, 'REGRESSION', /test_double::test_double$/);
      expect(f?.message).toContain(
        '; the head narrowed the strategy of `x` from `st.integers()` to `st.integers(0, 9)` at tests/test_double.py:6 (and 1 more test-side edit(s), in evidence.testEdits)',
      );
      expect(edits(f)).toEqual([
        expect.objectContaining({
          kind: 'generator-narrowed',
          file: 'tests/test_double.py',
          line: 6,
          test: 'test_double',
          before: 'st.integers()',
          after: 'st.integers(0, 9)',
        }),
        expect.objectContaining({
          kind: 'examples-lowered',
          file: 'tests/test_double.py',
          before: '200',
          after: '20',
        }),
      ]);
      // The runner's own words, digits and all, with the template beside them.
      expect(f?.message).toMatch(/assert 21 == \(2 \* 10\)/);
      expect(f?.evidence.text).toMatch(/Falsifying example: test_double\(.*x=10/);
      expect(f?.evidence.template).toMatch(/assert <N> == \(<N> \* <N>\)/);
      // Explained: not reported again on its own.
      expect(r.codes).not.toContain('TEST_WEAKENED');
      // Who the patch's commits say wrote it, and its branch: recorded, and shown in summary.md as the commits say.
      expect(r.card.patch).toEqual({
        commits: 1,
        authors: [{ name: 'Test', email: 'test@example.com', roles: ['author', 'committer'], commits: 1 }],
        branch: 'agent',
      });
      expect(readFileSync(path.join(r.out, 'summary.md'), 'utf8')).toContain(
        'Patch: 1 commit(s) by `Test <test@example.com>`; on branch `agent` (as the commits say).',
      );
    });

    it('a weakened assertion (== to a truthy check): REGRESSION names it', async () => {
      const repo = pythonRepo();
      patch(repo, {
        'src/calc.py': BROKEN,
        'tests/test_add.py': TEST_ADD.replace('assert add(20, 3) == 23', 'assert add(20, 3)'),
      });
      const r = await judge(repo);
      const f = find(r.card, 'REGRESSION', /test_add::test_add$/);
      expect(edits(f)).toEqual([
        expect.objectContaining({
          kind: 'assertion-weakened',
          file: 'tests/test_add.py',
          line: 6,
          before: 'assert add(20, 3) == 23',
          after: 'assert add(20, 3)',
        }),
      ]);
      expect(f?.message).toContain('; the head weakened `assert add(20, 3) == 23` to `assert add(20, 3)`');
    });

    it('an expected value changed to agree with the new output: REGRESSION names the literal', async () => {
      const repo = pythonRepo();
      patch(repo, { 'src/calc.py': BROKEN, 'tests/test_add.py': TEST_ADD.replace('== 23', '== 24') });
      const f = find((await judge(repo)).card, 'REGRESSION', /test_add::test_add$/);
      expect(edits(f)).toEqual([
        expect.objectContaining({ kind: 'expected-changed', before: '23', after: '24' }),
      ]);
    });

    it('a failure swallowed by try/except: REGRESSION names it', async () => {
      const repo = pythonRepo();
      patch(repo, {
        'src/calc.py': BROKEN,
        'tests/test_add.py': TEST_ADD.replace(
          '    assert add(20, 3) == 23',
          '    try:\n        assert add(20, 3) == 23\n    except AssertionError:\n        pass',
        ),
      });
      const f = find((await judge(repo)).card, 'REGRESSION', /test_add::test_add$/);
      expect(edits(f).map((e) => e.kind)).toEqual(['exception-swallowed']);
    });

    it('a conftest hook that passes every failure: REGRESSION names the hook in tests/conftest.py', async () => {
      const repo = pythonRepo();
      patch(repo, {
        'src/calc.py': BROKEN,
        'tests/conftest.py':
          'import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = "passed"\n',
      });
      const r = await judge(repo);
      const f = find(r.card, 'REGRESSION', /test_add::test_add$/);
      expect(edits(f)).toEqual([
        expect.objectContaining({
          kind: 'hook-added',
          file: 'tests/conftest.py',
          line: 5,
          description: 'added the hook `pytest_runtest_makereport`',
        }),
      ]);
    });

    it("collect_ignore in a conftest: the ignored file's REGRESSION names the entry", async () => {
      const repo = pythonRepo({ 'tests/conftest.py': '' });
      patch(repo, { 'src/calc.py': BROKEN, 'tests/conftest.py': 'collect_ignore = ["test_add.py"]\n' });
      const f = find((await judge(repo)).card, 'REGRESSION', /test_add::test_add$/);
      expect(edits(f)).toEqual([
        expect.objectContaining({
          kind: 'runner-exclude',
          file: 'tests/conftest.py',
          line: 1,
          description: 'added `test_add.py` to `collect_ignore`',
        }),
      ]);
    });

    it('a deleted test file: REGRESSION names the deletion', async () => {
      const repo = pythonRepo();
      patch(repo, { 'src/calc.py': BROKEN, 'tests/test_add.py': null });
      const f = find((await judge(repo)).card, 'REGRESSION', /test_add::test_add$/);
      expect(edits(f)).toEqual([
        expect.objectContaining({
          kind: 'file-deleted',
          file: 'tests/test_add.py',
          description: 'deleted tests/test_add.py (2 test(s): `test_add`, `test_add_small`)',
        }),
      ]);
    });
  },
);

describe('a weakened test with no regression beneath is TEST_WEAKENED (pytest)', { timeout: 240_000 }, () => {
  it('is a warning by default, one per edited test, with file, line and what changed; the verdict stays accept', async () => {
    const repo = pythonRepo();
    patch(repo, {
      'tests/test_double.py': PROP('@settings(max_examples=5)\n', 'st.integers()'),
      'tests/test_add.py': TEST_ADD.replace('assert add(2, 3) == 5', 'assert add(2, 3) > 0'),
    });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('accept');
    const weak = r.card.findings.filter((f) => f.code === 'TEST_WEAKENED');
    expect(weak.map((f) => [f.severity, f.evidence.test, f.evidence.edit])).toEqual([
      ['warn', 'test_add_small', 'assertion-weakened'],
      ['warn', 'test_double', 'examples-lowered'],
    ]);
    expect(weak[1]?.message).toBe(
      'the head changed test test_double of tests/test_double.py so that it checks less, with no failing base test behind it (yet): the head lowered max_examples from 200 to 5 at tests/test_double.py:5',
    );
    expect(r.card.layers.find((l) => l.name === 'test-edits')?.status).toBe('warn');
    const listed = JSON.parse(readFileSync(path.join(r.out, 'test_edits.json'), 'utf8'));
    expect(listed.edits.map((e: { kind: string; explained: boolean }) => [e.kind, e.explained])).toEqual([
      ['assertion-weakened', false],
      ['examples-lowered', false],
    ]);
  });

  it('tests.weakened: reject makes it a rejection, which the tests override accepts', async () => {
    const repo = pythonRepo({}, { weakened: 'reject' });
    patch(repo, { 'tests/test_double.py': PROP('@settings(max_examples=200)\n', 'st.just(3)') });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const f = find(r.card, 'TEST_WEAKENED');
    expect(f).toMatchObject({
      severity: 'reject',
      evidence: { edit: 'generator-narrowed', override: 'PATCHGATE_TESTS_OVERRIDE' },
    });
    expect(f?.message).toContain(
      'narrowed the strategy of `x` from `st.integers()` to `st.just(3)` (a fixed value or set in place of a generator)',
    );
    const human = await judge(repo, { PATCHGATE_TESTS_OVERRIDE: 'hana' });
    expect(human.card.verdict).toBe('accept');
    expect(human.card.overrides).toEqual([
      {
        layer: 'test-edits',
        code: 'TEST_WEAKENED',
        path: 'tests/test_double.py',
        variable: 'PATCHGATE_TESTS_OVERRIDE',
      },
    ]);
  });

  it('a benign test change (a new test, a refactor) is nothing', async () => {
    const repo = pythonRepo();
    patch(repo, {
      'tests/test_add.py': `${TEST_ADD.replace('assert add(2, 3) == 5', 'result = add(2, 3)\n    assert result == 5')}\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n`,
    });
    const r = await judge(repo);
    expect(r.card.findings).toEqual([]);
    expect(r.card.verdict).toBe('accept');
  });
});

describe('skips the patch added', { timeout: 240_000 }, () => {
  it('a skip added to a test the base runs is told to restore the test, never to freeze it', async () => {
    const repo = pythonRepo();
    patch(repo, {
      'tests/test_add.py': TEST_ADD.replace(
        'def test_add():',
        '@pytest.mark.skip(reason="flaky")\ndef test_add():',
      ),
    });
    const r = await judge(repo);
    const f = find(r.card, 'UNFROZEN_SKIP', /test_add::test_add$/);
    expect(f?.evidence.addedByPatch).toBe(true);
    expect(String(f?.evidence.next)).toMatch(
      /^restore pytest::tests\.test_add::test_add so that it runs as it does on the base/,
    );
    expect(String(f?.evidence.next)).not.toContain('signatures add');
    expect(edits(f)).toEqual([
      expect.objectContaining({ kind: 'skip-added', file: 'tests/test_add.py', line: 5 }),
    ]);
    expect(r.codes).not.toContain('TEST_WEAKENED');
  });

  it('a skip the base already had keeps the freeze advice', async () => {
    const skipped = TEST_ADD.replace(
      'def test_add_small():',
      '@pytest.mark.skip(reason="parked")\ndef test_add_small():',
    );
    const repo = pythonRepo({ 'tests/test_add.py': skipped });
    patch(repo, { 'src/calc.py': `${CALC}\n# tidy\n` });
    const f = find((await judge(repo)).card, 'UNFROZEN_SKIP');
    expect(f?.evidence.addedByPatch).toBeUndefined();
    expect(String(f?.evidence.next)).toContain('patchgate signatures add');
  });
});

describe('the runner says what broke', { timeout: 240_000 }, () => {
  it("an import error the head caused names the module in TEST_VANISHED and in the head run's failure", async () => {
    const repo = pythonRepo();
    patch(repo, { 'src/calc.py': `import typing_extensions_not_installed\n\n${CALC}` });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const vanished = r.card.findings.filter((f) => f.code === 'TEST_VANISHED');
    expect(vanished.length).toBeGreaterThan(0);
    for (const f of vanished) {
      expect(f.evidence.cause).toContain(
        "ModuleNotFoundError: No module named 'typing_extensions_not_installed'",
      );
      expect(f.message).toContain("No module named 'typing_extensions_not_installed'");
    }
    const own = find(r.card, 'UNKNOWN_FAILURE_SIGNATURE');
    expect(own?.message).toContain("ModuleNotFoundError: No module named 'typing_extensions_not_installed'");
    expect(own?.evidence.template).toBe('ImportError|collection failure');
  });

  it("REGRESSION and UNKNOWN_FAILURE_SIGNATURE show the runner's own assertion text, never masked, the template beside it", async () => {
    const svg = (w: number) => `'<svg xmlns="http://www.w3.org/2000/svg" width="${w}"></svg>'`;
    const repo = pythonRepo({
      'src/draw.py': `def icon():\n    return ${svg(12)}\n`,
      'tests/test_draw.py': `from draw import icon\n\n\ndef test_icon():\n    assert icon() == ${svg(12)}\n`,
    });
    // A new test of the agent's own puts the base's tests on the overlay; the head's run still has test_icon.
    patch(repo, {
      'src/draw.py': `def icon():\n    return ${svg(10)}\n`,
      'tests/test_new.py': 'def test_new():\n    assert True\n',
    });
    const r = await judge(repo);
    for (const code of ['REGRESSION', 'UNKNOWN_FAILURE_SIGNATURE']) {
      const f = find(r.card, code, /test_icon$/);
      // pytest's own diff, digits and all; the template masks them.
      expect(f?.message, code).toContain('+ " width="10"></svg>');
      expect(f?.message, code).toContain('- " width="12"></svg>');
      expect(f?.evidence.text, code).toContain('width="10"');
      expect(f?.evidence.template, code).toContain('width="<N>"');
      expect(f?.evidence.template, code).not.toContain('width="10"');
    }
  });

  it("every base test skipped on the head's code is TESTS_NONE_RAN (reject), never a silent pass", async () => {
    const repo = pythonRepo();
    patch(repo, {
      'src/calc.py': `import pytest\npytest.skip("not on this platform", allow_module_level=True)\n${CALC}`,
    });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const f = find(r.card, 'TESTS_NONE_RAN');
    expect(f).toMatchObject({ severity: 'reject', evidence: { ran: 0, baseRan: 3 } });
    // The log path points into the out folder, where the log is.
    expect(f?.evidence.log).toMatch(/^tests\/(overlay-run|head-run-1)\.stdout\.log$/);
    expect(existsSync(path.join(r.out, String(f?.evidence.log)))).toBe(true);
  });

  it('a base whose own tests all skip is TESTS_NONE_RAN as an error: the gate cannot decide', async () => {
    const repo = pythonRepo({
      'tests/test_add.py': `pytestmark = __import__("pytest").mark.skip\n\n${TEST_ADD}`,
      'tests/test_double.py': null,
    });
    patch(repo, { 'src/calc.py': `${CALC}\n# tidy\n` });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('error');
    expect(find(r.card, 'TESTS_NONE_RAN')).toMatchObject({ severity: 'error', evidence: { baseRan: 0 } });
  });

  it('no finding points into a temp folder: every log path is tests/… in the out folder, and the file is there', async () => {
    const repo = pythonRepo();
    patch(repo, { 'tests/conftest.py': 'import nonexistent_helper_module\n' });
    const r = await judge(repo);
    const text = readFileSync(path.join(r.out, 'scorecard.json'), 'utf8');
    expect(text).not.toMatch(/patchgate-[^"/]*\/logs/);
    const logs = [...text.matchAll(/tests\/[\w.-]+\.(?:log|xml)/g)].map((m) => m[0]);
    expect(logs.length).toBeGreaterThan(0);
    for (const l of logs) expect(existsSync(path.join(r.out, l)), l).toBe(true);
  });
});

describe('many regressions of one file', { timeout: 240_000 }, () => {
  it('195 REGRESSION findings of one test file are one finding with the count and the list; the contract finding stays on top', async () => {
    const repo = pythonRepo({
      'tests/test_table.py':
        'import pytest\nfrom calc import double\n\n\n@pytest.mark.parametrize("i", range(195))\ndef test_row(i):\n    assert double(i + 10) == 2 * (i + 10)\n',
    });
    // The intended breaking change: the agent rewrote its copy of the table to agree with the new output.
    patch(repo, {
      'src/calc.py': BROKEN,
      'tests/test_table.py':
        'import pytest\nfrom calc import double\n\n\n@pytest.mark.parametrize("i", range(195))\ndef test_row(i):\n    assert double(i + 10) == 2 * (i + 10) + 1\n',
      'flake_signatures.json': '{"signatures": [], "note": "agent"}\n',
    });
    const r = await judge(repo);
    const table = r.card.findings.filter(
      (f) => f.code === 'REGRESSION' && f.evidence.file === 'tests/test_table.py',
    );
    expect(table).toHaveLength(1);
    expect(table[0]?.evidence.count).toBe(195);
    expect((table[0]?.evidence.tests as unknown[]).length).toBe(195);
    expect(table[0]?.message).toMatch(
      /^195 base tests of tests\/test_table\.py pass on the base but fail or are skipped/,
    );
    expect(r.codes[0]).toBe('CONTRACT_TOUCHED');
    const summary = readFileSync(path.join(r.out, 'summary.md'), 'utf8');
    expect(summary).toContain('`CONTRACT_TOUCHED`');
    expect(summary.split('\n').filter((l) => l.includes('`REGRESSION`')).length).toBeLessThan(10);
  });
});
