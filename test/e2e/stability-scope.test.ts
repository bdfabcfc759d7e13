import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { vitestRepo } from '../helpers/example-repo.js';
import { type Files, GitDir, runCli } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

type Stability = {
  scope: 'all' | 'affected';
  reasons?: string[];
  probed: { file: string; because?: { change: string; via: { file: string; by?: string }[] }[] }[];
  notProbed: string[];
  runLabels: string[];
  flaky: string[];
};

async function judge(repo: GitDir, extra: string[] = []) {
  const r = await runCli(['check', '--base', 'main', '--today', '2026-12-01', ...extra], { cwd: repo.dir });
  const out = repo.path('.patchgate/out');
  const card = readScorecard(out, r);
  const file = path.join(out, 'stability.json');
  const stability = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Stability) : undefined;
  const junit = (label: string) => readFileSync(path.join(out, 'tests', `${label}.junit.xml`), 'utf8');
  return { ...r, card, stability, junit, logs: readdirSync(path.join(out, 'tests')) };
}

const MONEY = 'def cents(x):\n    return round(x * 100)\n';
/** Right on the first call in a checkout, wrong on the next, and so on: a flake of the patch's making. */
const MONEY_FLIPS = `import pathlib

_MARK = pathlib.Path(__file__).resolve().parents[2] / ".money-flip"


def cents(x):
    if _MARK.exists():
        _MARK.unlink()
        return round(x * 100) + 1
    _MARK.write_text("x")
    return round(x * 100)
`;

function shop(extra: Files = {}): GitDir {
  return GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' }, timeoutMs: 120000 },
      signatures: {},
      stability: { runs: 3 },
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    'stability_freeze.json': '{"freezes": []}\n',
    '.gitignore': '.patchgate\n__pycache__\n.money-flip\n',
    'src/shop/__init__.py': '',
    'src/shop/money.py': MONEY,
    'src/shop/clock.py': 'def later(a, b):\n    return max(a, b)\n',
    'tests/test_money.py':
      'from shop.money import cents\n\n\ndef test_cents():\n    assert cents(1.5) == 150\n',
    'tests/test_clock.py':
      'from shop.clock import later\n\n\ndef test_later():\n    assert later(1, 2) == 2\n',
    'tests/test_plain.py': 'def test_plain():\n    assert sum([1, 2]) == 3\n',
    ...extra,
  });
}

