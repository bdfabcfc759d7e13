import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTRACT_BYTES } from '../../../src/config/contract-file.js';
import { InputError } from '../../../src/errors.js';
import {
  deletedRows,
  formatSignatureFreeze,
  matchFailure,
  missingFields,
  parseSignatureFreeze,
  readSignatureFreeze,
  rowStatus,
  rowsMatching,
  type SignatureFreeze,
  type SignatureRow,
  signatureRowToFreeze,
} from '../../../src/freeze/signature-freeze.js';
import type { SignatureScheme } from '../../../src/signatures/normalize.js';
import { failureSignature } from '../../../src/signatures/signature.js';
import { tempDir } from '../../helpers/gitdir.js';
import { rejectionOf } from '../../helpers/problems.js';

const FILE = 'flake_signatures.json';
const TODAY = '2026-09-20';

const KIND = 'AssertionError';
const MSG = 'timeout after 1.5s talking to 127.0.0.1:54321 (attempt 3)';

function row(
  over: Partial<SignatureRow> = {},
  failure: { kind?: string; message?: string; scheme?: SignatureScheme } = {},
): SignatureRow {
  const kind = failure.kind ?? KIND;
  const scheme = failure.scheme ?? 'patchgate';
  const sig = failureSignature(kind, failure.message ?? MSG, scheme);
  return {
    sha256: sig.sha256,
    template: sig.template,
    kind,
    scheme,
    owner: 'maintainer',
    reason: 'provider sandbox is slow on Mondays',
    expires: '2026-10-04',
    action: 'mock the provider clock',
    example_test: 'tests/test_provider.py::test_timeout_on_slow_provider',
    ...over,
  };
}

const freezeOf = (...rows: SignatureRow[]): SignatureFreeze =>
  parseSignatureFreeze(formatSignatureFreeze({ rows }), FILE);

const problems = (text: string) =>
  rejectionOf(() => parseSignatureFreeze(text, FILE), 'freeze file', 'CONTRACT_INVALID');

