import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalDigestOfBytes } from '../../../src/json/python-dumps.js';
import { pythonEnv, sharedDir, sharedFile } from '../../helpers/shared.js';

/**
 * The seed's own digest_lock.py, run unmodified from the shared folder, is the
 * judge: it reads fixtures/lock.json and fixtures/lock.sha256 from its working
 * directory, prints the digest when they match and exits 2 with the actual
 * digest on stderr when they do not.
 */

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function seedScript(): string {
  return sharedFile('reference', 'seed000', 'digest_lock.py');
}

function runDigestLock(
  lockJson: Buffer | string,
  lockSha256: string,
): { code: number | null; stdout: string; stderr: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'pg-seed-oracle-'));
  made.push(dir);
  mkdirSync(path.join(dir, 'fixtures'));
  writeFileSync(path.join(dir, 'fixtures', 'lock.json'), lockJson);
  writeFileSync(path.join(dir, 'fixtures', 'lock.sha256'), `${lockSha256}\n`);
  const result = spawnSync('python3', [seedScript()], {
    cwd: dir,
    env: pythonEnv(),
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (result.error) throw new Error(`cannot run python3 ${seedScript()}: ${result.error.message}`);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const seedFixture = () => readFileSync(sharedFile('reference', 'seed000', 'fixtures', 'lock.json'));

const documents: { name: string; bytes: () => Buffer }[] = [
  { name: "the seed's invoice fixture", bytes: seedFixture },
  {
    name: 'the invoice pretty-printed differently, keys reordered, with escapes and CRLF',
    bytes: () =>
      Buffer.from(
        '{\r\n\t"lines" : [ { "unit_cents" : 500 , "qty" : 2 } ,\r\n\t\t{ "unit_cents" : 500 , "qty" : 1 } ] ,\r\n' +
          '\t"total_cents" : 1500 ,\r\n\t"\\u0063urrency" : "\\u0055SD"\r\n}\r\n',
      ),
  },
  {
    name: 'a non-ASCII invoice (accents, CJK, emoji keys that sort differently by code point)',
    bytes: () =>
      Buffer.from(
        JSON.stringify(
          {
            currency: 'EUR',
            customer: 'Zoë Ångström — 東京',
            '😀': 'astral key sorts after \ufffd in Python',
            '\ufffd': 'replacement character',
            '\ue000': 'private use',
            note: 'tab\there, quote " and backslash \\ and DEL \x7f and U+2028 \u2028',
            lines: [{ qty: 1, unit_cents: 1999, sku: 'Ä-1' }],
          },
          null,
          2,
        ),
        'utf8',
      ),
  },
  {
    name: 'numbers at the edges: big ints, -0, floats Python writes in exponent form, NaN',
    bytes: () =>
      Buffer.from(
        '{"big": 123456789012345678901234567890, "neg_zero": -0, "float_zero": -0.0, "tiny": 0.00001, ' +
          '"huge": 1e16, "fixed": 1e15, "round": 0.1000000000000000055511, "sub": 5e-324, "over": 1e400, ' +
          '"nan": NaN, "ints_as_floats": [1.0, 1E2, 10e-1]}',
      ),
  },
  {
    name: 'duplicate keys, last one wins',
    bytes: () =>
      Buffer.from(
        '{"total_cents": 1, "currency": "USD", "total_cents": 1500, "lines": [], "lines": [{"qty": 3}]}',
      ),
  },
];

describe('seed digest_lock.py agrees with canonicalDigest', () => {
  for (const doc of documents) {
    it(`accepts our digest for ${doc.name}`, () => {
      const bytes = doc.bytes();
      const ours = canonicalDigestOfBytes(bytes);
      expect(ours).toBe(canonicalDigest(bytes.toString('utf8')));
      const run = runDigestLock(bytes, ours);
      expect(run, `stderr: ${run.stderr}`).toMatchObject({ code: 0, stdout: `${ours}\n` });
    });
  }

  it("matches the digest committed next to the seed's fixture", () => {
    const committed = readFileSync(
      sharedFile('reference', 'seed000', 'fixtures', 'lock.sha256'),
      'utf8',
    ).trim();
    expect(canonicalDigestOfBytes(seedFixture())).toBe(committed);
    expect(runDigestLock(seedFixture(), committed).code).toBe(0);
    // Same data, different layout, key order and escapes: same digest.
    expect(canonicalDigestOfBytes(documents[1]!.bytes())).toBe(committed);
  });

  it('reports the same actual digest as ours when the lock file is stale (exit 2)', () => {
    const bytes = Buffer.from('{"currency": "USD", "total_cents": 1501, "lines": []}');
    const stale = canonicalDigest('{"currency": "USD", "total_cents": 1500, "lines": []}');
    const run = runDigestLock(bytes, stale);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`fixture digest mismatch\n${canonicalDigestOfBytes(bytes)}\n`);
  });

  it('fails for a byte order mark, as we do', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), seedFixture()]);
    expect(() => canonicalDigestOfBytes(bytes)).toThrow(/byte order mark/);
    const run = runDigestLock(bytes, '0'.repeat(64));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/JSONDecodeError: Unexpected UTF-8 BOM/);
  });
});

describe('sharedDir', () => {
  it('throws, naming the variable, when the shared folder is missing, so oracle tests fail instead of skipping', () => {
    const saved = process.env.PATCHGATE_SHARED_DIR;
    process.env.PATCHGATE_SHARED_DIR = path.join(tmpdir(), 'pg-no-such-shared-dir');
    try {
      expect(() => sharedDir()).toThrow(
        /shared folder not found: PATCHGATE_SHARED_DIR is set to .*pg-no-such-shared-dir/,
      );
    } finally {
      if (saved === undefined) delete process.env.PATCHGATE_SHARED_DIR;
      else process.env.PATCHGATE_SHARED_DIR = saved;
    }
  });
});
