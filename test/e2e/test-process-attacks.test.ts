/**
 * The test process is the head's territory: inside it the head's code and the
 * gate's instruments share one interpreter. Each test plays one attack a
 * hostile patch made there, for real: a temp git repository, the built CLI,
 * real pytest (and a real node runner) in the sandbox. Each of these patches
 * carries a real regression, and each was accepted before the defence it
 * names.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Files, GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

async function judge(repo: GitDir, args: string[] = [], env: Record<string, string> = {}) {
  const out = tempDir('pg-tp-out-');
  const r = await runCli(['check', '--base', 'main', '--out', out, '--today', '2026-12-01', ...args], {
    cwd: repo.dir,
    env,
  });
  const card = readScorecard(out, r);
  return { ...r, out, card, codes: card.findings.map((f) => f.code) };
}

const CALC = 'def add(a, b):\n    return a + b\n';
const BROKEN = 'def add(a, b):\n    return a + b + 1\n';
const TEST_ADD = 'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n';

function pythonRepo(extra: Files = {}, config: Record<string, unknown> = {}): GitDir {
  return GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' } },
      signatures: {},
      ...config,
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    '.gitignore': '.patchgate\n__pycache__\n',
    'src/calc.py': CALC,
    'tests/test_add.py': TEST_ADD,
    ...extra,
  });
}

function patch(repo: GitDir, files: Files, message = 'agent: change'): void {
  repo.git('checkout', '-q', '-b', 'agent');
  repo.write(files);
  repo.commit(message);
}

/** A pytest plugin that reports every failing test as passed. */
const FLIP_FAILURES = `import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"
        report.longrepr = None
`;

const junit = (out: string, label: string) =>
  readFileSync(path.join(out, 'tests', `${label}.junit.xml`), 'utf8');

describe('the gate instruments load first and cannot be shadowed (pytest)', { timeout: 180_000 }, () => {
  it("a module at the checkout's root named like Hypothesis's pytest plugin is never loaded in its place", async () => {
    const repo = pythonRepo();
    patch(repo, { 'src/calc.py': BROKEN, '_hypothesis_pytestplugin.py': FLIP_FAILURES });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const failure = r.card.findings.find((f) => f.code === 'UNKNOWN_FAILURE_SIGNATURE');
    expect(failure?.evidence.test).toBe('pytest::tests.test_add::test_add');
    expect(junit(r.out, 'head-run-1')).toMatch(/<failure/);
  });

  it('a pytest11 entry point the patch commits (a *.dist-info folder) is refused, and named', async () => {
    const repo = pythonRepo();
    patch(repo, {
      'src/calc.py': BROKEN,
      'evil-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n',
      'evil-1.0.dist-info/entry_points.txt': '[pytest11]\nevil = evilplug\n',
      'evilplug.py': FLIP_FAILURES,
    });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(junit(r.out, 'head-run-1')).toMatch(/<failure/);
    const overlay = JSON.parse(readFileSync(path.join(r.out, 'overlay.json'), 'utf8'));
    expect(overlay.pluginsRefused).toEqual([
      expect.objectContaining({
        name: 'evil',
        dist: 'evil',
        location: expect.stringMatching(/evil-1\.0\.dist-info$/),
      }),
    ]);
  });

  it("a module named like the gate's seed plugin cannot write the seed replay's report", async () => {
    const tape = {
      properties: [
        {
          id: 'never_negative',
          runner: 'pytest',
          nodeid: 'tests/test_props.py::test_never_negative',
          min_examples: 10,
          seeds: ['1'],
        },
      ],
    };
    const repo = pythonRepo(
      {
        'property_seeds.json': JSON.stringify(tape),
        'src/calc.py': 'def double(x):\n    return 2 * x\n',
        'tests/test_add.py': 'def test_nothing():\n    assert True\n',
        'tests/test_props.py':
          'from hypothesis import given, settings, strategies as st\nfrom calc import double\n\n\n@settings(max_examples=20, database=None)\n@given(st.integers(min_value=1))\ndef test_never_negative(x):\n    assert double(x) > 0\n',
      },
      { seeds: { env: { PYTHONPATH: 'src' } } },
    );
    // It writes the report the replay reads: every wanted pair passed, with plenty of examples.
    const fake = `import json, os


def pytest_sessionfinish(session, exitstatus):
    want = json.load(open(os.environ["PATCHGATE_SEEDS_WANT"]))
    pairs = want["pairs"] if isinstance(want, dict) else [[n, ""] for n in want]
    tests = {p[0] + "\\u0000" + p[1]: {"outcome": "passed", "items": [p[0]], "examples": 1000,
             "hypothesis_runs": 1, "explicit": 0, "stopped_because": None} for p in pairs}
    report = {"version": 1, "distributed": False, "collected": [p[0] for p in pairs],
              "collect_errors": [], "tests": tests}
    json.dump(report, open(os.environ["PATCHGATE_SEEDS_REPORT"], "w"))
`;
    patch(repo, { 'src/calc.py': 'def double(x):\n    return -x\n', 'patchgate_seeds.py': fake });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(r.codes).toContain('SEED_FAILED');
    const seed = r.card.findings.find((f) => f.code === 'SEED_FAILED');
    expect(seed?.evidence).toMatchObject({ property: 'never_negative', seed: '1' });
    expect(String(seed?.evidence.counterexample)).toMatch(/Falsifying example/);
  });

  it('a production module named like a standard-library module, loaded in the test run, is INSTRUMENT_SHADOWED', async () => {
    // Tests at the root: pytest puts the root first on sys.path, so `import colorsys` finds the checkout's.
    const repo = GitDir.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        tests: { preset: 'pytest' },
        signatures: {},
      }),
      'flake_signatures.json': '{"signatures": []}\n',
      '.gitignore': '.patchgate\n__pycache__\n',
      'calc.py': 'def add(a, b):\n    return a + b\n',
      'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n',
    });
    patch(repo, {
      'colorsys.py': 'HIJACKED = True\n',
      'calc.py': 'import colorsys  # noqa: F401\n\n\ndef add(a, b):\n    return a + b\n',
    });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const shadow = r.card.findings.find((f) => f.code === 'INSTRUMENT_SHADOWED');
    expect(shadow?.severity).toBe('reject');
    expect(shadow?.evidence.problems).toEqual(
      expect.arrayContaining([expect.objectContaining({ module: 'colorsys', file: 'colorsys.py' })]),
    );
  });
});

