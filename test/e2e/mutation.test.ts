import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { vitestRepo } from '../helpers/example-repo.js';
import { type Files, GitDir, runCli } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

interface MutationReport {
  scope: string;
  testFiles: string[];
  skipped: number;
  defeats: { file: string; why: string; tests?: string[] }[];
  functions: {
    file: string;
    function: string;
    onBase: boolean;
    base: { killed: number; survived: number };
    head: { killed: number; survived: number };
    mutants: {
      id: string;
      operator: string;
      onBase: boolean;
      base: { status: string; by?: string[] };
      head: { status: string; by?: string[] };
    }[];
  }[];
}

async function judge(repo: GitDir) {
  const r = await runCli(['check', '--base', 'main', '--today', '2026-12-01'], { cwd: repo.dir });
  const out = repo.path('.patchgate/out');
  const card = readScorecard(out, r);
  const file = path.join(out, 'mutation.json');
  const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as MutationReport) : undefined;
  const fn = (name: string) => report?.functions.find((f) => f.function === name);
  return { ...r, card, report, fn, logs: readdirSync(path.join(out, 'tests')) };
}

const CART = `def total(prices):
    result = 0
    for p in prices:
        result += p
    return result


def discount(amount, pct):
    if pct > 50:
        raise ValueError("too much")
    return amount - amount * pct // 100
`;

const TESTS = `import pytest

from shop.cart import discount, total


def test_total():
    assert total([1, 2, 3]) == 6


def test_discount():
    assert discount(200, 10) == 180


def test_discount_cap():
    with pytest.raises(ValueError):
        discount(200, 60)
`;

function shop(config: Record<string, unknown> = {}, extra: Files = {}): GitDir {
  return GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' }, timeoutMs: 120000 },
      mutation: config,
    }),
    '.gitignore': '.patchgate\n__pycache__\n',
    'src/shop/__init__.py': '',
    'src/shop/cart.py': CART,
    'src/shop/names.py': 'def shout(s):\n    return s.upper()\n',
    'tests/test_cart.py': TESTS,
    'tests/test_names.py':
      'from shop.names import shout\n\n\ndef test_shout():\n    assert shout("a") == "A"\n',
    ...extra,
  });
}

