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

  it('stops writing a checkout when the run is interrupted, instead of finishing it first', async () => {
    // 64 MB stored uncompressed: the copy's own repository takes a while to import it.
    const repo = GitDir.create({ 'src/a.js': 'export const a = 1;\n' });
    repo.git('config', 'core.compression', '0');
    repo.write({ 'data/big.bin': 'x'.repeat(64 * 1024 * 1024) }).commit('a large file');
    const controller = new AbortController();
    const checkouts = new Checkouts(Git.forEnv(execFile, repo.dir, process.env, controller.signal), 0);
    try {
      const adding = checkouts.add('HEAD', 'head');
      adding.catch(() => undefined);
      // Interrupted once the large file is being written: the import of it is still ahead.
      for (let i = 0; i < 2000; i++) {
        const [parent] = checkouts.paths;
        if (parent !== undefined && existsSync(path.join(parent, 'tree', 'data', 'big.bin'))) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      controller.abort();
      await expect(adding).rejects.toMatchObject({ code: 'ABORTED' });
      // Nothing finished the copy's repository: no index was written.
      const [parent] = checkouts.paths;
      expect(existsSync(path.join(parent as string, 'tree', '.git', 'index'))).toBe(false);
    } finally {
      await checkouts.dispose();
    }
  });
});
