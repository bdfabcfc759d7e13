/**
 * Tests that read their own history (a version stamp from `git rev-parse
 * HEAD`, a `git status --porcelain` that must be clean) pass in the gate's
 * private copies: each is a git repository of exactly its files, which git
 * in the sandbox, as another user, can use. And what head code writes into
 * its copy's `.git` never runs outside the sandbox. The built CLI, real
 * pytest and vitest, the real sandbox.
 */
import { chmodSync, chownSync, existsSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calcRepo } from '../helpers/calc-repo.js';
import { GitDir, type RunAs, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';
import { repoRoot } from '../helpers/shared.js';

const isRoot = process.getuid?.() === 0;

/** Calls git the way a version stamp or a release check does, from inside the test. */
const GIT_TEST = `import subprocess


def git(*args):
    r = subprocess.run(["git", *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_head_is_the_one_commit():
    head = git("rev-parse", "HEAD")
    assert len(head) == 40
    assert git("rev-list", "--count", "HEAD") == "1"
    assert git("log", "-1", "--format=%an <%ae>") == "patchgate <patchgate@localhost>"


def test_the_copy_is_clean():
    assert git("status", "--porcelain") == ""


def test_no_remote_leads_anywhere():
    assert git("remote") == ""
`;

function pytestRepo(): GitDir {
  const r = calcRepo({ files: { 'tests/test_git.py': GIT_TEST } });
  // The user's repository has a remote and settings of its own: none of it may reach a copy.
  r.git('remote', 'add', 'origin', 'https://example.invalid/calc.git');
  r.git('config', 'core.hooksPath', '.githooks');
  return r;
}

/**
 * The agent's patch: a code change, and a test of its own that plants, in
 * its copy's `.git`, a clean filter that would write `marker` if any git
 * outside the sandbox ran it on that copy (a `git status`, a `git add`).
 */
function patched(r: GitDir, marker: string): void {
  r.git('checkout', '-q', '-b', 'agent');
  r.write({
    'src/calc.py': '# sums\ndef add(a, b):\n    return a + b\n',
    'tests/test_plant.py': `import os
import subprocess


def test_plant():
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True)
    git_dir = os.path.join(top.stdout.strip(), ".git")
    with open(os.path.join(git_dir, "config"), "a") as f:
        f.write('[filter "pg"]\\n\\tclean = sh -c "echo ran > ${marker}; cat"\\n')
    os.makedirs(os.path.join(git_dir, "info"), exist_ok=True)
    with open(os.path.join(git_dir, "info", "attributes"), "w") as f:
        f.write("* filter=pg\\n")
`,
  });
  r.commit('agent: a comment, and a test');
}

async function judge(r: GitDir, opts: { as?: RunAs; head?: string[]; env?: Record<string, string> } = {}) {
  const out = tempDir('pg-copyrepo-out-');
  if (opts.as) chownSync(out, opts.as.uid, opts.as.gid);
  const res = await runCli(
    ['check', '--base', 'main', ...(opts.head ?? ['--head', 'agent']), '--out', out, '--today', '2026-12-01'],
    { cwd: r.dir, ...(opts.as ? { as: opts.as } : {}), ...(opts.env ? { env: opts.env } : {}) },
  );
  return { ...res, card: readScorecard(out, res) };
}

/** A folder the gate may write and the sandbox never sees: where a filter run outside it would leave a mark. */
function markerDir(): string {
  const dir = tempDir('pg-copyrepo-marker-');
  chmodSync(dir, 0o777);
  return dir;
}

function chownTree(dir: string, as: RunAs): void {
  chownSync(dir, as.uid, as.gid);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) chownTree(p, as);
    else if (!e.isSymbolicLink()) chownSync(p, as.uid, as.gid);
  }
}

describe("a test that calls git, in the gate's copies", { timeout: 240_000 }, () => {
  it.runIf(isRoot)(
    'passes on base, head and overlay, head code running as nobody; what the head plants in its .git never runs outside',
    async () => {
      const marks = markerDir();
      const marker = path.join(marks, 'ran');
      const r = pytestRepo();
      patched(r, marker);
      const { card, code, stderr } = await judge(r);
      expect(card.isolation).toMatchObject({ mode: 'bwrap', user: 'separate' });
      expect(card.findings.map((f) => `${f.code}: ${f.message.slice(0, 300)}`)).toEqual([]);
      expect(card.verdict).toBe('accept');
      expect(code, stderr).toBe(0);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it("the same when the gate is not root: head code under the gate's own uid in a user namespace", async () => {
    const nobody: RunAs = { uid: 65534, gid: 65534 };
    const r = pytestRepo();
    patched(r, path.join(markerDir(), 'ran'));
    const home = tempDir('pg-copyrepo-home-');
    const tmp = tempDir('pg-copyrepo-tmp-');
    if (isRoot) {
      chownTree(r.dir, nobody);
      chownSync(home, nobody.uid, nobody.gid);
      chownSync(tmp, nobody.uid, nobody.gid);
    }
    expect(statSync(r.dir).uid).toBe(isRoot ? nobody.uid : process.getuid?.());
    const { card, code, stderr } = await judge(r, {
      ...(isRoot ? { as: nobody } : {}),
      env: { HOME: home, TMPDIR: tmp },
    });
    expect(card.isolation).toMatchObject({ mode: 'bwrap', user: 'same' });
    expect(card.findings.map((f) => `${f.code}: ${f.message.slice(0, 300)}`)).toEqual([]);
    expect(card.verdict).toBe('accept');
    expect(code, stderr).toBe(0);
  });

  it('a vitest test that reads HEAD and the status passes on a working-tree head that borrows node_modules', async () => {
    const r = GitDir.create({
      '.gitignore': 'node_modules\n.patchgate\n',
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        tests: { preset: 'vitest' },
        signatures: {},
      }),
      'flake_signatures.json': '{"signatures": []}\n',
      'package.json': JSON.stringify({ name: 'lib', private: true, type: 'module' }),
      'src/sum.js': 'export const sum = (a, b) => a + b;\n',
      'test/stamp.test.js': `import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { sum } from '../src/sum.js';

const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();

it('adds', () => expect(sum(1, 2)).toBe(3));
it('stamps the build with its commit', () => expect(git('rev-parse', '--short', 'HEAD')).toMatch(/^[0-9a-f]{7,}$/));
it('is built from a clean tree', () => expect(git('status', '--porcelain')).toBe(''));
`,
    });
    symlinkSync(path.join(repoRoot, 'node_modules'), r.path('node_modules'));
    r.write({ 'src/sum.js': '// Adds two numbers.\nexport const sum = (a, b) => a + b;\n' });
    const { card, code, stderr } = await judge(r, { head: [] });
    expect(card.findings.map((f) => `${f.code}: ${f.message.slice(0, 300)}`)).toEqual([]);
    expect(card.verdict).toBe('accept');
    expect(code, stderr).toBe(0);
  });
});
