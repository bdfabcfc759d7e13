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

describe('code point order', () => {
  it('sorts astral characters after U+FFFF, as Python does and UTF-16 order does not', () => {
    const items = ['\u{1F600}', '\uFFFF', 'a', '\uE000'];
    expect([...items].sort(byCodePoint)).toEqual(['a', '\uE000', '\uFFFF', '\u{1F600}']);
    expect([...items].sort()).not.toEqual([...items].sort(byCodePoint));
  });
});
