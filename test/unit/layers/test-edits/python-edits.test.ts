/**
 * The test-edit analysis on Python: small base/head pairs of real pytest and
 * Hypothesis test files, parsed by Python's own `ast` in the real sandbox
 * (patchgate_test_edits.py, one process per pair), and compared.
 */
import { describe, expect, it } from 'vitest';
import { compareFile } from '../../../../src/layers/test-edits/compare.js';
import type { FileFacts, TestEdit } from '../../../../src/layers/test-edits/model.js';
import { pythonFacts } from '../../../../src/layers/test-edits/python-facts.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const sandbox = await testSandbox();
const FILE = 'tests/test_calc.py';

async function read(texts: Record<string, string>): Promise<Record<string, FileFacts>> {
  const answer = await pythonFacts(new Map(Object.entries(texts)), {
    sandbox,
    logDir: tempDir('pg-test-edits-'),
  });
  const out: Record<string, FileFacts> = {};
  for (const [k, r] of answer) {
    if (!r.ok) throw new Error(`${k} does not parse: ${r.error}`);
    out[k] = r.facts;
  }
  return out;
}

async function edits(base: string, head: string, file = FILE, holdsTests = true): Promise<TestEdit[]> {
  const f = await read({ base, head });
  return compareFile({ file, baseFile: file, base: f.base, head: f.head, term: 'strategy', holdsTests })
    .edits;
}

const HEAD =
  'import pytest\nfrom hypothesis import given, settings, example, assume, strategies as st, Phase\nfrom calc import add, double, parse\n\n\n';

