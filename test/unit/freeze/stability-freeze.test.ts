import { describe, expect, it } from 'vitest';
import { ContractFileError } from '../../../src/errors.js';
import { coveringFreeze, parseStabilityFreeze } from '../../../src/freeze/stability-freeze.js';

const FILE = 'stability_freeze.json';
const row = {
  test: 'pytest::t::test_a',
  owner: 'payments',
  reason: 'cold cache',
  expires: '2027-03-31',
  action: 'warm it',
};

describe('stability freeze', () => {
  it('reads rows as freezes covering test ids', () => {
    const [f] = parseStabilityFreeze(JSON.stringify({ freezes: [row] }, null, 2), FILE);
    expect(f).toMatchObject({
      kind: 'stability',
      covers: 'pytest::t::test_a',
      owner: 'payments',
      expires: '2027-03-31',
    });
    expect(f?.source).toMatchObject({ file: FILE, index: 0, line: 3 });
  });

  it('covers a test through its expiry day and not after', () => {
    const freezes = parseStabilityFreeze(JSON.stringify({ freezes: [row] }), FILE);
    expect(coveringFreeze(freezes, 'pytest::t::test_a', '2027-03-31')).toBeDefined();
    expect(coveringFreeze(freezes, 'pytest::t::test_a', '2027-04-01')).toBeUndefined();
    expect(coveringFreeze(freezes, 'pytest::t::test_b', '2026-01-01')).toBeUndefined();
  });

  it('rejects a row without an owner, a reason or a real date, every problem at once and located', () => {
    const text = JSON.stringify(
      { freezes: [{ ...row, owner: ' ', reason: '', expires: '2027-02-30', extra: 1 }] },
      null,
      2,
    );
    const err = (() => {
      try {
        parseStabilityFreeze(text, FILE);
      } catch (e) {
        return e;
      }
    })() as ContractFileError;
    expect(err).toBeInstanceOf(ContractFileError);
    const messages = err.problems.map((p) => `${p.line}: ${p.path}: ${p.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/freezes\[0\]\.owner: expected the person or team who owns the freeze/),
        expect.stringMatching(/freezes\[0\]\.reason: expected why the test is frozen/),
        expect.stringMatching(/freezes\[0\]\.expires: .*not a real calendar date/),
        expect.stringMatching(/freezes\[0\]\.extra: unknown key 'extra'/),
      ]),
    );
  });
});