describe(
  'the mutation probe: do the base tests still see the changed code? (real pytest, real sandbox)',
  {
    timeout: 300_000,
  },
  () => {
    it('rejects a return value that compares equal to anything (KILL_SURFACE_SHRANK), naming the mutants and the tests that used to kill them', async () => {
      const repo = shop();
      repo.write({
        'src/shop/cart.py': CART.replace(
          'def total(prices):',
          'class _Sum(int):\n    def __eq__(self, other):\n        return True\n\n    __hash__ = int.__hash__\n\n\ndef total(prices):',
        ).replace('    return result\n', '    return _Sum(result)\n'),
      });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('reject');
      const shrank = r.card.findings.filter((f) => f.code === 'KILL_SURFACE_SHRANK');
      expect(shrank).toHaveLength(1);
      expect(shrank[0]?.severity).toBe('reject');
      expect(shrank[0]?.evidence).toMatchObject({
        file: 'src/shop/cart.py',
        function: 'total',
        mutants: [
          {
            operator: 'drop-statement',
            original: 'result += p',
            mutated: 'pass',
            killedOnBaseBy: ['pytest::tests.test_cart::test_total'],
          },
        ],
        tests: ['pytest::tests.test_cart::test_total'],
      });
      // Only the test files that import the changed module ran the mutants.
      expect(r.report?.testFiles).toEqual(['tests/test_cart.py']);
      const mutantLogs = r.logs.filter((l) => l.startsWith('mutation-') && l.endsWith('.junit.xml'));
      expect(mutantLogs.length).toBeGreaterThan(2);
      for (const l of mutantLogs)
        expect(readFileSync(repo.path(`.patchgate/out/tests/${l}`), 'utf8')).not.toContain('test_shout');
      // The report's section shows the function, base and head side by side.
      const html = readFileSync(repo.path('.patchgate/out/report.html'), 'utf8');
      expect(html).toMatch(/<section id="mutation"[\s\S]*<code>total<\/code>[\s\S]*kill surface shrank/);
      // The gate's checkouts are put back: the user's tree is the patch as written, untouched.
      expect(readFileSync(repo.path('src/shop/cart.py'), 'utf8')).toContain('return _Sum(result)');
    });

    it('rejects a patch that swallows exceptions in a tested function behind a fallback: the raise mutant survives', async () => {
      const repo = shop();
      repo.write({
        'src/shop/cart.py': CART.replace(
          '    result = 0\n    for p in prices:\n        result += p\n    return result\n',
          '    try:\n        result = 0\n        for p in prices:\n            result += p\n        return result\n    except Exception:\n        return sum(prices)\n',
        ),
      });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('reject');
      const shrank = r.card.findings.find((f) => f.code === 'KILL_SURFACE_SHRANK');
      expect(shrank?.evidence).toMatchObject({
        function: 'total',
        mutants: [{ operator: 'raise', original: 'return result' }],
      });
      const total = r.fn('total');
      const raise = total?.mutants.find((m) => m.operator === 'raise' && m.id.includes('return result'));
      expect(raise?.base.status).toBe('killed');
      expect(raise?.head.status).toBe('survived');
      // What the fallback does not hide is still seen on the head.
      const dropped = total?.mutants.find((m) => m.operator === 'drop-statement');
      expect(dropped?.head.status).toBe('killed');
    });

    it('accepts an honest refactor: every mutant the base kills is killed on the head too', async () => {
      const repo = shop();
      repo.write({
        'src/shop/cart.py': CART.replace(
          'def total(prices):\n    result = 0',
          'def total(prices, start=0):\n    result = start',
        ),
      });
      const r = await judge(repo);
      expect(r.card.findings).toEqual([]);
      expect(r.card.verdict).toBe('accept');
      const total = r.fn('total');
      // Every mutant the base also has is killed on the head's code, so none needs a run on the base.
      const paired = total?.mutants.filter((m) => m.onBase) ?? [];
      expect(paired.length).toBeGreaterThan(0);
      for (const m of paired) {
        expect(m.head.status).toBe('killed');
        expect(m.base.status).toBe('not-run');
      }
      const layer = r.card.layers.find((l) => l.name === 'mutation');
      expect(layer?.status).toBe('pass');
      expect(layer?.note).toMatch(/mutant\(s\) of 1 changed function\(s\) against 1 base test file\(s\)/);
    });

    it("a killed mutant's run stops at its first failing test; a base test that fails without the mutant never cuts a base run short", async () => {
      // The base's label() is broken and its test, first in the file, fails there; the patch fixes it and
      // rewrites clamp()'s condition. clamp's `return hi` branch is never taken by a test: its mutants survive on both sides.
      const clampBase =
        "def label(x):\n    return 'bad'\n\n\ndef clamp(x, hi):\n    if x > hi:\n        return hi\n    return x\n";
      const repo = shop(
        {},
        {
          'src/shop/clamp.py': clampBase,
          'tests/test_clamp.py':
            "from shop.clamp import clamp, label\n\n\ndef test_label():\n    assert label(1) == 'ok'\n\n\ndef test_clamp():\n    assert clamp(1, 5) == 1\n",
        },
      );
      repo.write({
        'src/shop/clamp.py': clampBase
          .replace("return 'bad'", "return 'ok'")
          .replace('if x > hi:', 'if hi < x:'),
      });
      const r = await judge(repo);
      expect(r.card.findings.filter((f) => f.code === 'KILL_SURFACE_SHRANK')).toEqual([]);
      expect(r.card.verdict).toBe('accept');
      const clamp = r.fn('clamp');
      const untaken = clamp?.mutants.find((m) => m.operator === 'raise' && m.id.includes('return hi'));
      // On the base its run stops at test_label, which fails there anyway: run again in full, test_clamp passes.
      expect(untaken?.head.status).toBe('survived');
      expect(untaken?.base.status).toBe('survived');
      // On the head, a mutant's run ends at its first failing test: test_clamp is never reported after test_label.
      const killed = clamp?.mutants.find((m) => m.head.status === 'killed' && m.head.by?.length === 1);
      expect(killed?.head.by).toEqual(['pytest::tests.test_clamp::test_clamp']);
      const stopped = r.logs
        .filter((l) => /^mutation-overlay-\d+-mutant-\d+\.junit\.xml$/.test(l))
        .map((l) => readFileSync(repo.path(`.patchgate/out/tests/${l}`), 'utf8'))
        .filter((x) => x.includes('<failure'));
      expect(stopped.length).toBeGreaterThan(0);
      for (const x of stopped) {
        expect(x.match(/<failure/g)).toHaveLength(1);
        // Nothing ran after the failing test: it is the report's last.
        expect(x.slice(x.lastIndexOf('<testcase '))).toContain('<failure');
      }
      // A label() mutant is caught by test_label, the file's first test, and test_clamp never runs.
      expect(stopped.some((x) => !x.includes('name="test_clamp"'))).toBe(true);
    });

    it('warns on a new function no base test sees (CHANGED_CODE_UNSEEN), with its surviving mutants', async () => {
      const repo = shop();
      repo.write({
        'src/shop/cart.py': `${CART}\n\ndef median(xs):\n    s = sorted(xs)\n    return s[len(s) // 2]\n`,
      });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('accept');
      const unseen = r.card.findings.filter((f) => f.code === 'CHANGED_CODE_UNSEEN');
      expect(unseen).toHaveLength(1);
      expect(unseen[0]).toMatchObject({
        severity: 'warn',
        evidence: { file: 'src/shop/cart.py', function: 'median', new: true, lines: [14, 15, 16] },
      });
      expect((unseen[0]?.evidence.surviving as { operator: string }[]).map((m) => m.operator)).toEqual(
        expect.arrayContaining(['swap-arithmetic', 'raise']),
      );
      // The base's tests import the module but use no name the patch changed: no test can see median.
      expect(unseen[0]?.message).toContain('no test of the base reaches it');
      expect(r.fn('median')?.onBase).toBe(false);
    });

    it('rejects code that notices its own text changing (MUTATION_PROBE_DEFEATED): every mutant would look killed', async () => {
      const repo = shop();
      repo.write({
        'src/shop/cart.py': `import pathlib\n\n\n${CART.replace(
          '    result = 0\n',
          '    if not pathlib.Path(__file__).read_text().endswith("# end\\n"):\n        raise RuntimeError("changed")\n    result = 0\n',
        ).replace(
          'return result\n',
          'return _Sum(result)\n',
        )}\n\nclass _Sum(int):\n    def __eq__(self, other):\n        return True\n\n    __hash__ = int.__hash__\n# end\n`,
      });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('reject');
      const defeated = r.card.findings.find((f) => f.code === 'MUTATION_PROBE_DEFEATED');
      expect(defeated?.evidence).toMatchObject({
        file: 'src/shop/cart.py',
        tests: ['pytest::tests.test_cart::test_total'],
      });
    });

    it('rejects code that hangs when its text changes (MUTATION_PROBE_DEFEATED), not an error: every mutant would time out, a kill', async () => {
      // The module checks a digest of itself in its last line and loops forever on any other text: each mutant's
      // run times out (a kill), and so does the run with only a comment added, while the plain run finishes.
      const body = `import hashlib\nimport pathlib\n\n_TEXT = pathlib.Path(__file__).read_text()\n_BODY, _, _LAST = _TEXT.rstrip("\\n").rpartition("\\n")\nif hashlib.sha256((_BODY + "\\n").encode()).hexdigest() != _LAST[2:]:\n    while True:\n        pass\n\n\n${CART.replace(
        'return result\n',
        'return _Sum(result)\n',
      )}\n\nclass _Sum(int):\n    def __eq__(self, other):\n        return True\n\n    __hash__ = int.__hash__\n`;
      const repo = shop({ maxMutants: 1 });
      repo.write({
        'src/shop/cart.py': `${body}# ${createHash('sha256').update(body).digest('hex')}\n`,
      });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('reject');
      const defeated = r.card.findings.find((f) => f.code === 'MUTATION_PROBE_DEFEATED');
      expect(defeated?.evidence).toMatchObject({ file: 'src/shop/cart.py' });
      expect(defeated?.message).toContain('the run timed out, twice');
      const total = r.fn('total');
      expect(total).toBeUndefined();
    });

    it('refuses to write a mutant through a link the head planted in the checkout (MUTATION_PROBE_DEFEATED)', async () => {
      // On import, during the earlier layers' runs, the module swaps itself for a symbolic link to a copy:
      // an edit through it would land where the link points, outside what the gate checks out.
      const repo = shop();
      repo.write({
        'src/shop/cart.py': `import os\n\nif not os.path.islink(__file__):\n    _copy = os.path.join(os.path.dirname(__file__), "_cart_copy.py")\n    with open(__file__) as _src, open(_copy, "w") as _dst:\n        _dst.write(_src.read())\n    os.remove(__file__)\n    os.symlink(_copy, __file__)\n\n\n${CART.replace('return result\n', 'return result + 0\n')}`,
      });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('reject');
      const defeated = r.card.findings.find((f) => f.code === 'MUTATION_PROBE_DEFEATED');
      expect(defeated?.evidence).toMatchObject({ file: 'src/shop/cart.py' });
      expect(defeated?.message).toMatch(/symbolic link/);
      expect(r.logs.filter((l) => /^mutation-overlay-.*\.junit\.xml$/.test(l))).toEqual([]);
    });

    it('with mutation.unseen: reject, a change no base test reaches rejects, and no mutant runs', async () => {
      const repo = shop({ unseen: 'reject' }, { 'src/shop/extra.py': 'def one():\n    return 1\n' });
      repo.write({ 'src/shop/extra.py': 'def one():\n    return 1\n\n\ndef two():\n    return 1 + 1\n' });
      const r = await judge(repo);
      expect(r.card.verdict).toBe('reject');
      const unseen = r.card.findings.find((f) => f.code === 'CHANGED_CODE_UNSEEN');
      expect(unseen).toMatchObject({ severity: 'reject', evidence: { function: 'two', tests: [] } });
      expect(unseen?.message).toContain('no test of the base reaches it');
      expect(r.logs.filter((l) => l.startsWith('mutation-') && l.endsWith('.junit.xml'))).toEqual([]);
    });
  },
);