describe('assertions (pytest)', () => {
  it('assert x == y replaced by assert x is assertion-weakened', async () => {
    const found = await edits(
      `${HEAD}def test_add():\n    assert add(2, 3) == 5\n`,
      `${HEAD}def test_add():\n    assert add(2, 3)\n`,
    );
    expect(found).toEqual([
      expect.objectContaining({
        kind: 'assertion-weakened',
        test: 'test_add',
        baseLine: 7,
        headLine: 7,
        before: 'assert add(2, 3) == 5',
        after: 'assert add(2, 3)',
      }),
    ]);
  });

  it('assert True in place of a check is weakened to "checks nothing"', async () => {
    const found = await edits(
      `${HEAD}def test_add():\n    assert add(2, 3) == 5\n`,
      `${HEAD}def test_add():\n    assert True\n`,
    );
    expect(found[0]?.kind).toBe('assertion-weakened');
    expect(found[0]?.description).toContain('now it checks nothing');
  });

  it('a literal expected value changed is expected-changed; 5 == add(2, 3) reads the same as add(2, 3) == 5', async () => {
    expect(
      await edits(
        `${HEAD}def test_add():\n    assert add(2, 3) == 5\n`,
        `${HEAD}def test_add():\n    assert 6 == add(2, 3)\n`,
      ),
    ).toEqual([expect.objectContaining({ kind: 'expected-changed', before: '5', after: '6' })]);
  });

  it('an assertion removed is assertion-removed; one in a class keeps the class in its name', async () => {
    const base = `${HEAD}class TestAdd:\n    def test_it(self):\n        assert add(1, 1) == 2\n        assert add(0, 0) == 0\n`;
    const head = `${HEAD}class TestAdd:\n    def test_it(self):\n        assert add(1, 1) == 2\n`;
    expect(await edits(base, head)).toEqual([
      expect.objectContaining({ kind: 'assertion-removed', test: 'TestAdd::test_it', baseLine: 9 }),
    ]);
  });

  it('try/except that swallows, contextlib.suppress, and pytest.raises(AssertionError) are exception-swallowed', async () => {
    const base = `${HEAD}def test_add():\n    assert add(2, 3) == 5\n`;
    for (const wrap of [
      'try:\n        assert add(2, 3) == 5\n    except AssertionError:\n        pass\n',
      'with contextlib.suppress(AssertionError):\n        assert add(2, 3) == 5\n',
      'with pytest.raises(AssertionError):\n        assert add(2, 3) == 5\n',
    ]) {
      const found = await edits(base, `${HEAD}import contextlib\n\n\ndef test_add():\n    ${wrap}`);
      expect(found.map((e) => e.kind)).toContain('exception-swallowed');
    }
  });

  it('pytest.raises widened from a matched error to Exception is assertion-weakened ("widened")', async () => {
    const found = await edits(
      `${HEAD}def test_parse():\n    with pytest.raises(ValueError, match="bad"):\n        parse("x")\n`,
      `${HEAD}def test_parse():\n    with pytest.raises(Exception):\n        parse("x")\n`,
    );
    expect(found).toEqual([expect.objectContaining({ kind: 'assertion-weakened' })]);
    expect(found[0]?.description).toMatch(
      /^widened `pytest.raises\(ValueError, match="bad"\)` to `pytest.raises\(Exception\)`/,
    );
  });

  it('an assertion is shown as the file writes it; a file with CRLF, a BOM or non-ASCII text reads the same', async () => {
    const base = `${HEAD}def test_add():\n    assert add(2, 3) == {"é": 5}  # total\n`;
    const head = `${HEAD}def test_add():\n    assert add(2, 3)\n`;
    const want = [
      expect.objectContaining({
        kind: 'assertion-weakened',
        before: 'assert add(2, 3) == {"é": 5}',
        after: 'assert add(2, 3)',
      }),
    ];
    expect(await edits(base, head)).toEqual(want);
    // Positions shift under CRLF and a BOM: the text is then unparsed, which reads the same here but for quotes.
    const crlf = (s: string) => s.replace(/\n/g, '\r\n');
    const unparsed = [
      expect.objectContaining({ kind: 'assertion-weakened', before: "assert add(2, 3) == {'é': 5}" }),
    ];
    expect(await edits(crlf(base), crlf(head))).toEqual(unparsed);
    expect(await edits(`\ufeff${base}`, `\ufeff${head}`)).toEqual(unparsed);
    // Reformatted (other quotes, spacing, lines) is no edit, the statement's own text differing or not.
    expect(
      await edits(base, `${HEAD}def test_add():\n    assert add(2,3) == {\n        'é': 5\n    }\n`),
    ).toEqual([]);
  });

  it('unittest assertEqual replaced by assertTrue is weakened', async () => {
    const found = await edits(
      `${HEAD}import unittest\n\n\nclass TestAdd(unittest.TestCase):\n    def test_it(self):\n        self.assertEqual(add(1, 1), 2)\n`,
      `${HEAD}import unittest\n\n\nclass TestAdd(unittest.TestCase):\n    def test_it(self):\n        self.assertTrue(add(1, 1))\n`,
    );
    expect(found.map((e) => [e.kind, e.test])).toEqual([['assertion-weakened', 'TestAdd::test_it']]);
  });

  it('the same assertions, reformatted, are no edit', async () => {
    expect(
      await edits(
        `${HEAD}def test_add():\n    assert add(2, 3) == 5\n`,
        `${HEAD}def test_add():\n    assert (\n        add(2,3)\n        == 5\n    )\n`,
      ),
    ).toEqual([]);
  });
});

