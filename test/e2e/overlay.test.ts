/**
 * The base's checks judge the head's code. Each attack edits the test side so
 * the head's own run says yes over a real regression; the overlay (the head's
 * code with the base's tests, runner config and toolchain) says no. Real git
 * repositories, real pytest and vitest, in the sandbox.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleFiles, vitestRepo } from '../helpers/example-repo.js';
import { type Files, GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { hitsRepo, seedInvoice } from '../helpers/hits-repo.js';
import { type Finding, readScorecard, type Scorecard } from '../helpers/out.js';
import { repoRoot } from '../helpers/shared.js';

async function judge(repo: GitDir, env: Record<string, string> = {}) {
  const out = tempDir('pg-overlay-out-');
  const r = await runCli(['check', '--base', 'main', '--out', out, '--today', '2026-12-01'], {
    cwd: repo.dir,
    env,
  });
  const card = readScorecard(out, r);
  return { ...r, out, card, codes: card.findings.map((f) => f.code) };
}

const CALC = 'def add(a, b):\n    return a + b\n\n\ndef double(a):\n    return 2 * a\n';
const BROKEN = 'def add(a, b):\n    return a + b + 1\n\n\ndef double(a):\n    return 2 * a\n';
const TEST_ADD =
  'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n';
const TEST_DOUBLE = 'from calc import double\n\n\ndef test_double():\n    assert double(4) == 8\n';

function pythonRepo(extra: Files = {}): GitDir {
  return GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' } },
      signatures: {},
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    '.gitignore': '.patchgate\n__pycache__\n',
    'src/calc.py': CALC,
    'tests/test_add.py': TEST_ADD,
    'tests/test_double.py': TEST_DOUBLE,
    ...extra,
  });
}

/** The agent's patch: a branch off main with these files. */
function patch(repo: GitDir, files: Files, message: string): void {
  repo.git('checkout', '-q', '-b', 'agent');
  repo.write(files);
  repo.commit(message);
}

const regressions = (card: Scorecard) => card.findings.filter((f) => f.code === 'REGRESSION');

