import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type LedgerDeps, ledgerCommand } from '../../../../src/cli/commands/ledger.js';
import { InputError } from '../../../../src/errors.js';
import { parseFlakeLedger } from '../../../../src/freeze/flake-ledger.js';
import { memoryIO } from '../../../helpers/cli-io.js';
import { GitDir, tempDir } from '../../../helpers/gitdir.js';

const DIGEST = 'c'.repeat(64);

const base = (over: Record<string, string | null> = {}): string[] => {
  const flags: Record<string, string | null> = {
    property: 'invoice_total',
    cause: 'HASH_ORDER',
    owner: 'maintainer',
    expires: '2026-10-04',
    action: 'sort line ids in the property',
    digest: DIGEST,
    today: '2026-09-20',
    ...over,
  };
  const args = ['add'];
  for (const [k, v] of Object.entries(flags)) if (v !== null) args.push(`--${k}`, v);
  return args;
};

async function refusal(repo: GitDir, args: string[], env = {}, deps?: LedgerDeps): Promise<InputError> {
  const { io } = memoryIO(repo.dir, env);
  try {
    await ledgerCommand(args, io, deps);
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected ledger add to refuse');
}

const ledgerText = (repo: GitDir, file = 'flake_ledger.json') => readFileSync(repo.path(file), 'utf8');

describe('patchgate ledger add', () => {
  it('creates the ledger with a validated row, prints it and the commit reminder', async () => {
    const repo = GitDir.create();
    const { io, out } = memoryIO(repo.dir);
    expect(await ledgerCommand(base(), io)).toBe(0);
    const text = ledgerText(repo);
    expect(parseFlakeLedger(text, 'flake_ledger.json').rules).toEqual([
      {
        property: 'invoice_total',
        cause_class: 'HASH_ORDER',
        fixture_digest: DIGEST,
        owner: 'maintainer',
        expires: '2026-10-04',
        action: 'sort line ids in the property',
        freeze_hits: false,
        line: 4,
      },
    ]);
    expect(text.endsWith('}\n')).toBe(true);
    expect(out()).toContain('created flake_ledger.json: added row 0');
    expect(out()).toContain('"freeze_hits": false');
    expect(out()).toMatch(/commit the ledger on its own/);
    expect(out()).toContain('git add flake_ledger.json');
  });

  it('appends to an existing ledger, keeping its rows in order, from a subfolder of the repo', async () => {
    const repo = GitDir.create({ 'sub/.keep': '' });
    await ledgerCommand(base(), memoryIO(repo.dir).io);
    const { io, out } = memoryIO(repo.path('sub'));
    expect(await ledgerCommand(base({ property: 'price_feed', cause: 'EXTERNAL_IO' }), io)).toBe(0);
    const rules = parseFlakeLedger(ledgerText(repo), 'flake_ledger.json').rules;
    expect(rules.map((r) => [r.property, r.cause_class])).toEqual([
      ['invoice_total', 'HASH_ORDER'],
      ['price_feed', 'EXTERNAL_IO'],
    ]);
    expect(out()).toContain('updated flake_ledger.json: added row 1');
  });

  it('writes to --file, creating its folder', async () => {
    const repo = GitDir.create();
    expect(await ledgerCommand([...base(), '--file', 'ci/flakes.json'], memoryIO(repo.dir).io)).toBe(0);
    expect(existsSync(repo.path('ci/flakes.json'))).toBe(true);
  });

  it.each([
    [
      'an unknown cause',
      { cause: 'COSMIC_RAY' },
      /unknown cause class 'COSMIC_RAY'.*CLOCK, HASH_ORDER, FLOAT_ULP, EXTERNAL_IO/,
    ],
    ['a lower-case cause', { cause: 'clock' }, /did you mean CLOCK\?/],
    [
      'an expiry in the past',
      { expires: '2026-09-19' },
      /already in the past \(today is 2026-09-20, from --today\)/,
    ],
    ['an impossible expiry', { expires: '2026-02-30' }, /--expires must be a real date/],
    ['a malformed expiry', { expires: '4/10/2026' }, /--expires must be a real date/],
    ['an empty action', { action: '   ' }, /--action must say what will fix the property/],
    ['an empty owner', { owner: '' }, /--owner/],
    ['a missing digest', { digest: null }, /--digest is required/],
    ['a malformed digest', { digest: 'ABC' }, /--digest must be a SHA-256 digest/],
    ['a missing property', { property: null }, /--property is required/],
    ['an invalid --today', { today: '2026-13-01' }, /--today must be a date/],
    ['a --file outside the repo', { file: '../x.json' }, /--file/],
  ])('refuses %s', async (_what, over, message) => {
    const repo = GitDir.create();
    const err = await refusal(repo, base(over));
    expect(['USAGE', 'PATH_INVALID']).toContain(err.code);
    expect(err.message).toMatch(message);
    expect(existsSync(repo.path('flake_ledger.json'))).toBe(false);
  });

  it('judges the expiry against CI_DATE when --today is absent, then the system clock', async () => {
    const repo = GitDir.create();
    const err = await refusal(repo, base({ today: null, expires: '2026-09-19' }), { CI_DATE: '2026-09-20' });
    expect(err.message).toMatch(/from CI_DATE/);
    expect((await refusal(repo, base({ today: null }), { CI_DATE: '2026-02-30' })).message).toMatch(
      /CI_DATE/,
    );
    const clock = { now: () => new Date('2026-10-05T12:00:00Z') };
    const late = await refusal(repo, base({ today: null }), {}, clock);
    expect(late.message).toMatch(/today is 2026-10-05, from the system clock/);
    const { io } = memoryIO(repo.dir);
    expect(
      await ledgerCommand(base({ today: null }), io, { now: () => new Date('2026-10-04T23:59:59Z') }),
    ).toBe(0);
  });

  it('refuses a second active CLOCK row for a property, but not after the first expired', async () => {
    const repo = GitDir.create();
    await ledgerCommand(base({ cause: 'CLOCK', expires: '2026-09-25' }), memoryIO(repo.dir).io);
    const before = ledgerText(repo);
    const err = await refusal(repo, base({ cause: 'CLOCK' }));
    expect(err.code).toBe('ALREADY_EXISTS');
    expect(err.message).toMatch(/already has an active CLOCK freeze for 'invoice_total': row 0/);
    expect(ledgerText(repo)).toBe(before);
    // Another cause class, or another property, is fine.
    expect(await ledgerCommand(base({ cause: 'FLOAT_ULP' }), memoryIO(repo.dir).io)).toBe(0);
    expect(await ledgerCommand(base({ cause: 'CLOCK', property: 'other' }), memoryIO(repo.dir).io)).toBe(0);
    // Once the first CLOCK row has expired it no longer counts toward the cap.
    expect(await ledgerCommand(base({ cause: 'CLOCK', today: '2026-09-26' }), memoryIO(repo.dir).io)).toBe(0);
  });

  it('never rewrites an invalid ledger', async () => {
    const repo = GitDir.create({ 'flake_ledger.json': '{"version": 2, "rules": []}\n' });
    const err = await refusal(repo, base());
    expect(err.code).toBe('CONTRACT_INVALID');
    expect(err.message).toMatch(/flake_ledger\.json:1:13: version/);
    expect(ledgerText(repo)).toBe('{"version": 2, "rules": []}\n');
  });

  it('takes the digest from the resolveDigest hook, which --digest must agree with', async () => {
    const repo = GitDir.create();
    const deps: LedgerDeps = { resolveDigest: async (p) => (p === 'invoice_total' ? DIGEST : undefined) };
    expect(await ledgerCommand(base({ digest: null }), memoryIO(repo.dir).io, deps)).toBe(0);
    expect(parseFlakeLedger(ledgerText(repo), 'f').rules[0]?.fixture_digest).toBe(DIGEST);
    expect((await refusal(repo, base({ digest: 'd'.repeat(64) }), {}, deps)).message).toMatch(
      /does not match .*the locked digest/,
    );
    expect((await refusal(repo, base({ property: 'ghost', digest: null }), {}, deps)).message).toMatch(
      /cannot find a locked fixture digest for property 'ghost'/,
    );
  });

  it('rejects unknown flags, positionals and subcommands', async () => {
    const repo = GitDir.create();
    const { io } = memoryIO(repo.dir);
    await expect(ledgerCommand([...base(), '--freeze-hits'], io)).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(
        /Unknown option '--freeze-hits'[\s\S]*\nsee patchgate ledger add --help$/,
      ),
    });
    await expect(ledgerCommand([...base(), 'extra'], io)).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(/Unexpected argument 'extra'/),
    });
    await expect(ledgerCommand(['remove'], io)).rejects.toMatchObject({ code: 'USAGE' });
    await expect(ledgerCommand([], io)).rejects.toMatchObject({ code: 'USAGE' });
  });

  it('refuses outside a git repository', async () => {
    const dir = tempDir();
    const { io } = memoryIO(dir);
    await expect(ledgerCommand(base(), io)).rejects.toMatchObject({ code: 'NOT_A_REPO' });
    expect(existsSync(path.join(dir, 'flake_ledger.json'))).toBe(false);
  });
});
