import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor } from '../../../src/cli/exit-codes.js';
import { type CliIO, displaySafe, rawStream, useColor } from '../../../src/cli/io.js';
import { main } from '../../../src/cli/main.js';
import { memoryIO } from '../../helpers/cli-io.js';

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

describe('what every command prints', () => {
  it('is display-safe: an error quoting an argument shows its escape sequences as text', async () => {
    const { io: mem, err } = memoryIO('/');
    const code = await main({
      ...mem,
      argv: ['explain', 'FIXTURE\u001b]0;owned\u0007\u009b2J\u202e\n::add-mask::x'],
    });
    expect(code).toBe(2);
    expect(err()).toContain(
      "unknown reason code 'FIXTURE\\u001b]0;owned\\u0007\\u009b2J\\u202e\n\\u003a:add-mask::x'",
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
    expect(err()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('keeps JSON output the same JSON, and lets output with its own escapes through the raw stream', () => {
    let written = '';
    const stream = {
      write: (s: string) => {
        written += s;
        return true;
      },
      isTTY: true,
      columns: 120,
    };
    const safe = displaySafe(stream);
    expect(safe.isTTY).toBe(true);
    expect(safe.columns).toBe(120);
    expect(displaySafe(safe)).toBe(safe);
    const value = { test: 'a\u009bb\u202ec ##[x]', n: [1, '\u2028'] };
    safe.write(JSON.stringify(value, null, 2));
    expect(JSON.parse(written)).toEqual(value);
    written = '';
    rawStream(safe).write('\u001b[31mred\u001b[39m');
    expect(written).toBe('\u001b[31mred\u001b[39m');
    expect(rawStream(stream)).toBe(stream);
  });
});