describe('the base tests judge the head code (pytest)', { timeout: 180_000 }, () => {
  it('rejects a conftest.py hook that turns failures into passes, with the base test id and its failure', async () => {
    const repo = pythonRepo();
    patch(
      repo,
      {
        'src/calc.py': BROKEN,
        'tests/conftest.py': `import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
`,
      },
      'agent: faster add',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    // The head's own run is green: only the overlay sees the regression.
    expect(r.codes).not.toContain('UNKNOWN_FAILURE_SIGNATURE');
    const found = regressions(r.card);
    expect(found.map((f) => f.evidence.test).sort()).toEqual(
      expect.arrayContaining([expect.stringMatching(/test_add::test_add$/)]),
    );
    const f = found.find((x) => String(x.evidence.test).endsWith('::test_add')) as Finding;
    expect(f.evidence).toMatchObject({ base: 'passed', overlay: 'failed', kind: 'AssertionError' });
    expect(String(f.evidence.template)).toContain('assert');
    expect(String(f.evidence.next)).toContain('fix the production code');
  });

  it('rejects a plugin loaded from pytest.ini that the base never loads', async () => {
    const repo = pythonRepo({ 'pytest.ini': '[pytest]\ntestpaths = tests\n' });
    patch(
      repo,
      {
        'src/calc.py': BROKEN,
        'pytest.ini': '[pytest]\ntestpaths = tests\naddopts = -p greenwash\n',
        'src/greenwash.py': `def pytest_collection_modifyitems(items):
    items[:] = [i for i in items if "add" not in i.name]
`,
      },
      'agent: tidy',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(regressions(r.card).length).toBeGreaterThanOrEqual(2);
  });

  it('rejects collect_ignore that drops the test that would fail', async () => {
    const repo = pythonRepo({ 'tests/conftest.py': '' });
    patch(
      repo,
      { 'src/calc.py': BROKEN, 'tests/conftest.py': 'collect_ignore = ["test_add.py"]\n' },
      'agent: skip slow tests',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(regressions(r.card).map((f) => f.evidence.test)).toEqual(
      expect.arrayContaining([expect.stringMatching(/test_add::test_add$/)]),
    );
  });

  it('rejects a deleted test whose test would fail, though the head runs no failing test', async () => {
    const repo = pythonRepo();
    patch(repo, { 'src/calc.py': BROKEN, 'tests/test_add.py': null }, 'agent: remove obsolete test');
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(regressions(r.card).map((f) => f.evidence.test)).toEqual(
      expect.arrayContaining([expect.stringMatching(/test_add::test_add$/)]),
    );
  });

  it('a signature row frozen for a regression the patch makes every time excuses nothing: still REGRESSION, naming the row', async () => {
    const repo = pythonRepo();
    patch(repo, { 'src/calc.py': BROKEN, 'tests/test_add.py': null }, 'agent: remove obsolete test');
    const first = await judge(repo);
    const found = regressions(first.card).find((f) => String(f.evidence.test).endsWith('::test_add'));
    expect(found).toBeDefined();
    // A human freezes that very failure on main, from the overlay's own report; the agent's branch takes it.
    repo.git('checkout', '-q', 'main');
    const add = await runCli(
      [
        'signatures',
        'add',
        '--from',
        path.join(first.out, 'tests', 'overlay-run.junit.xml'),
        '--test',
        String(found?.evidence.test),
        '--owner',
        'hana',
        '--expires',
        '2027-01-31',
        '--action',
        'add() rounds up until the ledger migration lands',
        '--today',
        '2026-12-01',
      ],
      { cwd: repo.dir },
    );
    expect(add.code, add.stderr).toBe(0);
    repo.commit('human: freeze the known add() failure');
    repo.git('checkout', '-q', 'agent');
    repo.git('merge', '-q', '--no-edit', 'main');
    const r = await judge(repo);
    // The base passes it and two more runs on the head's code fail it the same way: not a flake, not old.
    const still = regressions(r.card).find((f) => f.evidence.test === found?.evidence.test);
    expect(r.card.verdict).toBe('reject');
    expect(still?.evidence.freeze).toMatchObject({ file: 'flake_signatures.json', row: 0 });
    expect(String((still?.evidence.freeze as { why?: string }).why)).toMatch(
      /base passes this test and 2 more run\(s\) on the head's code failed the same way every time/,
    );
    expect((r.card as unknown as { frozen: Record<string, unknown>[] }).frozen).toEqual([]);
    // The human way to take it is the override, in a job a human triggers.
    const human = await judge(repo, { PATCHGATE_TESTS_OVERRIDE: 'yes' });
    expect(human.card.verdict).toBe('accept');
    expect(human.card.findings.find((f) => f.code === 'REGRESSION')?.severity).toBe('warn');
  });

  it('rejects a test rewritten to expect the wrong answer', async () => {
    const repo = pythonRepo();
    patch(
      repo,
      {
        'src/calc.py': BROKEN,
        'tests/test_add.py': TEST_ADD.replace('== 5', '== 6').replace('== 0', '== 1'),
      },
      'agent: update expectations',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(regressions(r.card)).toHaveLength(2);
  });

  it('accepts a renamed test file and a new test over a correct refactor', async () => {
    const repo = pythonRepo();
    patch(
      repo,
      {
        'src/calc.py': 'def add(a, b):\n    return sum((a, b))\n\n\ndef double(a):\n    return add(a, a)\n',
        'tests/test_add.py': null,
        'tests/test_sum.py': TEST_ADD,
        'tests/test_more.py':
          'from calc import double\n\n\ndef test_double_negative():\n    assert double(-2) == -4\n',
      },
      'agent: refactor and rename',
    );
    const r = await judge(repo);
    expect(r.card.findings).toEqual([]);
    expect(r.card.verdict).toBe('accept');
    const overlay = JSON.parse(readFileSync(path.join(r.out, 'overlay.json'), 'utf8'));
    expect(overlay.restored).toEqual(['tests/test_add.py']);
    expect(overlay.headOnly).toEqual(['tests/test_more.py', 'tests/test_sum.py']);
  });

  it('rejects production code that asks whether pytest is running', async () => {
    const repo = pythonRepo();
    patch(
      repo,
      {
        'src/calc.py': `import os\n\n\ndef add(a, b):\n    if "PYTEST_CURRENT_TEST" in os.environ:\n        return a + b\n    return a + b + 1\n\n\ndef double(a):\n    return 2 * a\n`,
      },
      'agent: fast path',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const f = r.card.findings.find((x) => x.code === 'PRODUCTION_REACHES_TESTS');
    expect(f?.evidence).toMatchObject({
      path: 'src/calc.py',
      line: 5,
      reach: 'reads the pytest variable PYTEST_CURRENT_TEST',
    });
  });

  it('rejects a vendored pytest and a changed requirement on it, and a human job may accept them', async () => {
    const repo = pythonRepo({ 'requirements-dev.txt': 'pytest==7.2.1\nhypothesis==6.67.1\n' });
    patch(
      repo,
      {
        'requirements-dev.txt': 'pytest==7.2.1\nhypothesis==6.1.0\n',
        'vendor/hypothesis/__init__.py': '',
      },
      'agent: pin',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const tool = r.card.findings.filter((x) => x.code === 'TOOLCHAIN_CHANGED');
    expect(tool.map((f) => f.evidence.path).sort()).toEqual([
      'requirements-dev.txt',
      'vendor/hypothesis/__init__.py',
    ]);
    expect(tool[0]?.evidence.changes).toEqual(['added hypothesis==6.1.0', 'removed hypothesis==6.67.1']);

    const human = await judge(repo, { PATCHGATE_TESTS_OVERRIDE: 'yes-by-hana' });
    expect(human.card.verdict).toBe('accept');
    expect(human.card.overrides.map((o) => o.code)).toEqual(['TOOLCHAIN_CHANGED', 'TOOLCHAIN_CHANGED']);
    expect(readFileSync(path.join(human.out, 'scorecard.json'), 'utf8')).not.toContain('yes-by-hana');
  });
});

/** The price module and its test, on the shared vitest project. */
function priceRepo(extra: Files = {}): GitDir {
  return vitestRepo({
    'src/price.ts': 'export const net = (gross: number) => gross - Math.round(gross / 5);\n',
    'test/price.test.ts':
      "import { expect, it } from 'vitest';\nimport { net } from '../src/price.js';\nit('takes a fifth off', () => { expect(net(100)).toBe(80); });\n",
    ...extra,
  });
}

const BROKEN_TS = 'export const net = (gross: number) => gross - Math.round(gross / 4);\n';

describe('the base tests judge the head code (vitest)', { timeout: 180_000 }, () => {
  it('rejects a vitest config that excludes the failing test', async () => {
    const repo = priceRepo({
      'vitest.config.ts': "export default { test: { include: ['test/**/*.test.ts'] } };\n",
      'test/other.test.ts':
        "import { expect, it } from 'vitest';\nit('holds', () => { expect(1).toBe(1); });\n",
    });
    patch(
      repo,
      {
        'src/price.ts': BROKEN_TS,
        'vitest.config.ts':
          "export default { test: { include: ['test/**/*.test.ts'], exclude: ['test/price.test.ts'], passWithNoTests: true } };\n",
      },
      'agent: speed up CI',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const f = regressions(r.card)[0];
    expect(f?.evidence.test).toMatch(/price\.test\.ts.*takes a fifth off/);
    expect(f?.evidence.template).toMatch(/expected <N> to be <N>/);
  });

  it('rejects a setup file that neuters expect', async () => {
    const repo = priceRepo({
      'vitest.config.ts': "export default { test: { setupFiles: ['test/setup.ts'] } };\n",
      'test/setup.ts': 'export {};\n',
    });
    patch(
      repo,
      {
        'src/price.ts': BROKEN_TS,
        'test/setup.ts':
          "import { expect } from 'vitest';\nexpect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n",
      },
      'agent: helpers',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    expect(r.codes).not.toContain('UNKNOWN_FAILURE_SIGNATURE');
    expect(regressions(r.card)).toHaveLength(1);
  });

  it('rejects a changed vitest version in package.json, naming the entry', async () => {
    const repo = priceRepo();
    patch(
      repo,
      {
        'package.json':
          '{"name": "t", "private": true, "type": "module", "devDependencies": {"vitest": "file:./vendor/vitest"}}\n',
      },
      'agent: vendor vitest',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const f = r.card.findings.find((x) => x.code === 'TOOLCHAIN_CHANGED');
    expect(f?.evidence).toMatchObject({ path: 'package.json', changes: ['changed devDependencies.vitest'] });
  });

  it('rejects base tests that vanish: the module they import no longer loads, and the head rewrote the test', async () => {
    const repo = priceRepo();
    patch(
      repo,
      {
        'src/price.ts': "throw new Error('not yet');\nexport const net = (gross: number) => gross;\n",
        'test/price.test.ts':
          "import { expect, it } from 'vitest';\nit('is pending', () => { expect(1).toBe(1); });\n",
      },
      'agent: rewrite',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    // vitest reports a file that fails to load without its tests: they did not run, so they vanished.
    expect(r.card.findings.map((f) => [f.code, f.evidence.test])).toEqual([
      ['TEST_VANISHED', expect.stringMatching(/price\.test\.ts.*takes a fifth off/)],
    ]);
    expect(r.card.findings[0]?.evidence).toMatchObject({ base: 'passed', overlay: 'did not run' });
  });

  it('rejects production code that imports the test runner', async () => {
    const repo = priceRepo();
    patch(
      repo,
      {
        'src/price.ts':
          "import { vi } from 'vitest';\nvi.fn();\nexport const net = (gross: number) => gross - Math.round(gross / 5);\n",
      },
      'agent: instrument',
    );
    const r = await judge(repo);
    const f = r.card.findings.find((x) => x.code === 'PRODUCTION_REACHES_TESTS');
    expect(f?.evidence).toMatchObject({
      path: 'src/price.ts',
      line: 1,
      reach: "imports the test module 'vitest'",
    });
  });
});

const SPLIT_OK = `export function split(total: number, count: number): number[] {
  const base = Math.floor(total / count);
  return Array.from({ length: count }, (_, i) => base + (i < total % count ? 1 : 0));
}
`;
const SPLIT_ROUNDED = `export function split(total: number, count: number): number[] {
  return Array.from({ length: count }, () => Math.round(total / count));
}
`;
const SEED_PROPERTY = (predicate: string) => `import fc from 'fast-check';
import { defineSeedProperty } from 'patchgate';
import { split } from '../src/split.js';
export const adds = defineSeedProperty({
  id: 'adds_up',
  property: fc.property(fc.nat({ max: 1000 }), fc.integer({ min: 1, max: 12 }), (total, count) =>
    ${predicate}),
  params: { numRuns: 200 },
});
`;
const ADDS_UP = 'split(total, count).reduce((a, b) => a + b, 0) === total';

describe('the base properties judge the head code (seeds, hits)', { timeout: 180_000 }, () => {
  it('replays the base seed property when the head rewrites its predicate to `|| true`', async () => {
    const repo = GitDir.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        seeds: { properties: ['props/*.ts'] },
      }),
      'property_seeds.json': JSON.stringify({
        properties: [{ id: 'adds_up', runner: 'fast-check', min_examples: 100, seeds: ['2081211641'] }],
      }),
      'src/split.ts': SPLIT_OK,
      'props/adds.ts': SEED_PROPERTY(ADDS_UP),
    });
    patch(
      repo,
      { 'src/split.ts': SPLIT_ROUNDED, 'props/adds.ts': SEED_PROPERTY(`${ADDS_UP} || true`) },
      'agent: round',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const f = r.card.findings.find((x) => x.code === 'SEED_FAILED');
    expect(f?.evidence).toMatchObject({ property: 'adds_up', seed: '2081211641' });
  });

  it("scores the base's hits property on the head's code: a property that throws on any change hides nothing", async () => {
    const property = (body: string) => `import { defineProperty } from 'patchgate';
import { supported } from '../src/currency.js';
export default defineProperty<any>({
  name: 'currency_supported',
  fixture: 'fixtures/lock.json',
  claims: ['currency'],
  check(fx) { ${body} },
});
`;
    const repo = hitsRepo(
      { properties: ['properties/*.ts'], maxDepth: 1 },
      {
        'src/currency.ts': "export const supported = (c: string) => c === 'USD';\n",
        'properties/currency.ts': property(
          "if (!supported(fx.currency)) throw new Error('unsupported ' + fx.currency);",
        ),
      },
    );
    patch(
      repo,
      {
        // The regression: every currency is "supported" now.
        'src/currency.ts': 'export const supported = (_c: string) => true;\n',
        // And the property is rewritten to throw whenever the fixture is not the locked copy, so every
        // perturbation still "hits".
        'properties/currency.ts': property(
          `if (JSON.stringify(fx) !== ${JSON.stringify(JSON.stringify(JSON.parse(seedInvoice())))}) throw new Error('changed');`,
        ),
      },
      'agent: accept all currencies',
    );
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const shrank = r.card.findings.find((x) => x.code === 'HIT_SURFACE_SHRANK' || x.code === 'ZERO_HIT');
    expect(shrank?.evidence).toMatchObject({ side: 'overlay', property: 'currency_supported' });
    expect(existsSync(path.join(r.out, 'hit_report.overlay.json'))).toBe(true);
  });
});

/** examples/python-invoice as committed, without its sample patches. */
const pythonInvoice = () => GitDir.create(exampleFiles(path.join(repoRoot, 'examples', 'python-invoice')));

describe(
  'the base generators judge the head code (Hypothesis), and new evidence is welcome',
  { timeout: 180_000 },
  () => {
    it('replays the base generator when the head narrows its own to miss the bug', async () => {
      const repo = pythonInvoice();
      const test = readFileSync(repo.path('tests/test_installments.py'), 'utf8');
      // Every total a multiple of 27720 (the lcm of 1..12): a rounded split always adds up.
      const narrowed = test.replace(
        'total=st.integers(min_value=0, max_value=1_000_000),',
        'total=st.integers(min_value=0, max_value=36).map(lambda t: t * 27720),',
      );
      expect(narrowed).not.toBe(test);
      const installments = readFileSync(repo.path('installments.py'), 'utf8');
      const rounded = installments.replace(
        '    base, extra = divmod(total_cents, count)\n    return [base + (1 if i < extra else 0) for i in range(count)]',
        '    return [round(total_cents / count)] * count',
      );
      expect(rounded).not.toBe(installments);
      patch(
        repo,
        { 'installments.py': rounded, 'tests/test_installments.py': narrowed },
        'agent: simpler plan',
      );
      const r = await judge(repo);
      expect(r.card.verdict).toBe('reject');
      const seed = r.card.findings.find((f) => f.code === 'SEED_FAILED');
      expect(seed?.evidence).toMatchObject({
        property: 'installments_add_up',
        seed: '20261130',
        side: 'overlay',
      });
      // The head's narrowed property passes its own replay: only the base's generator found it.
      const headReplay = JSON.parse(readFileSync(path.join(r.out, 'seed_replay.json'), 'utf8'));
      expect(headReplay.replays.map((x: { status: string }) => x.status)).toEqual(['pass']);
    });

    it('accepts a new hits property that earns its hits', async () => {
      const property = `import { defineProperty } from 'patchgate';
export default defineProperty<any>({
  name: 'currency_is_usd',
  fixture: 'fixtures/lock.json',
  claims: ['currency'],
  check(fx) { if (fx.currency !== 'USD') throw new Error('currency ' + fx.currency); },
});
`;
      const repo = hitsRepo(
        { properties: ['properties/*.ts'], maxDepth: 1 },
        {
          'properties/total.ts': property
            .replace('currency_is_usd', 'currency_first')
            .replace("'USD'", "'USD' "),
        },
      );
      patch(repo, { 'properties/currency.ts': property }, 'agent: a property for the currency');
      const r = await judge(repo);
      expect(r.card.findings.filter((f) => f.severity !== 'warn')).toEqual([]);
      expect(r.card.verdict).toBe('accept');
    });
  },
);
