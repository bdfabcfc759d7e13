import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalDigest } from '../../src/json/python-dumps.js';
import type { GitDir } from '../helpers/gitdir.js';
import { runCli } from '../helpers/gitdir.js';
import { hitsRepo, seedInvoice, TS_INVOICE_PROPERTY } from '../helpers/hits-repo.js';
import { defaultOut, readScorecard } from '../helpers/out.js';

async function check(repo: GitDir, args: string[] = [], env: Record<string, string> = {}) {
  const r = await runCli(['check', '--base', 'main', '--today', '2026-11-30', ...args], {
    cwd: repo.dir,
    env,
  });
  const card = readScorecard(defaultOut(repo.dir), r);
  return { ...r, card, codes: card.findings.filter((f) => f.severity !== 'warn').map((f) => f.code) };
}

// Two runs per revision: enough to see a flake (dozens of coin flips must all agree), a third of the work less.
const TS = { properties: ['properties/*.ts'], maxDepth: 3, runs: 2 };
const prop = (
  name: string,
  claims: string[],
  body: string,
  fixture = 'fixtures/lock.json',
) => `import { defineProperty } from 'patchgate';
export default defineProperty<any>({
  name: ${JSON.stringify(name)},
  fixture: ${JSON.stringify(fixture)},
  claims: ${JSON.stringify(claims)},
  check(fx) { ${body} },
});
`;