describe(
  'the stability probe reruns what the patch can affect (real pytest, real vitest)',
  { timeout: 180_000 },
  () => {
    it('a patch to one module reruns only the test file that imports it, and says which and why', async () => {
      const repo = shop();
      // A change to the function the test calls (a new function no test names would rerun nothing).
      repo.write({ 'src/shop/money.py': MONEY.replace('round(x * 100)', 'int(round(x * 100))') });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('accept');
      expect(r.stability?.scope).toBe('affected');
      expect(r.stability?.probed).toEqual([
        {
          file: 'tests/test_money.py',
          because: [
            {
              change: 'src/shop/money.py',
              via: [
                { file: 'tests/test_money.py' },
                { file: 'src/shop/money.py', by: 'from shop.money import cents', line: 1 },
              ],
              uses: { name: 'cents', file: 'tests/test_money.py' },
            },
          ],
          reasons: 1,
        },
      ]);
      expect(r.stability?.notProbed).toEqual(['tests/test_clock.py', 'tests/test_plain.py']);
      expect(r.stability?.runLabels).toEqual(['head-run-1', 'stability-run-2', 'stability-run-3']);
      // The reruns ran that file alone.
      for (const label of ['stability-run-2', 'stability-run-3']) {
        expect(r.junit(label)).toContain('name="test_cents"');
        expect(r.junit(label)).not.toContain('test_later');
      }
      expect(r.logs).not.toContain('head-run-2.junit.xml');
      const layer = r.card.layers.find((l) => l.name === 'stability');
      expect(layer?.note).toBe(
        'probed 1 of 3 test files (tests/test_money.py: from shop.money import cents → src/shop/money.py; tests/test_money.py uses cents, which the patch changed); see stability.json',
      );
      expect(layer?.scope).toMatchObject({
        mode: 'affected',
        probedFiles: 1,
        notProbedFiles: 2,
        artifact: 'stability.json',
      });
      expect(readFileSync(repo.path('.patchgate/out/summary.md'), 'utf8')).toContain(
        'probed 1 of 3 test files',
      );
    });

    it("a change to the runner's configuration reruns every test file, saying why", async () => {
      const repo = shop();
      repo.write({ 'tests/conftest.py': 'import pytest\n', 'src/shop/money.py': `${MONEY}# reviewed\n` });
      const r = await judge(repo);
      expect(r.stability?.scope).toBe('all');
      expect(r.stability?.reasons).toEqual([
        'tests/conftest.py configures the test runner, or runs before every test',
      ]);
      expect(r.stability?.probed.map((p) => p.file)).toEqual([
        'tests/test_clock.py',
        'tests/test_money.py',
        'tests/test_plain.py',
      ]);
      expect(r.logs).toEqual(expect.arrayContaining(['head-run-2.junit.xml', 'head-run-3.junit.xml']));
      expect(r.junit('head-run-2')).toContain('test_later');
    });

    it('a patch that reaches no test (a document) probes nothing, and the evidence says so: not an error', async () => {
      const repo = shop({ 'README.md': '# shop\n' });
      repo.write({ 'README.md': '# shop\n\nMoney in cents.\n' });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('accept');
      expect(r.card.layers.find((l) => l.name === 'stability')).toMatchObject({
        status: 'pass',
        note: 'probed no test: no test file (of 3) reaches what the patch changed; see stability.json',
      });
      expect(r.stability).toMatchObject({ scope: 'affected', probed: [], runLabels: ['head-run-1'] });
      expect(r.logs.filter((l) => l.startsWith('stability-run-'))).toEqual([]);
    });

    it('a flake the patch puts in a probed module is still NEW_FLAKE (stable on the base)', async () => {
      const repo = shop();
      repo.write({ 'src/shop/money.py': MONEY_FLIPS });
      const r = await judge(repo);
      expect(r.code).toBe(1);
      const flake = r.card.findings.find((f) => f.code === 'NEW_FLAKE');
      expect(flake?.evidence).toMatchObject({
        test: 'pytest::tests.test_money::test_cents',
        baseRuns: ['passed', 'passed', 'passed'],
        runs: 3,
      });
      // The first run passes; the probe's two reruns run side by side, so which of them meets the flip (or
      // whether both do) is chance.
      const headRuns = flake?.evidence.headRuns as string[];
      expect(headRuns).toHaveLength(3);
      expect(headRuns[0]).toBe('passed');
      expect(headRuns).toContain('failed');
      expect(r.stability?.flaky).toEqual(['pytest::tests.test_money::test_cents']);
      expect(r.stability?.probed.map((p) => p.file)).toEqual(['tests/test_money.py']);
    });
  },
);

describe('the stability probe on vitest', { timeout: 180_000 }, () => {
  it('reruns only the test files whose imports reach the changed module', async () => {
    const repo = vitestRepo({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        tests: { preset: 'vitest' },
        signatures: {},
        stability: { runs: 2 },
      }),
      'stability_freeze.json': '{"freezes": []}\n',
      'src/sum.ts': 'export const sum = (a: number, b: number) => a + b;\n',
      'src/total.ts':
        "import { sum } from './sum.js';\nexport const total = (xs: number[]) => xs.reduce(sum, 0);\n",
      'src/name.ts': 'export const name = (s: string) => s.trim();\n',
      'test/total.test.ts':
        "import { expect, it } from 'vitest';\nimport { total } from '../src/total';\nit('totals', () => { expect(total([1, 2])).toBe(3); });\n",
      'test/name.test.ts':
        "import { expect, it } from 'vitest';\nimport { name } from '../src/name';\nit('names', () => { expect(name(' a ')).toBe('a'); });\n",
    });
    repo.write({ 'src/sum.ts': 'export const sum = (a: number, b: number) => b + a;\n' });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('accept');
    expect(r.stability?.probed.map((p) => [p.file, p.because?.[0]?.via.map((v) => v.file)])).toEqual([
      ['test/total.test.ts', ['test/total.test.ts', 'src/total.ts', 'src/sum.ts']],
    ]);
    expect(r.stability?.notProbed).toEqual(['test/name.test.ts']);
    expect(r.junit('stability-run-2')).toContain('totals');
    expect(r.junit('stability-run-2')).not.toContain('names');
  });
});

