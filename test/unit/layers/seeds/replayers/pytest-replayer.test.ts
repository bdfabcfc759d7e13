import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SEED_SWITCH, type TapeRow } from '../../../../../src/contracts/seed-tape.js';
import type { RunnerOutcome, SeedReplay } from '../../../../../src/layers/seeds/model.js';
import {
  PYTEST_SEEDS_PLUGIN_PATH,
  type PytestReplayOptions,
  replayPytest,
} from '../../../../../src/layers/seeds/replayers/pytest.js';
import { scrubbedEnv } from '../../../../../src/util/scrub-env.js';
import { tempDir } from '../../../../helpers/gitdir.js';
import { testSandbox } from '../../../../helpers/sandbox.js';

const sandbox = await testSandbox();

const PYTHON = 'python3';
const ENV = scrubbedEnv(process.env);

// Fail, never skip, when the toolchain is missing: a seed runner test that silently does not run reads as a pass.
beforeAll(() => {
  const probe = spawnSync(PYTHON, ['-c', 'import pytest, hypothesis; print(hypothesis.__version__)'], {
    env: ENV,
    encoding: 'utf8',
  });
  if (probe.status !== 0) {
    throw new Error(
      `these tests need ${PYTHON} with pytest and hypothesis installed: ${probe.error?.message ?? probe.stderr}`,
    );
  }
});

let root: string;
let logDir: string;

