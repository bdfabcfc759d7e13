import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema, type PatchgateConfigInput } from '../../../../src/config/schema.js';
import { parseTape } from '../../../../src/contracts/seed-tape.js';
import type { TestOutcome } from '../../../../src/junit/model.js';
import { replayPytest } from '../../../../src/layers/seeds/replayers/pytest.js';
import { pytestNodeId } from '../../../../src/runners/tests/presets.js';
import { TestSession } from '../../../../src/runners/tests/session.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const sandbox = await testSandbox();

/**
 * pytest collects whatever it is given on its command line, whatever the
 * project's configuration says. These pin that every run the gate makes of
 * the pytest preset (full, by node id, by file, the collect-only inventory,
 * the seed replay) collects what the project's configuration says instead.
 */

// A benchmark folder outside `testpaths` whose module cannot even be imported here.
const BENCH = 'import pytest_benchmark_that_is_not_installed\n\ndef test_bench():\n    pass\n';
const TESTS = `import pytest

def test_ok():
    assert True

@pytest.mark.skip(reason="known")
def test_skipped():
    pass

@pytest.mark.slow
def test_slow():
    pass
`;

const CONFIGS: Record<string, Record<string, string>> = {
  'pyproject.toml': {
    'pyproject.toml':
      '[project]\nname = "x"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\nmarkers = ["slow"]\n',
  },
  'setup.cfg': { 'setup.cfg': '[metadata]\nname = x\n\n[tool:pytest]\ntestpaths = tests\nmarkers = slow\n' },
  'tox.ini': { 'tox.ini': '[tox]\nenvlist = py3\n\n[pytest]\ntestpaths = tests\nmarkers = slow\n' },
  'pytest.ini': { 'pytest.ini': '[pytest]\ntestpaths = tests\nmarkers = slow\n' },
};

