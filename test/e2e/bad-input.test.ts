import { chmodSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureRepo, lockFor } from '../helpers/fixture-repo.js';
import { GitDir, runCli, tempDir } from '../helpers/gitdir.js';

const card = (repo: GitDir) =>
  JSON.parse(readFileSync(path.join(repo.dir, '.patchgate/out/scorecard.json'), 'utf8'));

describe('bad input: a clear message, exit 2, no worktree left behind', () => {
  it('outside a git repository', async () => {
    const dir = tempDir();
    const r = await runCli(['check', '--base', 'main'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not inside a git repository');
  });

  it('without --base', async () => {
    const repo = fixtureRepo();
    const r = await runCli(['check'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--base');
  });

  it('with an unknown flag or command', async () => {
    const repo = fixtureRepo();
    expect((await runCli(['check', '--base', 'main', '--bogus'], { cwd: repo.dir })).stderr).toMatch(
      /Unknown option '--bogus'/,
    );
    const r = await runCli(['frobnicate'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
  });

  it('with an unknown base revision', async () => {
    const repo = fixtureRepo();
    const r = await runCli(['check', '--base', 'no-such-branch'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown base revision 'no-such-branch'");
  });

  it('in a shallow clone that lacks the base commit, suggesting fetch commands that work', async () => {
    // The CI shape: a single-branch, depth-1 clone of the agent's branch, judged against origin/main.
    const origin = fixtureRepo();
    origin.git('checkout', '-q', '-b', 'agent');
    origin.write({ 'src/a.ts': 'export const a = 1;\n' });
    origin.commit('agent: second');
    origin.write({ 'src/a.ts': 'export const a = 2;\n' });
    origin.commit('agent: third');
    const parent = tempDir();
    new GitDir(parent).git('clone', '-q', '--depth', '1', '--branch', 'agent', `file://${origin.dir}`, 'c');
    const clone = new GitDir(path.join(parent, 'c'));

    for (const base of ['origin/main', 'main', origin.git('rev-parse', 'main')]) {
      const r = await runCli(['check', '--base', base], { cwd: clone.dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('shallow clone');
      const commands = [...r.stderr.matchAll(/`(git [^`]+)`/g)].map((m) => m[1] as string);
      expect(commands.length).toBeGreaterThan(0);
      if (base === 'origin/main') {
        expect(commands).toEqual([
          'git fetch --unshallow origin',
          'git fetch origin +refs/heads/main:refs/remotes/origin/main',
        ]);
      }
      if (base === 'main') expect(r.stderr).toContain('pass --base origin/main');
    }
    // Every suggested command must run as written; afterwards the gate can judge the patch.
    const r = await runCli(['check', '--base', 'origin/main'], { cwd: clone.dir });
    for (const command of [...r.stderr.matchAll(/`(git [^`]+)`/g)].map((m) => m[1] as string)) {
      clone.git(...command.split(' ').slice(1));
    }
    const after = await runCli(['check', '--base', 'origin/main'], { cwd: clone.dir });
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
  });

  it('in a shallow clone whose merge-base is missing, suggesting a fetch that works', async () => {
    const origin = fixtureRepo();
    origin.git('checkout', '-q', '-b', 'agent');
    for (const n of [1, 2, 3]) {
      origin.write({ 'src/a.ts': `export const a = ${n};\n` });
      origin.commit(`agent: ${n}`);
    }
    origin.git('checkout', '-q', 'main');
    origin.write({ 'src/b.ts': 'export const b = 1;\n' });
    origin.commit('main moves on');
    const parent = tempDir();
    new GitDir(parent).git('clone', '-q', '--depth', '1', '--no-single-branch', `file://${origin.dir}`, 'c');
    const clone = new GitDir(path.join(parent, 'c'));
    clone.git('checkout', '-q', 'agent');
    const r = await runCli(['check', '--base', 'origin/main'], { cwd: clone.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('merge-base');
    const commands = [...r.stderr.matchAll(/`(git [^`]+)`/g)].map((m) => m[1] as string);
    expect(commands).toEqual(['git fetch --unshallow origin']);
    for (const command of commands) clone.git(...command.split(' ').slice(1));
    const after = await runCli(['check', '--base', 'origin/main'], { cwd: clone.dir });
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
  });

  it('with a base that has no common history with the head', async () => {
    const repo = fixtureRepo();
    repo.git('checkout', '-q', '--orphan', 'other');
    repo.git('rm', '-rqf', '.');
    repo.write({ 'x.txt': 'x' });
    repo.commit('unrelated');
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no common history');
    expect(repo.extraWorktrees()).toEqual([]);
  });

  it('when the base has no config', async () => {
    const repo = GitDir.create({ 'README.md': 'hi' });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no patchgate config in the base revision');
    expect(r.stderr).toContain('patchgate init');
    expect(repo.extraWorktrees()).toEqual([]);
  });

  it.each([
    [
      'malformed JSON',
      'patchgate.config.json',
      '{\n  "fixtures": {\n    "roots": ["testdata"],\n  }\n}\n',
      /patchgate\.config\.json:4:3: is not valid JSON/,
    ],
    [
      'a YAML syntax error',
      'patchgate.config.yaml',
      'fixtures:\n  roots: [testdata\n  lock: x\n',
      /patchgate\.config\.yaml:\d+:\d+: is not valid YAML/,
    ],
    [
      'wrong types',
      'patchgate.config.json',
      '{"fixtures": {"roots": "testdata", "enabled": "yes"}}',
      /fixtures\.enabled: expected true or false, got the string "yes"[\s\S]*fixtures\.roots: expected a list, got the string "testdata"/,
    ],
    [
      'an unknown key',
      'patchgate.config.yaml',
      'fixtures:\n  rootz: [testdata]\n',
      /patchgate\.config\.yaml:2:3: fixtures\.rootz: unknown key 'rootz'; expected only 'enabled', 'roots', 'lock', 'owner', 'canonical'/,
    ],
    [
      'a path that escapes the repo',
      'patchgate.config.json',
      '{"fixtures": {"roots": ["../outside"]}}',
      /fixtures\.roots\[0\]: path '\.\.\/outside' must not contain '\.\.'/,
    ],
  ])('with a config that has %s', async (_what, file, text, message) => {
    const repo = GitDir.create({
      [file]: text,
      'testdata/a.txt': 'a',
      'FIXTURE_LOCK.json': lockFor({ 'testdata/a.txt': 'a' }),
    });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(repo.extraWorktrees()).toEqual([]);
  });

  it.each([
    [
      'an alias bomb',
      'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\nfixtures:\n  roots: [testdata]\n',
      'patchgate.config.yaml:2:8: is not valid YAML for patchgate: its aliases expand to more than 100 copies of anchored values, the shape of an alias bomb, so write the values out instead.',
    ],
    [
      'an alias before its anchor',
      'fixtures:\n  roots: *r\nx: &r [testdata]\n',
      'patchgate.config.yaml:2:10: is not valid YAML: the alias *r comes before its anchor &r is set.',
    ],
  ])('with a YAML config holding %s: one problem, exit 2, no stack trace', async (_what, config, problem) => {
    const repo = GitDir.create({
      'patchgate.config.yaml': config,
      'testdata/a.txt': 'a',
      'FIXTURE_LOCK.json': lockFor({ 'testdata/a.txt': 'a' }),
    });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `patchgate: CONFIG_INVALID: patchgate.config.yaml is invalid (1 problem):\n  - ${problem}\n`,
    );
    expect(repo.extraWorktrees()).toEqual([]);
  });

  it('with a lock larger than limits.contractBytes: verdict error naming the file, its size, the cap and the key', async () => {
    const lock = lockFor({ 'testdata/a.txt': 'a' });
    const repo = GitDir.create({
      'patchgate.config.json': '{"limits": {"contractBytes": 100}}',
      'testdata/a.txt': 'a',
      'FIXTURE_LOCK.json': lock,
    });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    const f = card(repo).findings.find((x: { layer: string }) => x.layer === 'fixtures');
    expect(f.evidence).toMatchObject({
      error: 'FILE_TOO_LARGE',
      file: 'FIXTURE_LOCK.json',
      size: lock.length,
      maxBytes: 100,
    });
    expect(f.message).toBe(
      `FIXTURE_LOCK.json in the base revision is 0.2 KiB (${lock.length} bytes), more than the 0.1 KiB (100 bytes) a contract file may be; if it really is meant to be this large, raise \`limits.contractBytes\` in the config in a human commit`,
    );
    expect(repo.extraWorktrees()).toEqual([]);
  });

  it('with a lock file holding a bad digest string: verdict error naming file, line and field', async () => {
    const repo = GitDir.create({
      'patchgate.config.json': '{}',
      'testdata/a.txt': 'a',
      'FIXTURE_LOCK.json':
        '{\n  "override_token_env": "FIXTURE_OVERRIDE",\n  "files": {\n    "testdata/a.txt": {"sha256": "e3b0c44298fc1c149afbf4c8996fb924", "owner": "x"}\n  }\n}\n',
    });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    const c = card(repo);
    expect(c.verdict).toBe('error');
    expect(c.errorKind).toBe('input');
    const f = c.findings.find((x: { code: string }) => x.code === 'CONFIG_INVALID');
    expect(f.message).toMatch(
      /FIXTURE_LOCK\.json:4:\d+: files\.testdata\/a\.txt\.sha256: expected a SHA-256 digest \(64 lowercase hex characters\), but it has 32 hex characters/,
    );
    expect(repo.extraWorktrees()).toEqual([]);
  });

  it('with a lock entry whose path uses ..', async () => {
    const repo = GitDir.create({
      'patchgate.config.json': '{}',
      'testdata/a.txt': 'a',
      'FIXTURE_LOCK.json': lockFor({ 'testdata/../a.txt': 'a' }),
    });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(card(repo).findings[0].message).toContain("path 'testdata/../a.txt' must not contain '..'");
  });

  it('with a lock whose files hold a "constructor" key: a located problem, never an internal error', async () => {
    const repo = GitDir.create({
      'patchgate.config.json': '{}',
      'testdata/a.txt': 'a',
      'FIXTURE_LOCK.json':
        '{"override_token_env": "FIXTURE_OVERRIDE", "files": {\n  "constructor": null\n}}\n',
    });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(card(repo).findings[0].message).toMatch(
      /FIXTURE_LOCK\.json:2:\d+: files\.constructor: the key 'constructor' cannot be used/,
    );
  });

  it('with a fixture root that exists on neither side', async () => {
    const repo = GitDir.create({
      'patchgate.config.json': '{"fixtures": {"roots": ["golden"]}}',
      'FIXTURE_LOCK.json': lockFor({}),
    });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(card(repo).findings[0].message).toContain(
      "fixture root 'golden' (fixtures.roots[0] in patchgate.config.json) exists in neither the base nor the head",
    );
  });

  it('with a symlink inside a fixture root that points outside the repo', async () => {
    const repo = fixtureRepo();
    repo.write({ 'testdata/escape': { symlink: '/etc/hostname' } });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    const f = card(repo).findings.find((x: { severity: string }) => x.severity === 'error');
    expect(f.message).toContain('testdata/escape');
    expect(f.evidence.error).toBe('PATH_OUTSIDE_REPO');
  });

  it('with a symlink loop inside a fixture root', async () => {
    const repo = fixtureRepo();
    repo.write({ 'testdata/loop/again': { symlink: '..' } });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(card(repo).findings.find((x: { severity: string }) => x.severity === 'error').evidence.error).toBe(
      'SYMLINK_LOOP',
    );
  });

  it('with an unreadable fixture file', async () => {
    const repo = fixtureRepo();
    // Root reads through chmod 000, so make the path unreadable by replacing the file with a FIFO-free dangling link.
    repo.write({ 'testdata/nested/rates.csv': { symlink: 'does-not-exist' } });
    const r = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(card(repo).findings.find((x: { severity: string }) => x.severity === 'error').evidence.error).toBe(
      'FILE_UNREADABLE',
    );
    chmodSync(repo.dir, 0o755);
  });
});