function project(files: Record<string, string>): void {
  root = tempDir('pg-seeds-py-');
  logDir = path.join(tempDir('pg-seeds-log-'), 'logs');
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

function row(id: string, nodeid: string, seeds: string[], extra: Partial<TapeRow> = {}): TapeRow {
  return {
    id,
    runner: 'pytest',
    nodeid,
    min_examples: 1,
    seeds: seeds.map((seed) => ({ seed })),
    seed_switch: DEFAULT_SEED_SWITCH,
    index: 0,
    ...extra,
  };
}

function replay(rows: TapeRow[], extra: Partial<PytestReplayOptions> = {}): Promise<RunnerOutcome> {
  // One process unless a test asks for more: what a test sees must not depend on the machine's cores.
  return replayPytest({
    root,
    python: PYTHON,
    rows,
    env: ENV,
    sandbox,
    timeoutMs: 30_000,
    logDir,
    workers: 1,
    ...extra,
  });
}

function only(outcome: RunnerOutcome, property: string, seed?: string): SeedReplay {
  const found = outcome.replays.filter(
    (r) => r.property === property && (seed === undefined || r.seed === seed),
  );
  expect(found, `replays of ${property}${seed ? ` seed ${seed}` : ''}`).toHaveLength(1);
  return found[0]!;
}

const PASSING = (maxExamples: number) => `
from hypothesis import given, settings, strategies as st

@settings(max_examples=${maxExamples})
@given(st.integers())
def test_roundtrip(x):
    assert int(str(x)) == x
`;

const BUGGY = `
from hypothesis import given, settings, strategies as st

def clamp(x):
    # the bug: everything from 1000 up loses one
    return x if x < 1000 else x - 1

@settings(max_examples=500)
@given(st.integers(min_value=0))
def test_clamp_keeps_small_values(x):
    assert clamp(x) == x
`;

describe('replayPytest: counting examples', () => {
  it('counts the examples a passing property ran from Hypothesis statistics (max_examples=50 → 50)', async () => {
    project({ 'tests/test_prop.py': PASSING(50) });
    const out = await replay([row('roundtrip', 'tests/test_prop.py::test_roundtrip', ['77'])]);
    expect(out.processes).toBe(1);
    expect(only(out, 'roundtrip')).toMatchObject({ status: 'pass', examples: 50 });
    expect(out.counts).toEqual([
      {
        property: 'roundtrip',
        counted: 50,
        how: 'Hypothesis statistics, seed 77',
        stoppedBecause: 'settings.max_examples=50',
      },
    ]);
  });

  it('lowering max_examples lowers the count, whatever the tape says', async () => {
    project({ 'tests/test_prop.py': PASSING(10) });
    const out = await replay([
      row('roundtrip', 'tests/test_prop.py::test_roundtrip', ['77'], { min_examples: 200 }),
    ]);
    expect(only(out, 'roundtrip')).toMatchObject({ status: 'pass', examples: 10 });
    expect(out.counts[0]).toMatchObject({ counted: 10, stoppedBecause: 'settings.max_examples=10' });
  });

  it('counts the fewest examples among a row’s passing seeds', async () => {
    // assume() rejects a seed-dependent share of inputs, so seeds differ in what they count.
    project({
      'tests/test_prop.py': `
from hypothesis import assume, given, settings, strategies as st

@settings(max_examples=30)
@given(st.integers())
def test_even(x):
    assume(x % 2 == 0)
`,
    });
    const out = await replay([row('even', 'tests/test_prop.py::test_even', ['1', '2', '3'])]);
    const passing = out.replays.map((r) => {
      expect(r.status).toBe('pass');
      return r.examples!;
    });
    // Every (test, seed) pair in one process, each run with its own seed.
    expect(out.processes).toBe(1);
    expect(out.counts).toHaveLength(1);
    expect(out.counts[0]!.counted).toBe(Math.min(...passing));
    const fewest = out.replays.find((r) => r.examples === Math.min(...passing))!;
    expect(out.counts[0]!.how).toBe(`Hypothesis statistics, seed ${fewest.seed}`);
  });

  it('a passing test that is no longer a @given test counts 0 examples, and says why', async () => {
    project({ 'tests/test_prop.py': 'def test_roundtrip():\n    assert int(str(5)) == 5\n' });
    const out = await replay([row('roundtrip', 'tests/test_prop.py::test_roundtrip', ['77'])]);
    expect(only(out, 'roundtrip')).toMatchObject({ status: 'pass', examples: 0 });
    expect(out.counts).toEqual([
      {
        property: 'roundtrip',
        counted: 0,
        how: 'passed without Hypothesis statistics (not a @given test any more), seed 77',
      },
    ]);
  });

  it('does not count @example cases towards the floor, and says so', async () => {
    project({
      'tests/test_prop.py': `
from hypothesis import example, given, settings, strategies as st

@settings(max_examples=5)
@example(1)
@example(2)
@given(st.integers())
def test_roundtrip(x):
    assert int(str(x)) == x
`,
    });
    const out = await replay([row('roundtrip', 'tests/test_prop.py::test_roundtrip', ['77'])]);
    expect(only(out, 'roundtrip')).toMatchObject({ status: 'pass', examples: 5 });
    expect(out.counts[0]!.how).toBe('Hypothesis statistics, seed 77; 2 @example cases not counted');
  });

  it('keeps the user’s settings profile (loaded in conftest) and still counts', async () => {
    project({
      'conftest.py': `
from hypothesis import settings
settings.register_profile("ci", max_examples=25, database=None)
settings.load_profile("ci")
`,
      'tests/test_prop.py': `
from hypothesis import given, strategies as st

@given(st.integers())
def test_roundtrip(x):
    assert int(str(x)) == x
`,
    });
    const out = await replay([row('roundtrip', 'tests/test_prop.py::test_roundtrip', ['77'])]);
    expect(only(out, 'roundtrip')).toMatchObject({ status: 'pass', examples: 25 });
  });
});

describe('replayPytest: failures carry the counterexample', () => {
  it('a property failing on a real bug is a fail with Hypothesis’s falsifying example, shrunk', async () => {
    project({ 'tests/test_clamp.py': BUGGY });
    const out = await replay([row('clamp', 'tests/test_clamp.py::test_clamp_keeps_small_values', ['77'])]);
    const r = only(out, 'clamp');
    expect(r.status).toBe('fail');
    expect(r.counterexample).toBe('Falsifying example: test_clamp_keeps_small_values(\n    x=1000,\n)');
    expect(r.message).toMatch(/^AssertionError: assert 999 == 1000/);
    expect(r.examples).toBeUndefined();
    expect(out.counts).toEqual([]);
    expect(r.log).toBeDefined();
  });

  it('writes no .hypothesis (nor .pytest_cache) into the checkout, even for a failure or a test’s own database', async () => {
    project({
      'tests/test_clamp.py': BUGGY,
      'tests/test_db.py': `
from hypothesis import given, settings, strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase

@settings(max_examples=20, database=DirectoryBasedExampleDatabase(".hypothesis/mine"))
@given(st.integers())
def test_with_db(x):
    assert x != 123456789
`,
    });
    const out = await replay([
      row('clamp', 'tests/test_clamp.py::test_clamp_keeps_small_values', ['77']),
      row('db', 'tests/test_db.py::test_with_db', ['77']),
    ]);
    expect(only(out, 'clamp').status).toBe('fail');
    expect(only(out, 'db')).toMatchObject({ status: 'pass', examples: 20 });
    const left = readdirSync(root);
    expect(left).toContain('tests');
    expect(left).not.toContain('.hypothesis');
    expect(left).not.toContain('.pytest_cache');
    expect(readdirSync(path.join(root, 'tests')).sort()).toEqual(['test_clamp.py', 'test_db.py']);
  });

  it('the recorded seed decides what Hypothesis generates (no database, no randomness)', async () => {
    project({
      'tests/test_seen.py': `
import os
from hypothesis import given, settings, strategies as st

@settings(max_examples=5)
@given(st.integers())
def test_seen(x):
    with open(os.environ["SEEN_FILE"], "a") as f:
        f.write(f"{x}\\n")
`,
    });
    // Inside the checkout: the only place of the host a replay may write.
    const seen = path.join(root, 'seen.txt');
    const env = { ...ENV, SEEN_FILE: seen };
    const values = async (seed: string) => {
      writeFileSync(seen, '');
      await replay([row('seen', 'tests/test_seen.py::test_seen', [seed])], { env });
      return readFileSync(seen, 'utf8');
    };
    const first = await values('77');
    expect(first.trim().split('\n')).toHaveLength(5);
    expect(await values('77')).toBe(first);
    expect(await values('78')).not.toBe(first);
  });
});

describe('replayPytest: stored counterexamples', () => {
  const NARROW = `
from hypothesis import given, settings, strategies as st

@settings(max_examples=20, database=None)
@given(x=st.integers(min_value=0, max_value=10**6))
def test_small(x):
    assert x != -1000
`;

  it('replays a stored counterexample the generator can no longer reach, and says so (via counterexample)', async () => {
    project({ 'tests/test_small.py': NARROW });
    const failing = await replay([
      row('small', 'tests/test_small.py::test_small', [], {
        seeds: [{ seed: '5', counterexample: { x: -1000 } }, { seed: '6' }],
      }),
    ]);
    expect(failing.processes).toBe(1);
    expect(only(failing, 'small', '5')).toMatchObject({ status: 'fail', via: 'counterexample' });
    expect(only(failing, 'small', '5').counterexample).toContain('x=-1000');
    // The arguments as data, read from Hypothesis's report with ast.literal_eval: what `explore` offers the tape.
    expect(only(failing, 'small', '5').shrunk).toEqual({ x: -1000 });
    // The stored example belongs to its own seed's run only.
    expect(only(failing, 'small', '6')).toMatchObject({ status: 'pass', examples: 20 });
  });

  it('counts only generated examples when the stored counterexample passes', async () => {
    project({ 'tests/test_small.py': NARROW });
    const out = await replay([
      row('small', 'tests/test_small.py::test_small', [], {
        seeds: [{ seed: '5', counterexample: { x: 3 } }],
      }),
    ]);
    expect(only(out, 'small')).toMatchObject({ status: 'pass', examples: 20 });
  });
});

describe('replayPytest: batching', () => {
  const THREE_FILES = {
    'tests/test_a.py': PASSING(11),
    'tests/test_b.py': PASSING(12).replace('test_roundtrip', 'test_b'),
    'tests/test_c.py': BUGGY,
  };
  const THREE_ROWS = () => [
    row('a', 'tests/test_a.py::test_roundtrip', ['1', '2']),
    row('b', 'tests/test_b.py::test_b', ['2']),
    row('c', 'tests/test_c.py::test_clamp_keeps_small_values', ['1']),
  ];

  it('3 rows with 2 distinct seeds run in one process (one worker), and every row/seed gets its own result', async () => {
    project(THREE_FILES);
    const out = await replay(THREE_ROWS(), { workers: 1 });
    expect(out.processes).toBe(1);
    expect(out.replays.map((r) => [r.property, r.seed, r.status, r.examples])).toEqual([
      ['a', '1', 'pass', 11],
      ['a', '2', 'pass', 11],
      ['b', '2', 'pass', 12],
      ['c', '1', 'fail', undefined],
    ]);
    expect(JSON.parse(readFileSync(path.join(logDir, 'seeds-pytest-1.io', 'want.json'), 'utf8'))).toEqual({
      pairs: [
        ['tests/test_a.py::test_roundtrip', '1'],
        ['tests/test_a.py::test_roundtrip', '2'],
        ['tests/test_b.py::test_b', '2'],
        ['tests/test_c.py::test_clamp_keeps_small_values', '1'],
      ],
    });
    expect(existsSync(path.join(logDir, 'seeds-pytest-2.stdout.log'))).toBe(false);
    expect(only(out, 'b').log).toBe(path.join(logDir, 'seeds-pytest-1.stdout.log'));
  });

  it('with more workers the pairs split by file into one process each, run at once: the same replays and counts', async () => {
    project(THREE_FILES);
    const single = await replay(THREE_ROWS(), { workers: 1 });
    const singleLog = logDir;
    project(THREE_FILES);
    const started: number[] = [];
    const split = await replay(THREE_ROWS(), { workers: 2, onReplayed: (n) => started.push(n) });
    // Two processes for three files: never a file in two of them, the largest file (two pairs) alone.
    expect(split.processes).toBe(2);
    const wants = [1, 2].map(
      (n) => JSON.parse(readFileSync(path.join(logDir, `seeds-pytest-${n}.io`, 'want.json'), 'utf8')).pairs,
    );
    expect(wants).toEqual([
      [
        ['tests/test_a.py::test_roundtrip', '1'],
        ['tests/test_a.py::test_roundtrip', '2'],
      ],
      [
        ['tests/test_b.py::test_b', '2'],
        ['tests/test_c.py::test_clamp_keeps_small_values', '1'],
      ],
    ]);
    expect(started.sort()).toEqual([2, 2]);
    const withoutLog = (o: RunnerOutcome) => o.replays.map(({ log: _log, ...r }) => r);
    expect(withoutLog(split)).toEqual(withoutLog(single));
    expect(split.counts).toEqual(single.counts);
    expect(only(split, 'b').log).toBe(path.join(logDir, 'seeds-pytest-2.stdout.log'));
    expect(only(single, 'b').log).toBe(path.join(singleLog, 'seeds-pytest-1.stdout.log'));
    // Never more processes than pairs.
    project(THREE_FILES);
    expect((await replay(THREE_ROWS(), { workers: 8 })).processes).toBe(4);
  });

  it("with fewer files than workers one file's pairs split across processes: the same replays and counts", async () => {
    const files = {
      'tests/test_a.py': PASSING(11),
      'tests/test_b.py': PASSING(12).replace('test_roundtrip', 'test_b'),
    };
    const rows = () => [
      row('a', 'tests/test_a.py::test_roundtrip', ['1', '2', '3']),
      row('b', 'tests/test_b.py::test_b', ['4']),
    ];
    project(files);
    const single = await replay(rows(), { workers: 1 });
    project(files);
    const split = await replay(rows(), { workers: 3 });
    expect(split.processes).toBe(3);
    const wants = [1, 2, 3].map(
      (n) => JSON.parse(readFileSync(path.join(logDir, `seeds-pytest-${n}.io`, 'want.json'), 'utf8')).pairs,
    );
    // Cut in tape order, file by file: test_a.py's three pairs over two processes, test_b.py's with one of them.
    expect(wants).toEqual([
      [
        ['tests/test_a.py::test_roundtrip', '1'],
        ['tests/test_a.py::test_roundtrip', '2'],
      ],
      [['tests/test_a.py::test_roundtrip', '3']],
      [['tests/test_b.py::test_b', '4']],
    ]);
    const withoutLog = (o: RunnerOutcome) => o.replays.map(({ log: _log, ...r }) => r);
    expect(withoutLog(split)).toEqual(withoutLog(single));
    expect(split.counts).toEqual(single.counts);
  });

  it("replays the tape's seed even where the test pins its own (@seed, derandomize): the tape decides", async () => {
    const draws = (decorator: string, extra = '') => `
import os
from hypothesis import given, seed, settings, strategies as st

${decorator}
@settings(max_examples=5, database=None${extra})
@given(st.integers())
def test_draws(x):
    with open(os.environ["DRAWS_FILE"], "a") as f:
        f.write(f"{x}\\n")
`;
    const drawn = async (decorator: string, tapeSeed: string, extra = '') => {
      project({ 'tests/test_draws.py': draws(decorator, extra) });
      // Inside the checkout: the only place of the host a replay may write.
      const file = path.join(root, 'draws.txt');
      writeFileSync(file, '');
      const out = await replay([row('d', 'tests/test_draws.py::test_draws', [tapeSeed])], {
        env: { ...ENV, DRAWS_FILE: file },
      });
      expect(only(out, 'd').status, only(out, 'd').message).toBe('pass');
      return readFileSync(file, 'utf8');
    };
    const plain = await drawn('', '77');
    expect(await drawn('@seed(12345)', '77')).toBe(plain);
    expect(await drawn('', '77', ', derandomize=True')).toBe(plain);
    expect(await drawn('', '78')).not.toBe(plain);
  });

  it('only the wanted tests run: others in the same files are deselected', async () => {
    project({
      'tests/test_a.py': `${PASSING(5)}
def test_other():
    raise AssertionError("must not run")
`,
    });
    const out = await replay([row('a', 'tests/test_a.py::test_roundtrip', ['1'])]);
    expect(only(out, 'a')).toMatchObject({ status: 'pass', examples: 5 });
    expect(readFileSync(path.join(logDir, 'seeds-pytest-1.stdout.log'), 'utf8')).toMatch(
      /1 passed, 1 deselected/,
    );
  });

  it('a renamed test is not-found while the other ids in the same batch still run', async () => {
    project({
      'tests/test_a.py': `${PASSING(8)}\n${PASSING(9).replace('test_roundtrip', 'test_renamed_now')}`,
    });
    const out = await replay([
      row('kept', 'tests/test_a.py::test_roundtrip', ['5']),
      row('renamed', 'tests/test_a.py::test_renamed', ['5']),
    ]);
    expect(out.processes).toBe(1);
    expect(only(out, 'kept')).toMatchObject({ status: 'pass', examples: 8 });
    expect(only(out, 'renamed')).toMatchObject({
      status: 'not-found',
      message:
        "test 'tests/test_a.py::test_renamed' not found: the tape still lists it (renaming does not escape the tape)",
    });
  });

  it('a missing test file is not-found without starting pytest for it', async () => {
    project({ 'tests/test_a.py': PASSING(5) });
    const out = await replay([
      row('gone', 'tests/test_gone.py::test_x', ['5']),
      row('a', 'tests/test_a.py::test_roundtrip', ['5']),
    ]);
    expect(out.processes).toBe(1);
    expect(only(out, 'gone')).toMatchObject({ status: 'not-found' });
    expect(only(out, 'gone').message).toContain('tests/test_gone.py does not exist');
    expect(only(out, 'a').status).toBe('pass');
    expect(JSON.parse(readFileSync(path.join(logDir, 'seeds-pytest-1.io', 'want.json'), 'utf8'))).toEqual({
      pairs: [['tests/test_a.py::test_roundtrip', '5']],
    });

    const none = await replay([row('gone', 'tests/test_gone.py::test_x', ['5'])]);
    expect(none.processes).toBe(0);
    expect(none.replays.map((r) => r.status)).toEqual(['not-found']);
  });

  it('a node id whose parametrizations are collected answers for all of them', async () => {
    project({
      'tests/test_p.py': `
import pytest
from hypothesis import given, settings, strategies as st

@pytest.mark.parametrize("n", [3, 7])
@settings(max_examples=10)
@given(st.integers())
def test_p(n, x):
    assert (x * n) // n == x
`,
    });
    const out = await replay([row('p', 'tests/test_p.py::test_p', ['5'])]);
    expect(only(out, 'p')).toMatchObject({ status: 'pass', examples: 10 });
  });
});

describe('replayPytest: a seed that does not run is not a pass', () => {
  it('a @pytest.mark.skip test is not-run with the reason', async () => {
    project({
      'tests/test_a.py': `import pytest\n${PASSING(5).replace('@settings', '@pytest.mark.skip(reason="flaky on CI")\n@settings')}`,
    });
    const out = await replay([row('a', 'tests/test_a.py::test_roundtrip', ['5'])]);
    expect(only(out, 'a')).toMatchObject({ status: 'not-run', message: 'skipped: flaky on CI' });
    expect(out.counts).toEqual([]);
  });

  it('an xfail test is not-run, even when it passes', async () => {
    project({
      'tests/test_a.py': `import pytest\n${PASSING(5).replace('@settings', '@pytest.mark.xfail(reason="known")\n@settings')}`,
    });
    const out = await replay([row('a', 'tests/test_a.py::test_roundtrip', ['5'])]);
    expect(only(out, 'a')).toMatchObject({ status: 'not-run' });
    expect(only(out, 'a').message).toMatch(/^xfailed: /);
  });

  it('a test deselected by the project’s own pytest options is not-run', async () => {
    project({
      'pytest.ini': '[pytest]\naddopts = -m "not slow"\nmarkers = slow\n',
      'tests/test_a.py': `import pytest\n${PASSING(5).replace('@settings', '@pytest.mark.slow\n@settings')}`,
    });
    const out = await replay([row('a', 'tests/test_a.py::test_roundtrip', ['5'])]);
    expect(only(out, 'a')).toMatchObject({ status: 'not-run' });
    expect(only(out, 'a').message).toMatch(/^deselected: /);
  });
});

describe('replayPytest: seed switch and environment', () => {
  it('honours a custom seed_switch, split into arguments', async () => {
    project({
      'conftest.py': 'def pytest_addoption(parser):\n    parser.addoption("--prop-seed")\n',
      'tests/test_s.py': 'def test_s(request):\n    assert request.config.getoption("--prop-seed") == "77"\n',
    });
    const custom = { seed_switch: '--prop-seed {seed}' };
    const out = await replay([
      row('s', 'tests/test_s.py::test_s', ['77', '78'], custom),
      row('same-switch-other-row', 'tests/test_s.py::test_s', ['77'], custom),
      row('default-switch', 'tests/test_s.py::test_s', ['77']),
    ]);
    // 77 with the custom switch, 78 with it, 77 with the default: three different command lines.
    expect(out.processes).toBe(3);
    expect(only(out, 's', '77').status).toBe('pass');
    expect(only(out, 's', '78').status).toBe('fail');
    expect(only(out, 's', '78').message).toContain("assert '78' == '77'");
    expect(only(out, 'same-switch-other-row').status).toBe('pass');
    expect(only(out, 'default-switch').status).toBe('fail');
  });

  it('prepends the plugin to an existing PYTHONPATH instead of replacing it', async () => {
    project({
      'lib/helper_mod.py': 'VALUE = 42\n',
      'tests/test_h.py': 'import helper_mod\n\ndef test_h():\n    assert helper_mod.VALUE == 42\n',
    });
    const out = await replay([row('h', 'tests/test_h.py::test_h', ['1'])], {
      env: { ...ENV, PYTHONPATH: path.join(root, 'lib') },
    });
    expect(only(out, 'h').status).toBe('pass');
    expect(existsSync(PYTEST_SEEDS_PLUGIN_PATH)).toBe(true);
  });

  it('prints Hypothesis’s own statistics in the log too', async () => {
    project({ 'tests/test_prop.py': PASSING(6) });
    const out = await replay([row('roundtrip', 'tests/test_prop.py::test_roundtrip', ['77'])]);
    const log = readFileSync(only(out, 'roundtrip').log!, 'utf8');
    expect(log).toContain('6 passing examples');
    expect(log).toContain('Stopped because settings.max_examples=6');
  });
});

describe('replayPytest: a broken run is an error, never a pass', () => {
  it('a syntax error in a test file is an error naming the file', async () => {
    project({ 'tests/test_a.py': PASSING(5), 'tests/test_bad.py': 'def test_bad(:\n    pass\n' });
    const rows = () => [
      row('bad', 'tests/test_bad.py::test_bad', ['5']),
      row('a', 'tests/test_a.py::test_roundtrip', ['5']),
    ];
    const out = await replay(rows(), { workers: 1 });
    expect(out.processes).toBe(1);
    expect(only(out, 'bad').status).toBe('error');
    expect(only(out, 'bad').message).toMatch(/^pytest could not collect tests\/test_bad.py: .*SyntaxError/s);
    // pytest stops at a collection error (exit 2), so nothing in the batch has a result.
    expect(only(out, 'a').status).toBe('error');
    expect(only(out, 'a').message).toMatch(/^pytest exited with code 2 \(interrupted/);
    expect(only(out, 'a').log).toBeDefined();
    // In a process of its own, the other file's replay still runs.
    const split = await replay(rows(), { workers: 2 });
    expect(split.processes).toBe(2);
    expect(only(split, 'bad').message).toMatch(
      /^pytest could not collect tests\/test_bad.py: .*SyntaxError/s,
    );
    expect(only(split, 'a')).toMatchObject({ status: 'pass', examples: 5 });
  });

  it('an interpreter that crashes mid-run is an error with the tail of its output', async () => {
    project({ 'tests/test_die.py': 'import ctypes\n\ndef test_die():\n    ctypes.string_at(0)\n' });
    const out = await replay([row('die', 'tests/test_die.py::test_die', ['5'])]);
    const r = only(out, 'die');
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/^pytest was killed by SIGSEGV/);
    // pytest's faulthandler writes past output capturing, so the crash is in the message.
    expect(r.message).toContain('Segmentation fault');
  });

  it('an interpreter that exits mid-run is an error', async () => {
    project({ 'tests/test_exit.py': 'import os\n\ndef test_exit():\n    os._exit(7)\n' });
    const out = await replay([row('exit', 'tests/test_exit.py::test_exit', ['5'])]);
    expect(only(out, 'exit')).toMatchObject({ status: 'error' });
    expect(only(out, 'exit').message).toMatch(/^pytest exited with code 7/);
  });

  it('an interpreter that cannot be started is an error', async () => {
    project({ 'tests/test_a.py': PASSING(5) });
    const out = await replay([row('a', 'tests/test_a.py::test_roundtrip', ['5'])], {
      python: 'no-such-python-patchgate',
    });
    expect(out.processes).toBe(0);
    expect(only(out, 'a').status).toBe('error');
    expect(only(out, 'a').message).toMatch(/^pytest could not be started/);
  });

  it('an unknown seed switch (pytest usage error) is an error', async () => {
    project({ 'tests/test_a.py': PASSING(5) });
    const out = await replay([
      row('a', 'tests/test_a.py::test_roundtrip', ['5'], { seed_switch: '--no-such-flag={seed}' }),
    ]);
    expect(only(out, 'a').status).toBe('error');
    expect(only(out, 'a').message).toMatch(/^pytest exited with code 4 \(usage error/);
  });

  it('a run distributed by pytest-xdist is an error, not a batch of not-found tests', async () => {
    // xdist is not installed here: a plugin under its controller's name is what the seed plugin looks for.
    project({
      'conftest.py':
        'def pytest_configure(config):\n    config.pluginmanager.register(object(), "dsession")\n',
      'tests/test_a.py': PASSING(5),
    });
    const out = await replay([row('a', 'tests/test_a.py::test_roundtrip', ['5'])]);
    expect(only(out, 'a').status).toBe('error');
    expect(only(out, 'a').message).toMatch(/^pytest ran the tests distributed by pytest-xdist/);
  });

  it('a replay that outlives its budget is a timeout', async () => {
    project({ 'tests/test_slow.py': 'import time\n\ndef test_slow():\n    time.sleep(60)\n' });
    const started = Date.now();
    const out = await replay([row('slow', 'tests/test_slow.py::test_slow', ['5'])], { timeoutMs: 1_500 });
    expect(only(out, 'slow').status).toBe('timeout');
    expect(only(out, 'slow').message).toContain('did not finish within 1.5s');
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
