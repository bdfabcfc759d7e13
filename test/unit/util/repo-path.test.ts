import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byCodePoint } from '../../../src/util/compare.js';
import { checkRepoPath } from '../../../src/util/repo-path.js';

describe('repo paths', () => {
  it.each([
    ['testdata', undefined],
    ['testdata/a b/c.json', undefined],
    ['.github/workflows/**', undefined],
    ['', 'must not be empty'],
    ['/etc/passwd', 'must be relative to the repository root, not absolute'],
    ['C:/x', 'must be relative to the repository root, not absolute'],
    ['a/../b', "must not contain '..' (paths may not leave the repository)"],
    ['..', "must not contain '..' (paths may not leave the repository)"],
    ['a\\b', 'must use forward slashes (/), not backslashes'],
    ['a//b', "must be normalized (no '//' or './' segments)"],
    ['./a', "must be normalized (no '//' or './' segments)"],
  ])('%j → %s', (p, expected) => {
    expect(checkRepoPath(p)).toBe(expected);
  });
});

/** The rules as first written, one check at a time: the specification the one-pass fast path must keep. */
function specification(p: string): string | undefined {
  if (p.length === 0) return 'must not be empty';
  if (p.includes('\0')) return 'must not contain NUL bytes';
  if (p.includes('\\')) return 'must use forward slashes (/), not backslashes';
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p))
    return 'must be relative to the repository root, not absolute';
  const segments = p.replace(/\/+$/, '').split('/');
  if (segments.some((s) => s === '..')) return "must not contain '..' (paths may not leave the repository)";
  if (segments.some((s) => s === '' || s === '.') && p !== '.')
    return "must be normalized (no '//' or './' segments)";
  return undefined;
}

describe('repo paths: the one-pass check', () => {
  it('says what the rules say, on paths made of the characters that matter', () => {
    const piece = fc.constantFrom(
      'a',
      'b.json',
      '.',
      '..',
      '/',
      '//',
      '\\',
      '\0',
      'C:',
      ':',
      ' ',
      '.x',
      'x.',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const p = pieces.join('');
        expect(checkRepoPath(p), JSON.stringify(p)).toBe(specification(p));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('code point order', () => {
  it('sorts astral characters after U+FFFF, as Python does and UTF-16 order does not', () => {
    const items = ['\u{1F600}', '\uFFFF', 'a', '\uE000'];
    expect([...items].sort(byCodePoint)).toEqual(['a', '\uE000', '\uFFFF', '\u{1F600}']);
    expect([...items].sort()).not.toEqual([...items].sort(byCodePoint));
  });
});
