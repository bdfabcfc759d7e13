import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type ReportTest,
  type SignaturesDeps,
  signaturesCommand,
} from '../../../../src/cli/commands/signatures.js';
import { ContractFileError, InputError } from '../../../../src/errors.js';
import { matchFailure, parseSignatureFreeze } from '../../../../src/freeze/signature-freeze.js';
import { failureSignature } from '../../../../src/signatures/signature.js';
import { memoryIO } from '../../../helpers/cli-io.js';
import { GitDir } from '../../../helpers/gitdir.js';

const FILE = 'flake_signatures.json';
const SLOW = 'tests/test_provider.py::test_timeout_on_slow_provider';
const SLOW_MSG = 'TimeoutError: provider did not answer within 1.5s on 127.0.0.1:40123';

const TESTS: ReportTest[] = [
  { id: SLOW, status: 'failed', failures: [{ kind: 'TimeoutError', message: SLOW_MSG }] },
  { id: 'tests/test_provider.py::test_ok', status: 'passed', failures: [] },
  {
    id: 'tests/test_cache.py::test_eviction',
    status: 'skipped',
    failures: [],
    skipped: { type: 'pytest.skip', message: 'needs redis on port 6379' },
  },
  {
    id: 'tests/test_cache.py::test_ttl',
    status: 'skipped',
    failures: [],
    skipped: { type: 'pytest.xfail', message: 'clock drift, see #12' },
  },
  {
    id: 'tests/test_retry.py::test_backoff',
    status: 'failed',
    failures: [
      { kind: 'AssertionError', message: 'AssertionError: 3 retries, expected 2' },
      { kind: 'AssertionError', message: 'AssertionError: 4 retries, expected 2' },
      { kind: 'AssertionError', message: 'AssertionError: took 1200ms' },
    ],
  },
];

function fakeReport(tests: ReportTest[] = TESTS) {
  const asked: string[] = [];
  const deps: SignaturesDeps = {
    parseReport: async (file) => {
      asked.push(file);
      return { tests };
    },
  };
  return { deps, asked };
}

const args = (over: Record<string, string | null> = {}): string[] => {
  const flags: Record<string, string | null> = {
    from: 'build/junit.xml',
    test: SLOW,
    owner: 'maintainer',
    expires: '2026-10-04',
    action: 'mock the provider clock',
    today: '2026-09-20',
    ...over,
  };
  const out = ['add'];
  for (const [k, v] of Object.entries(flags)) if (v !== null) out.push(`--${k}`, v);
  return out;
};