describe('hits layer (built CLI, real git repos, worker pool)', () => {
  it('accepts a patch that keeps a well-coupled property, and writes both hit reports', async () => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    repo.write({ 'src/other.ts': 'export const x = 1;\n' });
    const r = await check(repo);
    expect(r.stderr).toBe('');
    expect(r.card.verdict).toBe('accept');
    expect(r.card.layers.map((l) => `${l.name}:${l.status}`)).toContain('hits:pass');
    const head = JSON.parse(readFileSync(repo.path('.patchgate/out/hit_report.head.json'), 'utf8'));
    expect(head[0].hits).toEqual(
      expect.arrayContaining(['currency', 'lines', 'lines[0].qty', 'total_cents']),
    );
    expect(head[0].false_claims).toEqual([]);
  });

  it('rejects a check weakened to never fail with ZERO_HIT and a FALSE_CLAIM per claimed field', async () => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    repo.write({
      'properties/invoice.ts': prop(
        'invoice_total_matches_lines',
        ['lines', 'total_cents', 'currency'],
        'return true;',
      ),
    });
    const r = await check(repo);
    expect(r.code).toBe(1);
    expect(r.codes).toEqual(expect.arrayContaining(['ZERO_HIT', 'FALSE_CLAIM', 'HIT_SURFACE_SHRANK']));
    const falseClaims = r.card.findings.filter((f) => f.code === 'FALSE_CLAIM').map((f) => f.evidence.field);
    expect(falseClaims.sort()).toEqual(['currency', 'lines', 'total_cents']);
  });

  it('rejects a shrunken hit surface and names the lost paths and operators', async () => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    repo.write({
      'properties/invoice.ts': prop(
        'invoice_total_matches_lines',
        ['lines', 'total_cents', 'currency'],
        "if (fx.currency !== 'USD') throw new Error('currency'); if (typeof fx.total_cents !== 'number') throw new Error('total');",
      ),
    });
    const r = await check(repo);
    expect(r.code).toBe(1);
    const shrank = r.card.findings.find((f) => f.code === 'HIT_SURFACE_SHRANK');
    expect(shrank?.evidence.property).toBe('invoice_total_matches_lines');
    expect(shrank?.evidence.lostPaths).toEqual(expect.arrayContaining(['lines', 'lines[0].qty']));
    expect(shrank?.evidence.lostOperators).toHaveProperty(['total_cents']);
  });

  it('rejects a property that fails on its own locked fixture with BASELINE_FAIL and its message', async () => {
    const repo = hitsRepo(TS, {
      'properties/invoice.ts': prop(
        'always_wrong',
        ['total_cents'],
        "if (fx.total_cents !== 1) throw new Error('expected 1 cent');",
      ),
    });
    const r = await check(repo);
    expect(r.codes).toContain('BASELINE_FAIL');
    expect(r.card.findings.find((f) => f.code === 'BASELINE_FAIL')?.evidence.error).toBe(
      'Error: expected 1 cent',
    );
  });

  it('rejects a removed property (PROPERTY_SET_CHANGED) and records a new one without credit', async () => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    repo.write({
      'properties/invoice.ts': null,
      'properties/renamed.ts': TS_INVOICE_PROPERTY.replace('invoice_total_matches_lines', 'renamed_total'),
    });
    const r = await check(repo);
    expect(r.code).toBe(1);
    const changes = r.card.findings
      .filter((f) => f.code === 'PROPERTY_SET_CHANGED')
      .map((f) => [f.evidence.property, f.evidence.change, f.severity]);
    expect(changes).toEqual(
      expect.arrayContaining([
        ['invoice_total_matches_lines', 'removed', 'reject'],
        ['renamed_total', 'added', 'warn'],
      ]),
    );
  });

  it('rejects a random check as FLAKE_UNCLASSIFIED with the runs that disagreed', async () => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    repo.write({
      // A coin flip on every perturbed fixture (dozens at this depth), not on a few: two runs of one mutant
      // agree half the time, so the chance that every one of them agrees is negligible.
      'properties/random.ts': prop(
        'coin_flip',
        ['lines'],
        `if (JSON.stringify(fx) !== ${JSON.stringify(JSON.stringify(JSON.parse(seedInvoice())))} && Math.random() < 0.5) throw new Error("x");`,
      ),
    });
    const r = await check(repo);
    const flake = r.card.findings.find((f) => f.code === 'FLAKE_UNCLASSIFIED');
    expect(flake?.severity).toBe('reject');
    expect(flake?.evidence.runs).toBe(2);
    expect((flake?.evidence.disagreements as unknown[]).length).toBeGreaterThan(0);
  });

  it('shows a flake a valid ledger row covers as frozen, and rejects the broken rows of the ledger', async () => {
    const digest = canonicalDigest(seedInvoice());
    const ledger = {
      version: 1,
      rules: [
        {
          property: 'coin_flip',
          cause_class: 'HASH_ORDER',
          fixture_digest: digest,
          owner: 'payments',
          expires: '2026-12-31',
          action: 'sort the lines before comparing',
          freeze_hits: false,
        },
        {
          property: 'invoice_total_matches_lines',
          cause_class: 'MOON_PHASE',
          fixture_digest: digest,
          owner: 'x',
          expires: '2026-12-31',
          action: 'a',
          freeze_hits: false,
        },
      ],
    };
    const repo = hitsRepo(TS, {
      'properties/invoice.ts': TS_INVOICE_PROPERTY,
      // A coin flip on every perturbed fixture, so the flake cannot go unseen by chance (see the test above).
      'properties/random.ts': prop(
        'coin_flip',
        ['lines'],
        `if (JSON.stringify(fx) !== ${JSON.stringify(JSON.stringify(JSON.parse(seedInvoice())))} && Math.random() < 0.5) throw new Error("x");`,
      ),
      'flake_ledger.json': JSON.stringify(ledger, null, 2),
    });
    const r = await check(repo);
    expect(r.card.frozen).toEqual([
      expect.objectContaining({
        layer: 'hits',
        covers: 'coin_flip',
        cause: 'HASH_ORDER',
        owner: 'payments',
        expires: '2026-12-31',
      }),
    ]);
    expect(r.codes).not.toContain('FLAKE_UNCLASSIFIED');
    expect(r.codes).toContain('LEDGER_UNKNOWN_CAUSE');
    // The same row, expired, no longer freezes: the property runs unfrozen and its flake rejects.
    const later = await check(repo, ['--today', '2027-01-05']);
    expect(later.codes).toEqual(expect.arrayContaining(['LEDGER_EXPIRED', 'FLAKE_UNCLASSIFIED']));
    expect(later.card.frozen).toEqual([]);
  });

  it('stops a check that hangs and reports CHECK_TIMEOUT instead of waiting forever', async () => {
    const repo = hitsRepo({ ...TS, timeoutMs: 300 }, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    repo.write({
      'properties/hang.ts': prop(
        'hangs_on_big_totals',
        ['total_cents'],
        'if (fx.total_cents > 1500) { for (;;) {} }',
      ),
    });
    const r = await check(repo);
    expect(r.code).toBe(1);
    const t = r.card.findings.find((f) => f.code === 'CHECK_TIMEOUT');
    expect(t?.evidence.property).toBe('hangs_on_big_totals');
  });

  it('does not count time a property waits in the queue against its per-check timeout', async () => {
    const slow = (i: number) =>
      prop(
        `slow_${i}`,
        ['total_cents'],
        "const end = Date.now() + 10; while (Date.now() < end) {} if (fx.total_cents !== 1500) throw new Error('t');",
      );
    const files = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`properties/slow${i}.ts`, slow(i)]),
    );
    // One worker, so every check waits for the ones before it: the queue adds up to well over the
    // 600 ms timeout, while one check takes 10 ms. 600 ms leaves room for a loaded machine's scheduling.
    const repo = hitsRepo({ ...TS, maxDepth: 1, workers: 1, timeoutMs: 600 }, files);
    const r = await check(repo);
    expect(r.codes).not.toContain('CHECK_TIMEOUT');
    expect(r.card.verdict).toBe('accept');
  });

  it("turns a worker a head property crashes into a rejection (HEAD_RUN_BROKEN) while the base's properties score in the same host", async () => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    repo.write({
      'properties/crash.ts': prop('exits', ['lines'], 'if (fx.lines.length > 2) process.exit(7);'),
    });
    const r = await check(repo);
    expect(r.card.verdict).toBe('reject');
    expect(r.code).toBe(1);
    const broken = r.card.findings.find((f) => f.code === 'HEAD_RUN_BROKEN');
    expect(broken?.evidence).toMatchObject({ property: 'exits', side: 'head' });
    expect(String(broken?.evidence.error)).toMatch(/exited with code 7/);
    expect(r.codes).not.toContain('INTERNAL_ERROR');
  });

  // With one worker, these eight properties go to the pool in batches of two (several properties per task).
  const coupled = (i: number) =>
    prop(
      `coupled_${i}`,
      ['lines', 'total_cents', 'currency'],
      "const t = fx.lines.reduce((s, l) => s + l.qty * l.unit_cents, 0); if (fx.currency !== 'USD' || t !== fx.total_cents) throw new Error('no');",
    );
  const batchOf = (odd: string) =>
    Object.fromEntries([
      ...Array.from({ length: 7 }, (_, i) => [`properties/c${i}.ts`, coupled(i)]),
      ['properties/odd.ts', odd],
    ]);
  const headReport = (repo: GitDir) =>
    JSON.parse(readFileSync(repo.path('.patchgate/out/hit_report.head.json'), 'utf8')) as {
      property: string;
      hits: string[];
    }[];

  it('pins a hang inside a batch of properties on the one that hung, and still scores its batch mates', async () => {
    const repo = hitsRepo(
      { ...TS, workers: 1, timeoutMs: 300 },
      batchOf(prop('hangs', ['total_cents'], 'if (fx.total_cents > 1500) { for (;;) {} }')),
    );
    const r = await check(repo);
    const timeouts = r.card.findings.filter((f) => f.code === 'CHECK_TIMEOUT');
    expect(timeouts.map((f) => f.evidence.property)).toEqual(['hangs']);
    expect(r.codes.filter((c) => c !== 'CHECK_TIMEOUT')).toEqual([]);
    const scored = headReport(repo).filter((row) => row.property.startsWith('coupled_'));
    expect(scored).toHaveLength(7);
    for (const row of scored) expect(row.hits).toEqual(expect.arrayContaining(['currency', 'total_cents']));
  });

  it('pins a worker crash inside a batch on the property that crashed, and still scores its batch mates', async () => {
    const repo = hitsRepo(
      { ...TS, workers: 1 },
      batchOf(prop('exits', ['lines'], 'if (fx.lines.length > 2) process.exit(7);')),
    );
    const r = await check(repo);
    // The crashing property is the base's too: the gate cannot judge it (an error), and says it is the base's.
    expect(r.card.verdict).toBe('error');
    const broken = r.card.findings.filter((f) => f.code === 'BASE_RUN_BROKEN');
    expect([...new Set(broken.map((f) => f.evidence.property))]).toEqual(['exits']);
    expect(r.codes).not.toContain('INTERNAL_ERROR');
    expect(headReport(repo).filter((row) => row.property.startsWith('coupled_'))).toHaveLength(7);
  });

  it('fails a check that mutates its frozen fixture', async () => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    repo.write({ 'properties/mutates.ts': prop('mutates', ['total_cents'], 'fx.total_cents = 0;') });
    const r = await check(repo);
    expect(r.card.findings.find((f) => f.code === 'BASELINE_FAIL')?.evidence.error).toMatch(
      /TypeError: Cannot assign to read only property/,
    );
  });

  it.each([
    [
      'a module that fails to load',
      { 'properties/broken.ts': 'throw new Error("boom at import");' },
      /properties\/broken\.ts: failed to load: Error: boom at import/,
    ],
    [
      'a duplicate property name',
      { 'properties/dup.ts': TS_INVOICE_PROPERTY },
      /duplicate property name 'invoice_total_matches_lines'/,
    ],
    [
      'a fixture that is not locked',
      {
        'properties/unlocked.ts': prop('unlocked', ['a'], 'return true;', 'src/data.json'),
        'src/data.json': '{"a":1}',
      },
      /uses fixture src\/data\.json, which is not locked/,
    ],
  ])('reports %s as a clear error (verdict error)', async (_what, files, message) => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    repo.write(files);
    const r = await check(repo);
    expect(r.card.verdict).toBe('error');
    expect(r.code).toBe(2);
    expect(r.card.findings.find((f) => f.severity === 'error')?.message).toMatch(message);
  });

  it('keeps the override token and CI secrets away from property code', async () => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    repo.write({
      'properties/env.ts': prop(
        'sees_no_secrets',
        ['total_cents'],
        "if (process.env.FIXTURE_OVERRIDE || process.env.CI_SECRET) throw new Error('leak'); if (fx.total_cents !== 1500) throw new Error('t');",
      ),
    });
    const r = await check(repo, [], { FIXTURE_OVERRIDE: 'tok', CI_SECRET: 'sss' });
    expect(r.codes).toEqual([]);
    const head = JSON.parse(readFileSync(repo.path('.patchgate/out/hit_report.head.json'), 'utf8'));
    expect(head.find((row: { property: string }) => row.property === 'sees_no_secrets')).toMatchObject({
      baseline: 'pass',
      hits: ['total_cents'],
    });
  });
});

