import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { vitestRepo } from '../helpers/example-repo.js';
import { type Files, GitDir, runCli } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

async function judge(repo: GitDir) {
  const r = await runCli(['check', '--base', 'main', '--today', '2026-12-01'], { cwd: repo.dir });
  const out = repo.path('.patchgate/out');
  const card = readScorecard(out, r);
  const junitPath = (label: string) => path.join(out, 'tests', `${label}.junit.xml`);
  const junit = (label: string) => readFileSync(junitPath(label), 'utf8');
  const ran = (label: string) => existsSync(path.join(out, 'tests', `${label}.stdout.log`));
  return { ...r, card, junit, ran };
}

/** A pytest repository whose base skips one test (frozen by nobody) and whose head edits a test file. */
function shop(extra: Files = {}): GitDir {
  const repo = GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' }, timeoutMs: 120000 },
      signatures: {},
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    '.gitignore': '.patchgate\n__pycache__\n',
    'src/shop/__init__.py': '',
    'src/shop/money.py': 'def cents(x):\n    return round(x * 100)\n',
    'tests/test_money.py':
      'from shop.money import cents\n\n\ndef test_cents():\n    assert cents(1.5) == 150\n',
    'tests/test_clock.py': 'def test_later():\n    assert max(1, 2) == 2\n',
    ...extra,
  });
  repo.git('checkout', '-q', '-b', 'agent');
  return repo;
}

describe(
  'the head shares the overlay run where they differ only in test modules (real pytest)',
  {
    timeout: 180_000,
  },
  () => {
    it("runs only the head's edited test file, and a module that tampers with pytest at import cannot hide another file's skip", async () => {
      const repo = shop({
        'tests/test_skipped.py':
          'import pytest\n\n\n@pytest.mark.skip(reason="not yet")\ndef test_someday():\n    pass\n',
      });
      repo
        .write({
          'src/shop/money.py': 'def cents(x):\n    return int(round(x * 100))\n',
          // The attack: at import, the edited test module turns pytest's skip marks off for its whole process,
          // so a skip in a file the patch never touched would run (and pass) in a head run of every file.
          'tests/test_money.py':
            'import _pytest.skipping\n\n_pytest.skipping.evaluate_skip_marks = lambda item: None\n\nfrom shop.money import cents\n\n\ndef test_cents():\n    assert cents(1.5) == 150\n\n\ndef test_zero():\n    assert cents(0) == 0\n',
        })
        .commit('agent: cents are ints');
      const r = await judge(repo);
      // The skip in a file the patch left alone reaches the signatures layer through the overlay's outcomes:
      // the edited module ran in a process of its own, so its tampering reached no other file's outcome.
      const skip = r.card.findings.find((f) => f.code === 'UNFROZEN_SKIP');
      expect(skip?.evidence.test).toMatch(/test_someday/);
      // The head ran its own copy of the edited file, and nothing else.
      const head = r.junit('head-run-1');
      expect(head).toContain('name="test_zero"');
      expect(head).not.toContain('test_later');
      expect(head).not.toContain('test_someday');
      expect(r.ran('head-run-1-whole')).toBe(false);
      expect(r.card.layers.find((l) => l.name === 'signatures')?.note).toBe(
        'the head ran only the test file(s) it changed (1); for every other file, whose tests and code are the same in both trees, the outcomes are those of overlay-run',
      );
      expect(r.card.verdict).toBe('reject');
    });

    it("real vitest with the base's own include globs: a test module not named *.test.* is still run alone", async () => {
      const repo = vitestRepo({
        'vitest.config.mjs':
          "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['tests/**/*.ts'], exclude: ['tests/_*'] } });\n",
        'src/sum.ts': 'export const sum = (a: number, b: number) => a + b;\n',
        'tests/_helpers.ts': 'export const two = 2;\n',
        'tests/sum.ts':
          "import { expect, it } from 'vitest';\nimport { sum } from '../src/sum';\nit('adds', () => { expect(sum(1, 1)).toBe(2); });\n",
        'tests/other.ts':
          "import { expect, it } from 'vitest';\nimport { two } from './_helpers';\nit('two', () => { expect(two).toBe(2); });\n",
      });
      repo.git('checkout', '-q', '-b', 'agent');
      repo
        .write({
          'src/sum.ts': 'export const sum = (a: number, b: number) => b + a;\n',
          'tests/sum.ts':
            "import { expect, it } from 'vitest';\nimport { sum } from '../src/sum';\nit('adds', () => { expect(sum(1, 1)).toBe(2); });\nit('commutes', () => { expect(sum(1, 2)).toBe(sum(2, 1)); });\n",
        })
        .commit('agent: sum');
      const r = await judge(repo);
      expect(r.card.verdict).toBe('accept');
      const head = r.junit('head-run-1');
      expect(head).toContain('commutes');
      expect(head).not.toContain('name="two"');
      expect(r.junit('overlay-run')).toContain('two');
    });

    it('runs the head whole when another test file imports the edited one', async () => {
      const repo = shop({
        'tests/test_helpers.py':
          'def helper():\n    return 1\n\n\ndef test_helper():\n    assert helper() == 1\n',
        'tests/test_uses.py':
          'from tests.test_helpers import helper\n\n\ndef test_uses():\n    assert helper()\n',
        'tests/__init__.py': '',
      });
      repo
        .write({
          'tests/test_helpers.py':
            'def helper():\n    return 2\n\n\ndef test_helper():\n    assert helper() == 2\n',
        })
        .commit('agent: helper');
      const r = await judge(repo);
      const head = r.junit('head-run-1');
      expect(head).toContain('test_uses');
      expect(head).toContain('test_later');
      expect(r.card.verdict).toBe('accept');
    });

    it("a head test file that kills its runner is still the patch's doing: the head reruns whole and is blamed", async () => {
      const repo = shop();
      repo
        .write({
          'tests/test_money.py':
            'import os\n\nos._exit(0)\n\nfrom shop.money import cents\n\n\ndef test_cents():\n    assert cents(1.5) == 150\n',
        })
        .commit('agent: exits');
      const r = await judge(repo);
      expect(r.ran('head-run-1-whole')).toBe(true);
      expect(r.card.verdict).toBe('reject');
      expect(r.card.findings.map((f) => f.code)).toContain('HEAD_RUN_BROKEN');
    });
  },
);
