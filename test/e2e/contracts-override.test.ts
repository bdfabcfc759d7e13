import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureRepo } from '../helpers/fixture-repo.js';
import { runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';

async function judge(dir: string, env: Record<string, string | undefined>) {
  const out = tempDir('pg-contracts-out-');
  const r = await runCli(['check', '--base', 'main', '--head', 'agent', '--out', out], { cwd: dir, env });
  return { ...r, card: readScorecard(out, r), out };
}

describe('CONTRACT_TOUCHED and its human override', () => {
  /** A maintainer's commit that edits a CI workflow (temp folders live for one test). */
  const workflowEdit = () => {
    const repo = fixtureRepo({ '.github/workflows/ci.yml': 'on: push\n' });
    repo.git('checkout', '-q', '-b', 'agent');
    repo
      .write({ '.github/workflows/ci.yml': 'on: [push, pull_request]\n' })
      .commit('maintainer: run CI on PRs');
    return repo;
  };
  const TOKEN = 'maintainer-job-secret-7f3a';

  it('rejects a commit touching a CI workflow and names the override a human job can give', async () => {
    const r = await judge(workflowEdit().dir, { PATCHGATE_CONTRACTS_OVERRIDE: undefined });
    expect(r.code).toBe(1);
    expect(r.card.findings[0]).toMatchObject({
      code: 'CONTRACT_TOUCHED',
      severity: 'reject',
      evidence: expect.objectContaining({
        path: '.github/workflows/ci.yml',
        override: 'PATCHGATE_CONTRACTS_OVERRIDE',
      }),
    });
    expect(r.card.findings[0]?.message).toContain(
      'a human job accepts by setting PATCHGATE_CONTRACTS_OVERRIDE',
    );
  }, 60_000);

  it('accepts it in a human job that sets the token: a warning, listed in overrides, the token never written', async () => {
    const r = await judge(workflowEdit().dir, { PATCHGATE_CONTRACTS_OVERRIDE: TOKEN });
    expect(r.code).toBe(0);
    expect(r.card.verdict).toBe('accept');
    expect(r.card.findings.map((f) => [f.code, f.severity])).toEqual([['CONTRACT_TOUCHED', 'warn']]);
    expect(r.card.overrides).toEqual([
      {
        layer: 'contracts',
        code: 'CONTRACT_TOUCHED',
        path: '.github/workflows/ci.yml',
        variable: 'PATCHGATE_CONTRACTS_OVERRIDE',
      },
    ]);
    for (const name of ['scorecard.json', 'summary.md'])
      expect(readFileSync(path.join(r.out, name), 'utf8')).not.toContain(TOKEN);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  }, 60_000);

  it('does not take whitespace for a token', async () => {
    const r = await judge(workflowEdit().dir, { PATCHGATE_CONTRACTS_OVERRIDE: '  ' });
    expect(r.code).toBe(1);
  }, 60_000);
});