describe(
  'a test vanishes only loudly; a freeze excuses only what was already there',
  { timeout: 180_000 },
  () => {
    it('a production change that drops a parametrized case is TEST_VANISHED, though no test changed', async () => {
      const repo = pythonRepo({
        'src/rates.py': 'RATES = [1, 2, 3]\n\n\ndef apply(r):\n    return r * 10\n',
        'tests/test_add.py':
          'import pytest\nfrom rates import RATES, apply\n\n\n@pytest.mark.parametrize("r", RATES)\ndef test_apply(r):\n    assert apply(r) == r * 10\n',
      });
      // Rate 3 breaks; dropping it from the list hides the case that would fail.
      patch(repo, {
        'src/rates.py': 'RATES = [1, 2]\n\n\ndef apply(r):\n    return r * 10 if r < 3 else 0\n',
      });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('reject');
      const gone = r.card.findings.filter((f) => f.code === 'TEST_VANISHED');
      expect(gone.map((f) => f.evidence.test)).toEqual(['pytest::tests.test_add::test_apply[3]']);
      expect(gone[0]?.evidence.listedBy).toBe("the base's own test listing");
    });

    it('an error worded like a frozen row, raised every time in another test, is FREEZE_COVERS_NEW_FAILURE; the known one stays frozen', async () => {
      const repo = pythonRepo({
        'src/cache.py': 'def warm():\n    return True\n',
        'tests/test_known.py':
          'def test_known_cold_cache():\n    raise AssertionError("rate cache was cold")\n',
        'tests/test_add.py':
          'from calc import add\nfrom cache import warm\n\n\ndef test_add():\n    assert warm()\n    assert add(2, 2) == 4\n',
      });
      // The row the python-invoice example freezes its cold-cache flake with, committed by a human.
      repo.write({
        'flake_signatures.json': `${JSON.stringify({
          signatures: [
            {
              sha256: '68d35fc15fc5d1babdc8e88245dae867ed7886e9111a7a91265d1407953e3344',
              template: 'AssertionError|AssertionError: rate cache was cold',
              kind: 'AssertionError',
              scheme: 'patchgate',
              owner: 'payments',
              reason: 'known issue',
              expires: '2027-03-31',
              action: 'warm the cache in a fixture',
            },
          ],
        })}\n`,
      });
      repo.commit('human: freeze the known cold cache');
      patch(repo, { 'src/cache.py': 'def warm():\n    raise AssertionError("rate cache was cold")\n' });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('reject');
      const found = r.card.findings.find((f) => f.code === 'FREEZE_COVERS_NEW_FAILURE');
      expect(found?.evidence).toMatchObject({
        test: 'pytest::tests.test_add::test_add',
        row: 0,
        freeze: 'flake_signatures.json',
      });
      expect(String(found?.evidence.why)).toMatch(/base's run of this test does not fail this way/);
      expect(r.card.frozen).toEqual([
        expect.objectContaining({
          covers: 'pytest::tests.test_known::test_known_cold_cache',
          excused: 'pre-existing',
        }),
      ]);
    });
  },
);

describe("the base's test side cannot be rewritten while the base's tests run", { timeout: 180_000 }, () => {
  it('production code that rewrites a base test collected after it is TEST_SIDE_WRITTEN', async () => {
    const repo = pythonRepo({
      'tests/test_add.py': null,
      'tests/test_a.py': 'import calc  # noqa: F401\n\n\ndef test_imports():\n    assert True\n',
      'tests/test_b.py': TEST_ADD,
    });
    // Imported while test_a is collected: test_b, collected next, then asserts nothing.
    patch(repo, {
      'src/calc.py': `import os\n\n_b = os.path.join(os.path.dirname(__file__), "..", "tests", "test_b.py")\nwith open(_b, "w") as f:\n    f.write("def test_add():\\n    pass\\n")\n\n\n${BROKEN}`,
    });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const written = r.card.findings.filter((f) => f.code === 'TEST_SIDE_WRITTEN');
    expect(written.map((f) => f.evidence.path)).toContain('tests/test_b.py');
    expect(written[0]?.severity).toBe('reject');
  });
});

describe('who broke it: a head-caused failure is a reject, not an error', { timeout: 180_000 }, () => {
  it("a conftest.py the patch breaks is HEAD_RUN_BROKEN with pytest's own words, where the base's run reports", async () => {
    const repo = pythonRepo({ 'tests/conftest.py': 'import calc  # noqa: F401\n' });
    patch(repo, { 'tests/conftest.py': 'import calc_that_does_not_exist  # noqa: F401\n' });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(r.code).toBe(1);
    const broken = r.card.findings.find((f) => f.code === 'HEAD_RUN_BROKEN');
    expect(broken?.severity).toBe('reject');
    expect(broken?.evidence).toMatchObject({ side: 'head', failed: 'TESTS_NO_REPORT' });
    expect(String(broken?.evidence.output)).toMatch(/calc_that_does_not_exist/);
    expect(broken?.message).toMatch(/The base's run of the same command reported 1 test/);
  });
});

/**
 * A test runner of the repository's own, installed into node_modules by the
 * setup command (no registry needed): it runs the exported functions of every
 * `tests/*.test.mjs` (or only the names it is given) and writes JUnit.
 */
const RUNNER = `import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const [junit, ...only] = process.argv.slice(2);
const cases = [];
for (const file of readdirSync('tests').filter((f) => f.endsWith('.test.mjs')).sort()) {
  const mod = await import(path.resolve('tests', file));
  for (const [name, fn] of Object.entries(mod.tests)) {
    if (only.length > 0 && !only.includes(name)) continue;
    try { await fn(); cases.push({ file, name }); }
    catch (e) { cases.push({ file, name, failure: String(e.message) }); }
  }
}
const esc = (s) => s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);
writeFileSync(junit, '<testsuites><testsuite name="mini">' + cases.map((c) => '<testcase classname="' + esc(c.file) + '" name="' + esc(c.name) + '">' + (c.failure ? '<failure message="' + esc(c.failure) + '"/>' : '') + '</testcase>').join('') + '</testsuite></testsuites>');
`;

describe('dependency folders are read-only, and never shared with the head', { timeout: 180_000 }, () => {
  it("a head test cannot plant a runner in the dependency folder the base's rerun uses", async () => {
    const repo = GitDir.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        tests: {
          preset: 'generic',
          command: ['node', 'node_modules/mini/runner.mjs', '{junit}', '{tests}'],
          setup: ['node', 'tools/install.mjs'],
          setupNetwork: false,
        },
        signatures: {},
      }),
      'flake_signatures.json': '{"signatures": []}\n',
      '.gitignore': 'node_modules\n.patchgate\n',
      'package.json': '{"name": "t", "private": true, "type": "module"}\n',
      'package-lock.json': '{"name": "t", "lockfileVersion": 3, "packages": {}}\n',
      'tools/runner.mjs': RUNNER,
      'tools/install.mjs':
        "import { cpSync, mkdirSync } from 'node:fs';\nmkdirSync('node_modules/mini', { recursive: true });\ncpSync('tools/runner.mjs', 'node_modules/mini/runner.mjs');\n",
      'src/price.mjs': 'export const net = (x) => x * 0.8;\n',
      'tests/price.test.mjs':
        "import { net } from '../src/price.mjs';\nexport const tests = { 'takes a fifth off': () => { if (net(100) !== 80) throw new Error('net(100) is ' + net(100)); } };\n",
    });
    // The head breaks net(), rewrites its own test to agree, and plants a runner that fails every test it is
    // asked for: the base's rerun would then fail the base test too, and erase the REGRESSION.
    const planted = RUNNER.replace(
      'try { await fn(); cases.push({ file, name }); }',
      "try { throw new Error('planted'); }",
    );
    patch(repo, {
      'src/price.mjs': 'export const net = (x) => x * 0.9;\n',
      'tests/price.test.mjs': `import { writeFileSync } from 'node:fs';\nimport { net } from '../src/price.mjs';\nexport const tests = {\n  'takes a tenth off': () => { if (net(100) !== 90) throw new Error('no'); },\n  'warms the cache': () => { try { writeFileSync('node_modules/mini/runner.mjs', ${JSON.stringify(planted)}); } catch {} },\n};\n`,
    });
    const r = await judge(repo, ['--head', 'agent']);
    expect(r.card.verdict).toBe('reject');
    const regression = r.card.findings.find((f) => f.code === 'REGRESSION');
    expect(regression?.evidence).toMatchObject({
      test: 'mini::price.test.mjs::takes a fifth off',
      base: 'passed',
    });
    // The base's rerun ran the base's own runner.
    expect(readFileSync(path.join(r.out, 'tests', 'base-run-1.junit.xml'), 'utf8')).not.toMatch(/planted/);
  });
});