describe('reading flake_signatures.json', () => {
  it('reads our rows with their lines and maps them to signature freezes', () => {
    const f = freezeOf(row(), row({}, { message: 'other failure' }));
    expect(f.rows.map((r) => [r.index, r.line])).toEqual([
      [0, 3],
      [1, 14],
    ]);
    expect(signatureRowToFreeze(f.rows[1]!, FILE)).toEqual({
      kind: 'signature',
      covers: failureSignature(KIND, 'other failure', 'patchgate').sha256,
      owner: 'maintainer',
      reason: 'provider sandbox is slow on Mondays',
      expires: '2026-10-04',
      action: 'mock the provider clock',
      source: { file: FILE, index: 1, line: 14 },
    });
  });

  it("reads the seed's own format (only sha256) as incomplete freezes", () => {
    const sha = failureSignature(KIND, MSG, 'seed').sha256;
    const f = parseSignatureFreeze(JSON.stringify({ signatures: [{ sha256: sha }] }), FILE);
    const [r] = f.rows;
    expect(r).toEqual({ sha256: sha, index: 0, line: 1 });
    expect(missingFields(r!)).toEqual(['owner', 'expires', 'action']);
    expect(rowStatus(r!, TODAY)).toBe('incomplete');
    // The generic freeze of an incomplete row reads as expired and ownerless everywhere.
    expect(signatureRowToFreeze(r!, FILE)).toMatchObject({ owner: '', expires: '', action: '' });
  });

  it('counts blank owner or action as missing', () => {
    expect(missingFields(row({ owner: ' ', action: '' }))).toEqual(['owner', 'action']);
    expect(rowStatus(row({ owner: ' ' }), TODAY)).toBe('incomplete');
    expect(rowStatus(row({ expires: '2026-09-19' }), TODAY)).toBe('expired');
    expect(rowStatus(row({ expires: TODAY }), TODAY)).toBe('active');
  });

  it('formats stably: seed key first, fixed field order, only present fields, 2 spaces, final newline', () => {
    const text = formatSignatureFreeze({
      rows: [{ action: 'a', sha256: 'b'.repeat(64), owner: 'o', expires: '2026-10-04' }],
    });
    expect(text).toBe(
      `{\n  "signatures": [\n    {\n      "sha256": "${'b'.repeat(64)}",\n      "owner": "o",\n      "expires": "2026-10-04",\n      "action": "a"\n    }\n  ]\n}\n`,
    );
    const f = freezeOf(row(), row({ reason: undefined, example_test: undefined }, { message: 'x' }));
    expect(formatSignatureFreeze(f)).toBe(
      formatSignatureFreeze({
        rows: [row(), row({ reason: undefined, example_test: undefined }, { message: 'x' })],
      }),
    );
    expect(formatSignatureFreeze(parseSignatureFreeze(formatSignatureFreeze(f), FILE))).toBe(
      formatSignatureFreeze(f),
    );
    expect(Object.keys(JSON.parse(formatSignatureFreeze(f)).signatures[0])).toEqual([
      'sha256',
      'template',
      'kind',
      'scheme',
      'owner',
      'reason',
      'expires',
      'action',
      'example_test',
    ]);
  });

  it('reports invalid JSON with its position', () => {
    expect(problems('{"signatures": [}')).toEqual([
      expect.stringMatching(/^flake_signatures\.json:1:17: is not valid JSON/),
    ]);
  });

  it('reports every shape problem at once, each at its line', () => {
    const good = row();
    // Written raw: formatSignatureFreeze would drop the unknown key.
    const text = JSON.stringify(
      {
        signatures: [
          { ...good, sha256: good.sha256.toUpperCase() },
          row({ scheme: 'python' as SignatureScheme }, { message: 'b' }),
          row({ expires: '2026-02-30' }, { message: 'c' }),
          { ...row({}, { message: 'd' }), test_id: 'tests/x.py::y' },
          { sha256: 'not-a-hash' },
        ],
      },
      null,
      2,
    ).replace('"owner": "maintainer"', '"owner": 7');
    expect(problems(text)).toEqual([
      expect.stringMatching(
        /^flake_signatures\.json:4:17: signatures\[0\]\.sha256: expected a SHA-256 digest of 64 lowercase hex characters, got '[0-9A-F]{64}' \(write it in lowercase\)\.$/,
      ),
      expect.stringMatching(
        /^flake_signatures\.json:8:16: signatures\[0\]\.owner: expected a string, got the number 7\.$/,
      ),
      expect.stringMatching(
        /^flake_signatures\.json:18:17: signatures\[1\]\.scheme: expected one of "patchgate", "seed", got the string "python"\.$/,
      ),
      expect.stringMatching(
        /^flake_signatures\.json:32:18: signatures\[2\]\.expires: expected a date such as 2026-10-04, got '2026-02-30', which is not a real calendar date\.$/,
      ),
      expect.stringMatching(
        /^flake_signatures\.json:46:7: signatures\[3\]\.test_id: unknown key 'test_id'; expected only 'sha256', 'template', .*'example_test', 'test', 'source'\.$/,
      ),
      expect.stringMatching(
        /^flake_signatures\.json:49:17: signatures\[4\]\.sha256: expected a SHA-256 digest .* got 'not-a-hash'\.$/,
      ),
    ]);
  });

  it('rejects a missing or mistyped signatures list and unknown top-level keys', () => {
    expect(problems('{}')).toEqual(['flake_signatures.json:1:1: signatures: is required: expected a list.']);
    expect(problems('{"signatures": {}, "version": 1}')).toEqual([
      expect.stringMatching(/^flake_signatures\.json:1:16: signatures: expected a list, got an object/),
      expect.stringMatching(/^flake_signatures\.json:1:20: version: unknown key 'version'/),
    ]);
  });

  it('rejects a row whose template no longer hashes to its sha256, at the template', () => {
    const edited = { ...row(), template: 'AssertionError|timeout after <DUR> talking to something else' };
    const [p, ...rest] = problems(formatSignatureFreeze({ rows: [row({}, { message: 'first' }), edited] }));
    expect(rest).toEqual([]);
    expect(p).toMatch(
      /^flake_signatures\.json:16:19: signatures\[1\]\.template: hashes to [0-9a-f]{64}, not to the row's sha256 [0-9a-f]{64}: the template or the hash was edited, so the row no longer covers what it says\./,
    );
    // An edited hash is caught the same way.
    const rehashed = { ...row(), sha256: 'e'.repeat(64) };
    expect(problems(formatSignatureFreeze({ rows: [rehashed] }))).toEqual([
      expect.stringContaining(`not to the row's sha256 ${'e'.repeat(64)}`),
    ]);
  });

  it('rejects a kind that disagrees with the template', () => {
    expect(problems(formatSignatureFreeze({ rows: [row({ kind: 'TypeError' })] }))).toEqual([
      expect.stringMatching(
        /^flake_signatures\.json:6:15: signatures\[0\]\.kind: is 'TypeError', but the template starts with a different kind/,
      ),
    ]);
  });

  it('rejects a duplicate sha256, pointing at the first row', () => {
    const text = formatSignatureFreeze({
      rows: [row(), row({}, { message: 'other' }), row({ owner: 'someone else' })],
    });
    expect(problems(text)).toEqual([
      expect.stringMatching(
        /^flake_signatures\.json:26:17: signatures\[2\]\.sha256: duplicates row 0 \(line 3\); a signature is frozen by one row/,
      ),
    ]);
  });

  it('reports shape and consistency problems in the same pass', () => {
    const text = formatSignatureFreeze({
      rows: [row({ owner: 'a' }), { ...row({ owner: 'b' }), expires: 'soon' }],
    });
    expect(problems(text)).toEqual([
      expect.stringContaining('signatures[1].sha256: duplicates row 0'),
      expect.stringContaining("signatures[1].expires: expected a date such as 2026-10-04, got 'soon'"),
    ]);
  });

  const READ = { maxBytes: DEFAULT_CONTRACT_BYTES };

  it('reads from a checkout; a missing file is an input error unless the caller asks for empty', async () => {
    const dir = tempDir();
    await expect(readSignatureFreeze(dir, FILE, 'the base revision', READ)).rejects.toThrow(
      /flake_signatures\.json does not exist in the base revision/,
    );
    await expect(readSignatureFreeze(dir, FILE, 'the base revision', READ)).rejects.toBeInstanceOf(
      InputError,
    );
    expect(await readSignatureFreeze(dir, FILE, 'the head', { ...READ, ifMissing: 'empty' })).toEqual({
      file: FILE,
      rows: [],
    });
    writeFileSync(path.join(dir, FILE), formatSignatureFreeze({ rows: [row()] }));
    expect((await readSignatureFreeze(dir, FILE, 'the base revision', READ)).rows).toHaveLength(1);
  });
});

