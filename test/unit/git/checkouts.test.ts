import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkouts } from '../../../src/git/checkouts.js';
import { execFile } from '../../../src/git/exec.js';
import { Git } from '../../../src/git/git.js';
import { GitDir } from '../../helpers/gitdir.js';

describe('Checkouts', () => {
  it('never writes a committed node_modules into a checkout: it is never what the gate runs', async () => {
    const repo = GitDir.create({
      'src/a.js': 'export const a = 1;\n',
      'node_modules/fast-check/index.js': 'module.exports = { assert() {} };\n',
      'packages/web/node_modules/vitest/index.js': 'export {};\n',
    });
    const checkouts = new Checkouts(Git.forEnv(execFile, repo.dir, process.env), 0);
    try {
      const root = await checkouts.add('HEAD', 'head');
      expect(readFileSync(path.join(root, 'src/a.js'), 'utf8')).toBe('export const a = 1;\n');
      expect(existsSync(path.join(root, 'node_modules'))).toBe(false);
      expect(existsSync(path.join(root, 'packages/web/node_modules'))).toBe(false);
    } finally {
      await checkouts.dispose();
    }
  });
});
