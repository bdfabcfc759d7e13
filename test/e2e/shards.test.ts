/**
 * A sharded check as CI runs one: `check --shard I/N` in each job of a
 * matrix (real pytest runs in the real sandbox), then `merge` of their
 * parts. That the merge gives the bytes one check gives is pinned on the
 * bundled examples (test/e2e/demo.test.ts); here: which shard runs what,
 * what a merge refuses, and the run history.
 */
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashOwner } from '../../src/shard/plan.js';
import { calcRepo } from '../helpers/calc-repo.js';
import { type CliResult, type GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { hitsRepo, TS_INVOICE_PROPERTY } from '../helpers/hits-repo.js';
import { pytestReport } from '../helpers/pytest-report.js';

interface Card {
  verdict: string;
  errorKind?: string;
  findings: { code: string; severity: string; message: string; evidence: Record<string, unknown> }[];
  layers: { name: string; status: string; note?: string }[];
  shard?: { index: number; total: number; plan: { by: string }; testFiles: number };
  shards?: {
    total: number;
    plan: { by: string; files: number };
    parts: { index: number; testFiles: number }[];
  };
}

interface Part {
  shard: { index: number; total: number; plan: { by: string; digest: string }; testFiles: string[] };
  run: { head: { commit: string } };
}

const TODAY = ['--today', '2026-12-01'];
const read = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** Four test files; the patch breaks what one of them checks (the signatures layer judges the failure). */
function shardedRepo(): GitDir {
  const test = (name: string, body: string) =>
    `from calc import add, mul\n\n\ndef test_${name}():\n    ${body}\n`;
  const repo = calcRepo({
    files: {
      'src/calc.py': 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n',
      'tests/test_add.py': test('add', 'assert add(2, 2) == 4'),
      'tests/test_mul.py': test('mul', 'assert mul(2, 3) == 6'),
      'tests/test_zero.py': test('zero', 'assert add(0, 0) == 0'),
      'tests/test_one.py': test('one', 'assert mul(1, 7) == 7'),
    },
  });
  repo.git('checkout', '-q', '-b', 'agent');
  repo.write({
    'src/calc.py': 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b + (a == 2)\n',
  });
  repo.commit('agent: mul is off by one');
  return repo;
}

const shardArgs = (out: string, spec: string, more: string[] = []) => [
  'check',
  '--base',
  'main',
  '--head',
  'agent',
  '--out',
  out,
  '--shard',
  spec,
  '--quiet',
  ...TODAY,
  ...more,
];

let repo: GitDir;
const outs: string[] = [];
const runs: CliResult[] = [];
beforeAll(async () => {
  repo = shardedRepo();
  for (const i of [1, 2]) {
    const out = tempDir('pg-shard-');
    outs.push(out);
    runs.push(await runCli(shardArgs(out, `${i}/2`), { cwd: repo.dir }));
  }
}, 120_000);

const merge = (args: string[], cwd = repo.dir) => runCli(['merge', ...args, '--quiet'], { cwd });

describe('check --shard I/N', () => {
  it('runs each test file on exactly one shard, each exiting with the verdict of its own share', () => {
    const parts = outs.map((o) => read<Part>(path.join(o, 'part.json')));
    const files = parts.flatMap((p) => p.shard.testFiles).sort();
    expect(files).toEqual([
      'tests/test_add.py',
      'tests/test_mul.py',
      'tests/test_one.py',
      'tests/test_zero.py',
    ]);
    expect(parts.map((p) => p.shard.testFiles.length)).toEqual([2, 2]);
    expect(new Set(parts.map((p) => p.shard.plan.digest)).size).toBe(1);
    expect(parts.every((p) => p.shard.plan.by === 'count')).toBe(true);
    // The broken test is judged where its file ran, and only there.
    const owner = parts.findIndex((p) => p.shard.testFiles.includes('tests/test_mul.py'));
    const cards = outs.map((o) => read<Card>(path.join(o, 'scorecard.json')));
    expect(cards[owner]?.findings.map((f) => [f.code, f.evidence.test])).toEqual([
      ['UNKNOWN_FAILURE_SIGNATURE', 'pytest::tests.test_mul::test_mul'],
    ]);
    expect(runs[owner]?.code).toBe(1);
    expect(cards[1 - owner]?.findings.filter((f) => f.severity !== 'warn')).toEqual([]);
    expect(runs[1 - owner]?.code).toBe(0);
    expect(cards.map((c) => c.shard?.index)).toEqual([1, 2]);
    expect(readFileSync(path.join(outs[0] as string, 'summary.md'), 'utf8')).toContain(
      '**Partial: shard 1 of 2**',
    );
    // A shard's logs sit where the merged folder keeps them.
    expect(
      existsSync(path.join(outs[owner] as string, 'tests', `shard-${owner + 1}`, 'head-run-1.junit.xml')),
    ).toBe(true);
  });

  it('a shard that owns no test file runs no test (never the whole suite) and still does the whole-repository checks', async () => {
    const out = tempDir('pg-shard-empty-');
    const r = await runCli(shardArgs(out, '5/5'), { cwd: repo.dir });
    expect(r.code).toBe(0);
    const part = read<Part>(path.join(out, 'part.json'));
    expect(part.shard.testFiles).toEqual([]);
    expect(existsSync(path.join(out, 'tests', 'shard-5', 'head-run-1.junit.xml'))).toBe(false);
    const card = read<Card>(path.join(out, 'scorecard.json'));
    expect(card.layers.find((l) => l.name === 'contracts')?.status).toBe('pass');
    expect(card.findings.filter((f) => f.severity !== 'warn')).toEqual([]);
  });

  it.each([
    ['3/2', /--shard 3\/2: the index must be 1 to 2/],
    ['two', /--shard takes INDEX\/TOTAL/],
  ])('refuses --shard %s as a usage error (exit 2), running nothing', async (spec, why) => {
    const out = tempDir('pg-shard-bad-');
    const r = await runCli(shardArgs(out, spec), { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(why);
    expect(existsSync(path.join(out, 'scorecard.json'))).toBe(false);
  });

  it('refuses --ci-run on a shard: the merged run carries it', async () => {
    const r = await runCli(shardArgs(tempDir('pg-shard-bad-'), '1/2', ['--history', '--ci-run', '42']), {
      cwd: repo.dir,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('give it to `patchgate merge --history`');
  });
});

describe('patchgate merge', () => {
  it("gives the run's verdict from both parts, in any order: the failure, and the shards it was made of", async () => {
    const out = tempDir('pg-merged-');
    const r = await merge([outs[1] as string, path.join(outs[0] as string, 'part.json'), '--out', out]);
    expect(r.code).toBe(1);
    const card = read<Card>(path.join(out, 'scorecard.json'));
    expect(card.verdict).toBe('reject');
    expect(card.findings.filter((f) => f.severity !== 'warn').map((f) => [f.code, f.evidence.test])).toEqual([
      ['UNKNOWN_FAILURE_SIGNATURE', 'pytest::tests.test_mul::test_mul'],
    ]);
    expect(card.shard).toBeUndefined();
    expect(card.shards).toMatchObject({ total: 2, plan: { by: 'count', files: 4 } });
    expect(card.shards?.parts.map((p) => [p.index, p.testFiles])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    for (const f of ['summary.md', 'report.html', 'overlay.json'])
      expect(existsSync(path.join(out, f)), f).toBe(true);
    // Each shard's logs, side by side.
    expect(existsSync(path.join(out, 'tests/shard-1/head-run-1.junit.xml'))).toBe(true);
    expect(existsSync(path.join(out, 'tests/shard-2/head-run-1.junit.xml'))).toBe(true);
  });

  it('is an error naming the missing shard when one part is not given (exit 2)', async () => {
    const out = tempDir('pg-merged-');
    const r = await merge([outs[0] as string, '--out', out]);
    expect(r.code).toBe(2);
    const card = read<Card>(path.join(out, 'scorecard.json'));
    expect(card.verdict).toBe('error');
    expect(card.findings.map((f) => [f.code, f.evidence.shard])).toEqual([['SHARD_MISSING', 2]]);
    expect(card.layers.every((l) => l.status === 'skipped')).toBe(true);
  });

  it('is an error naming both copies when a shard is given twice', async () => {
    const copy = tempDir('pg-shard-copy-');
    cpSync(outs[0] as string, copy, { recursive: true });
    const out = tempDir('pg-merged-');
    const r = await merge([outs[0] as string, copy, outs[1] as string, '--out', out]);
    expect(r.code).toBe(2);
    const dup = read<Card>(path.join(out, 'scorecard.json')).findings.find(
      (f) => f.code === 'SHARD_DUPLICATE',
    );
    expect(dup?.evidence.shard).toBe(1);
    expect(dup?.evidence.files).toHaveLength(2);
  });

  it("leaves out and names a part of another run (a stale artifact of the patch's previous head)", async () => {
    const stale = tempDir('pg-shard-stale-');
    cpSync(outs[1] as string, stale, { recursive: true });
    const file = path.join(stale, 'part.json');
    const part = read<Part & Record<string, unknown>>(file);
    part.run.head.commit = repo.git('rev-parse', 'main');
    writeFileSync(file, JSON.stringify(part));
    const out = tempDir('pg-merged-');
    const r = await merge([outs[0] as string, stale, '--out', out]);
    expect(r.code).toBe(2);
    const card = read<Card>(path.join(out, 'scorecard.json'));
    expect(card.findings.map((f) => f.code).sort()).toEqual(['SHARD_FOREIGN', 'SHARD_MISSING']);
    expect(card.findings.find((f) => f.code === 'SHARD_FOREIGN')?.evidence).toMatchObject({
      field: 'head commit',
    });
  });

  it('refuses a file that is no part as bad input, naming the file and what is wrong', async () => {
    const r = await merge([path.join(outs[0] as string, 'scorecard.json'), '--out', tempDir('pg-merged-')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/scorecard\.json: not a shard part patchgate patchgate\/shard-part@1 can merge/);
    expect(r.stderr).toMatch(/schema/);
    const missing = await merge([path.join(repo.dir, 'nowhere'), '--out', tempDir('pg-merged-')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file or folder');
    const noPart = await merge([tempDir('pg-not-a-shard-'), '--out', tempDir('pg-merged-')]);
    expect(noPart.code).toBe(2);
    expect(noPart.stderr).toMatch(/part\.json: cannot read it .*writes DIR\/part\.json/);
    const ciRun = await merge([
      outs[0] as string,
      outs[1] as string,
      '--ci-run',
      '7',
      '--out',
      tempDir('pg-merged-'),
    ]);
    expect(ciRun.code).toBe(2);
    expect(ciRun.stderr).toContain('merge: --ci-run is kept with the run in the history: it needs --history');
  });

  it("refuses to write into a part's own folder, which it would empty first", async () => {
    const r = await merge([outs[0] as string, outs[1] as string, '--out', outs[0] as string]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is where the part');
    expect(existsSync(path.join(outs[0] as string, 'part.json'))).toBe(true);
  });
});

describe('shards and the run history', () => {
  it('balances by recorded durations once the history has them; shards read it and never write it; merge --history writes one run', async () => {
    const hist = shardedRepo();
    // A main-branch run before the base was committed, as CI records one: real pytest's JUnit, with times.
    hist.git('checkout', '-q', 'main');
    const junit = pytestReport(hist);
    // Before the base commit's date (the test repositories commit on 2026-01-01): what every shard reads.
    const at = '2025-12-31T12:00:00Z';
    expect(
      (await runCli(['record', '--junit', junit, '--history', '--at', at], { cwd: hist.dir })).code,
    ).toBe(0);
    hist.git('checkout', '-q', 'agent');
    const db = path.join(hist.dir, '.patchgate/history.sqlite');
    const count = async () => {
      const { default: Database } = await import('better-sqlite3');
      const d = new Database(db, { readonly: true });
      try {
        return d.prepare('SELECT COUNT(*) AS n FROM patchgate_runs').get() as { n: number };
      } finally {
        d.close();
      }
    };
    expect(await count()).toEqual({ n: 1 });

    const parts = [tempDir('pg-shard-h-'), tempDir('pg-shard-h-')];
    for (const [i, out] of parts.entries())
      await runCli(shardArgs(out, `${i + 1}/2`, ['--history']), { cwd: hist.dir });
    for (const out of parts) {
      const part = read<Part>(path.join(out, 'part.json'));
      expect(part.shard.plan.by).toBe('duration');
    }
    expect(await count()).toEqual({ n: 1 });

    const out = tempDir('pg-merged-');
    const r = await runCli(['merge', ...parts, '--out', out, '--history', '--ci-run', 'gh-7'], {
      cwd: hist.dir,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/run 2 written to the run history/);
    const { default: Database } = await import('better-sqlite3');
    const d = new Database(db, { readonly: true });
    try {
      const run = d
        .prepare('SELECT kind, verdict, shard_index, shard_count, ci_run FROM patchgate_runs WHERE id = 2')
        .get();
      expect(run).toEqual({
        kind: 'check',
        verdict: 'reject',
        shard_index: null,
        shard_count: 2,
        ci_run: 'gh-7',
      });
      // Every shard's suite runs: the head's outcomes of all four files (the patch left the tests alone).
      const head = d
        .prepare("SELECT test_id FROM patchgate_tests WHERE run_id = 2 AND side = 'head' ORDER BY test_id")
        .all();
      expect(head).toHaveLength(4);
      const layout = d
        .prepare("SELECT content FROM patchgate_artifacts WHERE run_id = 2 AND name = 'shards.json'")
        .get() as { content: string };
      expect(JSON.parse(layout.content)).toMatchObject({ total: 2, plan: { by: 'duration', files: 4 } });
    } finally {
      d.close();
    }

    // The suite runs sit beside each part, named with their digest: one edited (a flaky failure made a pass, say)
    // or gone is bad input naming the file, and nothing is written to the history.
    const runsFile = path.join(parts[1] as string, 'part-tests.json');
    expect(read<{ file: string; sha256: string }>(path.join(parts[1] as string, 'part.json'))).toMatchObject({
      testRuns: { file: 'part-tests.json', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const runs = readFileSync(runsFile, 'utf8');
    writeFileSync(runsFile, runs.replace('"status":"passed"', '"status":"failed"'));
    expect(readFileSync(runsFile, 'utf8')).not.toBe(runs);
    const edited = await runCli(['merge', ...parts, '--out', tempDir('pg-merged-'), '--history'], {
      cwd: hist.dir,
    });
    expect(edited.code).toBe(2);
    expect(edited.stderr).toMatch(
      /part-tests\.json: its sha256 is [0-9a-f]{64}, but the part names [0-9a-f]{64}/,
    );
    rmSync(runsFile);
    const gone = await runCli(['merge', ...parts, '--out', tempDir('pg-merged-'), '--history'], {
      cwd: hist.dir,
    });
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/part-tests\.json: cannot read it .* names it as its suite runs/);
    // A part that names no suite runs at all cannot give merge --history what it records.
    const partFile = path.join(parts[1] as string, 'part.json');
    const { testRuns: _named, ...unnamed } = read<Record<string, unknown>>(partFile);
    writeFileSync(partFile, JSON.stringify(unnamed));
    const none = await runCli(['merge', ...parts, '--out', tempDir('pg-merged-'), '--history'], {
      cwd: hist.dir,
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/part\.json: names no suite runs, which merge --history records/);
    // Without --history the suite runs are never read: the merge stands on the parts alone.
    expect((await runCli(['merge', ...parts, '--out', tempDir('pg-merged-')], { cwd: hist.dir })).code).toBe(
      1,
    );
    expect(await count()).toEqual({ n: 2 });
  });
});

describe('attacks on a sharded run', () => {
  it('a property moved to a module another shard loads, and weakened there, is never accepted', async () => {
    // The base's property lives in properties/total.ts; the patch moves it, made to never fail, to a module that
    // the plan hands to the other shard, so neither shard sees both sides of it.
    const other = Array.from({ length: 50 }, (_, i) => `properties/moved_${i}.ts`).find(
      (m) =>
        hashOwner(`property-module\u241f${m}`, 2) !==
        hashOwner('property-module\u241fproperties/total.ts', 2),
    ) as string;
    const repo = hitsRepo(
      { properties: ['properties/**/*.ts'] },
      { 'properties/total.ts': TS_INVOICE_PROPERTY },
    );
    repo.git('checkout', '-q', '-b', 'agent');
    const weakened = TS_INVOICE_PROPERTY.replace(/check\(fx\) \{[\s\S]*?\n {2}\},/, 'check(_fx) {},');
    expect(weakened).not.toBe(TS_INVOICE_PROPERTY);
    repo.write({ 'properties/total.ts': null, [other]: weakened }).commit('agent: tidy the properties');
    const parts = [tempDir('pg-shard-a-'), tempDir('pg-shard-b-')];
    for (const [i, out] of parts.entries()) await runCli(shardArgs(out, `${i + 1}/2`), { cwd: repo.dir });
    const out = tempDir('pg-merged-');
    const r = await merge([...parts, '--out', out]);
    expect(r.code).not.toBe(0);
    const card = read<Card>(path.join(out, 'scorecard.json'));
    expect(card.verdict).toBe('error');
    const split = card.findings.find((f) => f.code === 'SHARD_DISAGREEMENT');
    expect(split?.evidence.property).toBe('invoice_total_matches_lines');
    expect(split?.message).toContain(`${other} on the head`);
    // Each shard alone saw half of it: the base's copy gone (a rejection), the head's copy new.
    const codes = card.findings.map((f) => f.code);
    expect(codes).toContain('PROPERTY_SET_CHANGED');
  }, 120_000);
});
