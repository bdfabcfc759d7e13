import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalDigestOfBytes } from '../../../src/json/python-dumps.js';
import { inCi, pythonEnv, repoRoot, sharedDir, sharedFile, sharedStatus } from '../../helpers/shared.js';

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
  const missing = path.join(tmpdir(), 'pg-no-such-shared-dir');

  it('throws in CI, naming the variable, when the shared folder is missing, so oracle tests fail instead of skipping', () => {
    const saved = { dir: process.env.PATCHGATE_SHARED_DIR, ci: process.env.CI };
    process.env.PATCHGATE_SHARED_DIR = missing;
    process.env.CI = 'true';
    try {
      expect(() => sharedDir()).toThrow(
        /shared folder not found: PATCHGATE_SHARED_DIR is set to .*pg-no-such-shared-dir/,
      );
    } finally {
      for (const [k, v] of [
        ['PATCHGATE_SHARED_DIR', saved.dir],
        ['CI', saved.ci],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('outside CI says which folder it looked for and which variable moves it (the reason a skipped test gives)', () => {
    expect(inCi({ CI: 'true' })).toBe(true);
    expect(inCi({ CI: '1' })).toBe(true);
    expect(inCi({})).toBe(false);
    expect(inCi({ CI: 'false' })).toBe(false);
    expect(sharedStatus({ PATCHGATE_SHARED_DIR: missing })).toEqual({
      missing: `shared folder not found: PATCHGATE_SHARED_DIR is set to ${missing}. Point PATCHGATE_SHARED_DIR at the folder with seeds/ and reference/.`,
    });
    expect(sharedStatus({})).toEqual(
      existsSync(path.join(repoRoot, '..', 'shared'))
        ? { dir: path.resolve(repoRoot, '..', 'shared') }
        : { missing: expect.stringContaining('PATCHGATE_SHARED_DIR is not set, so it defaults to') },
    );
  });

  it('skips only the test that asked, printing why once, outside CI; fails it in CI (a real vitest run)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pg-shared-probe-'));
    try {
      const helper = path.join(repoRoot, 'test', 'helpers', 'shared.ts');
      writeFileSync(
        path.join(dir, 'probe.test.ts'),
        [
          "import { expect, it } from 'vitest';",
          `import { sharedDir } from ${JSON.stringify(helper)};`,
          "it('needs the shared folder', () => { expect(sharedDir()).toBe('never'); });",
          "it('needs it too', () => { expect(sharedDir()).toBe('never'); });",
          "it('does not need it', () => { expect(1).toBe(1); });",
          '',
        ].join('\n'),
      );
      const vitest = (ci: string | undefined) => {
        const env: NodeJS.ProcessEnv = { ...process.env, PATCHGATE_SHARED_DIR: missing, NO_COLOR: '1' };
        delete env.CI;
        if (ci !== undefined) env.CI = ci;
        const run = spawnSync(
          process.execPath,
          [path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', dir],
          { env, encoding: 'utf8', timeout: 60_000 },
        );
        return { code: run.status, out: `${run.stdout}${run.stderr}` };
      };
      const local = vitest(undefined);
      expect(local.code, local.out).toBe(0);
      expect(local.out).toMatch(/Tests\s+1 passed \| 2 skipped/);
      const said = local.out
        .split('\n')
        .filter((l) => l.startsWith('skipping the tests that need the shared folder'));
      expect(said).toEqual([
        `skipping the tests that need the shared folder (CI is not true): shared folder not found: PATCHGATE_SHARED_DIR is set to ${missing}. Point PATCHGATE_SHARED_DIR at the folder with seeds/ and reference/.`,
      ]);
      const ci = vitest('true');
      expect(ci.code, ci.out).toBe(1);
      expect(ci.out).toMatch(/Tests\s+2 failed \| 1 passed/);
      expect(ci.out).toContain(`Error: shared folder not found: PATCHGATE_SHARED_DIR is set to ${missing}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
