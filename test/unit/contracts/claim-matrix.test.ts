import { describe, expect, it } from 'vitest';
import { ContractSnapshot } from '../../../src/config/contract-snapshot.js';
import { parseClaimMatrix, readClaimMatrixFiles } from '../../../src/contracts/claim-matrix.js';
import { ContractFileError } from '../../../src/errors.js';

const SEED_MATRIX = `# claims/refund-service.yaml
patch: "refund-cap-agent-diff"
claims:
  - id: C1
    statement: "refund amount never exceeds captured amount"
    fixture: tests/fixtures/refund_cap.json
    property: tests/properties/test_refund_properties.py::test_prop_refund_cap
    freeze: freeze/ledger.json#refund_cap
  - id: C2
    statement: "upstream timeout maps to 504, never 200"
    fixture: tests/fixtures/timeout_504.json
    property: tests/properties/test_refund_properties.py::test_prop_timeout_status
    freeze: freeze/ledger.json#timeout_status
`;

function problemsOf(texts: { file: string; text: string }[]) {
  try {
    parseClaimMatrix(texts);
  } catch (err) {
    if (err instanceof ContractFileError) return err.problems;
    throw err;
  }
  throw new Error('expected the matrix to be rejected');
}

describe('parseClaimMatrix', () => {
  it("reads the seed's matrix format, with each claim's line", () => {
    const m = parseClaimMatrix([{ file: 'claims/refund.yaml', text: SEED_MATRIX }]);
    expect(m.files).toEqual([{ file: 'claims/refund.yaml', patch: 'refund-cap-agent-diff', claims: 2 }]);
    expect(m.claims[0]).toMatchObject({
      id: 'C1',
      fixture: 'tests/fixtures/refund_cap.json',
      freeze: 'freeze/ledger.json#refund_cap',
      source: { file: 'claims/refund.yaml', index: 0, line: 4 },
    });
    expect(m.claims[1]?.source.line).toBe(9);
  });

  it('keeps an empty, null or missing cell as an empty cell, for CLAIM_UNBOUND (not a parse error)', () => {
    const m = parseClaimMatrix([
      {
        file: 'claims/a.yaml',
        text: 'patch: p\nclaims:\n  - id: C1\n    statement: "x never exceeds y"\n    fixture: ""\n    property: null\n',
      },
    ]);
    expect(m.claims[0]?.fixture).toBeUndefined();
    expect(m.claims[0]?.property).toBeUndefined();
    expect(m.claims[0]?.freeze).toBeUndefined();
  });

  it('reads an empty document and an empty claims list as a matrix with no claims', () => {
    const m = parseClaimMatrix([
      { file: 'claims/a.yaml', text: '' },
      { file: 'claims/b.yaml', text: 'patch: p\nclaims: []\n' },
    ]);
    expect(m.claims).toEqual([]);
    expect(m.files.map((f) => f.claims)).toEqual([0, 0]);
  });

  it('reports a YAML error with its line and column', () => {
    const [p] = problemsOf([
      { file: 'claims/a.yaml', text: 'patch: p\nclaims:\n  - id: C1\n   statement: [unclosed\n' },
    ]);
    expect(p).toMatchObject({ file: 'claims/a.yaml', line: expect.any(Number), column: expect.any(Number) });
    expect(p?.message).toMatch(/^is not valid YAML/);
  });

  it('rejects a duplicate claim id in one file, located at the second', () => {
    const text =
      'patch: p\nclaims:\n  - id: C1\n    statement: a never b\n  - id: C1\n    statement: c never d\n';
    const problems = problemsOf([{ file: 'claims/a.yaml', text }]);
    expect(problems).toEqual([
      expect.objectContaining({
        file: 'claims/a.yaml',
        path: 'claims[1].id',
        line: 5,
        message: expect.stringContaining("claim id 'C1' is already used earlier in this file (line 3)"),
      }),
    ]);
  });

  it('rejects an id reused across matrix files, naming the first file', () => {
    const one = 'patch: p\nclaims:\n  - id: C7\n    statement: a never b\n';
    const problems = problemsOf([
      { file: 'claims/b.yaml', text: one },
      { file: 'claims/a.yaml', text: one },
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'claims/b.yaml' });
    expect(problems[0]?.message).toContain('already used in claims/a.yaml');
  });

  it('reports every problem of every file at once, with schema errors as sentences', () => {
    const problems = problemsOf([
      { file: 'claims/a.yaml', text: 'patch: p\nclaims:\n  - id: C1\n    statment: typo\n' },
      { file: 'claims/b.yaml', text: 'claims:\n  - id: "1bad"\n    statement: "   "\n' },
    ]);
    const files = problems.map((p) => `${p.file} ${p.path}`);
    expect(files).toEqual(
      expect.arrayContaining([
        'claims/a.yaml claims[0].statement',
        'claims/b.yaml patch',
        'claims/b.yaml claims[0].id',
        'claims/b.yaml claims[0].statement',
      ]),
    );
    expect(problems.some((p) => p.file === 'claims/a.yaml' && /statment/.test(p.message))).toBe(true);
  });

  it('holds a matrix file to the YAML cap, since YAML cannot be parsed in slices', () => {
    const problems = problemsOf([
      { file: 'claims/big.yaml', text: `patch: p\n#${'x'.repeat(300 * 1024)}\n` },
    ]);
    expect(problems[0]?.message).toMatch(/a claim matrix is at most 262144 bytes/);
  });
});

describe('readClaimMatrixFiles', () => {
  const files = {
    'claims/a.yaml': 'patch: p\nclaims:\n  - id: C1\n    statement: totals never exceed 100\n',
    'claims/b.yaml': `patch: p\nclaims:\n  - id: C2\n    statement: ${'x'.repeat(200)}\n`,
  };

  it('throws a file it cannot read, as the claims layer needs (the gate cannot judge without it)', async () => {
    const root = ContractSnapshot.of('the base revision', files);
    await expect(
      readClaimMatrixFiles(root, ['claims/a.yaml', 'claims/b.yaml'], 'the base revision', 150),
    ).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
  });

  it('makes an unreadable file one more problem when asked, and still reports the others (validate)', async () => {
    const root = ContractSnapshot.of('the working tree', {
      ...files,
      'claims/c.yaml': 'patch: p\nclaims:\n  - id: C1\n    statement: reused\n',
    });
    const read = await readClaimMatrixFiles(
      root,
      ['claims/c.yaml', 'claims/b.yaml', 'claims/a.yaml'],
      'the working tree',
      150,
      (err, file) => ({ file, path: '', message: err.code }),
    );
    expect(read.value).toBeUndefined();
    expect(read.problems.map((p) => `${p.file} ${p.path}: ${p.message}`)).toEqual([
      'claims/b.yaml : FILE_TOO_LARGE',
      "claims/c.yaml claims[0].id: claim id 'C1' is already used in claims/a.yaml (line 3); a claim id names one claim, never reused",
    ]);
    expect([...read.failed].sort()).toEqual(['claims/b.yaml', 'claims/c.yaml']);
  });
});