describe('matchFailure', () => {
  it('finds the covering row by signature alone, whatever the test is called now', () => {
    const f = freezeOf(row({}, { message: 'unrelated' }), row());
    const hit = matchFailure(
      f,
      KIND,
      'timeout after 2.25s talking to 127.0.0.1:61000 (attempt 7)',
      TODAY,
      'tests/test_renamed.py::test_any',
    );
    expect(hit?.index).toBe(1);
    expect(hit?.example_test).toBe('tests/test_provider.py::test_timeout_on_slow_provider');
  });

  it('does not cover a changed message or a different kind', () => {
    const f = freezeOf(row());
    expect(
      matchFailure(
        f,
        KIND,
        'timeout after 1.5s talking to the cache',
        TODAY,
        'tests/test_renamed.py::test_any',
      ),
    ).toBeUndefined();
    expect(matchFailure(f, 'TimeoutError', MSG, TODAY, 'tests/test_renamed.py::test_any')).toBeUndefined();
  });

  it('holds through the expiry day and lapses the day after', () => {
    const f = freezeOf(row({ expires: TODAY }));
    expect(matchFailure(f, KIND, MSG, TODAY, 'tests/test_renamed.py::test_any')?.index).toBe(0);
    expect(matchFailure(f, KIND, MSG, '2026-09-21', 'tests/test_renamed.py::test_any')).toBeUndefined();
    expect(rowsMatching(f, KIND, MSG).map((m) => m.row.index)).toEqual([0]);
  });

  it('never lets an incomplete row cover, but still finds it for the report', () => {
    const sig = failureSignature(KIND, MSG, 'patchgate');
    const f = freezeOf({ sha256: sig.sha256, template: sig.template, owner: 'x', expires: '2030-01-01' });
    expect(matchFailure(f, KIND, MSG, TODAY, 'tests/test_renamed.py::test_any')).toBeUndefined();
    const [m] = rowsMatching(f, KIND, MSG);
    expect(m?.signature).toEqual(sig);
    expect(missingFields(m!.row)).toEqual(['action']);
  });

  it("matches a row under its own scheme only: the seed's hashes for seed rows, ours for ours", () => {
    const pointerA = 'segfault at 0x7ffe12';
    const pointerB = 'segfault at 0x7fab34';
    const seedRow = row({}, { kind: 'Error', message: pointerA, scheme: 'seed' });
    const ourRow = row({}, { kind: 'Error', message: pointerA, scheme: 'patchgate' });
    const seedOnly = freezeOf(seedRow);
    expect(matchFailure(seedOnly, 'Error', pointerA, TODAY, 'tests/test_renamed.py::test_any')?.scheme).toBe(
      'seed',
    );
    // The seed's digit-first normalizer tells two addresses apart; ours does not.
    expect(
      matchFailure(seedOnly, 'Error', pointerB, TODAY, 'tests/test_renamed.py::test_any'),
    ).toBeUndefined();
    expect(
      matchFailure(freezeOf(ourRow), 'Error', pointerB, TODAY, 'tests/test_renamed.py::test_any')?.scheme,
    ).toBe('patchgate');
    // A seed-hashed row labelled as ours covers nothing: the label decides.
    expect(
      matchFailure(
        freezeOf({ ...seedRow, scheme: 'patchgate' }),
        'Error',
        pointerA,
        TODAY,
        'tests/test_renamed.py::test_any',
      ),
    ).toBeUndefined();
  });

  it('tries both schemes for a row that names none, as the seed script writes them', () => {
    const bare = (scheme: SignatureScheme): SignatureRow => {
      const { scheme: _dropped, ...rest } = row({}, { scheme });
      return rest;
    };
    const viaSeed = rowsMatching(freezeOf(bare('seed')), KIND, MSG);
    const viaOurs = rowsMatching(freezeOf(bare('patchgate')), KIND, MSG);
    expect(viaSeed.map((m) => m.scheme)).toEqual(['seed']);
    expect(viaOurs.map((m) => m.scheme)).toEqual(['patchgate']);
  });
});