describe('marks (pytest)', () => {
  const base = `${HEAD}def test_add():\n    assert add(2, 3) == 5\n`;
  it.each([
    ['@pytest.mark.skip(reason="flaky")\n', 'skip-added'],
    ['@pytest.mark.skipif(True, reason="x")\n', 'skip-added'],
    ['@pytest.mark.xfail\n', 'xfail-added'],
  ])('%s is %s', async (dec, kind) => {
    const found = await edits(base, `${HEAD}${dec}def test_add():\n    assert add(2, 3) == 5\n`);
    expect(found).toEqual([expect.objectContaining({ kind, test: 'test_add', headLine: 6 })]);
  });

  it('pytest.skip() in the body is skip-added', async () => {
    const found = await edits(
      base,
      `${HEAD}def test_add():\n    pytest.skip("later")\n    assert add(2, 3) == 5\n`,
    );
    expect(found.map((e) => e.kind)).toEqual(['skip-added']);
  });

  it('pytestmark on the module is skip-added for the whole file', async () => {
    const found = await edits(
      base,
      `${HEAD}pytestmark = pytest.mark.skip\n\n\ndef test_add():\n    assert add(2, 3) == 5\n`,
    );
    expect(found).toEqual([expect.objectContaining({ kind: 'skip-added', headLine: 6 })]);
    expect(found[0]?.test).toBeUndefined();
    expect(found[0]?.description).toContain('to the whole file');
  });

  it('a class decorator is inherited by its methods', async () => {
    const cls = (dec: string) =>
      `${HEAD}${dec}class TestAdd:\n    def test_a(self):\n        assert add(1, 1) == 2\n`;
    expect((await edits(cls(''), cls('@pytest.mark.skip\n'))).map((e) => [e.kind, e.test])).toEqual([
      ['skip-added', 'TestAdd::test_a'],
    ]);
  });

  it('parametrize cases cut is cases-removed', async () => {
    const p = (cases: string) =>
      `${HEAD}@pytest.mark.parametrize("a", [${cases}])\ndef test_double(a):\n    assert double(a) == 2 * a\n`;
    expect(await edits(p('1, 2, 3, 4'), p('1'))).toEqual([
      expect.objectContaining({ kind: 'cases-removed', before: '4', after: '1' }),
    ]);
  });
});

describe('Hypothesis', () => {
  const prop = (settings: string, given: string, body = '    assert double(x) == 2 * x\n', extra = '') =>
    `${HEAD}${settings}${extra}@given(${given})\ndef test_double(x):\n${body}`;

  it('max_examples lowered is examples-lowered', async () => {
    expect(
      await edits(
        prop('@settings(max_examples=500)\n', 'x=st.integers()'),
        prop('@settings(max_examples=10)\n', 'x=st.integers()'),
      ),
    ).toEqual([
      expect.objectContaining({
        kind: 'examples-lowered',
        before: '500',
        after: '10',
        description: 'lowered max_examples from 500 to 10',
      }),
    ]);
  });

  it('@settings(max_examples=…) added below the default is examples-lowered from 100', async () => {
    expect(
      (await edits(prop('', 'x=st.integers()'), prop('@settings(max_examples=5)\n', 'x=st.integers()')))[0],
    ).toMatchObject({
      kind: 'examples-lowered',
      before: '100',
      after: '5',
    });
  });

  it('phases without Phase.generate turns generation off', async () => {
    const found = await edits(
      prop('', 'x=st.integers()'),
      prop('@settings(phases=[Phase.explicit])\n', 'x=st.integers()'),
    );
    expect(found).toEqual([expect.objectContaining({ kind: 'examples-lowered' })]);
    expect(found[0]?.description).toContain('turned generation off');
  });

  it('bounds tightened are generator-narrowed, named by the argument; loosened are no edit', async () => {
    const found = await edits(prop('', 'x=st.integers()'), prop('', 'x=st.integers(0, 9)'));
    expect(found).toEqual([
      expect.objectContaining({
        kind: 'generator-narrowed',
        description: 'narrowed the strategy of `x` from `st.integers()` to `st.integers(0, 9)`',
        before: 'st.integers()',
        after: 'st.integers(0, 9)',
      }),
    ]);
    expect(await edits(prop('', 'x=st.integers(0, 9)'), prop('', 'x=st.integers()'))).toEqual([]);
    expect(
      await edits(prop('', 'x=st.integers(min_value=0)'), prop('', 'x=st.integers(min_value=-5)')),
    ).toEqual([]);
  });

  it('st.just in place of a strategy, a .filter, an assume, a list size cap and an alphabet are narrowing', async () => {
    expect((await edits(prop('', 'x=st.integers()'), prop('', 'x=st.just(2)'))).map((e) => e.kind)).toEqual([
      'generator-narrowed',
    ]);
    expect(
      (await edits(prop('', 'x=st.integers()'), prop('', 'x=st.integers().filter(lambda v: v < 10)'))).map(
        (e) => e.kind,
      ),
    ).toEqual(['filter-added']);
    expect(
      (
        await edits(
          prop('', 'x=st.integers()'),
          prop('', 'x=st.integers()', '    assume(x < 10)\n    assert double(x) == 2 * x\n'),
        )
      ).map((e) => e.kind),
    ).toEqual(['filter-added']);
    expect(
      (
        await edits(prop('', 'x=st.lists(st.integers())'), prop('', 'x=st.lists(st.integers(), max_size=1)'))
      ).map((e) => e.kind),
    ).toEqual(['generator-narrowed']);
    expect(
      (await edits(prop('', 'x=st.lists(st.integers())'), prop('', 'x=st.lists(st.integers(0, 1))'))).map(
        (e) => e.kind,
      ),
    ).toEqual(['generator-narrowed']);
    expect(
      (await edits(prop('', 'x=st.text()'), prop('', 'x=st.text(alphabet="ab")'))).map((e) => e.kind),
    ).toEqual(['generator-narrowed']);
  });

  it('an @example removed is example-removed', async () => {
    expect(
      await edits(
        prop('', 'x=st.integers()', undefined, '@example(x=-1)\n@example(x=0)\n'),
        prop('', 'x=st.integers()', undefined, '@example(x=0)\n'),
      ),
    ).toEqual([expect.objectContaining({ kind: 'example-removed', before: 'example(x=-1)' })]);
  });
});

