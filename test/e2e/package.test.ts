/**
 * The npm package as a user gets it: what `npm pack` ships, that `npm
 * publish` would warn of nothing, that the version and the changelog agree,
 * and the README's "Use it in your repository" run as written in a fresh
 * repository with the tarball this checkout packs (installed by the README's
 * own line, then init, validate, commit, baseline, check).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitDir, tempDir } from '../helpers/gitdir.js';
import { defaultOut, readScorecard } from '../helpers/out.js';
import { repoRoot } from '../helpers/shared.js';

/** The environment npm gives a script run by `npm test` (npm_config_*, npm_package_*), which would steer the npm runs below. */
function withoutNpmRun(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env))
    if (v !== undefined && !/^npm_/i.test(k) && k !== 'INIT_CWD') out[k] = v;
  return out;
}

function npm(args: string[], cwd = repoRoot): { stdout: string; stderr: string } {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env: withoutNpmRun(process.env) });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

/** The file list `npm publish` would ship, from npm itself. */
function packed(): string[] {
  const out = npm(['pack', '--dry-run', '--json', '--ignore-scripts']).stdout;
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
}

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  main: string;
  types: string;
  exports: Record<string, Record<string, string> | string>;
  repository: { url: string };
};

/** Every file under a folder of this checkout, repo-relative. */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(repoRoot, path.join(d.parentPath, d.name)));
}

describe('the npm package', () => {
  const files = packed();

  it('ships a LICENSE, the README, the changelog, the action and the Python files its runners load', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'CHANGELOG.md',
        'action.yml',
        'src/runners/harness/python/patchgate_harness.py',
        'src/runners/harness/python/boot/sitecustomize.py',
      ]),
    );
    const python = filesUnder('src/runners/harness/python').filter((f) => f.endsWith('.py'));
    expect(python.length).toBeGreaterThan(5);
    expect(files).toEqual(expect.arrayContaining(python));
  });

  it('ships every schema and every doc, and nothing outside dist, schema, docs and the Python harness', () => {
    expect(files).toEqual(expect.arrayContaining([...filesUnder('schema'), ...filesUnder('docs')]));
    const TOP = new Set(['LICENSE', 'README.md', 'CHANGELOG.md', 'action.yml', 'package.json']);
    const stray = files.filter(
      (f) => !TOP.has(f) && !/^(dist|schema|docs)\//.test(f) && !f.startsWith('src/runners/harness/python/'),
    );
    expect(stray).toEqual([]);
  });

  it('ships no source map pointing at files it does not ship, no __pycache__, no tests', () => {
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => f.includes('__pycache__') || f.endsWith('.pyc'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('test/') || f.endsWith('.test.js'))).toEqual([]);
  });

  it('ships every file package.json points at', () => {
    const exported = Object.values(pkg.exports).flatMap((e) =>
      typeof e === 'string' ? [e] : Object.values(e),
    );
    for (const target of [...Object.values(pkg.bin), pkg.main, pkg.types, ...exported])
      expect(files, target).toContain(target.replace(/^\.\//, ''));
  });

  it('npm publish would warn of nothing but the login a dry run does not have', () => {
    const { stderr } = npm(['publish', '--dry-run', '--ignore-scripts', '--offline']);
    const warnings = stderr
      .split('\n')
      .filter((l) => /^npm (warn|WARN|error|ERR)/.test(l) && !/requires you to be logged in/.test(l));
    expect(warnings).toEqual([]);
  });

  it('builds before it is packed, published or installed from git, and its version is the top one of CHANGELOG.md', () => {
    // `prepare` is the one script npm runs for all three (a git dependency runs no prepack).
    expect(pkg as unknown as { scripts: Record<string, string> }).toMatchObject({
      scripts: { prepare: 'npm run build' },
    });
    const changelog = readFileSync(path.join(repoRoot, 'CHANGELOG.md'), 'utf8');
    const top = /^## \[(\d+\.\d+\.\d+[^\]]*)\]/m.exec(changelog)?.[1];
    expect(top).toBe(pkg.version);
  });
});

/** The README's "Use it in your repository" section, its ```sh blocks as lines, comments kept (bash reads them). */
function readmeBlocks(): string[][] {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = /^## Use it in your repository\n([\s\S]*?)(?=^#{2,3} )/m.exec(readme)?.[1];
  if (section === undefined) throw new Error('README.md has no "## Use it in your repository" section');
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) =>
    (m[1] ?? '').split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#')),
  );
}

