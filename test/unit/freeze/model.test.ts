import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.js';
import { isExpired, isoDate, parseToday, resolveToday } from '../../../src/freeze/model.js';

describe('isoDate', () => {
  it.each([
    ['2026-09-20', true],
    ['2024-02-29', true],
    ['2000-02-29', true],
    ['0001-01-01', true],
    ['9999-12-31', true],
    ['1900-02-29', false],
    ['2026-02-29', false],
    ['2026-02-30', false],
    ['2026-04-31', false],
    ['2026-13-01', false],
    ['2026-00-10', false],
    ['2026-01-00', false],
    ['0000-01-01', false],
    ['26-1-1', false],
    ['2026-1-01', false],
    ['2026-01-01T00:00:00Z', false],
    [' 2026-01-01', false],
    ['2026-01-01\n', false],
    ['２０２６-01-01', false],
    ['', false],
  ])('%j → %s', (s, ok) => {
    expect(isoDate(s)).toBe(ok);
  });
});

describe('isExpired', () => {
  it('holds through the expiry day and lapses the day after', () => {
    expect(isExpired({ expires: '2026-09-20' }, '2026-09-19')).toBe(false);
    expect(isExpired({ expires: '2026-09-20' }, '2026-09-20')).toBe(false);
    expect(isExpired({ expires: '2026-09-20' }, '2026-09-21')).toBe(true);
    expect(isExpired({ expires: '2026-12-31' }, '2027-01-01')).toBe(true);
  });

  it('treats an invalid expiry as expired (fail closed) and refuses an unvalidated today', () => {
    expect(isExpired({ expires: '2026-02-30' }, '2026-01-01')).toBe(true);
    expect(() => isExpired({ expires: '2026-09-20' }, '2026-9-1')).toThrow(/today/);
  });
});

describe('parseToday', () => {
  it('returns a valid date unchanged', () => {
    expect(parseToday('2026-09-20', 'CI_DATE')).toBe('2026-09-20');
  });

  it.each([
    ['2026-02-30', /CI_DATE.*'2026-02-30'.*not a real calendar date/],
    ['26-1-1', /CI_DATE.*'26-1-1'.*YYYY-MM-DD/],
    ['', /CI_DATE.*empty/],
  ])('rejects %j naming where it came from', (value, message) => {
    let err: unknown;
    try {
      parseToday(value, 'CI_DATE');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe('USAGE');
    expect((err as InputError).message).toMatch(message);
  });
});

describe('resolveToday', () => {
  const now = () => new Date('2026-03-04T23:30:00-05:00'); // 2026-03-05 in UTC

  it('prefers --today, then CI_DATE, then the UTC system date', () => {
    expect(resolveToday('2026-01-02', { CI_DATE: '2026-01-03' }, now)).toEqual({
      today: '2026-01-02',
      from: '--today',
    });
    expect(resolveToday(undefined, { CI_DATE: '2026-01-03' }, now).today).toBe('2026-01-03');
    expect(resolveToday(undefined, {}, now).today).toBe('2026-03-05');
  });

  it('rejects a bad value naming its source', () => {
    expect(() => resolveToday('tomorrow', {}, now)).toThrow(/--today/);
    expect(() => resolveToday(undefined, { CI_DATE: '2026-02-30' }, now)).toThrow(/CI_DATE/);
  });
});
