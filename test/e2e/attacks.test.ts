/**
 * The head is untrusted code. Each test plays one attack a hostile patch
 * tried against the gate, for real: a temp git repository, the built CLI,
 * head code in the sandbox. Each asserts the verdict and that nothing leaked
 * or survived the run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { processesWith } from '../helpers/fake-harness.js';
import { type GitDir, GitDir as Repo, runCli, tempDir } from '../helpers/gitdir.js';
import { hitsRepo, TS_INVOICE_PROPERTY } from '../helpers/hits-repo.js';
import { readOutJson, readScorecard, type Scorecard } from '../helpers/out.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TOKEN = 'tok-3c1e9d7a-never-leak';
const CI_TOKEN = 'ghp_0123456789abcdefghijklmnopqrstuvwxyz';

async function check(repo: GitDir, args: string[] = [], env: Record<string, string> = {}) {
  const out = tempDir('pg-attack-out-');
  const base = args.includes('--base') ? [] : ['--base', 'main'];
  const r = await runCli(['check', ...base, '--out', out, '--today', '2026-12-01', ...args], {
    cwd: repo.dir,
    env: { FIXTURE_OVERRIDE: TOKEN, GITHUB_TOKEN: CI_TOKEN, ...env },
  });
  // Some attacks end the run before a scorecard; the tests say when that is allowed.
  const card = existsSync(path.join(out, 'scorecard.json')) ? readScorecard(out, r) : undefined;
  return { ...r, out, card, codes: card?.findings.map((f) => f.code) ?? [] };
}

/** Every byte the run left in its out folder, for leak checks. */
function outText(out: string): string {
  const parts: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) parts.push(readFileSync(p, 'utf8'));
    }
  };
  walk(out);
  return parts.join('\n');
}

/** A hits property whose baseline check runs `body` and throws what it found: the finding carries it. */
const probe = (body: string) => `import { defineProperty } from 'patchgate';
import * as fs from 'node:fs';
import * as cp from 'node:child_process';
export default defineProperty<any>({
  name: 'probe',
  fixture: 'fixtures/lock.json',
  claims: ['total_cents'],
  check(fx) {
    if (fx.total_cents !== 1500) return false;
    const found: Record<string, unknown> = {};
    ${body}
    throw new Error('probe:' + JSON.stringify(found));
  },
});
`;

const probeResult = (card: Scorecard | undefined): Record<string, unknown> => {
  const f = card?.findings.find((x) => x.code === 'BASELINE_FAIL' && x.message.includes('probe:'));
  const m = /probe:(\{.*\})/.exec(f?.message ?? '');
  return m ? (JSON.parse(m[1] as string) as Record<string, unknown>) : {};
};

const PROPS = { properties: ['properties/*.ts'], maxDepth: 1 };