describe('conftest.py and the file around the tests', () => {
  it('a new pytest_* hook and a new autouse fixture are hook-added; a changed one is hook-changed', async () => {
    const base = 'import pytest\n\n\ndef pytest_configure(config):\n    pass\n';
    const head =
      'import pytest\n\n\ndef pytest_configure(config):\n    config.option.x = 1\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = "passed"\n\n\n@pytest.fixture(autouse=True)\ndef quiet(monkeypatch):\n    monkeypatch.setattr("calc.add", lambda a, b: a + b)\n';
    const found = await edits(base, head, 'tests/conftest.py', false);
    expect(found.map((e) => [e.kind, e.description])).toEqual([
      ['hook-changed', 'changed the hook `pytest_configure`'],
      ['hook-added', 'added the hook `pytest_runtest_makereport`'],
      ['hook-added', 'added the hook `autouse fixture quiet`'],
    ]);
  });

  it('collect_ignore entries added are runner-exclude; a moved hook (same code, other line) is no edit', async () => {
    const hook = 'def pytest_collection_modifyitems(items):\n    items.sort(key=lambda i: i.name)\n';
    const found = await edits(
      `${hook}`,
      `collect_ignore = ["test_add.py"]\n\n\n${hook}`,
      'tests/conftest.py',
      false,
    );
    expect(found).toEqual([
      expect.objectContaining({
        kind: 'runner-exclude',
        headLine: 1,
        description: 'added `test_add.py` to `collect_ignore`',
      }),
    ]);
  });

  it('a settings profile loaded with fewer examples is examples-lowered for the whole folder', async () => {
    const p = (n: number) =>
      `from hypothesis import settings\n\nsettings.register_profile("ci", max_examples=${n})\nsettings.load_profile("ci")\n`;
    expect(await edits(p(1000), p(10), 'tests/conftest.py', false)).toEqual([
      expect.objectContaining({ kind: 'examples-lowered', before: '1000', after: '10', headLine: 4 }),
    ]);
  });

  it('a file Python cannot parse is an error answer, with its line', async () => {
    const answer = await pythonFacts(new Map([['x', 'def test_a(:\n    pass\n']]), {
      sandbox,
      logDir: tempDir('pg-test-edits-'),
    });
    expect(answer.get('x')).toMatchObject({ ok: false, line: 1 });
  });
});
