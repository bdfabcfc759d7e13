import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { failureSignature, kindOf, skipKind, templateDigest } from '../../../src/signatures/signature.js';

const sha = (s: string) => createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');

describe('failureSignature', () => {
  it('is the SHA-256 of the UTF-8 bytes of kind|normalized message', () => {
    const sig = failureSignature('AssertionError', 'expected 1 to be 2 in  Zoë', 'patchgate');
    expect(sig.template).toBe('AssertionError|expected <N> to be <N> in Zoë');
    expect(sig.sha256).toBe(sha('AssertionError|expected <N> to be <N> in Zoë'));
    expect(templateDigest(sig.template)).toBe(sig.sha256);
  });

  it('keeps the kind as given in both schemes', () => {
    expect(failureSignature(' Kind 1 ', 'm', 'patchgate').template).toBe(' Kind 1 |m');
    expect(failureSignature(' Kind 1 ', 'm', 'seed').template).toBe(' Kind 1 |m');
  });

  it('does not depend on the test name: only kind and message go in', () => {
    const a = failureSignature('AssertionError', 'timeout after 30s on provider 7', 'patchgate');
    const b = failureSignature('AssertionError', 'timeout after 45s on provider 9', 'patchgate');
    expect(b).toEqual(a);
  });

  it('writes a lone surrogate as U+FFFD so the template and its hash agree', () => {
    const sig = failureSignature('E', 'bad \ud800 half', 'seed');
    expect(sig.template).toBe('E|bad \ufffd half');
    expect(sig.sha256).toBe(sha('E|bad \ufffd half'));
    expect(failureSignature('E', 'pair 😀 kept', 'seed').template).toBe('E|pair 😀 kept');
  });
});

describe('kindOf', () => {
  it.each([
    [
      'the type attribute wins',
      { type: ' org.opentest4j.AssertionFailedError ', message: 'Error: x' },
      'org.opentest4j.AssertionFailedError',
    ],
    ['AssertionError: … in the message', { message: 'AssertionError: assert 1 == 2' }, 'AssertionError'],
    ['Error: expected…', { message: 'Error: expected 1 to equal 2' }, 'Error'],
    [
      'a dotted Java name',
      { message: 'java.lang.IllegalStateException: boom' },
      'java.lang.IllegalStateException',
    ],
    ["Node's error code", { message: 'AssertionError [ERR_ASSERTION]: Expected values' }, 'AssertionError'],
    ['a Go panic', { message: 'panic: runtime error: index out of range' }, 'panic'],
    ['a leading newline', { message: '\n  TypeError: x is undefined' }, 'TypeError'],
    ['a label that is not an error type', { message: 'Expected: 5\nReceived: 6' }, 'failure'],
    ['no colon', { message: 'AssertionError' }, 'failure'],
    ['a blank type falls through', { type: '  ', message: 'ValueError: bad' }, 'ValueError'],
    ['an error element without a type', { message: 'something broke', element: 'error' as const }, 'error'],
    ['nothing at all', {}, 'failure'],
  ])('%s', (_name, failure, expected) => {
    expect(kindOf(failure)).toBe(expected);
  });
});

describe('skipKind', () => {
  it.each([
    [{ type: 'pytest.skip' }, undefined, 'skipped'],
    [{ type: 'pytest.xfail' }, undefined, 'xfailed'],
    [{}, 'xfailed', 'xfailed'],
    [undefined, 'skipped', 'skipped'],
    [undefined, undefined, 'skipped'],
  ] as const)('%j with status %s is %s', (skipped, status, expected) => {
    expect(skipKind(skipped, status)).toBe(expected);
  });
});