describe('generic templates bind a row to its test', () => {
  const skip = (over: Partial<SignatureRow> = {}, message = '') =>
    row({ template: undefined, ...over }, { kind: 'skipped', message });

  it('an unbound row for a message-less skip covers no test at all', () => {
    const f = freezeOf(skip());
    expect(matchFailure(f, 'skipped', '', TODAY, 'sum.test.ts::adds')).toBeUndefined();
    // It is still found, so a finding can say why it did not cover.
    expect(rowsMatching(f, 'skipped', '')).toHaveLength(1);
  });

  it('a bound row covers its own test and no other, even with the same empty message', () => {
    const f = freezeOf(skip({ test: 'sum.test.ts::adds' }));
    expect(matchFailure(f, 'skipped', '', TODAY, 'sum.test.ts::adds')?.index).toBe(0);
    expect(matchFailure(f, 'skipped', '', TODAY, 'sum.test.ts::subtracts')).toBeUndefined();
  });

  it('treats runner boilerplate as no text: "This test was disabled.", "unconditional skip", node:test\'s "true"', () => {
    for (const message of [
      'This test was disabled.',
      'unconditional skip',
      'true',
      'Skipped',
      'collection skipped',
    ]) {
      const f = freezeOf(skip({}, message));
      expect(matchFailure(f, 'skipped', message, TODAY, 'a::b'), message).toBeUndefined();
    }
  });

  it('still lets a row with a real reason cover a renamed test', () => {
    const f = freezeOf(skip({}, 'MPI is not available'));
    expect(matchFailure(f, 'skipped', 'MPI is not available', TODAY, 'renamed::test')?.index).toBe(0);
  });

  it('allows one generic signature frozen for two tests, but not twice for the same test', () => {
    expect(freezeOf(skip({ test: 'a::one' }), skip({ test: 'a::two' })).rows).toHaveLength(2);
    const text = formatSignatureFreeze({ rows: [skip({ test: 'a::one' }), skip({ test: 'a::one' })] });
    expect(problems(text).join('\n')).toMatch(/signatures\[1\]\.sha256: duplicates row 0/);
  });

  it('reports a deleted binding as a deleted row', () => {
    const base = freezeOf(skip({ test: 'a::one' }), skip({ test: 'a::two' }));
    const head = freezeOf(skip({ test: 'a::one' }));
    expect(deletedRows(base, head).map((r) => r.test)).toEqual(['a::two']);
  });
});

describe('deletedRows', () => {
  it('lists base rows whose sha256 the head no longer has, ignoring order and edits to other fields', () => {
    const a = row({}, { message: 'a' });
    const b = row({}, { message: 'b' });
    const c = row({}, { message: 'c' });
    const base = freezeOf(a, b, c);
    const head = freezeOf(
      row({ owner: 'new owner', expires: '2026-12-01' }, { message: 'c' }),
      a,
      row({}, { message: 'd' }),
    );
    expect(deletedRows(base, head).map((r) => [r.index, r.sha256])).toEqual([[1, b.sha256]]);
    expect(deletedRows(base, { file: FILE, rows: [] })).toHaveLength(3);
    expect(deletedRows(base, base)).toEqual([]);
  });
});
