/**
 * Which symlinks in a checkout the sandbox follows: only those the gate made,
 * and only while they still lead where they led when it made them. Head code
 * writes its checkout and can plant or re-point links there.
 */
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lentTargets, recordLentLink } from '../../../src/sandbox/lent-links.js';
import { tempDir } from '../../helpers/gitdir.js';

describe('lentTargets', () => {
  it('follows a link the gate recorded, to the real path of its target', () => {
    const checkout = tempDir('pg-lent-');
    const real = tempDir('pg-lent-real-');
    const via = path.join(tempDir('pg-lent-via-'), 'alias');
    symlinkSync(real, via);
    symlinkSync(via, path.join(checkout, 'node_modules'));
    recordLentLink(path.join(checkout, 'node_modules'), via);
    expect(lentTargets(checkout)).toEqual([real]);
  });

  it('never follows a link head code planted, however it is named', () => {
    const checkout = tempDir('pg-lent-');
    symlinkSync('/root', path.join(checkout, 'node_modules'));
    symlinkSync('/etc', path.join(checkout, 'leak'));
    expect(lentTargets(checkout)).toEqual([]);
  });

  it('stops following a recorded link head code re-pointed or removed', () => {
    const checkout = tempDir('pg-lent-');
    const real = tempDir('pg-lent-real-');
    const link = path.join(checkout, 'node_modules');
    symlinkSync(real, link);
    recordLentLink(link, real);
    rmSync(link);
    symlinkSync('/root', link);
    expect(lentTargets(checkout)).toEqual([]);
    rmSync(link);
    expect(lentTargets(checkout)).toEqual([]);
  });

  it("answers for the folder's own entries only, not for links deeper down", () => {
    const checkout = tempDir('pg-lent-');
    const real = tempDir('pg-lent-real-');
    mkdirSync(path.join(checkout, 'packages'));
    const deep = path.join(checkout, 'packages', 'node_modules');
    symlinkSync(real, deep);
    recordLentLink(deep, real);
    expect(lentTargets(checkout)).toEqual([]);
    expect(lentTargets(path.join(checkout, 'packages'))).toEqual([real]);
  });
});
