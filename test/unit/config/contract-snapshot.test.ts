import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readContractTextIfExists } from '../../../src/config/contract-file.js';
import { ContractSnapshot } from '../../../src/config/contract-snapshot.js';
import { execFile } from '../../../src/git/exec.js';
import { Git } from '../../../src/git/git.js';
import { GitDir } from '../../helpers/gitdir.js';

function repoWith(files: Record<string, string | { symlink: string }>) {
  const repo = GitDir.create(files);
  return { repo, git: Git.forEnv(execFile, repo.dir, process.env) };
}

describe('ContractSnapshot: contract files read from git objects, once', () => {
  it("reads the committed bytes, not the working tree's, and never again", async () => {
    const { repo, git } = repoWith({ 'a.json': '{"v": "é committed"}\n', 'b.json': 'b\n' });
    const frozen = await ContractSnapshot.read(
      git,
      'HEAD',
      ['a.json', 'b.json', 'gone.json'],
      'the base',
      1024,
    );
    writeFileSync(repo.path('a.json'), '{"v": "rewritten"}\n');
    expect(frozen.get('a.json')).toEqual({ text: '{"v": "é committed"}\n' });
    expect(await readContractTextIfExists(frozen, 'a.json', 'the base', 1024)).toBe('{"v": "é committed"}\n');
    expect(frozen.has('gone.json')).toBe(false);
    expect(await readContractTextIfExists(frozen, 'gone.json', 'the base', 1024)).toBeUndefined();
    expect(Object.isFrozen(frozen)).toBe(true);
  });

  it('refuses a file over the cap when it is read, naming its size and the cap', async () => {
    const { git } = repoWith({ 'big.json': 'x'.repeat(2000) });
    const frozen = await ContractSnapshot.read(git, 'HEAD', ['big.json'], 'the base', 1000);
    await expect(readContractTextIfExists(frozen, 'big.json', 'the base', 1000)).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
      message: expect.stringContaining('(2000 bytes)'),
    });
  });

  it('follows a symlink inside the tree as a checkout would, and reads one that leaves it as missing', async () => {
    const { git } = repoWith({
      'real.json': 'real\n',
      'link.json': { symlink: 'real.json' },
      'out.json': { symlink: '../../etc/passwd' },
    });
    const frozen = await ContractSnapshot.read(git, 'HEAD', ['link.json', 'out.json'], 'the base', 1024);
    expect(frozen.get('link.json')).toEqual({ text: 'real\n' });
    expect(frozen.has('out.json')).toBe(false);
  });

  it("treats a file that was not frozen as the gate's own bug, never as a read from disk", async () => {
    const { git } = repoWith({ 'a.json': 'a' });
    const frozen = await ContractSnapshot.read(git, 'HEAD', ['a.json'], 'the base', 1024);
    expect(() => frozen.get('other.json')).toThrow(/was not frozen for the base before head code ran/);
  });

  it('reads a tree object as well as a commit (the working-tree snapshot)', async () => {
    const { repo, git } = repoWith({ 'a.json': 'one' });
    const tree = repo.git('rev-parse', 'HEAD^{tree}');
    const frozen = await ContractSnapshot.read(git, tree, ['a.json'], 'the head', 1024);
    expect(frozen.get('a.json')).toEqual({ text: 'one' });
  });
});
