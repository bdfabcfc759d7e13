import { chmodSync, readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { configSchema, type PatchgateConfigInput } from '../../../src/config/schema.js';
import { execFile } from '../../../src/git/exec.js';
import { Git } from '../../../src/git/git.js';
import { buildOverlayTree } from '../../../src/overlay/overlay-tree.js';
import { testSideFor } from '../../../src/overlay/test-side.js';
import { type Files, GitDir } from '../../helpers/gitdir.js';

const PYTEST: PatchgateConfigInput = { tests: { preset: 'pytest' } };

const PYPROJECT = [
  '[project]',
  'name = "calc"',
  'dependencies = ["requests"]',
  '',
  '[tool.pytest.ini_options]',
  'addopts = "-q"',
  '',
].join('\n');

const BASE: Files = {
  'src/calc.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_calc.py': 'from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n',
  'tests/test_more.py': 'def test_more():\n    assert True\n',
  'conftest.py': 'import sys\n',
  'pyproject.toml': PYPROJECT,
};

interface Entry {
  mode: string;
  sha: string;
}

function lsTree(repo: GitDir, treeish: string): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const line of repo.git('ls-tree', '-r', '--full-tree', treeish).split('\n')) {
    if (line === '') continue;
    const [meta, p] = line.split('\t') as [string, string];
    const [mode, , sha] = meta.split(' ') as [string, string, string];
    out.set(p, { mode, sha });
  }
  return out;
}

/** A base commit from `base`, then a head commit applying `change` (null deletes); the overlay of the two. */
async function overlayOf(
  change: Files,
  opts: { base?: Files; config?: PatchgateConfigInput; chmod?: string[] } = {},
) {
  const repo = GitDir.create(opts.base ?? BASE, 'base');
  const baseCommit = repo.head();
  repo.write(change);
  for (const p of opts.chmod ?? []) chmodSync(repo.path(p), 0o755);
  const headCommit = repo.commit('head');
  const headTree = repo.git('rev-parse', `${headCommit}^{tree}`);
  const git = Git.forEnv(execFile, repo.dir, process.env);
  const result = await buildOverlayTree(
    git,
    baseCommit,
    headTree,
    testSideFor(configSchema.parse(opts.config ?? PYTEST)),
  );
  return {
    repo,
    result,
    headTree,
    base: lsTree(repo, baseCommit),
    head: lsTree(repo, headTree),
    overlay: lsTree(repo, result.tree),
  };
}