describe(
  'stability reruns share the head checkout, so by default they run one at a time',
  { timeout: 180_000 },
  () => {
    // Each run writes its own mark into the checkout and expects to read it back: two runs side by side
    // overwrite each other's, which would look like a flake the patch made.
    const MARKS = `import os
import pathlib
import time

_MARK = pathlib.Path(__file__).resolve().parents[1] / ".mark"


def test_mark_round_trip():
    mine = str(os.getpid())
    _MARK.write_text(mine)
    time.sleep(0.6)
    assert _MARK.read_text() == mine
    _MARK.unlink()
`;
    it('a test that writes into the checkout is stable over the reruns: no NEW_FLAKE of the gate making', async () => {
      const repo = shop({ '.gitignore': '.patchgate\n__pycache__\n.mark\n', 'tests/test_marks.py': MARKS });
      repo.write({ 'tests/test_marks.py': `${MARKS}\n\ndef test_more():\n    assert True\n` });
      const r = await judge(repo);
      expect(r.card.findings.map((f) => f.code)).not.toContain('NEW_FLAKE');
      expect(r.card.verdict).toBe('accept');
      expect(r.stability?.probed.map((p) => p.file)).toEqual(['tests/test_marks.py']);
      expect(r.stability?.runLabels).toEqual(['head-run-1', 'stability-run-2', 'stability-run-3']);
    });
  },
);

describe('the pytest seed replay in parallel', { timeout: 180_000 }, () => {
  const PROP = (name: string, fn: string) => `from hypothesis import given, settings, strategies as st

from split import ${fn}


@settings(max_examples=60, deadline=None)
@given(total=st.integers(min_value=0, max_value=1000), count=st.integers(min_value=1, max_value=12))
def test_${name}(total, count):
    assert sum(${fn}(total, count)) == total
`;
  const OK =
    'def split(total, count):\n    base, extra = divmod(total, count)\n    return [base + (1 if i < extra else 0) for i in range(count)]\n\n\ndef share(total, count):\n    return split(total, count)\n';
  const BUGGY = OK.replace(
    'def share(total, count):\n    return split(total, count)',
    'def share(total, count):\n    return [round(total / count)] * count',
  );
  const repo = (workers: number | undefined) => {
    const r = GitDir.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        seeds: { env: { PYTHONPATH: '.' }, ...(workers !== undefined ? { workers } : {}) },
      }),
      'property_seeds.json': JSON.stringify({
        properties: [
          {
            id: 'split_adds_up',
            nodeid: 'tests/test_split.py::test_split',
            min_examples: 60,
            seeds: ['1', '2'],
          },
          {
            id: 'share_adds_up',
            nodeid: 'tests/test_share.py::test_share',
            min_examples: 60,
            seeds: ['3', '4'],
          },
        ],
      }),
      'split.py': OK,
      'tests/test_split.py': PROP('split', 'split'),
      'tests/test_share.py': PROP('share', 'share'),
    });
    r.write({ 'split.py': BUGGY });
    return r;
  };
  const comparable = (dir: string) => {
    const report = JSON.parse(readFileSync(path.join(dir, '.patchgate/out/seed_replay.json'), 'utf8'));
    return {
      ...report,
      processes: undefined,
      replays: report.replays.map(({ log: _log, ...x }: Record<string, unknown>) => x),
    };
  };

  it('one process per test file gives the findings and the seed_replay.json one process gave', async () => {
    const [one, split] = [repo(1), repo(2)];
    const [a, b] = [await judge(one), await judge(split)];
    expect(a.card.findings.map((f) => [f.code, f.evidence.property, f.evidence.seed])).toEqual([
      ['SEED_FAILED', 'share_adds_up', '3'],
      ['SEED_FAILED', 'share_adds_up', '4'],
    ]);
    expect(b.card.findings.map(({ evidence: { log: _l, ...e }, ...f }) => ({ ...f, evidence: e }))).toEqual(
      a.card.findings.map(({ evidence: { log: _l, ...e }, ...f }) => ({ ...f, evidence: e })),
    );
    expect(comparable(split.dir)).toEqual(comparable(one.dir));
    const processes = (dir: string) =>
      JSON.parse(readFileSync(path.join(dir, '.patchgate/out/seed_replay.json'), 'utf8')).processes.pytest;
    expect([processes(one.dir), processes(split.dir)]).toEqual([1, 2]);
  });
});