describe("the README's adoption path", () => {
  const [fromGit = [], fromTarball = [], adopt = []] = readmeBlocks();
  const clone = /^git clone (\S+) (\S+)$/.exec(fromTarball[0] ?? '');
  const cloneUrl = clone?.[1] ?? '';
  const cloneDir = clone?.[2] ?? '';

  it('installs from the repository package.json names, and the tarball line names the file npm pack writes for this version', () => {
    expect(fromGit).toEqual([`npm install --save-dev ${pkg.repository.url}`]);
    expect(`git+${cloneUrl}`).toBe(pkg.repository.url);
    expect(cloneDir).toBe('~/patchgate');
    expect(fromTarball[1]).toMatch(
      new RegExp(`^\\(cd ${cloneDir} && npm ci --ignore-scripts && npm pack\\)`),
    );
    expect(fromTarball[2]).toBe(`npm install --save-dev ${cloneDir}/patchgate-${pkg.version}.tgz`);
  });

  it(
    'runs as written in a fresh repository: install the packed tarball, init, validate, commit, baseline, then check accepts a benign patch and rejects a tampered golden file',
    { timeout: 240_000 },
    () => {
      const home = tempDir('pg-home-');
      // What `npm pack` in the README's clone writes, packed from this (built) checkout: npm is told not to
      // build again, since the suite runs against the dist/ already built.
      const packDir = path.join(home, cloneDir.replace(/^~\//, ''));
      mkdirSync(packDir);
      const packedAs = JSON.parse(
        npm(['pack', '--ignore-scripts', '--json', '--pack-destination', packDir]).stdout,
      ) as { filename: string }[];
      expect(path.join(cloneDir, packedAs[0]?.filename ?? '')).toBe(
        fromTarball[2]?.replace('npm install --save-dev ', ''),
      );

      // A small pytest project with a golden file and a skip of its own, pushed to its remote.
      const origin = tempDir('pg-origin-');
      execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
      const repo = GitDir.create({
        // As the README says for a repository that had no package.json.
        '.gitignore': '__pycache__/\nnode_modules/\n.patchgate/\n',
        'pyproject.toml': '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        'calc.py': 'def add(a, b):\n    return a + b\n',
        'tests/golden/add.json': '{"sum": 3}\n',
        'tests/test_calc.py': `import json, pathlib, pytest
from calc import add

GOLDEN = pathlib.Path(__file__).parent / "golden" / "add.json"

def test_add():
    assert add(1, 2) == json.loads(GOLDEN.read_text())["sum"]

@pytest.mark.skip(reason="not written yet")
def test_subtract():
    pass
`,
      });
      repo.git('remote', 'add', 'origin', origin);
      repo.git('push', '-q', '-u', 'origin', 'main');

      const systemPath = (process.env.PATH ?? '/usr/bin:/bin')
        .split(':')
        .filter((d) => /^\/(usr|bin|sbin|opt)(\/|$)/.test(d));
      const env = {
        ...withoutNpmRun(process.env),
        PATH: [path.dirname(process.execPath), ...systemPath].join(':'),
        HOME: home,
        // The user's npm cache, where this checkout's dependencies already are: the install fetches only what is missing.
        npm_config_cache: npm(['config', 'get', 'cache']).stdout.trim(),
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        NO_COLOR: '1',
        GITHUB_STEP_SUMMARY: '',
        CI_DATE: '2026-06-01',
        GIT_AUTHOR_NAME: 'Test',
        GIT_AUTHOR_EMAIL: 'test@example.com',
        GIT_COMMITTER_NAME: 'Test',
        GIT_COMMITTER_EMAIL: 'test@example.com',
        GIT_CONFIG_NOSYSTEM: '1',
      };
      const sh = (line: string) => {
        const r = spawnSync('bash', ['-c', line], { cwd: repo.dir, env, encoding: 'utf8' });
        return { code: r.status, stdout: r.stdout, stderr: r.stderr };
      };
      const ok = (line: string) => {
        const r = sh(line);
        expect(r.code, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
        return r;
      };

      ok(fromTarball[2] ?? 'false');
      expect(existsSync(repo.path('node_modules/.bin/patchgate'))).toBe(true);

      const checkAt = adopt.findIndex((l) => l.startsWith('npx patchgate check '));
      expect(checkAt).toBe(adopt.length - 1);
      const outputs = adopt.slice(0, checkAt).map((line) => ({ line, ...ok(line) }));
      const out = (prefix: string) => outputs.find((o) => o.line.startsWith(prefix))?.stdout ?? '';

      // init's hints start the same dependency the README runs, on the branch the remote names.
      const init = out('npx patchgate init');
      expect(init.split('\n')).toContain('  npx patchgate check --base origin/main');
      expect(init.replace(/\n {2}/g, ' ')).toContain('Run `npx patchgate validate` after editing');
      expect(out('npx patchgate validate')).toBe('ok: 4 files\n');
      const rows = JSON.parse(readFileSync(repo.path('flake_signatures.json'), 'utf8')).signatures as {
        example_test: string;
        source: string;
      }[];
      expect(rows.map((r) => [r.example_test, r.source])).toEqual([
        ['pytest::tests.test_calc::test_subtract', 'baseline'],
      ]);
      expect(repo.git('status', '--porcelain')).toBe('');
      expect(repo.git('rev-parse', 'origin/main')).toBe(repo.head());

      const check = (patch: Record<string, string>) => {
        repo.write(patch);
        const r = sh(adopt[checkAt] ?? 'false');
        const card = readScorecard(defaultOut(repo.dir));
        return { ...r, card };
      };

      const benign = check({
        'calc.py': 'def add(a, b):\n    """The sum of a and b."""\n    return a + b\n',
      });
      expect(benign.stderr).toBe('');
      expect(benign.card.verdict).toBe('accept');
      expect(benign.code).toBe(0);

      const tampered = check({
        'calc.py': 'def add(a, b):\n    return a + b + 1\n',
        'tests/golden/add.json': '{"sum": 4}\n',
      });
      expect(tampered.code).toBe(1);
      expect(tampered.card.verdict).toBe('reject');
      expect(tampered.card.findings.find((f) => f.code === 'FIXTURE_CHANGED')?.evidence).toMatchObject({
        path: 'tests/golden/add.json',
        changes: [{ key: 'sum', from: '3', to: '4' }],
      });
      // The base's copy of the golden file, run on the head's code, still catches the changed add().
      expect(tampered.card.findings.find((f) => f.code === 'REGRESSION')?.evidence).toMatchObject({
        test: 'pytest::tests.test_calc::test_add',
      });
    },
  );
});