describe('the mutation probe on a sharded check', { timeout: 300_000 }, () => {
  it('each shard runs every mutant against its share of the tests; the merge judges them as one run', async () => {
    const repo = shop(
      {},
      {
        'tests/test_more.py':
          'from shop.cart import total\n\n\ndef test_total_empty():\n    assert total([]) == 0\n',
      },
    );
    repo.write({
      'src/shop/cart.py': CART.replace(
        '    result = 0\n    for p in prices:\n        result += p\n    return result\n',
        '    try:\n        result = 0\n        for p in prices:\n            result += p\n        return result\n    except Exception:\n        return sum(prices)\n',
      ),
    });
    const outs = [1, 2].map((i) => repo.path(`.patchgate/shard-${i}`));
    for (const [i, out] of outs.entries())
      await runCli(
        [
          'check',
          '--base',
          'main',
          '--today',
          '2026-12-01',
          '--out',
          out,
          '--shard',
          `${i + 1}/2`,
          '--quiet',
        ],
        {
          cwd: repo.dir,
        },
      );
    const merged = repo.path('.patchgate/merged');
    const r = await runCli(
      ['merge', ...outs.map((o) => path.join(o, 'part.json')), '--out', merged, '--quiet'],
      {
        cwd: repo.dir,
      },
    );
    const card = readScorecard(merged, r);
    expect(card.verdict).toBe('reject');
    const shrank = card.findings.find((f) => f.code === 'KILL_SURFACE_SHRANK');
    expect(shrank?.evidence).toMatchObject({
      function: 'total',
      mutants: [{ operator: 'raise', original: 'return result' }],
    });
    const report = JSON.parse(readFileSync(path.join(merged, 'mutation.json'), 'utf8')) as MutationReport;
    // Both shards' test files judged the mutants: together, every test file of the base that reaches cart.py.
    expect(report.testFiles).toEqual(['tests/test_cart.py', 'tests/test_more.py']);
  });
});

describe('the mutation probe on vitest', { timeout: 300_000 }, () => {
  it('rejects an always-equal result in TypeScript the base tests used to check', async () => {
    const repo = vitestRepo({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        tests: { preset: 'vitest' },
        mutation: {},
      }),
      'src/total.ts':
        'export function total(xs: number[]): number {\n  let t = 0;\n  for (const x of xs) t += x;\n  return t;\n}\n',
      'test/total.test.ts':
        "import { expect, it } from 'vitest';\nimport { total } from '../src/total';\nit('totals', () => { expect(total([1, 2]) > 2).toBe(true); });\n",
    });
    repo.write({
      'src/total.ts':
        'export function total(xs: number[]): number {\n  let t = 0;\n  for (const x of xs) t += x;\n  return Math.max(t, 3);\n}\n',
    });
    const r = await judge(repo);
    expect(r.card.findings.map((f) => f.code)).toContain('KILL_SURFACE_SHRANK');
    const f = r.card.findings.find((x) => x.code === 'KILL_SURFACE_SHRANK');
    expect(f?.evidence).toMatchObject({ file: 'src/total.ts', function: 'total' });
  });
});
