import { describe, expect, it } from 'vitest';
import type { FlakeLedgerRule } from '../../../../src/freeze/flake-ledger.js';
import { applyLedgerRules, type LedgerInput } from '../../../../src/layers/hits/ledger-rules.js';

const FILE = 'flake_ledger.json';
const LOCKED = 'a'.repeat(64);
const TODAY = '2026-09-20';

const row = (over: Partial<FlakeLedgerRule> = {}, line = 4): FlakeLedgerRule => ({
  property: 'invoice_total',
  cause_class: 'HASH_ORDER',
  fixture_digest: LOCKED,
  owner: 'maintainer',
  expires: '2026-10-04',
  action: 'sort line ids in the property',
  freeze_hits: false,
  line,
  ...over,
});

/** `invoice_total` claims fields that live in the lock; `price_feed` claims one that does not. */
function input(rules: FlakeLedgerRule[], over: Partial<LedgerInput> = {}): LedgerInput {
  return {
    ledger: { version: 1, rules },
    file: FILE,
    today: TODAY,
    properties: new Map([
      ['invoice_total', { fixture: 'fixtures/lock.json', claims: ['lines', 'currency'] }],
      ['price_feed', { fixture: 'fixtures/lock.json', claims: ['lines', 'live_rate'] }],
      ['unlocked_prop', { fixture: 'fixtures/new.json', claims: ['x'] }],
    ]),
    fixtureDigest: (f) => (f === 'fixtures/lock.json' ? LOCKED : undefined),
    claimLivesInLock: (_f, claim) => claim !== 'live_rate',
    ...over,
  };
}

describe('ledger rules: one broken rule → exactly that code', () => {
  it.each([
    {
      code: 'LEDGER_UNKNOWN_CAUSE',
      over: { cause_class: 'COSMIC_RAY' },
      evidence: {
        field: 'cause_class',
        value: 'COSMIC_RAY',
        allowed: ['CLOCK', 'HASH_ORDER', 'FLOAT_ULP', 'EXTERNAL_IO'],
      },
      message: /COSMIC_RAY.*allowed: CLOCK, HASH_ORDER, FLOAT_ULP, EXTERNAL_IO/,
    },
    {
      code: 'LEDGER_UNKNOWN_CAUSE',
      over: { cause_class: 'clock' },
      evidence: { field: 'cause_class', value: 'clock' },
      message: /'clock'/,
    },
    {
      code: 'LEDGER_FREEZE_HITS',
      over: { freeze_hits: true },
      evidence: { field: 'freeze_hits', value: true },
      message: /freeze_hits: true/,
    },
    {
      code: 'LEDGER_DIGEST_MISMATCH',
      over: { fixture_digest: 'b'.repeat(64) },
      evidence: {
        field: 'fixture_digest',
        value: 'b'.repeat(64),
        expected: LOCKED,
        actual: 'b'.repeat(64),
        fixture: 'fixtures/lock.json',
      },
      message: /does not match the lock/,
    },
    {
      code: 'LEDGER_DIGEST_MISMATCH',
      over: { property: 'unlocked_prop', fixture_digest: LOCKED },
      evidence: { property: 'unlocked_prop', expected: null, fixture: 'fixtures/new.json' },
      message: /fixtures\/new\.json is not locked/,
    },
    {
      code: 'LEDGER_EXPIRED',
      over: { expires: '2026-09-19' },
      evidence: { field: 'expires', value: '2026-09-19', today: TODAY },
      message: /expired on 2026-09-19.*runs unfrozen/,
    },
    {
      code: 'LEDGER_EXTERNAL_IO_INVALID',
      over: { cause_class: 'EXTERNAL_IO' },
      evidence: {
        field: 'cause_class',
        value: 'EXTERNAL_IO',
        claims: ['lines', 'currency'],
        fixture: 'fixtures/lock.json',
      },
      message: /every field it claims \(lines, currency\)/,
    },
    {
      code: 'LEDGER_NO_ACTION',
      over: { action: '' },
      evidence: { field: 'action', value: '' },
      message: /no action/,
    },
    {
      code: 'LEDGER_NO_ACTION',
      over: { action: '  \t ' },
      evidence: { field: 'action', value: '  \t ' },
      message: /no action/,
    },
  ])('$code ($over)', ({ code, over, evidence, message }) => {
    const ok = row({ property: 'price_feed' }, 4);
    const bad = row(over as Partial<FlakeLedgerRule>, 13);
    const v = applyLedgerRules(input([ok, bad]));
    expect(v.findings).toHaveLength(1);
    const [f] = v.findings;
    expect(f).toMatchObject({ code, layer: 'hits', severity: 'reject' });
    expect(f?.message).toMatch(message);
    expect(f?.message).toContain('flake_ledger.json:13 (row 1)');
    expect(f?.evidence).toMatchObject({
      file: FILE,
      row: 1,
      line: 13,
      property: bad.property,
      ...evidence,
    });
    // The broken row freezes nothing; the other row still does.
    expect([...v.active.keys()]).toEqual(['price_feed']);
    expect(v.active.get('price_feed')?.source).toEqual({ file: FILE, index: 0, line: 4 });
  });
});

