#!/usr/bin/env node
// Whole-check benchmark (issue 11): what the gate costs on a patch that touches
// the test side, against one plain run of the repository's own suite.
//   A pytest repository with 500 tests (50 files x 10) and 10 Hypothesis
//   properties, a tape of 10 rows x 5 seeds (5 distinct values), and a patch
//   that refactors production code and edits one test file, so the overlay is
//   a tree of its own and runs. The check runs signatures + seeds + regression
//   (no stability), as `patchgate check` does with that config.
//   ratio = check wall time / one plain `python3 -m pytest` of the suite,
//   both measured in this run.                               goal: <= 1.6x
// Usage: node bench/gate/run.mjs [--runs N] [--keep]
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchArgs, requireBuild } from '../lib/cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const cli = path.join(repoRoot, 'dist', 'cli', 'bin.js');
const args = benchArgs();
const RUNS = args.runs;
const FILES = 50;
const TESTS_PER_FILE = 10;
const PROPERTIES = 10;
const SEEDS = ['11', '22', '33', '44', '55'];
// The interpreter the gate's sandbox finds on its PATH (/usr/bin first): the plain run uses the same one.
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

requireBuild('gate', pathToFileURL(cli));

function sh(cmd, argv, cwd, env = {}) {
  const r = spawnSync(cmd, argv, { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.error) throw r.error;
  return r;
}
const git = (cwd, ...a) => {
  const r = sh('git', a, cwd, {
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
  });
  if (r.status !== 0) throw new Error(`git ${a.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};

/** Real work per test: a little arithmetic over the production module, as a unit suite does. */
function testFile(i) {
  const tests = [];
  for (let j = 0; j < TESTS_PER_FILE; j++) {
    tests.push(`def test_case_${i}_${j}():
    values = [(k * ${i + 1} + ${j}) % 997 for k in range(400)]
    assert mathlib.checksum(values) == sum(v * (n + 1) for n, v in enumerate(values)) % 65521
    assert mathlib.split(${1000 + i * 7 + j}, ${(j % 12) + 1})[0] >= 0
`);
  }
  return `import mathlib\n\n\n${tests.join('\n\n')}`;
}

const PROPERTY_BODIES = [
  [
    'st.integers(min_value=0, max_value=10**6), st.integers(min_value=1, max_value=12)',
    '(t, n)',
    'assert sum(mathlib.split(t, n)) == t',
  ],
  [
    'st.lists(st.integers(0, 1000), max_size=30)',
    '(xs,)',
    'assert mathlib.checksum(xs) == mathlib.checksum(list(xs))',
  ],
  [
    'st.integers(min_value=0, max_value=10**6), st.integers(min_value=1, max_value=12)',
    '(t, n)',
    'parts = mathlib.split(t, n)\n    assert max(parts) - min(parts) <= 1',
  ],
  [
    'st.integers(min_value=0, max_value=10**6), st.integers(min_value=1, max_value=12)',
    '(t, n)',
    'assert len(mathlib.split(t, n)) == n',
  ],
  ['st.lists(st.integers(0, 1000), max_size=30)', '(xs,)', 'assert 0 <= mathlib.checksum(xs) < 65521'],
  [
    'st.lists(st.integers(0, 9), max_size=20)',
    '(xs,)',
    'assert mathlib.checksum(xs + [0]) == mathlib.checksum(xs)',
  ],
  ['st.integers(min_value=1, max_value=10**4)', '(t,)', 'assert mathlib.split(t, 1) == [t]'],
  ['st.integers(min_value=0, max_value=10**6)', '(t,)', 'assert sum(mathlib.split(t, 12)) == t'],
  [
    'st.lists(st.integers(0, 1000), min_size=1, max_size=30)',
    '(xs,)',
    'assert mathlib.checksum(xs[:1]) == xs[0] % 65521',
  ],
  [
    'st.integers(min_value=0, max_value=10**6)',
    '(t,)',
    'assert mathlib.split(t, 2)[0] >= mathlib.split(t, 2)[1]',
  ],
];

function propertiesFile() {
  const out = ['from hypothesis import given, settings, strategies as st', '', 'import mathlib', ''];
  PROPERTY_BODIES.forEach(([strategies, params, body], i) => {
    const names = params.replace(/[(),]/g, ' ').trim().split(/\s+/);
    out.push(
      '',
      '@settings(max_examples=100, deadline=None)',
      `@given(${strategies})`,
      `def test_property_${i}(${names.join(', ')}):`,
      `    ${body}`,
      '',
    );
  });
  return out.join('\n');
}

const MATHLIB = `def checksum(values):
    total = 0
    for n, v in enumerate(values):
        total = (total + v * (n + 1)) % 65521
    return total


def split(total, count):
    base, extra = divmod(total, count)
    return [base + (1 if i < extra else 0) for i in range(count)]
`;
// The patch's refactor: same behaviour, other code.
const MATHLIB_REFACTORED = `def checksum(values):
    return sum(v * (n + 1) for n, v in enumerate(values)) % 65521


def split(total, count):
    base, extra = divmod(total, count)
    return [base + 1] * extra + [base] * (count - extra)
`;

function buildRepo() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bench-gate-'));
  const w = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  w(
    'patchgate.config.json',
    JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' }, timeoutMs: 300000 },
      signatures: {},
      seeds: { tape: 'property_seeds.json', env: { PYTHONPATH: 'src' } },
    }),
  );
  w('flake_signatures.json', '{"signatures": []}\n');
  w('.gitignore', '.patchgate\n__pycache__\n.hypothesis\n');
  w('src/mathlib.py', MATHLIB);
  for (let i = 0; i < FILES; i++) w(`tests/test_unit_${i}.py`, testFile(i));
  w('tests/test_properties.py', propertiesFile());
  w(
    'property_seeds.json',
    `${JSON.stringify(
      {
        properties: PROPERTY_BODIES.map((_, i) => ({
          id: `property_${i}`,
          nodeid: `tests/test_properties.py::test_property_${i}`,
          min_examples: 100,
          seeds: SEEDS,
        })),
      },
      null,
      2,
    )}\n`,
  );
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'checkout', '-q', '-b', 'agent');
  w('src/mathlib.py', MATHLIB_REFACTORED);
  // A test-side edit: one more assertion in one test file, so the overlay is not the head's tree.
  w(
    'tests/test_unit_0.py',
    `${testFile(0)}\n\ndef test_split_zero():\n    assert mathlib.split(0, 3) == [0, 0, 0]\n`,
  );
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'agent: refactor');
  return dir;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = buildRepo();
console.log(
  `gate: ${FILES * TESTS_PER_FILE + 1} tests + ${PROPERTIES} Hypothesis properties x ${SEEDS.length} seeds, ${RUNS} rounds, load ${os.loadavg()[0].toFixed(2)}, ${os.cpus().length} CPUs`,
);
const plain = [];
const gate = [];
try {
  for (let round = 0; round < RUNS; round++) {
    let t0 = performance.now();
    const p = sh(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--rootdir=.'], dir, {
      PYTHONPATH: 'src',
    });
    plain.push(performance.now() - t0);
    if (p.status !== 0) throw new Error(`the plain suite failed:\n${p.stdout.slice(-2000)}`);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bench-gate-out-'));
    t0 = performance.now();
    const g = sh('node', [cli, 'check', '--base', 'main', '--out', out, '--today', '2026-12-01'], dir, {
      CI: '',
    });
    gate.push(performance.now() - t0);
    const file = path.join(out, 'scorecard.json');
    if (!fs.existsSync(file)) throw new Error(`the gate wrote no scorecard (exit ${g.status}):\n${g.stderr}`);
    const card = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (card.verdict !== 'accept')
      throw new Error(`the gate said ${card.verdict}: ${JSON.stringify(card.findings).slice(0, 2000)}`);
    const timings = card.timings ?? {};
    console.log(
      `  round ${round + 1}: plain ${(plain.at(-1) / 1000).toFixed(2)} s, check ${(gate.at(-1) / 1000).toFixed(2)} s (${Object.entries(
        timings.layers ?? {},
      )
        .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}`)
        .join(', ')}), ratio ${(gate.at(-1) / plain.at(-1)).toFixed(2)}x`,
    );
    fs.rmSync(out, { recursive: true, force: true });
  }
  const ratios = gate.map((g, i) => g / plain[i]);
  const best = Math.min(...ratios);
  const med = median(ratios);
  console.log(
    `whole check / one plain suite run: best ${best.toFixed(2)}x, median ${med.toFixed(2)}x (plain median ${(median(plain) / 1000).toFixed(2)} s, check median ${(median(gate) / 1000).toFixed(2)} s)  goal <= 1.6x  ${med <= 1.6 ? 'PASS' : 'MISS'}`,
  );
} finally {
  if (args.has('--keep')) console.log(`kept the repository at ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}
