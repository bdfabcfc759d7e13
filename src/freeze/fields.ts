import { z } from 'zod';
import { isoDate } from './model.js';

/** The field shapes every freeze file shares, so their errors read the same. */

export const nonBlank = (what: string) =>
  z.string().refine((v) => v.trim() !== '', { message: `expected ${what}, got an empty or blank string` });

export const freezeDate = z.string().superRefine((v, ctx) => {
  if (!isoDate(v)) {
    const why = /^\d{4}-\d{2}-\d{2}$/.test(v)
      ? 'which is not a real calendar date'
      : 'not in YYYY-MM-DD form';
    ctx.addIssue({ code: 'custom', message: `expected a date such as 2026-10-04, got '${v}', ${why}` });
  }
});