async function refusal(repo: GitDir, argv: string[], deps = fakeReport().deps): Promise<InputError> {
  try {
    await signaturesCommand(argv, memoryIO(repo.dir).io, deps);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected signatures add to refuse');
}

const rows = (repo: GitDir) => parseSignatureFreeze(readFileSync(repo.path(FILE), 'utf8'), FILE).rows;

describe('patchgate signatures add', () => {
  it('creates the file with a validated row carrying its template, and says to commit it alone', async () => {
    const repo = GitDir.create({ 'sub/.keep': '' });
    const { deps, asked } = fakeReport();
    const { io, out } = memoryIO(repo.path('sub'));
    expect(await signaturesCommand([...args(), '--reason', 'sandbox is slow'], io, deps)).toBe(0);
    expect(asked).toEqual([repo.path('sub/build/junit.xml')]);

    const sig = failureSignature('TimeoutError', SLOW_MSG, 'patchgate');
    expect(sig.template).toBe(
      'TimeoutError|TimeoutError: provider did not answer within <DUR> on <N>.<N>.<N>.<N>:<PORT>',
    );
    expect(rows(repo)).toEqual([
      {
        sha256: sig.sha256,
        template: sig.template,
        kind: 'TimeoutError',
        scheme: 'patchgate',
        owner: 'maintainer',
        reason: 'sandbox is slow',
        expires: '2026-10-04',
        action: 'mock the provider clock',
        example_test: SLOW,
        index: 0,
        line: 3,
      },
    ]);
    expect(out()).toContain(`created ${FILE}: added row 0`);
    expect(out()).toContain(`"template": "${sig.template}"`);
    expect(out()).toMatch(/commit the freeze file on its own/);
    expect(out()).toContain(`git add ${FILE}`);
  });

  it('freezes the failure, not the name: the row covers the same failure under a new test name', async () => {
    const repo = GitDir.create();
    await signaturesCommand(args(), memoryIO(repo.dir).io, fakeReport().deps);
    const freeze = parseSignatureFreeze(readFileSync(repo.path(FILE), 'utf8'), FILE);
    const renamed = 'TimeoutError: provider did not answer within 2.75s on 127.0.0.1:51999';
    expect(
      matchFailure(freeze, 'TimeoutError', renamed, '2026-09-20', 'tests/test_renamed.py::test_any')
        ?.example_test,
    ).toBe(SLOW);
  });

  it('appends to an existing file and refuses to freeze the same failure twice', async () => {
    const repo = GitDir.create();
    await signaturesCommand(args(), memoryIO(repo.dir).io, fakeReport().deps);
    const { io, out } = memoryIO(repo.dir);
    expect(
      await signaturesCommand(args({ test: 'tests/test_cache.py::test_eviction' }), io, fakeReport().deps),
    ).toBe(0);
    expect(out()).toContain(`updated ${FILE}: added row 1`);
    expect(rows(repo).map((r) => r.template)).toEqual([
      'TimeoutError|TimeoutError: provider did not answer within <DUR> on <N>.<N>.<N>.<N>:<PORT>',
      'skipped|needs redis on port <PORT>',
    ]);

    const before = readFileSync(repo.path(FILE), 'utf8');
    const dup = await refusal(repo, args({ owner: 'someone else' }));
    expect(dup.code).toBe('ALREADY_EXISTS');
    expect(dup.message).toMatch(
      /already frozen in flake_signatures\.json by row 0 \(line 3\) \(owner maintainer, expires 2026-10-04\)/,
    );
    expect(readFileSync(repo.path(FILE), 'utf8')).toBe(before);
  });

  it('points at an expired or incomplete row instead of adding a second one', async () => {
    const repo = GitDir.create();
    const sig = failureSignature('TimeoutError', SLOW_MSG, 'seed');
    writeFileSync(repo.path(FILE), JSON.stringify({ signatures: [{ sha256: sig.sha256 }] }));
    const incomplete = await refusal(repo, args({ scheme: 'seed' }));
    expect(incomplete.message).toMatch(/by row 0 \(line 1\) \(incomplete: it lacks owner, expires, action;/);

    writeFileSync(
      repo.path(FILE),
      JSON.stringify({
        signatures: [{ sha256: sig.sha256, owner: 'o', expires: '2026-01-01', action: 'a' }],
      }),
    );
    const expired = await refusal(repo, args());
    expect(expired.message).toMatch(/expired on 2026-01-01; edit that row's expiry instead/);
  });

  it('gives a skip its own signature, and an xfail a different kind', async () => {
    const repo = GitDir.create();
    for (const test of ['tests/test_cache.py::test_eviction', 'tests/test_cache.py::test_ttl'])
      expect(await signaturesCommand(args({ test }), memoryIO(repo.dir).io, fakeReport().deps)).toBe(0);
    expect(rows(repo).map((r) => [r.kind, r.template])).toEqual([
      ['skipped', 'skipped|needs redis on port <PORT>'],
      ['xfailed', 'xfailed|clock drift, see #<N>'],
    ]);
  });

  it('offers the skip, which the gate checks, for a skipped or xfailed test that carries failures', async () => {
    const repo = GitDir.create();
    const tests: ReportTest[] = [
      {
        id: 'test::parses dates',
        status: 'skipped',
        failures: [{ kind: 'testCodeFailure', message: 'Expected values to be strictly equal' }],
        skipped: { type: 'todo', message: 'locale tables not written yet' },
      },
      {
        id: 'dialect.global::rounds half',
        status: 'xfailed',
        failures: [
          { kind: 'CHECK', message: 'x == 2' },
          { kind: 'CHECK', message: 'y == 3' },
        ],
        skipped: { message: 'TEST_CASE tagged with !mayfail' },
      },
    ];
    for (const test of ['test::parses dates', 'dialect.global::rounds half'])
      expect(await signaturesCommand(args({ test }), memoryIO(repo.dir).io, fakeReport(tests).deps)).toBe(0);
    expect(rows(repo).map((r) => [r.kind, r.template])).toEqual([
      ['skipped', 'skipped|locale tables not written yet'],
      ['xfailed', 'xfailed|TEST_CASE tagged with !mayfail'],
    ]);
  });

  it('writes seed-scheme rows that the seed normalizer produced', async () => {
    const repo = GitDir.create();
    expect(await signaturesCommand(args({ scheme: 'seed' }), memoryIO(repo.dir).io, fakeReport().deps)).toBe(
      0,
    );
    const [r] = rows(repo);
    expect(r?.scheme).toBe('seed');
    expect(r?.template).toBe('TimeoutError|TimeoutError: provider did not answer within N.Ns on N.N.N.N:N');
    expect(r?.sha256).toBe(failureSignature('TimeoutError', SLOW_MSG, 'seed').sha256);
  });

  it('asks which failure to freeze when a test has several signatures, then takes --failure N', async () => {
    const repo = GitDir.create();
    const test = 'tests/test_retry.py::test_backoff';
    const err = await refusal(repo, args({ test }));
    expect(err.message).toContain('has 2 different failure signatures');
    expect(err.message).toContain('1. AssertionError|AssertionError: <N> retries, expected <N>');
    expect(err.message).toContain('2. AssertionError|AssertionError: took <DUR>');
    expect(existsSync(repo.path(FILE))).toBe(false);

    expect((await refusal(repo, args({ test, failure: '3' }))).message).toMatch(
      /--failure must be a number from 1 to 2/,
    );
    expect(
      await signaturesCommand(args({ test, failure: '2' }), memoryIO(repo.dir).io, fakeReport().deps),
    ).toBe(0);
    expect(rows(repo).map((r) => r.template)).toEqual(['AssertionError|AssertionError: took <DUR>']);
  });

  it('lists near matches for an unknown test id', async () => {
    const repo = GitDir.create();
    const err = await refusal(repo, args({ test: 'tests/test_provider.py::test_timeout_on_slow_providr' }));
    expect(err.code).toBe('USAGE');
    expect(err.message).toContain(
      "no test 'tests/test_provider.py::test_timeout_on_slow_providr' in build/junit.xml",
    );
    expect(err.message).toContain(`Did you mean:\n  ${SLOW}`);
    expect(err.message).not.toContain('test_eviction');
    const none = await refusal(repo, args({ test: 'zzz' }));
    expect(none.message).toContain('The report has 5 test(s)');
  });

  it('refuses a test that neither failed nor was skipped', async () => {
    const repo = GitDir.create();
    const err = await refusal(repo, args({ test: 'tests/test_provider.py::test_ok' }));
    expect(err.message).toMatch(
      /did not fail and was not skipped .* \(status passed\); there is nothing to freeze/,
    );
  });

  it.each([
    [
      'an expiry in the past',
      { expires: '2026-09-19' },
      /already in the past \(today is 2026-09-20, from --today\)/,
    ],
    ['an impossible expiry', { expires: '2026-02-30' }, /--expires must be a real date/],
    ['a missing owner', { owner: null }, /--owner is required/],
    ['a blank owner', { owner: '  ' }, /--owner must name the person or team/],
    ['a missing expiry', { expires: null }, /--expires is required/],
    ['a blank action', { action: ' ' }, /a freeze without a next step is a skip/],
    ['a missing report', { from: null }, /--from is required/],
    ['a missing test', { test: null }, /--test is required/],
    ['an unknown scheme', { scheme: 'python' }, /unknown --scheme 'python'; allowed: patchgate, seed/],
    [
      'a path outside the repo',
      { file: '../x.json' },
      /--file: path '\.\.\/x\.json' must not contain '\.\.'/,
    ],
  ])('refuses %s', async (_name, over, pattern) => {
    const repo = GitDir.create();
    const err = await refusal(repo, args(over));
    expect(err.message).toMatch(pattern);
    expect(existsSync(repo.path(FILE))).toBe(false);
  });

  it('takes today from CI_DATE when --today is absent', async () => {
    const repo = GitDir.create();
    const { io } = memoryIO(repo.dir, { CI_DATE: '2026-10-05' });
    await expect(signaturesCommand(args({ today: null }), io, fakeReport().deps)).rejects.toThrow(
      /already in the past \(today is 2026-10-05, from CI_DATE\)/,
    );
  });

  it('never rewrites an invalid freeze file', async () => {
    const repo = GitDir.create();
    writeFileSync(repo.path(FILE), '{"signatures": [{"sha256": "nope"}]}\n');
    await expect(signaturesCommand(args(), memoryIO(repo.dir).io, fakeReport().deps)).rejects.toBeInstanceOf(
      ContractFileError,
    );
    expect(readFileSync(repo.path(FILE), 'utf8')).toBe('{"signatures": [{"sha256": "nope"}]}\n');
  });

  it('rejects unknown flags and subcommands', async () => {
    const repo = GitDir.create();
    await expect(
      signaturesCommand([...args(), '--name', 'x'], memoryIO(repo.dir).io, fakeReport().deps),
    ).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(/Unknown option '--name'[\s\S]*\nsee patchgate signatures add --help$/),
    });
    await expect(signaturesCommand(['remove'], memoryIO(repo.dir).io, fakeReport().deps)).rejects.toThrow(
      /unknown signatures subcommand 'remove'/,
    );
    await expect(signaturesCommand([], memoryIO(repo.dir).io, fakeReport().deps)).rejects.toThrow(
      /signatures needs a subcommand/,
    );
  });
});
