import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor } from '../../../src/cli/exit-codes.js';
import { type CliIO, useColor } from '../../../src/cli/io.js';

const io = (env: Record<string, string>, isTTY: boolean): CliIO => ({
  argv: [],
  cwd: '/',
  env,
  stdout: { write: () => true, isTTY },
  stderr: { write: () => true },
  signal: new AbortController().signal,
});

describe('CLI policy', () => {
  it('maps verdicts to exit codes in one place', () => {
    expect(exitCodeFor({ verdict: 'accept' })).toBe(EXIT.accept);
    expect(exitCodeFor({ verdict: 'reject' })).toBe(1);
    expect(exitCodeFor({ verdict: 'error', errorKind: 'input' })).toBe(2);
    expect(exitCodeFor({ verdict: 'error', errorKind: 'internal' })).toBe(3);
    // An error without a kind is ours, never the user's and never an accept.
    expect(exitCodeFor({ verdict: 'error' })).toBe(3);
  });

  it('uses colour only on a TTY and never with NO_COLOR', () => {
    expect(useColor(io({}, true))).toBe(true);
    expect(useColor(io({}, false))).toBe(false);
    expect(useColor(io({ NO_COLOR: '1' }, true))).toBe(false);
    expect(useColor(io({ FORCE_COLOR: '1' }, false))).toBe(true);
  });
});
