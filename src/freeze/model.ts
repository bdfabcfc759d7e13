import { InputError, InternalError } from '../errors.js';

/**
 * The shared shape of a freeze. Every freeze file patchgate reads (the
 * cause-class flake ledger, signature freezes, stability freezes and
 * claim-freeze windows) is turned into these records by its own reader, so
 * expiry, ownership and "is there a next step" are judged the same way
 * everywhere.
 */
export type FreezeKind = 'flake-cause' | 'signature' | 'stability' | 'claim';

export interface FreezeSource {
  /** Repo-relative path of the freeze file. */
  file: string;
  /** 0-based position of the row in the file's list of rows. */
  index: number;
  /** 1-based line where the row starts, when the reader could locate it. */
  line?: number;
}

export interface Freeze {
  kind: FreezeKind;
  /** What is frozen: a property name, a signature hash, a test id or a claim id, depending on `kind`. */
  covers: string;
  owner: string;
  reason?: string;
  /** The cause class, for files that record one. */
  cause?: string;
  /** Last day (inclusive) the freeze holds, as YYYY-MM-DD. */
  expires: string;
  /** The next step a human committed to. A freeze without one is only a skip. */
  action: string;
  source: FreezeSource;
  /**
   * `baseline`: the row was written by `patchgate baseline` for a failure or
   * skip the suite already had when patchgate was adopted (the file's
   * `"source": "baseline"`), and a human committed it after review. Shown as
   * such in every report; it covers exactly what a row a human wrote covers.
   */
  origin?: 'baseline';
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * True for exactly `YYYY-MM-DD` naming a real day of the proleptic Gregorian
 * calendar, year 0001 to 9999 (what Python's `date.fromisoformat` accepts in
 * this form). No times, no time zones, no week dates, no padding variations.
 */
export function isoDate(s: string): boolean {
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

/**
 * A freeze holds through its expiry day and lapses the day after. A freeze
 * whose expiry is not a valid date counts as expired (fail closed). `today`
 * must already be validated (see `parseToday`); an invalid one is our bug.
 */
export function isExpired(f: Pick<Freeze, 'expires'>, today: string): boolean {
  if (!isoDate(today)) throw new InternalError(`isExpired: today must be a YYYY-MM-DD date, got '${today}'`);
  if (!isoDate(f.expires)) return true;
  // Both are fixed-width, zero-padded dates, so text order is date order.
  return f.expires < today;
}

/**
 * Validates a "today" supplied from outside (`--today`, `CI_DATE`). `from`
 * names the source so the user knows which value to fix.
 */
export function parseToday(value: string, from: string): string {
  if (isoDate(value)) return value;
  const shown = value === '' ? 'an empty value' : `'${value}'`;
  const why = ISO_DATE.test(value) ? 'which is not a real calendar date' : 'which is not in YYYY-MM-DD form';
  throw new InputError('USAGE', `${from} must be a date such as 2026-09-20, got ${shown}, ${why}.`, {
    from,
    value,
  });
}

/** The UTC calendar date of `now` as YYYY-MM-DD (CI clocks run in UTC). */
export function utcDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Picks today's date for a command: an explicit flag wins, then `CI_DATE`
 * from the environment, then the system clock (UTC). Never read from the
 * repository, which a patch could edit.
 */
export function resolveToday(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  now: () => Date = () => new Date(),
): { today: string; from: string } {
  if (flag !== undefined) return { today: parseToday(flag, '--today'), from: '--today' };
  const ci = env.CI_DATE;
  if (ci !== undefined) return { today: parseToday(ci, 'CI_DATE'), from: 'CI_DATE' };
  return { today: utcDate(now()), from: 'the system clock (UTC)' };
}
