import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INVOICE, sha256 } from '../helpers/fixture-repo.js';
import { GitDir, runCli } from '../helpers/gitdir.js';

describe('patchgate init', () => {
  it('detects fixture roots, writes config and lock, and the result passes check', async () => {
    const repo = GitDir.create({
      'src/a.ts': 'x',
      'testdata/a.json': INVOICE,
      'test/fixtures/b.txt': 'b',
      'fixtures/lock.json': INVOICE,
    });
    const r = await runCli(['init', '--owner', 'payments'], { cwd: repo.dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const config = JSON.parse(readFileSync(repo.path('patchgate.config.json'), 'utf8'));
    expect(config.fixtures.roots).toEqual(['testdata', 'test/fixtures', 'fixtures']);
    expect(config.fixtures.canonical).toEqual([
      { file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' },
    ]);
    const lock = JSON.parse(readFileSync(repo.path('FIXTURE_LOCK.json'), 'utf8'));
    expect(lock.override_token_env).toBe('FIXTURE_OVERRIDE');
    expect(lock.files['testdata/a.json']).toEqual({ sha256: sha256(INVOICE), owner: 'payments' });
    expect(Object.keys(lock.files)).toEqual(['fixtures/lock.json', 'test/fixtures/b.txt', 'testdata/a.json']);
    expect(readFileSync(repo.path('fixtures/lock.sha256'), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    repo.commit('human: patchgate init');
    const check = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(check.code).toBe(0);
  });

  it("turns the seeds layer on for a seed tape already in the repository, in the seed's own format", async () => {
    const tape = {
      properties: [
        { id: 'adds_up', nodeid: 'tests/test_split.py::test_adds_up', min_examples: 10, seeds: [] },
      ],
    };
    const repo = GitDir.create({ 'testdata/a.txt': 'a', 'property_seeds.json': JSON.stringify(tape) });
    const r = await runCli(['init'], { cwd: repo.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/found property_seeds\.json \(1 property\): the seeds layer replays it/);
    expect(JSON.parse(readFileSync(repo.path('patchgate.config.json'), 'utf8')).seeds).toEqual({
      tape: 'property_seeds.json',
    });
  });

  it('refuses to wire in an invalid seed tape, naming the field', async () => {
    const repo = GitDir.create({
      'testdata/a.txt': 'a',
      'property_seeds.json': JSON.stringify({
        properties: [{ id: 'x', nodeid: 'a::b', min_examples: 0, seeds: [] }],
      }),
    });
    const r = await runCli(['init'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /property_seeds\.json:1:\d+: properties\[0\]\.min_examples: expected at least 1/,
    );
  });

  it.each(['yaml', 'ts'])('writes a %s config that loads', async (format) => {
    const repo = GitDir.create({ 'testdata/a.txt': 'a' });
    expect((await runCli(['init', '--format', format], { cwd: repo.dir })).code).toBe(0);
    repo.commit('init');
    const check = await runCli(['check', '--base', 'main'], { cwd: repo.dir });
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
  });

  it('refuses to overwrite an existing config or lock without --force', async () => {
    const repo = GitDir.create({ 'testdata/a.txt': 'a', 'FIXTURE_LOCK.json': '{}' });
    const r = await runCli(['init'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('FIXTURE_LOCK.json already exist(s); pass --force to overwrite');
    expect(readFileSync(repo.path('FIXTURE_LOCK.json'), 'utf8')).toBe('{}');
    expect((await runCli(['init', '--force'], { cwd: repo.dir })).code).toBe(0);
  });

  it('still stops on a --root that does not exist', async () => {
    const repo = GitDir.create({ 'src/a.ts': 'x' });
    const r = await runCli(['init', '--root', 'tests/artifacts'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--root tests/artifacts does not exist');
    expect(existsSync(repo.path('patchgate.config.json'))).toBe(false);
  });

  it('rejects a bad --format and a --root that escapes the repo', async () => {
    const repo = GitDir.create({ 'testdata/a.txt': 'a' });
    expect((await runCli(['init', '--format', 'toml'], { cwd: repo.dir })).stderr).toContain(
      '--format must be json, yaml or ts',
    );
    expect((await runCli(['init', '--root', '../x'], { cwd: repo.dir })).stderr).toContain(
      "path '../x' must not contain '..'",
    );
  });
});

describe('patchgate lock (the human path)', () => {
  it('rewrites digests, keeps owners, and prints what changed', async () => {
    const repo = GitDir.create({ 'testdata/a.txt': 'a', 'testdata/b.txt': 'b' });
    await runCli(['init', '--owner', 'team-a'], { cwd: repo.dir });
    repo.write({ 'testdata/a.txt': 'A', 'testdata/b.txt': null, 'testdata/c.txt': 'c' });
    const dry = await runCli(['lock', '--dry-run'], { cwd: repo.dir });
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain('nothing written');
    const r = await runCli(['lock', '--owner', 'team-b'], { cwd: repo.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/changed\s+testdata\/a\.txt .*\(owner team-a\)/);
    expect(r.stdout).toMatch(/removed\s+testdata\/b\.txt/);
    expect(r.stdout).toMatch(/added\s+testdata\/c\.txt .*\(owner team-b\)/);
    expect(r.stdout).toContain('commit it on its own');
    const lock = JSON.parse(readFileSync(repo.path('FIXTURE_LOCK.json'), 'utf8'));
    expect(lock.files).toEqual({
      'testdata/a.txt': { sha256: sha256('A'), owner: 'team-a' },
      'testdata/c.txt': { sha256: sha256('c'), owner: 'team-b' },
    });
    const again = await runCli(['lock'], { cwd: repo.dir });
    expect(again.stdout).toContain('is up to date');
  });

  it('fails with the located problem when the existing lock is invalid', async () => {
    const repo = GitDir.create({
      'testdata/a.txt': 'a',
      'patchgate.config.json': '{}',
      'FIXTURE_LOCK.json': '{"files": {}}',
    });
    const r = await runCli(['lock'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('FIXTURE_LOCK.json:1:1: override_token_env: is required');
  });
});

describe('patchgate explain / help / version', () => {
  it('explains a reason code and rejects an unknown one', async () => {
    const dir = GitDir.create().dir;
    const ok = await runCli(['explain', 'fixture_missing'], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('FIXTURE_MISSING');
    expect(ok.stdout).toContain('Always rejects');
    const bad = await runCli(['explain', 'NOPE'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown reason code 'NOPE'");
  });

  it('prints help (exit 0) and usage without a command (exit 2)', async () => {
    const dir = GitDir.create().dir;
    const help = await runCli(['--help'], { cwd: dir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes: 0 accept, 1 reject, 2 bad input or usage, 3 internal error');
    expect((await runCli([], { cwd: dir })).code).toBe(2);
    expect((await runCli(['--version'], { cwd: dir })).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
