import { expect } from 'vitest';
import { ContractFileError } from '../../src/errors.js';

/**
 * The problems of a rejected config or contract file, one string each as the
 * CLI prints them (`file:line:column: path: message`), so a test pins the
 * sentence a user reads.
 */
export function problemLines(err: unknown, code?: ContractFileError['code']): string[] {
  if (!(err instanceof ContractFileError)) throw err;
  if (code) expect(err.code).toBe(code);
  return err.message
    .split('\n')
    .slice(1)
    .map((l) => l.replace(/^ {2}- /, ''));
}

/** `problemLines` of what `parse` throws; a file it accepts fails the test. */
export function rejectionOf(parse: () => unknown, what: string, code?: ContractFileError['code']): string[] {
  try {
    parse();
  } catch (err) {
    return problemLines(err, code);
  }
  throw new Error(`expected the ${what} to be rejected`);
}
