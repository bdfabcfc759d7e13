/**
 * action.yml is code too: its shape is checked, and its two scripts run here
 * with bash against a real repository, as the runner would run them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fixtureRepo } from '../helpers/fixture-repo.js';
import { tempDir } from '../helpers/gitdir.js';
import { repoRoot } from '../helpers/shared.js';

interface Step {
  name: string;
  id?: string;
  if?: string;
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
  env?: Record<string, string>;
}
const action = parse(readFileSync(path.join(repoRoot, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { description?: string; default?: string }>;
  outputs: Record<string, { description?: string; value?: string }>;
  runs: { using: string; steps: Step[] };
};
const step = (id: string) => {
  const s = action.runs.steps.find((x) => x.id === id || x.name === id);
  if (!s) throw new Error(`no step ${id}`);
  return s;
};

/** Runs a step's script with bash, its `env:` given literally (the `${{ }}` values are what a test supplies). */
function runStep(s: Step, cwd: string, env: Record<string, string>) {
  const output = path.join(tempDir('pg-action-'), 'output');
  writeFileSync(output, '');
  const r = spawnSync('bash', ['-e', '-c', s.run ?? ''], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_OUTPUT: output, NO_COLOR: '1', ...env },
    encoding: 'utf8',
  });
  const outputs = Object.fromEntries(
    readFileSync(output, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return { ...r, outputs };
}

describe('action.yml (composite GitHub Action)', () => {
  it('documents every input and output, checks out the whole history and uploads the reports even on failure', () => {
    expect(action.runs.using).toBe('composite');
    for (const [name, input] of Object.entries(action.inputs)) expect(input.description, name).toBeTruthy();
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['verdict', 'scorecard', 'report']));
    for (const [name, out] of Object.entries(action.outputs)) expect(out.description, name).toBeTruthy();
    expect(step('Check out with history')).toMatchObject({
      uses: 'actions/checkout@v4',
      with: { 'fetch-depth': 0 },
    });
    expect(step('Upload the reports')).toMatchObject({ if: 'always()', uses: 'actions/upload-artifact@v4' });
  });

  it('never pastes an expression into a shell script (a branch name or input cannot become a command)', () => {
    for (const s of action.runs.steps) if (s.run) expect(s.run, s.name).not.toContain('${{');
  });

  it('runs the gate on the pull request base and reports verdict, exit code and scorecard path', () => {
    const repo = fixtureRepo();
    repo.git('checkout', '-q', '-b', 'agent');
    repo.write({ 'testdata/invoice_v3.json': '{"rewritten": true}\n' }).commit('agent: rewrite golden');
    const base = repo.git('rev-parse', 'main');
    const r = runStep(step('check'), repo.dir, {
      PG_CLI: path.join(repoRoot, 'dist/cli/bin.js'),
      PG_BASE: '',
      PG_PR_BASE: base,
      PG_DEFAULT_BRANCH: 'main',
      PG_HEAD: 'HEAD',
      PG_OUT: '.patchgate/out',
      PG_ARGS: '--all-layers',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.outputs).toMatchObject({
      verdict: 'reject',
      'exit-code': '1',
      scorecard: path.join(repo.dir, '.patchgate/out/scorecard.json'),
    });
    expect(r.stdout).toMatch(/^::error file=testdata\/invoice_v3\.json/m);
    expect(JSON.parse(readFileSync(r.outputs.scorecard as string, 'utf8')).base.commit).toBe(base);
  }, 60_000);

  it('runs one shard of a sharded check with `shard`, and merges the downloaded parts with `merge`', () => {
    const repo = fixtureRepo();
    repo.git('checkout', '-q', '-b', 'agent');
    repo.write({ 'testdata/invoice_v3.json': '{"rewritten": true}\n' }).commit('agent: rewrite golden');
    const env = (over: Record<string, string>) => ({
      PG_CLI: path.join(repoRoot, 'dist/cli/bin.js'),
      PG_BASE: repo.git('rev-parse', 'main'),
      PG_HEAD: 'HEAD',
      PG_ARGS: '',
      PG_SHARD: '',
      PG_MERGE: '',
      PG_PARTS: '.patchgate/parts',
      ...over,
    });
    // Each shard job uploads its out folder; the merge job's download-artifact puts each in a folder of its own.
    for (const i of [1, 2]) {
      const r = runStep(
        step('check'),
        repo.dir,
        env({ PG_SHARD: `${i}/2`, PG_OUT: `.patchgate/parts/patchgate-part-${i}` }),
      );
      expect(r.status, r.stderr).toBe(0);
      // The whole-repository checks run on every shard: each shard's verdict already rejects.
      expect(r.outputs).toMatchObject({ verdict: 'reject', 'exit-code': '1' });
    }
    const merged = runStep(
      step('check'),
      repo.dir,
      env({ PG_MERGE: 'patchgate-part-*', PG_OUT: '.patchgate/out' }),
    );
    expect(merged.outputs).toMatchObject({ verdict: 'reject', 'exit-code': '1' });
    const card = JSON.parse(readFileSync(path.join(repo.dir, '.patchgate/out/scorecard.json'), 'utf8'));
    expect(card.shards.total).toBe(2);
    expect(card.findings.map((f: { code: string }) => f.code)).toContain('FIXTURE_CHANGED');
    // No artifact downloaded is an error, never a pass.
    const none = runStep(
      step('check'),
      tempDir('pg-action-empty-'),
      env({ PG_MERGE: 'patchgate-part-*', PG_OUT: 'out' }),
    );
    expect(none.outputs).toMatchObject({ verdict: 'error', 'exit-code': '2' });
    expect(none.stderr).toContain("no artifact matching 'patchgate-part-*' was downloaded");
    expect(step("Download the shards' parts")).toMatchObject({
      if: "inputs.merge != ''",
      uses: 'actions/download-artifact@v4',
    });
  }, 90_000);

  it('fails the job on reject and on error, passes on accept, and on reject only when asked to', () => {
    const fail = step('Fail on reject');
    const dir = tempDir('pg-action-');
    const code = (VERDICT: string, CODE: string, FAIL_ON_REJECT = 'true') =>
      runStep(fail, dir, { VERDICT, CODE, FAIL_ON_REJECT }).status;
    expect(code('accept', '0')).toBe(0);
    expect(code('reject', '1')).toBe(1);
    expect(code('reject', '1', 'false')).toBe(0);
    expect(code('error', '2', 'false')).toBe(2);
    // No verdict at all (the check step never wrote one) is never a pass.
    expect(code('', '')).toBe(3);
  });
});

// The action's own scripts need bash; fail loudly if the machine has none rather than skip.
execFileSync('bash', ['--version'], { stdio: 'ignore' });
