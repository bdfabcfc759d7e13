import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleFiles } from '../helpers/example-repo.js';
import { lockFor } from '../helpers/fixture-repo.js';
import { type Files, GitDir, runCli, tempDir } from '../helpers/gitdir.js';
import { hitsRepo, TS_INVOICE_PROPERTY } from '../helpers/hits-repo.js';
import { readScorecard } from '../helpers/out.js';
import { pytestReport } from '../helpers/pytest-report.js';
import { repoRoot } from '../helpers/shared.js';

async function judge(repo: GitDir, head?: string) {
  const out = tempDir('pg-claims-out-');
  const r = await runCli(
    ['check', '--base', 'main', ...(head ? ['--head', head] : []), '--out', out, '--today', '2026-12-01'],
    { cwd: repo.dir, env: { FIXTURE_OVERRIDE: undefined } },
  );
  const card = readScorecard(out, r);
  const claims = (() => {
    try {
      return JSON.parse(readFileSync(path.join(out, 'claims.json'), 'utf8')) as {
        claims: { id: string; cells: Record<string, { status: string; why?: string }> }[];
      };
    } catch {
      return undefined;
    }
  })();
  const of = (claim: string) => card.findings.filter((f) => f.evidence.claim === claim);
  return { ...r, card, claims, of, codes: card.findings.map((f) => f.code) };
}

const CALC = 'def add(a, b):\n    return a + b\n';
const TESTS = `from hypothesis import given, settings, strategies as st

from calc import add


def test_add_example():
    assert add(2, 3) == 5


@settings(max_examples=30, database=None)
@given(a=st.integers(), b=st.integers())
def test_add_commutes(a, b):
    assert add(a, b) == add(b, a)
`;
const CASES = '# a b\tsum\n1 2\t3\n2 2\t4\n';
const LEDGER = {
  window_runs: 20,
  entries: {
    add_open: { status: 'open', fails_in_window: 0 },
    add_blocked: { status: 'blocked', fails_in_window: 2, last_fail: '2026-11-20T08:00:00Z' },
  },
};

const claim = (
  id: string,
  cells: Record<string, string>,
  statement = 'add never depends on the order of its arguments',
) =>
  `  - id: ${id}\n    statement: "${statement}"\n${Object.entries(cells)
    .map(([k, v]) => `    ${k}: ${v}\n`)
    .join('')}`;

const BOUND = {
  fixture: 'testdata/cases.tsv',
  property: 'tests/test_calc.py::test_add_commutes',
  freeze: 'freeze/ledger.json#add_open',
};

function claimsRepo(claims: string, extra: Files = {}, config: Record<string, unknown> = {}): GitDir {
  return GitDir.create({
    'patchgate.config.json': JSON.stringify({
      fixtures: { roots: ['testdata'] },
      tests: { preset: 'pytest', env: { PYTHONPATH: 'src' } },
      claims: {},
      ...config,
    }),
    '.gitignore': '.patchgate\n__pycache__\n',
    'FIXTURE_LOCK.json': lockFor({ 'testdata/cases.tsv': CASES }),
    'testdata/cases.tsv': CASES,
    'docs/notes.json': '{"not": "locked"}\n',
    'src/calc.py': CALC,
    'tests/test_calc.py': TESTS,
    'freeze/ledger.json': `${JSON.stringify(LEDGER, null, 2)}\n`,
    'claims/calc.yaml': `patch: "calc"\nclaims:\n${claims}`,
    ...extra,
  });
}

function agent(repo: GitDir, files: Files): GitDir {
  repo.git('checkout', '-q', '-b', 'agent');
  repo.write(files);
  repo.commit('agent');
  return repo;
}

