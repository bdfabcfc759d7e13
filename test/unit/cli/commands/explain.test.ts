import { describe, expect, it } from 'vitest';
import { explainCommand, nearestCodes } from '../../../../src/cli/commands/explain.js';
import { isReasonCode, REASON_CODES, type ReasonCode } from '../../../../src/codes.js';
import { asPatchgateError } from '../../../../src/errors.js';
import { memoryIO } from '../../../helpers/cli-io.js';

async function explain(args: string[]) {
  const mem = memoryIO(process.cwd());
  try {
    const code = await explainCommand(args, mem.io);
    return { code, out: mem.out(), error: undefined };
  } catch (err) {
    return { code: 2, out: mem.out(), error: asPatchgateError(err) };
  }
}

const codes = Object.keys(REASON_CODES) as ReasonCode[];

describe('reason codes', () => {
  it.each(codes)('%s says what it means, why it blocks, and what a person does next', (code) => {
    const e = REASON_CODES[code];
    for (const text of [e.meaning, e.why, e.next]) {
      expect(text.trim().length).toBeGreaterThan(15);
      expect(text).toMatch(/[.)`]$/);
    }
    expect(isReasonCode(code)).toBe(true);
  });

  it('keeps isReasonCode to own keys only', () => {
    expect(isReasonCode('toString')).toBe(false);
    expect(isReasonCode('NOT_A_CODE')).toBe(false);
  });

  it('names the exact human path where there is one', () => {
    expect(REASON_CODES.FIXTURE_CHANGED.next).toContain('override_token_env');
    expect(REASON_CODES.FREEZE_BLOCKED.next).toContain(
      'patchgate freeze reopen ID --reason TEXT --owner WHO',
    );
    expect(REASON_CODES.UNFROZEN_SKIP.next).toContain('patchgate signatures add');
    expect(REASON_CODES.CONTRACT_TOUCHED.next).toContain('contracts.overrideTokenEnv');
    expect(REASON_CODES.CONTRACT_TOUCHED.next).toContain('PATCHGATE_CONTRACTS_OVERRIDE');
    expect(REASON_CODES.REGRESSION.next).toContain('PATCHGATE_TESTS_OVERRIDE');
    expect(REASON_CODES.SEED_FAILED.next).toContain('patchgate seeds add');
    expect(REASON_CODES.FLAKE_UNCLASSIFIED.next).toContain('patchgate ledger add');
  });
});

describe('patchgate explain', () => {
  it('prints the meaning, why and next step of a code given in any case, within 100 columns', async () => {
    const r = await explain(['freeze_blocked']);
    expect(r.code).toBe(0);
    const flat = r.out.replace(/\s+/g, ' ');
    expect(r.out.startsWith('FREEZE_BLOCKED\n  What  ')).toBe(true);
    expect(flat).toContain(`What ${REASON_CODES.FREEZE_BLOCKED.meaning}`);
    expect(flat).toContain(`Why ${REASON_CODES.FREEZE_BLOCKED.why}`);
    expect(flat).toContain(`Next ${REASON_CODES.FREEZE_BLOCKED.next}`);
    for (const line of r.out.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });

  it('lists every code on one line each without a code', async () => {
    const r = await explain([]);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    for (const code of codes) expect(lines.filter((l) => l.startsWith(`${code} `))).toHaveLength(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
  });

  it('suggests the nearest codes for an unknown one (a usage error)', async () => {
    const r = await explain(['FIXTURE_CHANGD']);
    expect(r.error?.code).toBe('USAGE');
    expect(r.error?.message).toContain("unknown reason code 'FIXTURE_CHANGD'; did you mean FIXTURE_CHANGED");
    expect(nearestCodes('seed')[0]).toMatch(/^SEED_/);
    expect(nearestCodes('UNFROZEN-SKIP')).toEqual(['UNFROZEN_SKIP']);
    expect(nearestCodes('zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz')).toEqual([]);
  });

  it('takes one code only', async () => {
    const r = await explain(['ZERO_HIT', 'FALSE_CLAIM']);
    expect(r.error?.code).toBe('USAGE');
  });
});