describe('patchgate ledger add (human-only)', () => {
  it("writes a validated row whose fixture_digest is the lock's digest for the property's fixture", async () => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    const args = [
      'ledger',
      'add',
      '--property',
      'invoice_total_matches_lines',
      '--cause',
      'HASH_ORDER',
      '--owner',
      'payments',
    ];
    const r = await runCli(
      [
        ...args,
        '--expires',
        '2026-12-31',
        '--action',
        'sort line ids in the property',
        '--today',
        '2026-11-30',
      ],
      {
        cwd: repo.dir,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const ledger = JSON.parse(readFileSync(repo.path('flake_ledger.json'), 'utf8'));
    expect(ledger.rules).toEqual([
      {
        property: 'invoice_total_matches_lines',
        cause_class: 'HASH_ORDER',
        fixture_digest: canonicalDigest(seedInvoice()),
        owner: 'payments',
        expires: '2026-12-31',
        action: 'sort line ids in the property',
        freeze_hits: false,
      },
    ]);
    const unknown = await runCli(
      [
        'ledger',
        'add',
        '--property',
        'nope',
        '--cause',
        'CLOCK',
        '--owner',
        'x',
        '--expires',
        '2026-12-31',
        '--action',
        'y',
      ],
      {
        cwd: repo.dir,
        env: { CI_DATE: '2026-11-30' },
      },
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('nope');
  });

  it('refuses a --today that is not a real date', async () => {
    const repo = hitsRepo(TS, { 'properties/invoice.ts': TS_INVOICE_PROPERTY });
    const r = await runCli(['check', '--base', 'main', '--today', '2026-02-30'], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--today');
  });
});

describe('hits layer: properties in other languages', () => {
  const PY_GOOD = `class P:
    def __init__(self, name, claimed_fields, check):
        self.name, self.claimed_fields, self.check = name, claimed_fields, check

def total(fx):
    if sum(l["qty"] * l["unit_cents"] for l in fx["lines"]) != fx["total_cents"]:
        raise AssertionError("total")

PROPERTIES = [P("py_total", {"lines", "total_cents"}, total)]
`;

  it('rejects a Python property weakened to never fail (ZERO_HIT, HIT_SURFACE_SHRANK) through the harness', async () => {
    const repo = hitsRepo(
      { python: [{ module: 'props.py', fixture: 'fixtures/lock.json' }], maxDepth: 2 },
      { 'props.py': PY_GOOD },
    );
    const weakened = PY_GOOD.replace(
      '    if sum(l["qty"] * l["unit_cents"] for l in fx["lines"]) != fx["total_cents"]:\n        raise AssertionError("total")',
      '    print("checked", fx.get("total_cents"))',
    );
    expect(weakened).not.toBe(PY_GOOD);
    repo.write({ 'props.py': weakened });
    const r = await check(repo);
    expect(r.code).toBe(1);
    expect(r.codes).toEqual(expect.arrayContaining(['ZERO_HIT', 'HIT_SURFACE_SHRANK']));
    expect(r.card.findings.find((f) => f.code === 'ZERO_HIT')?.evidence).toMatchObject({
      property: 'py_total',
      source: 'props.py',
    });
  });

  it('reports a Python module that does not import as a clear error', async () => {
    const repo = hitsRepo(
      { python: [{ module: 'props.py', fixture: 'fixtures/lock.json' }] },
      { 'props.py': PY_GOOD },
    );
    repo.write({ 'props.py': 'def broken(:\n' });
    const r = await check(repo);
    expect(r.card.verdict).toBe('error');
    expect(r.card.findings.find((f) => f.severity === 'error')?.message).toMatch(/props\.py.*SyntaxError/s);
  });

  it('scores a command property (one process per mutant, exit code = status)', async () => {
    const script = `#!/bin/sh\ngrep -q '"total_cents":1500' "$PATCHGATE_FIXTURE"\n`;
    const repo = hitsRepo(
      {
        commands: [
          {
            name: 'sh_total',
            fixture: 'fixtures/lock.json',
            claims: ['total_cents'],
            command: ['sh', 'check.sh'],
          },
        ],
        maxDepth: 1,
      },
      { 'check.sh': script },
    );
    const r = await check(repo);
    expect(r.codes).toEqual([]);
    const head = JSON.parse(readFileSync(repo.path('.patchgate/out/hit_report.head.json'), 'utf8'));
    expect(head[0]).toMatchObject({ property: 'sh_total', hits: ['total_cents'], false_claims: [] });
  });
  it('stops with a config error (exit 2) naming the key and the glob when a property glob matches nothing on the base', async () => {
    const repo = hitsRepo(
      {
        properties: ['properties/*.ts', 'props/**/*.property.ts'],
        python: [{ module: 'gone.py', fixture: 'fixtures/lock.json' }],
      },
      { 'properties/invoice.ts': TS_INVOICE_PROPERTY },
    );
    const r = await check(repo);
    expect(r.code).toBe(2);
    expect(r.card.verdict).toBe('error');
    expect(r.card.layers.find((l) => l.name === 'hits')?.status).toBe('error');
    const msg = r.card.findings.find((f) => f.code === 'CONFIG_INVALID')?.message ?? '';
    expect(msg).toContain(
      "hits.properties[1]: the glob 'props/**/*.property.ts' matches no file in the base revision",
    );
    expect(msg).toContain("hits.python[0].module: 'gone.py' is not a file in the base revision");
  });

  it('stops with a config error when an enabled hits layer yields no property at all', async () => {
    const r = await check(hitsRepo({}));
    expect(r.code).toBe(2);
    expect(r.card.findings[0]).toMatchObject({ code: 'CONFIG_INVALID', severity: 'error' });
    expect(r.card.findings[0]?.message).toMatch(
      /hits\.properties: the hits layer is on, but .* yield no property/,
    );
  });

  it('stops with a config error when a harness lists no property on the base', async () => {
    const repo = hitsRepo(
      { python: [{ module: 'props.py', fixture: 'fixtures/lock.json' }] },
      { 'props.py': 'PROPERTIES = []\n' },
    );
    const r = await check(repo);
    expect(r.code).toBe(2);
    expect(r.card.findings[0]?.message).toMatch(
      /hits\.python\[0\]\.module: the harness of .* lists no property/,
    );
  });
});
