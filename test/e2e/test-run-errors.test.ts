import { describe, expect, it } from 'vitest';
import { type Files, GitDir, runCli } from '../helpers/gitdir.js';
import { defaultOut, readScorecard } from '../helpers/out.js';

/**
 * A repository whose tests are a shell script run through the generic preset:
 * each case scripts the failure mode it names, so the finding's code and
 * evidence are pinned without a real runner's noise.
 */
function scriptedRepo(script: string, tests: Record<string, unknown> = {}, extra: Files = {}): GitDir {
  return GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { enabled: false },
      tests: { command: ['sh', 'run.sh', '{junit}', '{tests}'], timeoutMs: 5000, ...tests },
      signatures: {},
      stability: { runs: 2 },
    }),
    'flake_signatures.json': '{"signatures": []}\n',
    'stability_freeze.json': '{"freezes": []}\n',
    'run.sh': script,
    ...extra,
  });
}

const REPORT = (cases: string) => `<?xml version="1.0"?><testsuite name="s" tests="1">${cases}</testsuite>`;

async function judge(repo: GitDir, args: string[] = []) {
  const r = await runCli(['check', '--base', 'main', '--head', 'HEAD', '--today', '2026-12-01', ...args], {
    cwd: repo.dir,
  });
  const card = readScorecard(defaultOut(repo.dir), r);
  return { ...r, card, error: card.findings.find((f) => f.severity === 'error') };
}

describe('test runs that give no evidence get their own codes (verdict error, exit 2)', () => {
  it('a run that times out is TESTS_TIMEOUT with the last lines it wrote', async () => {
    const repo = scriptedRepo('echo "warming up the cache" >&2\nsleep 30\n', { timeoutMs: 1000 });
    const r = await judge(repo);
    expect(r.code).toBe(2);
    expect(r.error).toMatchObject({ code: 'TESTS_TIMEOUT', layer: 'signatures' });
    expect(r.error?.evidence.output).toContain('warming up the cache');
  });

  it('a run that writes no report is TESTS_NO_REPORT', async () => {
    const r = await judge(scriptedRepo('echo "boom" >&2\nexit 3\n'));
    expect(r.code).toBe(2);
    expect(r.error).toMatchObject({ code: 'TESTS_NO_REPORT' });
    expect(r.error?.evidence.output).toContain('boom');
  });

  it('a hostile report (a DOCTYPE) is JUNIT_INVALID, not CONFIG_INVALID', async () => {
    const script = `cat > "$1" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>
<testsuite name="s"><testcase name="t">&e;</testcase></testsuite>
EOF
`;
    const r = await judge(scriptedRepo(script));
    expect(r.code).toBe(2);
    expect(r.error).toMatchObject({ code: 'JUNIT_INVALID' });
    expect(r.error?.message).toMatch(/DOCTYPE/);
  });

  it("a failed tests.setup is SETUP_FAILED showing npm's own error line, not its usage text", async () => {
    const report = `printf '%s' '${REPORT('<testcase name="t"/>')}' > "$1"\n`;
    const repo = scriptedRepo(report, { setup: ['npm', 'ci', '--no-audit', '--no-fund'] });
    const r = await judge(repo);
    expect(r.code).toBe(2);
    expect(r.error).toMatchObject({ code: 'SETUP_FAILED' });
    expect(r.error?.message).toContain('can only install with an existing package-lock.json');
  });

  it('a base rerun the runner refuses (usage error, nothing ran) is TESTS_RUN_FAILED with its stderr, never NEW_FLAKE', async () => {
    // Full runs: a test that flips between runs. Subset runs (on the base): the runner's usage error.
    const script = `if [ -n "$2" ]; then
  printf '%s' '${REPORT('')}' > "$1"
  echo "ERROR: file or directory not found: $2" >&2
  exit 4
fi
n=$(cat .count 2>/dev/null || echo 0); echo $((n + 1)) > .count
if [ $((n % 2)) -eq 0 ]; then body='<failure message="flip"/>'; else body=''; fi
printf '%s' "<?xml version=\\"1.0\\"?><testsuite name=\\"s\\"><testcase classname=\\"c\\" name=\\"flips\\" file=\\"run.sh\\">$body</testcase></testsuite>" > "$1"
`;
    const repo = scriptedRepo(script, {}, { '.gitignore': '.count\n.patchgate\n' });
    // A patch for the probe to judge; the generic runner cannot select files, so it reruns everything.
    repo.git('checkout', '-q', '-b', 'agent');
    repo.write({ 'notes.txt': 'a change\n' });
    repo.commit('agent: a change');
    const r = await judge(repo, ['--all-layers']);
    expect(r.code).toBe(2);
    expect(r.card.findings.map((f) => f.code)).not.toContain('NEW_FLAKE');
    // The signatures layer's reruns meet the refusal first; the stability layer's would too.
    expect(r.error).toMatchObject({ code: 'TESTS_RUN_FAILED', layer: 'signatures' });
    expect(r.error?.evidence.output).toContain('ERROR: file or directory not found');
  });
});

describe('timings', () => {
  it('account for the whole run: installs are setup time, not the time of the layer that needed them', async () => {
    const report = `printf '%s' '${REPORT('<testcase name="t"/>')}' > "$1"\n`;
    const repo = scriptedRepo(report, { setup: ['sh', '-c', 'sleep 1'] });
    const r = await judge(repo);
    expect(r.code).toBe(0);
    type Timings = { totalMs: number; revisionsMs: number; setupMs: number; cleanupMs: number };
    const t = (r.card as unknown as { timings: Timings & { layers: Record<string, number> } }).timings;
    // The head's worktree ran the setup; nothing asked for a base run.
    expect(t.setupMs).toBeGreaterThanOrEqual(1000);
    expect(t.layers.signatures ?? Number.POSITIVE_INFINITY).toBeLessThan(t.setupMs);
    const parts =
      t.revisionsMs + t.setupMs + t.cleanupMs + Object.values(t.layers).reduce((a, b) => a + b, 0);
    expect(parts).toBeLessThanOrEqual(t.totalMs + 2);
    // What the parts leave out is bookkeeping between phases, never a phase of its own.
    expect(t.totalMs - parts).toBeLessThan(2000);
  });
});