describe('buildOverlayTree', () => {
  it("is the head's own tree when the patch left the test side alone", async () => {
    const { result, headTree } = await overlayOf({ 'src/calc.py': 'def add(a, b):\n    return b + a\n' });
    expect(result).toEqual({
      tree: headTree,
      sameAsHead: true,
      restored: [],
      headOnly: [],
      merged: [],
      fromBase: [],
      // The test side the overlay guards: every file the base's runner reads as a test.
      testSide: ['conftest.py', 'tests/test_calc.py', 'tests/test_more.py'],
    });
  });

  it('restores a test file the head changed, and keeps the production change', async () => {
    const { result, base, head, overlay } = await overlayOf({
      'tests/test_calc.py': 'def test_add():\n    assert True\n',
      'src/calc.py': 'def add(a, b):\n    return 3\n',
    });
    expect(result.sameAsHead).toBe(false);
    expect(result.restored).toEqual(['tests/test_calc.py']);
    expect(result.headOnly).toEqual([]);
    expect(overlay.get('tests/test_calc.py')).toEqual(base.get('tests/test_calc.py'));
    expect(overlay.get('tests/test_calc.py')).not.toEqual(head.get('tests/test_calc.py'));
    expect(overlay.get('src/calc.py')).toEqual(head.get('src/calc.py'));
    expect(overlay.get('src/calc.py')).not.toEqual(base.get('src/calc.py'));
  });

  it('restores a test file the head deleted (conftest.py at the root too)', async () => {
    const { result, base, overlay } = await overlayOf({ 'tests/test_more.py': null, 'conftest.py': null });
    expect(result.restored).toEqual(['conftest.py', 'tests/test_more.py']);
    expect(overlay.get('tests/test_more.py')).toEqual(base.get('tests/test_more.py'));
    expect(overlay.get('conftest.py')).toEqual(base.get('conftest.py'));
  });

  it('restores a test file the head renamed away, and leaves out its new name', async () => {
    const { result, base, overlay } = await overlayOf({
      'tests/test_more.py': null,
      'tests/test_renamed.py': BASE['tests/test_more.py'] ?? null,
    });
    expect(result.restored).toEqual(['tests/test_more.py']);
    expect(result.headOnly).toEqual(['tests/test_renamed.py']);
    expect(overlay.get('tests/test_more.py')).toEqual(base.get('tests/test_more.py'));
    expect(overlay.has('tests/test_renamed.py')).toBe(false);
  });

  it('leaves out a test file only the head has, and lists it as headOnly', async () => {
    const { result, overlay, head } = await overlayOf({
      'tests/test_new.py': 'def test_new():\n    assert True\n',
      'src/pkg/conftest.py': 'import evil\n',
      'src/new.py': 'X = 1\n',
    });
    expect(result.sameAsHead).toBe(false);
    expect(result.headOnly).toEqual(['src/pkg/conftest.py', 'tests/test_new.py']);
    expect(result.restored).toEqual([]);
    expect(overlay.has('tests/test_new.py')).toBe(false);
    expect(overlay.has('src/pkg/conftest.py')).toBe(false);
    // A new production file stays.
    expect(overlay.get('src/new.py')).toEqual(head.get('src/new.py'));
  });

  it("merges pyproject.toml: the head's dependencies with the base's pytest section", async () => {
    const { repo, result, overlay, head } = await overlayOf({
      'pyproject.toml': PYPROJECT.replace('["requests"]', '["requests", "numpy"]').replace(
        'addopts = "-q"',
        'addopts = "-p evil"',
      ),
    });
    expect(result.merged).toEqual(['pyproject.toml']);
    expect(result.sameAsHead).toBe(false);
    const entry = overlay.get('pyproject.toml');
    expect(entry).toBeDefined();
    expect(entry?.sha).not.toBe(head.get('pyproject.toml')?.sha);
    const text = repo.git('cat-file', 'blob', entry?.sha ?? '');
    expect(parseToml(text)).toEqual({
      project: { name: 'calc', dependencies: ['requests', 'numpy'] },
      tool: { pytest: { ini_options: { addopts: '-q' } } },
    });
  });

  it("keeps the head's pyproject.toml when only its other sections changed", async () => {
    const { result, headTree } = await overlayOf({
      'pyproject.toml': PYPROJECT.replace('["requests"]', '["requests", "numpy"]'),
    });
    expect(result).toEqual({
      tree: headTree,
      sameAsHead: true,
      restored: [],
      headOnly: [],
      merged: [],
      fromBase: [],
      // The test side the overlay guards: every file the base's runner reads as a test.
      testSide: ['conftest.py', 'tests/test_calc.py', 'tests/test_more.py'],
    });
  });

  it('adds no pyproject.toml when the head deleted one that had no test section', async () => {
    const { result, headTree } = await overlayOf(
      { 'pyproject.toml': null },
      { base: { ...BASE, 'pyproject.toml': '[project]\nname = "calc"\n' } },
    );
    expect(result).toEqual({
      tree: headTree,
      sameAsHead: true,
      restored: [],
      headOnly: [],
      merged: [],
      fromBase: [],
      // The test side the overlay guards: every file the base's runner reads as a test.
      testSide: ['conftest.py', 'tests/test_calc.py', 'tests/test_more.py'],
    });
  });

  it('merges package.json by key under vitest', async () => {
    const pkg = (test: string, version: string) =>
      `${JSON.stringify({ name: 'app', version, scripts: { test } }, null, 2)}\n`;
    const { repo, result, overlay } = await overlayOf(
      { 'package.json': pkg('true', '2.0.0') },
      {
        base: { 'package.json': pkg('vitest run', '1.0.0'), 'src/a.ts': 'export {};\n' },
        config: { tests: { preset: 'vitest' } },
      },
    );
    expect(result.merged).toEqual(['package.json']);
    const merged = JSON.parse(
      repo.git('cat-file', 'blob', overlay.get('package.json')?.sha ?? ''),
    ) as unknown;
    expect(merged).toEqual({ name: 'app', version: '2.0.0', scripts: { test: 'vitest run' } });
  });

  it("keeps file modes: a restored test file gets the base's mode, production files the head's", async () => {
    const base: Files = { ...BASE, 'tests/run.sh': '#!/bin/sh\nexec pytest\n' };
    const {
      result,
      base: b,
      head,
      overlay,
    } = await overlayOf(
      { 'tests/run.sh': '#!/bin/sh\nexit 0\n', 'bin/tool': '#!/bin/sh\necho hi\n' },
      { base, chmod: ['tests/run.sh', 'bin/tool'] },
    );
    expect(b.get('tests/run.sh')?.mode).toBe('100644');
    expect(head.get('tests/run.sh')?.mode).toBe('100755');
    expect(result.restored).toEqual(['tests/run.sh']);
    expect(overlay.get('tests/run.sh')).toEqual(b.get('tests/run.sh'));
    expect(overlay.get('bin/tool')?.mode).toBe('100755');
  });

  it("restores a test file whose mode alone the head changed, with the base's mode", async () => {
    const { result, overlay, base, head } = await overlayOf({}, { chmod: ['tests/test_more.py'] });
    expect(head.get('tests/test_more.py')?.mode).toBe('100755');
    expect(result.restored).toEqual(['tests/test_more.py']);
    expect(overlay.get('tests/test_more.py')).toEqual(base.get('tests/test_more.py'));
  });

  it('keeps an executable base test file executable in the overlay', async () => {
    const repo = GitDir.create({ ...BASE, 'tests/run.sh': '#!/bin/sh\n' });
    chmodSync(repo.path('tests/run.sh'), 0o755);
    const baseCommit = repo.commit('base');
    repo.write({ 'tests/test_calc.py': 'changed\n' });
    const headTree = repo.git('rev-parse', `${repo.commit('head')}^{tree}`);
    const git = Git.forEnv(execFile, repo.dir, process.env);
    const { tree } = await buildOverlayTree(
      git,
      baseCommit,
      headTree,
      testSideFor(configSchema.parse(PYTEST)),
    );
    expect(lsTree(repo, tree).get('tests/run.sh')?.mode).toBe('100755');
  });

  it("holds exactly the head's production files and the base's test files", async () => {
    const { overlay, base, head } = await overlayOf({
      'tests/test_calc.py': 'x\n',
      'tests/test_new.py': 'y\n',
      'src/calc.py': 'z\n',
      'src/extra.py': 'w\n',
    });
    expect([...overlay.keys()].sort()).toEqual(
      [...new Set([...base.keys(), ...head.keys()])].filter((p) => p !== 'tests/test_new.py').sort(),
    );
  });

  it("does not touch the repository's own index", async () => {
    const repo = GitDir.create(BASE, 'base');
    const baseCommit = repo.head();
    repo.write({ 'tests/test_calc.py': 'changed\n' });
    const headTree = repo.git('rev-parse', `${repo.commit('head')}^{tree}`);
    // Something staged in the user's index must stay staged, and nothing else appear there.
    repo.write({ 'src/staged.py': 'S = 1\n' });
    repo.git('add', 'src/staged.py');
    const before = readFileSync(repo.path('.git/index'));
    const git = Git.forEnv(execFile, repo.dir, process.env);
    const result = await buildOverlayTree(git, baseCommit, headTree, testSideFor(configSchema.parse(PYTEST)));
    expect(result.sameAsHead).toBe(false);
    expect(readFileSync(repo.path('.git/index')).equals(before)).toBe(true);
    expect(repo.git('diff', '--cached', '--name-only')).toBe('src/staged.py');
    expect(lsTree(repo, result.tree).has('src/staged.py')).toBe(false);
  });

  it('merges a pyproject.toml in a subfolder too, where pytest finds it for the tests below it', async () => {
    const { repo, result, overlay } = await overlayOf(
      { 'src/pkg/pyproject.toml': '[tool.pytest.ini_options]\naddopts = "-p evil"\n' },
      { base: { ...BASE, 'src/pkg/pyproject.toml': '[project]\nname = "pkg"\n' } },
    );
    expect(result.merged).toEqual(['src/pkg/pyproject.toml']);
    expect(repo.git('cat-file', 'blob', overlay.get('src/pkg/pyproject.toml')?.sha ?? '')).toBe('');
  });

  it("takes the base's copy whole, and says why, when the head's pyproject.toml is not valid TOML", async () => {
    const { result, base, overlay } = await overlayOf({
      'pyproject.toml': `${PYPROJECT}[tool.pytest.ini_options]\naddopts = "-p evil"\n`,
    });
    expect(result.merged).toEqual(['pyproject.toml']);
    expect(overlay.get('pyproject.toml')).toEqual(base.get('pyproject.toml'));
    expect(result.fromBase).toEqual([
      {
        path: 'pyproject.toml',
        reason: expect.stringMatching(/^the head's copy is not valid TOML \(line 7: /),
      },
    ]);
  });

  it("takes the base's copy whole when the head's setup.cfg is not UTF-8", async () => {
    const { result, base, overlay } = await overlayOf(
      { 'setup.cfg': Buffer.from('[tool:pytest]\naddopts = -p evil\n# \xff\xfe\n', 'latin1') },
      { base: { ...BASE, 'setup.cfg': '[metadata]\nname = calc\n' } },
    );
    expect(overlay.get('setup.cfg')).toEqual(base.get('setup.cfg'));
    expect(result.fromBase).toEqual([{ path: 'setup.cfg', reason: expect.stringContaining('not UTF-8') }]);
  });

  it("keeps the base's very bytes when the base's own setup.cfg is not UTF-8", async () => {
    const bytes = Buffer.from('[tool:pytest]\naddopts = -q\n# \xff\n', 'latin1');
    const { result, base, overlay } = await overlayOf(
      { 'setup.cfg': '[tool:pytest]\naddopts = -p evil\n' },
      { base: { ...BASE, 'setup.cfg': bytes } },
    );
    expect(overlay.get('setup.cfg')).toEqual(base.get('setup.cfg'));
    expect(result.fromBase).toEqual([{ path: 'setup.cfg', reason: "the base's copy is not UTF-8 text" }]);
  });

  it('removes a head pyproject.toml that does not parse when the base has none', async () => {
    const { result, overlay } = await overlayOf(
      { 'pyproject.toml': '[tool.pytest.ini_options\naddopts = "-p x"\n' },
      {
        base: Object.fromEntries(Object.entries(BASE).filter(([k]) => k !== 'pyproject.toml')),
      },
    );
    expect(overlay.has('pyproject.toml')).toBe(false);
    expect(result.merged).toEqual(['pyproject.toml']);
  });
});
