import { describe, expect, it } from 'vitest';
import { fixtureRepo } from '../helpers/fixture-repo.js';
import { runCli } from '../helpers/gitdir.js';

describe('patchgate check --reporter github (built CLI)', () => {
  it('annotates each finding that points at a repository file, with the workflow-command escaping', async () => {
    const repo = fixtureRepo({ '.github/workflows/ci,nightly:v1.yml': 'on: push\n' });
    repo.write({
      'testdata/invoice_v3.json': '{"total_cents": 1499}\n',
      'testdata/new.json': '{}\n',
      '.github/workflows/ci,nightly:v1.yml': 'on: [push, pull_request]\n',
    });
    const r = await runCli(['check', '--base', 'main', '--reporter', 'github'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    // Annotations only: no table, no report paths.
    expect(lines.every((l) => l.startsWith('::'))).toBe(true);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^::error file=\.github\/workflows\/ci%2Cnightly%3Av1\.yml,title=CONTRACT_TOUCHED::the patch modified \.github\/workflows\/ci,nightly:v1\.yml, a human-owned contract path/,
    );
    expect(lines[1]).toMatch(
      /^::error file=testdata\/invoice_v3\.json,title=FIXTURE_CHANGED::locked fixture testdata\/invoice_v3\.json \(owner payments\) changed/,
    );
    expect(lines[2]).toBe(
      '::warning file=testdata/new.json,title=FIXTURE_ADDED::new fixture testdata/new.json is not in FIXTURE_LOCK.json; recorded, not a pass: lock it with `patchgate lock` in a human commit',
    );
  });

  it('prints the annotations before the table when combined with the terminal reporter, and none on accept', async () => {
    const repo = fixtureRepo();
    repo.write({ 'testdata/new.json': '{}\n' });
    const r = await runCli(['check', '--base', 'main', '--reporter', 'github', '--reporter', 'terminal'], {
      cwd: repo.dir,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^::warning file=testdata\/new\.json,title=FIXTURE_ADDED::/);
    expect(lines[1]).toMatch(/^patchgate ACCEPT/);
    const clean = fixtureRepo();
    const quiet = await runCli(['check', '--base', 'main', '--reporter', 'github'], { cwd: clean.dir });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('');
  });

  it('is a usage error for an unknown reporter, pointing at check --help', async () => {
    const r = await runCli(['check', '--base', 'main', '--reporter', 'junit'], { cwd: fixtureRepo().dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown --reporter 'junit'");
    expect(r.stderr.trimEnd().endsWith('see patchgate check --help')).toBe(true);
  });
});