describe('attacks on the gate from head code (real sandboxed runs)', { timeout: 120_000 }, () => {
  // One gate run whose probe asks all three questions (who it runs as, what secrets it can read, what
  // of the gate it can reach): each answer is its own test, and a gate run costs a sandbox start.
  describe('one probe run', () => {
    const secrets = `
      found.env = Object.keys(process.env).filter((k) => /TOKEN|OVERRIDE/.test(k));
      for (const p of ['/proc/self/environ', '/proc/' + process.ppid + '/environ', '/proc/1/environ']) {
        try { found[p] = fs.readFileSync(p, 'latin1').split('\\0').filter((v) => /TOKEN|OVERRIDE/.test(v)); }
        catch (e) { found[p] = String((e as Error).message).slice(0, 40); }
      }
      found.procs = fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).length;`;
    const reach = `
      // Its own /tmp, and the gate's temp folder (where the checkouts are) as far as it can see it.
      // Only the base checkouts it sees, not whole listings: the finding's message, which carries the
      // answers, is capped, and the three questions share it.
      found.tmp = [...new Set(['/tmp', ${JSON.stringify(tmpdir())}])].flatMap((d) => { try { return fs.readdirSync(d); } catch { return []; } }).filter((n) => n.startsWith('patchgate-base-'));
      try { fs.writeFileSync('/tmp/../property_seeds.json', '{}'); found.wroteRoot = true; } catch { found.wroteRoot = false; }
      try { found.worktrees = cp.execFileSync('git', ['worktree', 'list'], { encoding: 'utf8' }); } catch (e) { found.worktrees = 'no git'; }`;
    let repo: GitDir;
    let ledgerBefore = '';
    let r: Awaited<ReturnType<typeof check>>;
    let found: Record<string, unknown> = {};
    beforeAll(async () => {
      // The process count first: the reach probe starts a git of its own.
      repo = hitsRepo(PROPS, {
        'properties/p.ts': probe(`${secrets}\nfound.uid = process.getuid?.();\n${reach}`),
      });
      ledgerBefore = readFileSync(repo.path('flake_ledger.json'), 'utf8');
      r = await check(repo);
      found = probeResult(r.card);
    }, 120_000);

    it('runs head code in bubblewrap as another user, and records it', () => {
      expect(r.card?.isolation).toEqual({ mode: 'bwrap', user: 'separate' });
      expect(found.uid).toBe(65534);
    });

    it('a property cannot read the override token or CI tokens: not from its env, /proc/self/environ or its parent', () => {
      expect(found.env).toEqual([]);
      expect(found['/proc/self/environ']).toEqual([]);
      // Its own PID namespace: the gate's processes are not there to read.
      expect(found.procs).toBeLessThanOrEqual(4);
      expect(outText(r.out)).not.toContain(TOKEN);
      expect(outText(r.out)).not.toContain(CI_TOKEN);
    });

    it("head code cannot reach the base's checkout, the out folder or other gates' temp folders to rewrite them", () => {
      expect((found.tmp as string[]).filter((n) => n.startsWith('patchgate-base-'))).toEqual([]);
      expect(found.wroteRoot).toBe(false);
      // Git finds the copy's own repository (one commit of its files) and nothing of the user's.
      expect(found.worktrees).toMatch(/^\/\S*\/patchgate-[a-z]+-\d+-\w{6}\/tree +[0-9a-f]{7,} \[main\]\n$/);
      expect(found.worktrees).not.toContain(repo.dir);
      expect(readFileSync(repo.path('flake_ledger.json'), 'utf8')).toBe(ledgerBefore);
    });
  });

  it.each([
    // Ends its own process: the pool loses the worker mid-task. The base's property runs in the same host
    // program, so the crash is the patch's doing: a rejection, never "could not decide".
    ['process.exit(0)', 'process.exit(0);'],
    ['process.reallyExit', '(process as any).reallyExit(0);'],
    // Its parent is the sandbox's init, which it may not kill: the property throws, which is a rejection.
    ['process.kill of its parent', 'process.kill(process.ppid, "SIGKILL"); process.exit(0);'],
  ])('a property that writes an accept scorecard and ends with %s is rejected, never accepted', async (_n, end) => {
    const body = `
      for (const dir of ['.patchgate/out', '../.patchgate/out']) {
        try { fs.mkdirSync(dir, { recursive: true }); fs.writeFileSync(dir + '/scorecard.json', '{"verdict":"accept"}'); } catch {}
      }
      ${end}`;
    const repo = hitsRepo(PROPS, { 'properties/p.ts': TS_INVOICE_PROPERTY });
    repo.write({
      'properties/p.ts': probe(body).replace("name: 'probe'", "name: 'invoice_total_matches_lines'"),
    });
    const r = await check(repo);
    expect(r.card?.verdict).toBe('reject');
    expect(r.code).toBe(1);
    const codes = r.codes.filter((c) => c !== 'PROPERTY_SET_CHANGED');
    expect(codes.some((c) => c === 'HEAD_RUN_BROKEN' || c === 'BASELINE_FAIL')).toBe(true);
    expect(r.codes).not.toContain('INTERNAL_ERROR');
  });

  it("a property that ends its host is HEAD_RUN_BROKEN where the base's property scores in the same host", async () => {
    const repo = hitsRepo(PROPS, { 'properties/p.ts': TS_INVOICE_PROPERTY });
    repo.write({
      'properties/p.ts': TS_INVOICE_PROPERTY.replace('check(fx) {', 'check(fx) {\n    process.exit(0);'),
    });
    const r = await check(repo);
    expect(r.code).toBe(1);
    const broken = r.card?.findings.find((f) => f.code === 'HEAD_RUN_BROKEN');
    expect(broken?.severity).toBe('reject');
    expect(broken?.evidence).toMatchObject({ property: 'invoice_total_matches_lines', side: 'head' });
  });

  it('a property that ends its host on the base too is BASE_RUN_BROKEN: the gate cannot decide, and says whose it is', async () => {
    const crash = TS_INVOICE_PROPERTY.replace('check(fx) {', 'check(fx) {\n    process.exit(0);');
    const r = await check(hitsRepo(PROPS, { 'properties/p.ts': crash }));
    expect(r.card?.verdict).toBe('error');
    expect(r.code).toBe(2);
    expect(r.card?.findings.find((f) => f.code === 'BASE_RUN_BROKEN')?.evidence).toMatchObject({
      side: 'base',
    });
    expect(r.codes).not.toContain('INTERNAL_ERROR');
  });

  it('a native _exit(0) through process.dlopen of a committed shared object is rejected, never accepted', async () => {
    const dir = tempDir('pg-so-');
    writeFileSync(
      path.join(dir, 'bye.c'),
      '#include <unistd.h>\n__attribute__((constructor)) static void bye(void) { _exit(0); }\n',
    );
    execFileSync('gcc', ['-shared', '-fPIC', '-o', path.join(dir, 'bye.node'), path.join(dir, 'bye.c')]);
    const repo = hitsRepo(PROPS, { 'properties/p.ts': TS_INVOICE_PROPERTY });
    repo.write({
      'properties/p.ts': TS_INVOICE_PROPERTY.replace(
        'check(fx) {',
        "check(fx) {\n    process.dlopen({ exports: {} } as any, new URL('./bye.node', import.meta.url).pathname);",
      ),
      'properties/bye.node': readFileSync(path.join(dir, 'bye.node')),
    });
    const r = await check(repo);
    expect(r.code).toBe(1);
    expect(r.card?.verdict).toBe('reject');
    expect(r.codes).toContain('HEAD_RUN_BROKEN');
  });

  it('a setsid daemon cannot rewrite the out folder after the gate exits: it dies with the sandbox', async () => {
    const marker = `pg-daemon-${Date.now()}`;
    const body = `
      cp.spawn('setsid', ['sh', '-c', 'sleep 2; for d in ${tmpdir()}/pg-attack-out-*; do echo forged > "$d/scorecard.json"; done # ${marker}'], { detached: true, stdio: 'ignore' }).unref();
      found.spawned = true;`;
    const r = await check(hitsRepo(PROPS, { 'properties/p.ts': probe(body) }));
    expect(probeResult(r.card).spawned).toBe(true);
    const card = readFileSync(path.join(r.out, 'scorecard.json'), 'utf8');
    await sleep(3000);
    expect(processesWith(marker)).toEqual([]);
    expect(readFileSync(path.join(r.out, 'scorecard.json'), 'utf8')).toBe(card);
  });

  it("a daemon left by one gate cannot edit a later gate's checkouts", async () => {
    const marker = `pg-lurker-${Date.now()}`;
    const body = `
      cp.spawn('setsid', ['sh', '-c', 'while true; do for f in ${tmpdir()}/patchgate-*/tree/properties/*.ts; do echo "export default 1" > "$f"; done; sleep 0.1; done # ${marker}'], { detached: true, stdio: 'ignore' }).unref();
      found.spawned = true;`;
    await check(hitsRepo(PROPS, { 'properties/p.ts': probe(body) }));
    expect(processesWith(marker)).toEqual([]);
    const clean = await check(hitsRepo(PROPS, { 'properties/p.ts': probe('found.clean = true;') }));
    expect(probeResult(clean.card).clean).toBe(true);
  });

  it('a Python property module that takes over the harness protocol ends in an error, never an accepted score', async () => {
    const hijack = `
import json, os, sys
hello = {"id": 0, "result": {"protocol": "patchgate-harness/2", "language": "python", "implementation": "forged"}}
listing = {"id": 1, "result": {"properties": [{"name": "py_total", "claims": ["total_cents"]}]}}
for fd in (1, 3):
    try:
        os.write(fd, (json.dumps(hello) + "\\n" + json.dumps(listing) + "\\n").encode())
    except OSError:
        pass
os._exit(0)
`;
    const repo = hitsRepo(
      { python: [{ module: 'props.py', fixture: 'fixtures/lock.json' }] },
      { 'props.py': hijack },
    );
    const r = await check(repo);
    expect(r.card?.verdict).toBe('error');
    expect(r.code).not.toBe(0);
  });

  it('the seed replay never runs a fast-check the patch committed (a check that never fails)', async () => {
    const fake = `module.exports = new Proxy({}, { get: (_t, k) => k === 'check' ? () => ({ failed: false, interrupted: false, numRuns: 100000, numSkips: 0, counterexample: null, counterexamplePath: null, errorInstance: null }) : () => ({}) });\n`;
    const property = `import fc from 'fast-check';
import { defineSeedProperty } from 'patchgate';
export const adds = defineSeedProperty({
  id: 'adds_up',
  property: fc.property(fc.nat({ max: 1000 }), fc.integer({ min: 1, max: 12 }), (total, count) =>
    Array.from({ length: count }, () => Math.round(total / count)).reduce((a, b) => a + b, 0) === total),
  params: { numRuns: 200 },
});
`;
    const repo = Repo.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        seeds: { properties: ['props/*.ts'] },
      }),
      'property_seeds.json': JSON.stringify({
        properties: [{ id: 'adds_up', runner: 'fast-check', min_examples: 100, seeds: ['2081211641'] }],
      }),
      'props/adds.ts': property,
    });
    repo.write({
      'node_modules/fast-check/package.json': '{"name":"fast-check","version":"99.0.0","main":"index.js"}',
      'node_modules/fast-check/index.js': fake,
    });
    repo.git('add', '-f', 'node_modules');
    repo.commit('agent: vendor fast-check');
    const r = await check(repo, ['--head', 'HEAD', '--base', 'main~1']);
    expect(r.codes).toContain('SEED_FAILED');
    expect(r.card?.verdict).toBe('reject');
  });

  it("git runs none of the working tree's .git/config: no fsmonitor, hook or clean filter", async () => {
    const repo = hitsRepo(PROPS, { 'properties/p.ts': probe('found.ok = true;') });
    const flag = path.join(tempDir('pg-flag-'), 'ran');
    const script = repo.path('.git/evil.sh');
    writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> ${flag}\ncat\n`, { mode: 0o755 });
    repo.git('config', 'core.fsmonitor', script);
    repo.git('config', 'core.hooksPath', repo.path('.git/myhooks'));
    repo.git('config', 'filter.evil.clean', script);
    repo.git('config', 'filter.evil.smudge', script);
    repo.write({
      '.gitattributes': '* filter=evil\n',
      '.git/myhooks/post-checkout': `#!/bin/sh\necho hook >> ${flag}\n`,
    });
    execFileSync('chmod', ['+x', repo.path('.git/myhooks/post-checkout')]);
    repo.write({ 'src/x.ts': 'export const x = 1;\n' });
    const r = await check(repo);
    expect(r.card).toBeDefined();
    expect(existsSync(flag)).toBe(false);
  });

  it('a test that ignores SIGTERM after starting a daemon is stopped, and nothing it started survives', async () => {
    const marker = `pg-stubborn-${Date.now()}`;
    const repo = Repo.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        tests: { command: ['sh', 'run.sh', '{junit}'], timeoutMs: 1500 },
        signatures: {},
      }),
      'flake_signatures.json': '{"signatures": []}\n',
      'run.sh': `setsid sh -c 'trap "" TERM; while true; do sleep 1; done # ${marker}' &\ntrap '' TERM\nwhile true; do sleep 1; done\n`,
    });
    const r = await check(repo, ['--head', 'HEAD']);
    expect(r.codes).toContain('TESTS_TIMEOUT');
    await sleep(500);
    expect(processesWith(marker)).toEqual([]);
  });

  it('a property that grows past the memory cap is stopped and reported (RESOURCE_LIMIT), never scored', async () => {
    // The base holds an honest property; only the patch's grows. (With the same property on both sides, the
    // base's run would grow too, and which side was stopped first would decide what the gate could say.)
    const repo = hitsRepo(PROPS, { 'properties/p.ts': TS_INVOICE_PROPERTY });
    const config = JSON.parse(readFileSync(repo.path('patchgate.config.json'), 'utf8'));
    config.sandbox = { limits: { memoryMb: 256 } };
    // Only the cap may stop it: on a loaded CI machine a property starved of CPU could still be under the cap
    // when a short deadline comes, and that is a timeout, rightly. (A deadline that meets a tree already over
    // its cap is test/unit/sandbox/deadline-breach.test.ts.)
    config.hits = { ...config.hits, timeoutMs: 120_000 };
    repo.write({ 'patchgate.config.json': JSON.stringify(config) });
    repo.commit('human: a tight memory cap');
    repo.git('checkout', '-q', '-b', 'agent');
    repo
      .write({
        'properties/p.ts': probe('const keep: number[][] = []; for (;;) keep.push(new Array(1e6).fill(1));'),
      })
      .commit('agent: a property that keeps everything');
    const r = await check(repo, ['--head', 'agent']);
    const f = r.card?.findings.find((x) => x.code === 'RESOURCE_LIMIT');
    // What the gate said instead, when it said something else: the failure names it.
    const said = JSON.stringify(r.card?.findings.map((x) => [x.code, x.message.slice(0, 600)]));
    expect(f?.evidence, said).toMatchObject({ limit: 'memory', cap: 256 * 1024 ** 2 });
    expect(f?.message, said).toMatch(
      /^head: property 'probe' used \d+ MiB of resident memory, over the cap of 256 MiB/,
    );
    expect(r.card?.verdict).not.toBe('accept');
  });

  it('a test that rewrites its golden file back to the expected output is reported (CONTRACT_WRITTEN) and judged by the committed bytes', async () => {
    const repo = Repo.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { roots: ['testdata'] },
        tests: { command: ['sh', 'run.sh', '{junit}'] },
        signatures: {},
      }),
      'FIXTURE_LOCK.json': `${JSON.stringify({ override_token_env: 'FIXTURE_OVERRIDE', files: { 'testdata/golden.txt': { sha256: sha('good\n'), owner: 'qa' } } })}\n`,
      'flake_signatures.json': '{"signatures": []}\n',
      'testdata/golden.txt': 'good\n',
      'run.sh': `printf 'good\\n' > testdata/golden.txt\nprintf '<testsuite name="s"><testcase name="t"/></testsuite>' > "$1"\n`,
    });
    repo.write({ 'testdata/golden.txt': 'broken\n' });
    repo.commit('agent: break the golden file');
    const r = await check(repo, ['--head', 'HEAD', '--base', 'main~1']);
    expect(r.codes).toEqual(expect.arrayContaining(['FIXTURE_CHANGED', 'CONTRACT_WRITTEN']));
    expect(r.card?.findings.find((f) => f.code === 'CONTRACT_WRITTEN')?.evidence).toMatchObject({
      path: 'testdata/golden.txt',
      before: sha('broken\n'),
      after: sha('good\n'),
    });
    expect(statSync(repo.path('testdata/golden.txt')).size).toBe('broken\n'.length);
  });

  it('head code that rewrites its copy of the tape and the ledger changes no rule: the snapshot was taken first', async () => {
    // At import, the head's property module empties the tape and the ledger in its own checkout.
    const rewriter = `import * as fs from 'node:fs';
fs.writeFileSync('property_seeds.json', '{"properties": []}');
fs.writeFileSync('flake_ledger.json', '{"version": 1, "rules": []}');
${probe('found.ok = true;').replace("import * as fs from 'node:fs';\n", '')}`;
    const tape = {
      properties: [
        {
          id: 'py_prop',
          runner: 'pytest',
          nodeid: 'tests/test_p.py::test_p',
          min_examples: 10,
          seeds: ['1'],
        },
      ],
    };
    const repo = hitsRepo(
      { properties: ['properties/*.ts'], maxDepth: 1 },
      {
        'properties/p.ts': probe('found.ok = true;'),
        'property_seeds.json': JSON.stringify(tape),
        'tests/test_p.py':
          'from hypothesis import given, settings, strategies as st\n\n@settings(max_examples=10)\n@given(st.integers())\ndef test_p(x):\n    assert x == x\n',
      },
    );
    const config = JSON.parse(readFileSync(repo.path('patchgate.config.json'), 'utf8'));
    config.seeds = {};
    repo.write({ 'patchgate.config.json': JSON.stringify(config) });
    repo.commit('human: seeds on');
    repo.write({ 'properties/p.ts': rewriter });
    const r = await check(repo);
    expect(r.codes).not.toContain('SEED_DROPPED');
    expect(r.codes).not.toContain('CONTRACT_TOUCHED');
    const written = r.card?.findings.filter((f) => f.code === 'CONTRACT_WRITTEN').map((f) => f.evidence.path);
    expect(written).toEqual(expect.arrayContaining(['flake_ledger.json', 'property_seeds.json']));
    // The base's seed still replayed, with the base's rules.
    const replay = readOutJson<{ replays: unknown[] }>(r.out, 'seed_replay.json', r);
    expect(replay.replays).toEqual([
      expect.objectContaining({ property: 'py_prop', seed: '1', status: 'pass' }),
    ]);
  });
});

function sha(s: string): string {
  return execFileSync('sha256sum', { input: s, encoding: 'utf8' }).split(' ')[0] as string;
}