function checkout(files: Record<string, string>): string {
  const root = tempDir('pg-collect-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

async function session(
  root: string,
  tests: NonNullable<PatchgateConfigInput['tests']> = { preset: 'pytest' },
) {
  const logDir = tempDir('pg-collect-logs-');
  await sandbox.grant(root);
  await sandbox.grant(logDir);
  const parsed = configSchema.parse({ tests }).tests;
  if (!parsed) throw new Error('no tests config');
  return new TestSession({
    tests: parsed,
    head: { root },
    base: { root },
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    sandbox,
    logDir,
    signal: new AbortController().signal,
  });
}

const names = (tests: readonly TestOutcome[]) => tests.map((t) => `${t.classname}::${t.name}`).sort();

describe.each(Object.keys(CONFIGS))("pytest's own testpaths decide what is collected (%s)", (config) => {
  const files = { ...CONFIGS[config], 'tests/test_a.py': TESTS, 'bench/test_x.py': BENCH };

  it('in a full run and in the collect-only inventory', async () => {
    const s = await session(checkout(files));
    const full = await s.baseFullRun();
    expect(names(full.tests)).toEqual([
      'tests.test_a::test_ok',
      'tests.test_a::test_skipped',
      'tests.test_a::test_slow',
    ]);
    const inventory = await s.baseInventory();
    expect(inventory.how).toBe('collected');
    expect(inventory.tests.map((t) => t.file)).not.toContain('bench/test_x.py');
    expect(inventory.tests).toHaveLength(3);
  }, 60_000);

  it('in a run by file, even when the file asked for is one the configuration leaves out', async () => {
    const s = await session(checkout(files));
    // The regression layer asks for every changed test file; bench/test_x.py looks like one by its name.
    const run = await s.baseRunFiles(['bench/test_x.py', 'tests/test_a.py']);
    expect(names(run.tests)).toEqual([
      'tests.test_a::test_ok',
      'tests.test_a::test_skipped',
      'tests.test_a::test_slow',
    ]);
    expect(run.run.exitCode).toBe(0);
    expect(readFileSync(run.run.stdoutFile, 'utf8')).not.toContain('pytest_benchmark_that_is_not_installed');
  }, 60_000);

  it('in a run by node id: only the asked-for tests run, and a file left out runs nothing', async () => {
    const s = await session(checkout(files));
    const run = await s.baseRun([
      { suite: 'pytest', classname: 'tests.test_a', name: 'test_skipped' },
      { suite: 'pytest', classname: 'bench.test_x', name: 'test_bench' },
    ]);
    expect(names(run.tests)).toEqual(['tests.test_a::test_skipped']);
    expect(run.tests[0]?.status).toBe('skipped');
  }, 60_000);
});

describe('pytest subsets through the gate’s selection plugin', () => {
  it('node ids rebuilt from a full run’s JUnit select exactly those tests, parametrized ones included', async () => {
    const s = await session(
      checkout({
        'tests/test_x.py': `import pytest
class TestY:
    @pytest.mark.parametrize("v", ["a.b", "c d", "x::y"])
    def test_z(self, v):
        assert v
    def test_other(self):
        pass
def test_free():
    pass
`,
      }),
    );
    const full = await s.baseFullRun();
    expect(full.tests).toHaveLength(5);
    const wanted = full.tests.filter((t) => t.name === 'test_z[x::y]' || t.name === 'test_free');
    expect(wanted.map(pytestNodeId).sort()).toEqual([
      'tests/test_x.py::TestY::test_z[x::y]',
      'tests/test_x.py::test_free',
    ]);
    const sub = await s.baseRun(wanted);
    expect(names(sub.tests)).toEqual(['tests.test_x.TestY::test_z[x::y]', 'tests.test_x::test_free']);
    // What the plugin kept is what the guard saw collected.
    expect(sub.guard?.collected?.map((c) => c.nodeid).sort()).toEqual([
      'tests/test_x.py::TestY::test_z[x::y]',
      'tests/test_x.py::test_free',
    ]);
  }, 60_000);

  it('a selection none of which the configuration collects is an empty run, not a broken one', async () => {
    const s = await session(
      checkout({ ...CONFIGS['pytest.ini'], 'tests/test_a.py': TESTS, 'bench/test_x.py': BENCH }),
    );
    const run = await s.baseRunFiles(['bench/test_x.py']);
    expect(run.tests).toEqual([]);
    expect(run.run.exitCode).toBe(5);
  }, 60_000);

  it('a selected module that fails to import is still the runner’s error, with its words', async () => {
    const s = await session(checkout({ 'tests/test_a.py': TESTS, 'tests/test_broken.py': BENCH }));
    const run = await s.baseRunFiles(['tests/test_broken.py']);
    const broken = run.tests.filter((t) => t.status === 'error');
    expect(broken).toHaveLength(1);
    expect(broken[0]?.failures[0]?.message).toMatch(
      /collection failure|pytest_benchmark_that_is_not_installed/,
    );
  }, 60_000);

  it('an edited run asked to fail fast ends at the first failing test; asked for tests, runs only those', async () => {
    const s = await session(
      checkout({
        'tests/test_s.py':
          'def test_a():\n    pass\n\ndef test_b():\n    assert False\n\ndef test_c():\n    pass\n',
      }),
    );
    const files = ['tests/test_s.py'];
    const fast = await s.editedRun('base', { files, label: 'fast', timeoutMs: 60_000, failFast: true });
    expect(fast.selected).toBe('files');
    expect(fast.tests.map((t) => `${t.name}:${t.status}`)).toEqual(['test_a:passed', 'test_b:failed']);
    const whole = await s.editedRun('base', { files, label: 'whole', timeoutMs: 60_000 });
    expect(whole.tests.map((t) => `${t.name}:${t.status}`)).toEqual([
      'test_a:passed',
      'test_b:failed',
      'test_c:passed',
    ]);
    const c = whole.tests.filter((t) => t.name === 'test_c');
    const only = await s.editedRun('base', { files, tests: c, label: 'only', timeoutMs: 60_000 });
    expect(only.selected).toBe('tests');
    expect(names(only.tests)).toEqual(['tests.test_s::test_c']);
  }, 60_000);

  it('tests.args extend the preset: -m "not slow" is honoured by full runs and subsets', async () => {
    const root = checkout({
      ...CONFIGS['pyproject.toml'],
      'tests/test_a.py': TESTS,
      'bench/test_x.py': BENCH,
    });
    const s = await session(root, { preset: 'pytest', args: ['-m', 'not slow'] });
    const full = await s.baseFullRun();
    expect(names(full.tests)).toEqual(['tests.test_a::test_ok', 'tests.test_a::test_skipped']);
    const byFile = await s.baseRunFiles(['tests/test_a.py']);
    expect(names(byFile.tests)).toEqual(['tests.test_a::test_ok', 'tests.test_a::test_skipped']);
  }, 60_000);
});

describe('the seed replay collects as the project configures pytest', () => {
  it('replays a row under testpaths, never imports bench/, and says why a row outside testpaths is not found', async () => {
    const root = checkout({
      ...CONFIGS['pyproject.toml'],
      'tests/test_p.py':
        'from hypothesis import given, settings, strategies as st\n\n@settings(max_examples=7, database=None)\n@given(st.integers())\ndef test_prop(x):\n    assert x == x\n',
      'bench/test_x.py': BENCH,
      'bench/test_props.py':
        'from hypothesis import given, strategies as st\n\n@given(st.integers())\ndef test_bench_prop(x):\n    assert True\n',
    });
    await sandbox.grant(root);
    const logDir = tempDir('pg-collect-seeds-');
    const tape = parseTape(
      JSON.stringify({
        properties: [
          { id: 'p', nodeid: 'tests/test_p.py::test_prop', min_examples: 5, seeds: ['1'] },
          { id: 'b', nodeid: 'bench/test_props.py::test_bench_prop', min_examples: 5, seeds: ['1'] },
        ],
      }),
      'property_seeds.json',
    );
    const out = await replayPytest({
      root,
      python: 'python3',
      rows: tape.rows,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      sandbox,
      timeoutMs: 60_000,
      logDir,
    });
    const byId = new Map(out.replays.map((r) => [r.property, r]));
    expect(byId.get('p')?.status).toBe('pass');
    expect(byId.get('b')?.status).toBe('not-found');
    expect(byId.get('b')?.message).toContain(
      'bench/test_props.py exists, but pytest as the project configures it (testpaths',
    );
  }, 60_000);
});
