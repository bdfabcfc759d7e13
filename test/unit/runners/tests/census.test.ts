import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../../src/config/schema.js';
import { TestSession } from '../../../../src/runners/tests/session.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const sandbox = await testSandbox();

const TESTS = `
from hypothesis import given, settings, strategies as st
import pytest

@settings(max_examples=25, database=None)
@given(x=st.integers())
def test_prop(x):
    assert x == x

def test_example():
    assert 1 + 1 == 2

@pytest.mark.parametrize("n", [1, 2])
@settings(max_examples=5, database=None)
@given(y=st.integers())
def test_param_prop(n, y):
    assert n * y == y * n

@settings(max_examples=10, database=None)
@given(x=st.integers(min_value=5))
def test_prop_that_fails(x):
    # Every generated value fails: ten random examples of integers() do not always reach 5.
    assert x < 5
`;

async function session(files: Record<string, string>, census: boolean, env: Record<string, string> = {}) {
  const root = tempDir('pg-census-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  const logDir = tempDir('pg-census-logs-');
  await sandbox.grant(root);
  await sandbox.grant(logDir);
  const tests = configSchema.parse({ tests: { preset: 'pytest', env } }).tests;
  if (!tests) throw new Error('no tests config');
  return new TestSession({
    tests,
    head: { root },
    base: { root },
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    sandbox,
    logDir,
    signal: new AbortController().signal,
    census,
  });
}

describe('the pytest census plugin (which tests generated inputs)', () => {
  it('tells Hypothesis tests, with the examples they generated, from example tests, per node id', async () => {
    const run = await (await session({ 'test_mix.py': TESTS }, true)).headRun(0);
    expect(run.census?.get('test_mix.py::test_prop')).toEqual({ hypothesis: true, examples: 25 });
    expect(run.census?.get('test_mix.py::test_example')).toEqual({ hypothesis: false, examples: 0 });
    expect(run.census?.get('test_mix.py::test_param_prop[1]')).toEqual({ hypothesis: true, examples: 5 });
    expect(run.census?.get('test_mix.py::test_prop_that_fails')?.hypothesis).toBe(true);
    // The JUnit report is read as before.
    expect(run.tests.find((t) => t.name === 'test_prop_that_fails')?.status).toBe('failed');
  }, 60_000);

  it("keeps the user's own PYTEST_ADDOPTS and PYTHONPATH (the plugin is added, never replacing them)", async () => {
    const run = await (
      await session(
        {
          'test_x.py':
            'import helper\n\ndef test_one():\n    assert helper.VALUE == 1\n\ndef test_two():\n    assert False\n',
          'lib/helper.py': 'VALUE = 1\n',
        },
        true,
        { PYTHONPATH: 'lib', PYTEST_ADDOPTS: '-k one' },
      )
    ).headRun(0);
    expect(run.tests.map((t) => [t.name, t.status])).toEqual([['test_one', 'passed']]);
    expect(run.census?.get('test_x.py::test_one')).toEqual({ hypothesis: false, examples: 0 });
  }, 60_000);

  it('is not loaded unless asked for', async () => {
    const run = await (await session({ 'test_mix.py': TESTS }, false)).headRun(0);
    expect(run.census).toBeUndefined();
  }, 60_000);
});