describe('claims layer', () => {
  it('accepts a fully bound matrix: a locked corpus, a Hypothesis test that generated inputs, an open freeze', async () => {
    const repo = agent(claimsRepo(claim('C1', BOUND)), {
      'src/calc.py': 'def add(a, b):\n    total = a + b\n    return total\n',
    });
    const r = await judge(repo, 'agent');
    expect(r.codes).toEqual([]);
    expect(r.card.verdict).toBe('accept');
    expect(r.card.layers.find((l) => l.name === 'claims')?.status).toBe('pass');
    expect(Object.values(r.claims?.claims[0]?.cells ?? {}).map((c) => c.status)).toEqual([
      'bound',
      'bound',
      'bound',
    ]);
  }, 120_000);

  it('reports every unbound cell of the base matrix, each with its code, in one run', async () => {
    const repo = claimsRepo(
      [
        claim('C1', { fixture: 'testdata/cases.tsv', freeze: 'add_open' }),
        claim('C2', { ...BOUND, fixture: 'testdata/gone.tsv' }),
        claim('C3', { ...BOUND, fixture: 'docs/notes.json' }),
        claim('C4', { ...BOUND, fixture: 'testdata/born.tsv' }),
        claim('C5', { ...BOUND, property: 'tests/test_calc.py::test_add_example' }),
        claim('C6', { ...BOUND, property: 'tests/test_new.py::test_prop' }),
        claim('C7', { ...BOUND, property: 'tests/test_calc.py::test_renamed_away' }),
        claim('C8', { ...BOUND, freeze: 'freeze/ledger.json#nowhere' }),
        claim('C9', { ...BOUND, freeze: 'other/ledger.json#add_open' }),
        claim('C10', { ...BOUND, freeze: 'freeze:add_blocked' }),
        claim('C11', BOUND, 'Refunds work'),
        claim('C12', { ...BOUND, property: 'seed:no_tape_here' }),
      ].join(''),
    );
    agent(repo, {
      'testdata/born.tsv': '1 1\t2\n',
      'tests/test_new.py':
        'from hypothesis import given, strategies as st\n\n\n@given(x=st.integers())\ndef test_prop(x):\n    assert True\n',
    });
    const r = await judge(repo, 'agent');
    expect(r.card.verdict).toBe('reject');
    expect(r.of('C1')).toEqual([
      expect.objectContaining({
        code: 'CLAIM_UNBOUND',
        evidence: expect.objectContaining({ cell: 'property', line: 3 }),
      }),
    ]);
    expect(r.of('C2')[0]).toMatchObject({
      code: 'CLAIM_FIXTURE_MISSING',
      message: expect.stringContaining('is not a file on the head'),
    });
    expect(r.of('C3')[0]).toMatchObject({
      code: 'CLAIM_FIXTURE_MISSING',
      message: expect.stringContaining('is not locked'),
    });
    expect(r.of('C4')[0]).toMatchObject({
      code: 'CLAIM_FIXTURE_UNREVIEWED',
      evidence: expect.objectContaining({ base: 'absent' }),
    });
    expect(r.of('C5')[0]).toMatchObject({
      code: 'CLAIM_PROPERTY_MISSING',
      message: expect.stringContaining('is an example test, not a property'),
      evidence: expect.objectContaining({ hypothesis: false }),
    });
    expect(r.of('C6')[0]?.message).toContain('exists only on the head: the patch wrote it');
    expect(r.of('C7')[0]?.message).toContain('did not run in the base');
    expect(r.of('C8')[0]).toMatchObject({
      code: 'CLAIM_FREEZE_MISSING',
      evidence: expect.objectContaining({ freeze: 'nowhere', known: ['add_open', 'add_blocked'] }),
    });
    expect(r.of('C9')[0]).toMatchObject({
      code: 'CLAIM_FREEZE_MISSING',
      message: expect.stringContaining('names the ledger other/ledger.json'),
    });
    expect(r.of('C10')[0]).toMatchObject({
      code: 'FREEZE_BLOCKED',
      evidence: expect.objectContaining({ fails_in_window: 2, last_fail: '2026-11-20T08:00:00Z' }),
    });
    expect(r.of('C11')).toEqual([
      expect.objectContaining({ code: 'CLAIM_STATEMENT_WEAK', severity: 'warn' }),
    ]);
    expect(r.of('C12')[0]?.message).toContain('no seeds layer ran');
    // One finding per broken cell, nothing else about these claims.
    for (const id of ['C2', 'C3', 'C4', 'C5', 'C6', 'C7', 'C8', 'C9', 'C10', 'C12'])
      expect(r.of(id), id).toHaveLength(1);
  }, 120_000);

  it("cannot be unbound by deleting the property test: the base's test still runs on the head's code", async () => {
    const repo = agent(claimsRepo(claim('C1', BOUND)), { 'tests/test_calc.py': null });
    const r = await judge(repo, 'agent');
    expect(r.of('C1')).toEqual([]);
    expect(r.claims?.claims[0]?.cells.property?.status).toBe('bound');
  }, 120_000);

  it("does not fill the cell when the patch breaks the property, whatever the head's own tests say", async () => {
    const repo = agent(claimsRepo(claim('C1', BOUND)), {
      'src/calc.py': 'def add(a, b):\n    return a + b if a <= b else a - b\n',
      'tests/test_calc.py': 'def test_nothing():\n    assert True\n',
    });
    const r = await judge(repo, 'agent');
    expect(r.of('C1')[0]).toMatchObject({
      code: 'CLAIM_PROPERTY_MISSING',
      message: expect.stringContaining('is failed'),
    });
    expect(r.codes).toContain('REGRESSION');
  }, 120_000);

  it('treats a new matrix file in the patch as a contract edit, and shows what its claims would bind', async () => {
    const repo = agent(claimsRepo(claim('C1', BOUND)), {
      'claims/extra.yaml': `patch: "extra"\nclaims:\n${claim('C9', { ...BOUND, property: 'tests/test_calc.py::test_add_example' })}`,
    });
    const r = await judge(repo, 'agent');
    expect(r.card.findings.find((f) => f.code === 'CONTRACT_TOUCHED')?.evidence).toMatchObject({
      path: 'claims/extra.yaml',
      role: 'claims.matrix',
      glob: 'claims/*.yaml',
    });
    expect(r.of('C9')[0]).toMatchObject({
      code: 'CLAIM_PROPERTY_MISSING',
      evidence: expect.objectContaining({ side: 'head' }),
    });
  }, 120_000);

  it('production code that reaches for the census report is PRODUCTION_REACHES_TESTS, and its forgery does not count', async () => {
    const forge = `import json, os

def add(a, b):
    return a + b

_path = os.environ.get("PATCHGATE_CENSUS_REPORT")
if _path:
    with open(_path, "w") as f:
        json.dump({"schema": "patchgate/census@1", "tests": {"tests/test_calc.py::test_add_example": {"hypothesis": True, "examples": 99}}}, f)
`;
    const repo = agent(
      claimsRepo(claim('C1', { ...BOUND, property: 'tests/test_calc.py::test_add_example' })),
      {
        'src/calc.py': forge,
      },
    );
    const r = await judge(repo, 'agent');
    expect(r.codes).toContain('PRODUCTION_REACHES_TESTS');
    expect(r.of('C1')[0]?.evidence).toMatchObject({ hypothesis: false });
  }, 120_000);

  it('with claims.coverage, reports each production hunk no claim covers, with what it adds (TS and Python)', async () => {
    const repo = claimsRepo(
      claim('C1', BOUND).replace('\n', '\n    covers: [src/calc.py#add, src/fmt.ts#label]\n'),
      { 'src/fmt.ts': "export function label(n: number): string {\n  return '#' + n;\n}\n" },
      { claims: { coverage: 'reject' } },
    );
    agent(repo, {
      'src/calc.py':
        'def add(a, b):\n    return b + a\n\n\ndef sub(a, b):\n    if a < b:\n        raise ValueError("negative")\n    return a - b\n',
      'src/fmt.ts':
        "export function label(n: number): string {\n  return '# ' + n;\n}\n\nexport function code(n: number): number {\n  return n > 9 ? 500 : 200;\n}\n",
      'tests/test_calc.py': `${TESTS}\n\ndef test_more():\n    assert add(1, 1) == 2\n`,
    });
    const r = await judge(repo, 'agent');
    const uncovered = r.card.findings.filter((f) => f.code === 'CLAIM_UNCOVERED_CHANGE');
    expect(uncovered.map((f) => [f.evidence.file, f.evidence.symbol, f.severity])).toEqual([
      ['src/calc.py', 'sub', 'reject'],
      ['src/fmt.ts', 'code', 'reject'],
    ]);
    expect(uncovered[0]?.evidence.candidates).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'raise' }),
        expect.objectContaining({ kind: 'return' }),
      ]),
    );
    expect(uncovered[1]?.message).toMatch(/^src\/fmt\.ts:5-6 \(code\) is covered by no claim: adds return/);
  }, 120_000);

  it('claims suggest lists the behaviour a real patch of the example adds, test side left out', async () => {
    const dir = path.join(repoRoot, 'examples/python-invoice');
    const repo = GitDir.create(exampleFiles(dir));
    repo.git('checkout', '-q', '-b', 'agent');
    for (const p of ['05-installments-rounding', '01-benign-with-frozen-flake'])
      repo.git('apply', path.join(dir, 'patches', `${p}.patch`));
    repo.commit('agent');
    const r = await runCli(['claims', 'suggest', '--base', 'main', '--head', 'agent', '--json'], {
      cwd: repo.dir,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        id: 'C1',
        file: 'installments.py',
        line: 15,
        kind: 'return',
        text: 'return [round(total_cents / count)] * count',
        symbol: 'split_installments',
      },
      {
        id: 'C2',
        file: 'invoice.py',
        line: 8,
        kind: 'return',
        text: 'return total',
        symbol: 'compute_total',
      },
      {
        id: 'C3',
        file: 'invoice.py',
        line: 12,
        kind: 'return',
        text: 'return len(invoice["lines"])',
        symbol: 'line_count',
      },
    ]);
    expect(r.stderr).toContain('tests/test_invoice.py');
  }, 60_000);

  it('patchgate record blocks the freeze whose claim property failed in a real pytest run, from the matrix alone', async () => {
    const repo = claimsRepo(claim('C1', { ...BOUND, freeze: 'add_open' }));
    repo.write({ 'src/calc.py': 'def add(a, b):\n    return a + b + (1 if a > b else 0)\n' });
    const junit = path.join(tempDir('pg-record-'), 'junit.xml');
    // The property fails: that is the run being recorded.
    pytestReport(repo, junit);
    const r = await runCli(
      ['record', '--junit', junit, '--run-id', 'main-1', '--at', '2026-12-01T10:00:00Z'],
      {
        cwd: repo.dir,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('add_open: open → blocked');
    const ledger = JSON.parse(readFileSync(path.join(repo.dir, 'freeze/ledger.json'), 'utf8'));
    expect(ledger.entries.add_open).toMatchObject({
      status: 'blocked',
      fails_in_window: 1,
      last_fail: '2026-12-01T10:00:00Z',
      recent: 'F',
    });
    // A later green run never clears it; only a human reopen does.
    repo.write({ 'src/calc.py': CALC });
    pytestReport(repo, junit);
    await runCli(['record', '--junit', junit, '--run-id', 'main-2', '--at', '2026-12-02T10:00:00Z'], {
      cwd: repo.dir,
    });
    expect(
      JSON.parse(readFileSync(path.join(repo.dir, 'freeze/ledger.json'), 'utf8')).entries.add_open,
    ).toMatchObject({
      status: 'blocked',
      recent: 'FP',
    });
    const reopen = await runCli(
      ['freeze', 'reopen', 'add_open', '--reason', 'fixed the order bug', '--owner', 'hana'],
      {
        cwd: repo.dir,
      },
    );
    expect(reopen.code, reopen.stderr).toBe(0);
    expect(
      JSON.parse(readFileSync(path.join(repo.dir, 'freeze/ledger.json'), 'utf8')).entries.add_open,
    ).toMatchObject({
      status: 'open',
      fails_in_window: 0,
      reopened: { owner: 'hana', reason: 'fixed the order bug' },
    });
  }, 60_000);

  it('fills no cell it cannot check: fixtures layer off, no tests section, a path outside the repo; statements can reject', async () => {
    const repo = GitDir.create({
      'patchgate.config.json': JSON.stringify({
        fixtures: { enabled: false },
        claims: { statements: 'reject' },
      }),
      'freeze/ledger.json':
        '{"window_runs": 20, "entries": {"f": {"status": "open", "fails_in_window": 0}}}\n',
      'testdata/a.json': '{}\n',
      'claims/a.yaml': `patch: "p"\nclaims:\n${[
        claim(
          'C1',
          { fixture: 'testdata/a.json', property: 'tests/test_x.py::test_p', freeze: 'f' },
          'Refunds work',
        ),
        claim('C2', { fixture: '../outside.json', property: 'tests/test_x.py::test_p', freeze: 'f' }),
      ].join('')}`,
    });
    const r = await judge(repo);
    expect(r.card.verdict).toBe('reject');
    const c1 = r.of('C1');
    expect(c1.find((f) => f.code === 'CLAIM_FIXTURE_MISSING')?.message).toContain(
      'the fixtures layer is off',
    );
    expect(c1.find((f) => f.code === 'CLAIM_PROPERTY_MISSING')?.message).toContain(
      'the config has no tests section',
    );
    expect(c1.find((f) => f.code === 'CLAIM_STATEMENT_WEAK')?.severity).toBe('reject');
    expect(r.of('C2').find((f) => f.code === 'CLAIM_FIXTURE_MISSING')?.evidence).toMatchObject({
      fixture: '../outside.json',
    });
  }, 60_000);

  it('says CLAIMS_EMPTY when the base has no matrix file, and when its files hold no claim', async () => {
    const none = GitDir.create({
      'patchgate.config.json': JSON.stringify({ fixtures: { enabled: false }, claims: {} }),
      'freeze/ledger.json': '{"window_runs": 20, "entries": {}}\n',
    });
    const a = await judge(none);
    expect(a.card.findings).toEqual([
      expect.objectContaining({
        code: 'CLAIMS_EMPTY',
        message: expect.stringContaining('no file in the base matches claims/*.yaml'),
      }),
    ]);
    none.write({ 'claims/a.yaml': 'patch: "p"\nclaims: []\n' }).commit('empty matrix');
    const b = await judge(none);
    expect(b.card.findings[0]).toMatchObject({
      code: 'CLAIMS_EMPTY',
      evidence: expect.objectContaining({ files: ['claims/a.yaml'] }),
    });
  }, 60_000);

  it('stops with exit 2 on claim ids reused across matrix files, naming both files', async () => {
    const one = `patch: "p"\nclaims:\n${claim('C1', BOUND)}`;
    const repo = GitDir.create({
      'patchgate.config.json': JSON.stringify({ fixtures: { enabled: false }, claims: {} }),
      'freeze/ledger.json': '{"window_runs": 20, "entries": {}}\n',
      'claims/a.yaml': one,
      'claims/b.yaml': one,
    });
    const r = await judge(repo);
    expect(r.code).toBe(2);
    expect(r.card.verdict).toBe('error');
    const f = r.card.findings.find((x) => x.layer === 'claims');
    expect(f?.code).toBe('CONFIG_INVALID');
    expect(f?.message).toContain('claims/b.yaml');
    expect(f?.message).toContain("claim id 'C1' is already used in claims/a.yaml");
  }, 60_000);

  it('fills property cells from the hits layer only with a property that has hits (zero hits: no failure mode)', async () => {
    const neverFails = `import { defineProperty } from 'patchgate';
export default defineProperty({
  name: 'never_fails',
  fixture: 'fixtures/lock.json',
  claims: ['total_cents'],
  check() {},
});
`;
    const repo = hitsRepo(
      { properties: ['properties/*.ts'] },
      {
        'properties/invoice.ts': TS_INVOICE_PROPERTY,
        'properties/never.ts': neverFails,
        'patchgate.config.json': JSON.stringify({
          fixtures: {
            roots: ['fixtures'],
            canonical: [{ file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' }],
          },
          hits: { ledger: 'flake_ledger.json', properties: ['properties/*.ts'] },
          claims: {},
        }),
        'freeze/ledger.json':
          '{"window_runs": 20, "entries": {"inv": {"status": "open", "fails_in_window": 0}}}\n',
        'claims/inv.yaml': `patch: "p"\nclaims:\n${[
          claim(
            'C1',
            { fixture: 'fixtures/lock.json', property: 'hits:invoice_total_matches_lines', freeze: 'inv' },
            'the total always equals the sum of the lines',
          ),
          claim(
            'C2',
            { fixture: 'fixtures/lock.json', property: 'never_fails', freeze: 'inv' },
            'the total is never negative',
          ),
        ].join('')}`,
      },
    );
    const r = await judge(repo);
    expect(r.of('C1')).toEqual([]);
    expect(r.of('C2')).toEqual([
      expect.objectContaining({
        code: 'CLAIM_PROPERTY_MISSING',
        message: expect.stringContaining('has zero hits'),
        evidence: expect.objectContaining({ kind: 'hits', name: 'never_fails', hits: 0 }),
      }),
    ]);
  }, 120_000);
});
