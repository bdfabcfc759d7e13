import { createReadStream, statSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../helpers/fixture-repo.js';
import { GitDir, runCli } from '../helpers/gitdir.js';
import { defaultOut, type Finding, readOutJson, readOutText, readScorecard } from '../helpers/out.js';

const KEEP = '{"kept": true}\n';

/**
 * A repository whose FIXTURE_LOCK.json names `missing` files that are not
 * there (a patch deleted them; here they never were, which the gate cannot
 * tell apart) and one that is. The lock is written as `patchgate lock`
 * writes it: sorted paths, two-space indent.
 */
function lockedRepo(missing: number): GitDir {
  const digest = 'a'.repeat(64);
  const rows: string[] = [];
  for (let i = 0; i < missing; i++) {
    const p = `testdata/d${String(i % 1000).padStart(3, '0')}/f${String(i).padStart(7, '0')}.json`;
    rows.push(`    ${JSON.stringify(p)}: {\n      "sha256": "${digest}",\n      "owner": "payments"\n    }`);
  }
  rows.sort();
  rows.push(
    `    "testdata/keep.json": {\n      "sha256": "${sha256(KEEP)}",\n      "owner": "payments"\n    }`,
  );
  const repo = GitDir.create({
    'patchgate.config.json': `${JSON.stringify({ fixtures: { roots: ['testdata'] } }, null, 2)}\n`,
    'testdata/keep.json': KEEP,
  });
  writeFileSync(
    repo.path('FIXTURE_LOCK.json'),
    `{\n  "override_token_env": "FIXTURE_OVERRIDE",\n  "files": {\n${rows.join(',\n')}\n  }\n}\n`,
  );
  repo.commit('lock');
  return repo;
}

async function check(repo: GitDir) {
  const r = await runCli(['check', '--base', 'main', '--head', 'HEAD'], { cwd: repo.dir });
  return { ...r, card: readScorecard(defaultOut(repo.dir), r) };
}

/** The artifact's lines, read as a stream: the whole list may be hundreds of MB. */
async function artifactLines(
  file: string,
): Promise<{ count: number; first: string; last: string; header: string }> {
  let count = 0;
  let header = '';
  let first = '';
  let last = '';
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (header === '') header = line;
    else if (line.startsWith('{"code"')) {
      if (first === '') first = line;
      last = line;
      count++;
    }
  }
  return { count, first, last, header };
}

describe('big inputs never crash (built CLI, real git repos)', () => {
  it('lists 1000 missing fixtures one by one, and aggregates 1001 into one finding with the full list as an artifact', async () => {
    const few = await check(lockedRepo(1000));
    expect(few.code).toBe(1);
    expect(few.card.findings.filter((f) => f.code === 'FIXTURE_MISSING')).toHaveLength(1000);

    const repo = lockedRepo(1001);
    const r = await check(repo);
    expect(r.code).toBe(1);
    expect(r.card.verdict).toBe('reject');
    const missing = r.card.findings.filter((f) => f.code === 'FIXTURE_MISSING');
    expect(missing).toHaveLength(1);
    const one = missing[0] as Finding;
    expect(one.evidence).toMatchObject({
      aggregated: 1001,
      artifact: 'findings.fixtures.FIXTURE_MISSING.json',
      path: 'testdata/d000/f0000000.json',
      severities: { reject: 1001 },
    });
    expect(r.card.layers.find((l) => l.name === 'fixtures')).toMatchObject({
      status: 'reject',
      findings: 1001,
    });
    const listed = readOutJson<{ count: number; findings: Finding[] }>(
      defaultOut(repo.dir),
      'findings.fixtures.FIXTURE_MISSING.json',
    );
    expect(listed.count).toBe(1001);
    expect(listed.findings).toHaveLength(1001);
    expect(listed.findings[1000]?.evidence.path).toBe('testdata/d999/f0000999.json');
    expect(r.stdout).toContain('1001 FIXTURE_MISSING findings in the fixtures layer');
    expect(readOutText(defaultOut(repo.dir), 'summary.md')).toContain('FIXTURE_MISSING ×1001');
  });

  // Past about 120,000 elements V8 throws `Maximum call stack size exceeded` on a spread into a call
  // (findings.push(...layerFindings) did, at exit 3 with no scorecard); twice that crosses it with a
  // margin, at a quarter of a million-entry lock's cost. The million and its time bound are
  // bench:big-inputs' (bench/README.md).
  const BIG = 250_000;
  it(
    'rejects a lock of 250,000 missing fixtures (past where an array spread into a call overflows the stack) with one FIXTURE_MISSING, a scorecard and the full list (exit 1)',
    { timeout: 300_000 },
    async () => {
      const repo = lockedRepo(BIG);
      const r = await check(repo);
      expect(r.stderr).not.toContain('Maximum call stack size exceeded');
      expect(r.code, r.stderr).toBe(1);
      expect(r.card.verdict).toBe('reject');
      expect(r.card.findings.map((f) => f.code)).toEqual(['FIXTURE_MISSING']);
      expect(r.card.findings[0]?.evidence).toMatchObject({
        aggregated: BIG,
        artifact: 'findings.fixtures.FIXTURE_MISSING.json',
      });
      expect(r.card.layers.find((l) => l.name === 'fixtures')?.findings).toBe(BIG);
      // The reports stay small; the list is in the artifact, one finding a line.
      for (const name of ['scorecard.json', 'summary.md', 'report.html'])
        expect(statSync(repo.path(`.patchgate/out/${name}`)).size).toBeLessThan(64 * 1024);
      expect(r.stdout.length).toBeLessThan(16 * 1024);
      const lines = await artifactLines(repo.path('.patchgate/out/findings.fixtures.FIXTURE_MISSING.json'));
      expect(JSON.parse(`${lines.header}]}`)).toMatchObject({ code: 'FIXTURE_MISSING', count: BIG });
      expect(lines.count).toBe(BIG);
      expect(JSON.parse(lines.first.replace(/,$/, '')).evidence.path).toBe('testdata/d000/f0000000.json');
      expect(JSON.parse(lines.last).evidence.path).toBe('testdata/d999/f0249999.json');
    },
  );
});
