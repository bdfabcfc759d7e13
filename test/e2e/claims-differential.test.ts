/**
 * The seed's claim scorer (`../shared/reference/seed003/score_claims.py`)
 * against ours, on the same matrix and ledger. Where we agree, the finding
 * names the same claim and cause; where we differ it is on purpose, and each
 * difference is pinned here with the reason.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClaimMatrix } from '../../src/contracts/claim-matrix.js';
import { ContractFileError } from '../../src/errors.js';
import { parseClaimLedger } from '../../src/freeze/claim-ledger.js';
import { lockFor } from '../helpers/fixture-repo.js';
import { GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { readScorecard } from '../helpers/out.js';
import { pythonEnv, sharedFile } from '../helpers/shared.js';

/** Runs the seed's scorer: its exit code and what it printed (a crash is a traceback on stderr). */
function seedScore(cwd: string, matrix: string, ledger: string, extra: string[] = []) {
  // Looked up in the test, outside the try below: without the shared folder the test skips (outside CI) or fails.
  const scorer = sharedFile('reference', 'seed003', 'score_claims.py');
  const m = path.join(cwd, '.seed-matrix.yaml');
  const l = path.join(cwd, '.seed-ledger.json');
  writeFileSync(m, matrix);
  writeFileSync(l, ledger);
  try {
    const out = execFileSync('/usr/bin/python3', [scorer, '--matrix', m, '--ledger', l, ...extra], {
      cwd,
      env: pythonEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, out, err: '' };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { code: err.status, out: err.stdout, err: err.stderr };
  }
}

const TESTS = `from hypothesis import given, settings, strategies as st

@settings(max_examples=10, database=None)
@given(x=st.integers())
def test_prop(x):
    assert x + 0 == x
`;
const CASES = '1\t1\n';
const LEDGER = JSON.stringify({
  window_runs: 20,
  entries: {
    open_one: { status: 'open', fails_in_window: 0 },
    stuck: { status: 'blocked', fails_in_window: 3, last_fail: '2026-09-12T21:14:00Z' },
  },
});

type Cells = { fixture?: string; property?: string; freeze?: string };
const FULL: Cells = {
  fixture: 'testdata/cases.tsv',
  property: 'tests/test_p.py::test_prop',
  freeze: 'freeze/ledger.json#open_one',
};

/** Each case is one claim; the seed scores it alone, we score all of them in one gate run. */
const CASES_BY_ID: Record<string, { cells: Cells; seed: RegExp | 'ok' | 'crash'; ours: string | 'bound' }> = {
  // Agreements.
  A1: { cells: FULL, seed: 'ok', ours: 'bound' },
  A2: { cells: { ...FULL, property: undefined }, seed: /A2: missing property/, ours: 'CLAIM_UNBOUND' },
  A3: {
    cells: { ...FULL, fixture: 'testdata/gone.tsv' },
    seed: /A3: fixture not on disk/,
    ours: 'CLAIM_FIXTURE_MISSING',
  },
  A4: {
    cells: { ...FULL, freeze: 'freeze/ledger.json#nowhere' },
    seed: /absent from ledger/,
    ours: 'CLAIM_FREEZE_MISSING',
  },
  A5: {
    cells: { ...FULL, freeze: 'freeze/ledger.json#stuck' },
    seed: /A5: freeze 'stuck' is blocked/,
    ours: 'FREEZE_BLOCKED',
  },
  // Differences on purpose.
  // The seed crashes on a missing fixture or freeze cell (claim["fixture"] raises KeyError; a null one
  // reaches Path(None) or None.rsplit): one bad row stops the scorer before it reports the others.
  D1: { cells: { ...FULL, fixture: undefined }, seed: 'crash', ours: 'CLAIM_UNBOUND' },
  D2: { cells: { ...FULL, freeze: undefined }, seed: 'crash', ours: 'CLAIM_UNBOUND' },
  // The seed only asks that the fixture exists; one the patch dumped is no evidence.
  D3: { cells: { ...FULL, fixture: 'testdata/born.tsv' }, seed: 'ok', ours: 'CLAIM_FIXTURE_UNREVIEWED' },
  // The seed never looks at the property cell at all.
  D4: {
    cells: { ...FULL, property: 'tests/test_p.py::test_nowhere' },
    seed: 'ok',
    ours: 'CLAIM_PROPERTY_MISSING',
  },
  // The seed's own table writes `freeze:refund_cap`; its scorer looks that whole string up as the id.
  D5: {
    cells: { ...FULL, freeze: 'freeze:open_one' },
    seed: /'freeze:open_one' absent from ledger/,
    ours: 'bound',
  },
  // The seed drops the path before `#`, so a cell naming another ledger is looked up in this one.
  D6: { cells: { ...FULL, freeze: 'other/ledger.json#open_one' }, seed: 'ok', ours: 'CLAIM_FREEZE_MISSING' },
};

const yamlClaim = (id: string, c: Cells) =>
  `  - id: ${id}\n    statement: "x never exceeds y"\n${(['fixture', 'property', 'freeze'] as const)
    .filter((k) => c[k] !== undefined)
    .map((k) => `    ${k}: ${c[k]}\n`)
    .join('')}`;

describe("the seed's score_claims.py as an oracle", () => {
  it('agrees on bound claims, empty property cells, missing fixtures, absent and blocked freezes; differs on purpose elsewhere', async () => {
    const files: Record<string, string> = {
      'patchgate.config.json': JSON.stringify({
        fixtures: { roots: ['testdata'] },
        tests: { preset: 'pytest' },
        claims: { statements: 'off' },
      }),
      '.gitignore': '.patchgate\n__pycache__\n.seed-*\n',
      'FIXTURE_LOCK.json': lockFor({ 'testdata/cases.tsv': CASES }),
      'testdata/cases.tsv': CASES,
      'tests/test_p.py': TESTS,
      'freeze/ledger.json': LEDGER,
    };
    for (const [id, c] of Object.entries(CASES_BY_ID))
      files[`claims/${id}.yaml`] = `patch: "p"\nclaims:\n${yamlClaim(id, c.cells)}`;
    const repo = GitDir.create(files);
    repo.git('checkout', '-q', '-b', 'agent');
    repo.write({ 'testdata/born.tsv': '2\t2\n' }).commit('agent');

    const out = tempDir('pg-claims-diff-');
    await runCli(['check', '--base', 'main', '--head', 'agent', '--out', out], { cwd: repo.dir });
    const card = readScorecard(out);
    const ours = (id: string) =>
      card.findings.filter((f) => f.layer === 'claims' && f.evidence.claim === id).map((f) => f.code);

    for (const [id, c] of Object.entries(CASES_BY_ID)) {
      const seed = seedScore(
        repo.dir,
        readFileSync(path.join(repo.dir, `claims/${id}.yaml`), 'utf8'),
        LEDGER,
      );
      if (c.seed === 'ok')
        expect(seed, id).toMatchObject({ code: 0, out: expect.stringContaining('CLAIM MATRIX OK') });
      else if (c.seed === 'crash') {
        expect(seed.code, id).toBe(1);
        expect(seed.err, id).toMatch(/Traceback[\s\S]*(KeyError|TypeError|AttributeError)/);
      } else {
        expect(seed.code, id).toBe(1);
        expect(seed.out, id).toMatch(c.seed);
      }
      expect(ours(id), id).toEqual(c.ours === 'bound' ? [] : [c.ours]);
    }
  }, 180_000);

  it('agrees that a matrix with zero claims fails (CLAIMS_EMPTY); we also read an empty file as empty instead of crashing', () => {
    const dir = tempDir('pg-claims-diff-');
    for (const text of ['patch: "p"\nclaims: []\n', 'patch: "p"\n']) {
      expect(seedScore(dir, text, LEDGER)).toMatchObject({
        code: 1,
        err: expect.stringContaining('matrix has zero claims'),
      });
      expect(parseClaimMatrix([{ file: 'claims/a.yaml', text }]).claims).toEqual([]);
    }
  });

  it('differs on purpose on duplicate ids and a malformed ledger: the seed passes both, we refuse them', () => {
    const dir = tempDir('pg-claims-diff-');
    const dup = `patch: "p"\nclaims:\n${yamlClaim('C1', FULL)}${yamlClaim('C1', FULL)}`;
    writeFileSync(path.join(dir, 'cases.tsv'), CASES);
    const full = { ...FULL, fixture: 'cases.tsv' };
    expect(seedScore(dir, dup.replaceAll('testdata/cases.tsv', 'cases.tsv'), LEDGER).code).toBe(0);
    expect(() => parseClaimMatrix([{ file: 'claims/a.yaml', text: dup }])).toThrow(
      /already used earlier in this file/,
    );
    // "Blocked" is not "blocked" to the seed, so a mistyped status reads as open; a ledger without entries makes
    // every freeze "absent" instead of saying the file is wrong.
    const typo = JSON.stringify({
      window_runs: 20,
      entries: { open_one: { status: 'Blocked', fails_in_window: 1 } },
    });
    expect(seedScore(dir, `patch: "p"\nclaims:\n${yamlClaim('C1', full)}`, typo).code).toBe(0);
    expect(() => parseClaimLedger(typo, 'freeze/ledger.json')).toThrow(ContractFileError);
    expect(() => parseClaimLedger('{"window_runs": 20}', 'freeze/ledger.json')).toThrow(ContractFileError);
  });

  it("rejects the seed's own CI recipe: its scorer has no --junit flag, so the documented command exits 2", () => {
    const dir = tempDir('pg-claims-diff-');
    const r = seedScore(dir, `patch: "p"\nclaims:\n${yamlClaim('C1', FULL)}`, LEDGER, [
      '--junit',
      'build/junit.xml',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unrecognized arguments: --junit');
  });
});