describe('ledger rules: valid rows', () => {
  it('a valid row is active and raises nothing', () => {
    const v = applyLedgerRules(input([row()]));
    expect(v.findings).toEqual([]);
    expect(v.stale).toEqual([]);
    expect(v.active.get('invoice_total')).toEqual({
      kind: 'flake-cause',
      covers: 'invoice_total',
      owner: 'maintainer',
      cause: 'HASH_ORDER',
      expires: '2026-10-04',
      action: 'sort line ids in the property',
      source: { file: FILE, index: 0, line: 4 },
    });
  });

  it('a row expiring today still holds', () => {
    const v = applyLedgerRules(input([row({ expires: TODAY })]));
    expect(v.findings).toEqual([]);
    expect(v.active.has('invoice_total')).toBe(true);
  });

  it('EXTERNAL_IO is valid when a claimed field does not live in the lock', () => {
    const v = applyLedgerRules(input([row({ property: 'price_feed', cause_class: 'EXTERNAL_IO' })]));
    expect(v.findings).toEqual([]);
    expect(v.active.get('price_feed')?.cause).toBe('EXTERNAL_IO');
  });

  it('EXTERNAL_IO for a property that claims nothing is invalid (vacuously all in the lock)', () => {
    const v = applyLedgerRules(
      input([row({ property: 'bare', cause_class: 'EXTERNAL_IO' })], {
        properties: new Map([['bare', { fixture: 'fixtures/lock.json', claims: [] }]]),
      }),
    );
    expect(v.findings.map((f) => f.code)).toEqual(['LEDGER_EXTERNAL_IO_INVALID']);
  });

  it('of several valid rows for one property, the first is active', () => {
    const v = applyLedgerRules(
      input([
        row({ cause_class: 'FLOAT_ULP', expires: '2026-09-01' }, 4), // expired: broken
        row({ cause_class: 'HASH_ORDER' }, 13),
        row({ cause_class: 'FLOAT_ULP' }, 22),
      ]),
    );
    expect(v.findings.map((f) => f.code)).toEqual(['LEDGER_EXPIRED']);
    expect(v.active.get('invoice_total')?.source.index).toBe(1);
  });

  it('never reads the clock: the same ledger flips with the injected today', () => {
    const rules = [row({ expires: '2026-10-04' })];
    expect(applyLedgerRules(input(rules, { today: '2026-10-04' })).findings).toEqual([]);
    expect(applyLedgerRules(input(rules, { today: '2026-10-05' })).findings.map((f) => f.code)).toEqual([
      'LEDGER_EXPIRED',
    ]);
  });
});

describe('ledger rules: CLOCK cap', () => {
  it('two active CLOCK rows → one finding naming both, and neither is active', () => {
    const v = applyLedgerRules(
      input([
        row({ cause_class: 'CLOCK', owner: 'ana' }, 4),
        row({ property: 'price_feed' }, 13),
        row({ cause_class: 'CLOCK', owner: 'bo', expires: '2026-12-01' }, 22),
      ]),
    );
    expect(v.findings).toHaveLength(1);
    const [f] = v.findings;
    expect(f?.code).toBe('LEDGER_CLOCK_CAP');
    expect(f?.message).toMatch(
      /2 active CLOCK freezes for 'invoice_total': row 0 \(line 4\), row 2 \(line 22\)/,
    );
    expect(f?.evidence).toMatchObject({
      file: FILE,
      row: 0,
      line: 4,
      property: 'invoice_total',
      field: 'cause_class',
      value: 'CLOCK',
      rows: [
        { row: 0, line: 4, owner: 'ana', expires: '2026-10-04' },
        { row: 2, line: 22, owner: 'bo', expires: '2026-12-01' },
      ],
    });
    expect([...v.active.keys()]).toEqual(['price_feed']);
  });

  it('one expired + one active CLOCK row → only LEDGER_EXPIRED for the old one', () => {
    const v = applyLedgerRules(
      input([row({ cause_class: 'CLOCK', expires: '2026-01-01' }, 4), row({ cause_class: 'CLOCK' }, 13)]),
    );
    expect(v.findings.map((f) => [f.code, f.evidence.row])).toEqual([['LEDGER_EXPIRED', 0]]);
    expect(v.active.get('invoice_total')?.source.index).toBe(1);
  });

  it('CLOCK rows of different properties do not count together', () => {
    const v = applyLedgerRules(
      input([row({ cause_class: 'CLOCK' }), row({ property: 'price_feed', cause_class: 'CLOCK' })]),
    );
    expect(v.findings).toEqual([]);
    expect(v.active.size).toBe(2);
  });
});

describe('ledger rules: ordering and unknown properties', () => {
  it('reports every broken rule of a row, in row order then rule order, cap findings last', () => {
    const v = applyLedgerRules(
      input([
        row({ cause_class: 'CLOCK' }, 4),
        row(
          { cause_class: 'NOPE', freeze_hits: true, action: '', expires: '2020-01-01', fixture_digest: 'x' },
          13,
        ),
        row({ cause_class: 'CLOCK' }, 22),
      ]),
    );
    expect(v.findings.map((f) => `${f.evidence.row}:${f.code}`)).toEqual([
      '1:LEDGER_UNKNOWN_CAUSE',
      '1:LEDGER_FREEZE_HITS',
      '1:LEDGER_NO_ACTION',
      '1:LEDGER_EXPIRED',
      '1:LEDGER_DIGEST_MISMATCH',
      '0:LEDGER_CLOCK_CAP',
    ]);
    expect(v.active.size).toBe(0);
  });

  it('a row for a property that does not exist is stale: no finding, not active', () => {
    const v = applyLedgerRules(input([row({ property: 'renamed_away', fixture_digest: 'whatever' }, 7)]));
    expect(v.findings).toEqual([]);
    expect(v.active.size).toBe(0);
    expect(v.stale).toEqual([{ property: 'renamed_away', index: 0, line: 7 }]);
  });

  it('a stale row is still checked by the rules that do not need its property', () => {
    const v = applyLedgerRules(input([row({ property: 'gone', freeze_hits: true, expires: '2020-01-01' })]));
    expect(v.findings.map((f) => f.code)).toEqual(['LEDGER_FREEZE_HITS', 'LEDGER_EXPIRED']);
    expect(v.stale).toHaveLength(1);
  });
});
