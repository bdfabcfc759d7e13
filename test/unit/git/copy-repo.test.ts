import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkouts } from '../../../src/git/checkouts.js';
import { COPY_IDENTITY, fastImportPath } from '../../../src/git/copy-repo.js';
import { execFile } from '../../../src/git/exec.js';
import { Git } from '../../../src/git/git.js';
import { GitDir } from '../../helpers/gitdir.js';

/** git as a test in the copy runs it: from the copy's folder, with none of this machine's configuration. */
function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
  }).replace(/\n$/, '');
}

const ODD_PATHS = {
  'docs/with space.md': 'spaces\n',
  'docs/"quoted".md': 'quotes\n',
  'docs/new\nline.md': 'a newline in its name\n',
  'docs/back\\slash.md': 'a backslash\n',
  'docs/tab\there.md': 'a tab\n',
  'docs/ünïcödé.md': 'non-ASCII\n',
};

describe('a checkout is a git repository of its own files', () => {
  let repo: GitDir;
  let checkouts: Checkouts;
  let root: string;
  let global: string;

  let work: string;

  beforeAll(async () => {
    // Shared by the tests below, so not one of GitDir's temp folders (removed after each test).
    work = realpathSync(mkdtempSync(path.join(tmpdir(), 'pg-copyrepo-')));
    repo = new GitDir(path.join(work, 'repo'));
    mkdirSync(repo.dir);
    repo.git('init', '-q', '-b', 'main');
    repo.write({
      'src/a.py': 'A = 1\n',
      'bin/run.sh': '#!/bin/sh\necho run\n',
      'link.txt': { symlink: 'src/a.py' },
      'node_modules/dep/index.js': 'module.exports = 1;\n',
      ...ODD_PATHS,
    });
    repo.commit('files');
    repo.git('update-index', '--chmod=+x', 'bin/run.sh');
    repo.git('commit', '-q', '-m', 'executable');
    // The user's repository and their global config have settings and a remote of their own.
    repo.git('remote', 'add', 'origin', 'https://example.invalid/r.git');
    repo.git('config', 'core.hooksPath', '.githooks');
    writeFileSync(repo.path('.git/hooks/post-commit'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    global = path.join(work, 'gitconfig');
    writeFileSync(
      global,
      '[user]\n\tname = Someone\n\temail = someone@example.com\n[include]\n\tpath = /etc/x\n',
    );
    const git = Git.forEnv(execFile, repo.dir, { ...process.env, GIT_CONFIG_GLOBAL: global });
    checkouts = new Checkouts(git, 0);
    root = await checkouts.add('HEAD', 'head');
  });
  afterAll(async () => {
    await checkouts.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  it('has one commit of the fixed identity, whose tree is the files written, and a clean status', () => {
    expect(gitIn(root, 'rev-parse', '--show-toplevel')).toBe(root);
    expect(gitIn(root, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(gitIn(root, 'log', '-1', '--format=%an <%ae> %at|%cn <%ce> %ct')).toBe(
      `${COPY_IDENTITY.name} <${COPY_IDENTITY.email}> ${COPY_IDENTITY.time}|${COPY_IDENTITY.name} <${COPY_IDENTITY.email}> ${COPY_IDENTITY.time}`,
    );
    expect(gitIn(root, 'status', '--porcelain')).toBe('');
    // No refresh needed: the index records the files as written.
    expect(gitIn(root, 'diff-index', '--name-only', 'HEAD')).toBe('');
    expect(gitIn(root, 'diff-files', '--name-only')).toBe('');
    expect(gitIn(root, 'fsck', '--strict', '--no-progress')).toBe('');
  });

  it('holds every file with its mode, odd names included, and leaves out the committed node_modules it never wrote', () => {
    const files = gitIn(root, 'ls-files', '-s', '-z')
      .split('\0')
      .filter(Boolean)
      .map((l) => `${l.slice(0, 6)} ${l.slice(l.indexOf('\t') + 1)}`);
    expect(files.sort()).toEqual(
      [
        '100755 bin/run.sh',
        '120000 link.txt',
        '100644 src/a.py',
        ...Object.keys(ODD_PATHS).map((p) => `100644 ${p}`),
      ].sort(),
    );
    // Each blob is the very object the revision has.
    expect(gitIn(root, 'rev-parse', 'HEAD:src/a.py')).toBe(repo.git('rev-parse', 'HEAD:src/a.py'));
    expect(gitIn(root, 'show', 'HEAD:docs/new\nline.md')).toBe('a newline in its name');
  });

  it("names nothing of the user's repository: no remote, no alternates, no hooks, only its own config", () => {
    expect(gitIn(root, 'remote')).toBe('');
    expect(existsSync(path.join(root, '.git/objects/info/alternates'))).toBe(false);
    expect(existsSync(path.join(root, '.git/hooks'))).toBe(false);
    expect(gitIn(root, 'config', '--local', '--list').split('\n').sort()).toEqual([
      'core.bare=false',
      'core.checkstat=minimal',
      'core.filemode=true',
      'core.logallrefupdates=false',
      'core.repositoryformatversion=0',
      'core.trustctime=false',
      'gc.auto=0',
    ]);
    // Not a word of .git (its objects aside) names the repository the files came from.
    const entries = readdirSync(path.join(root, '.git'), { recursive: true, withFileTypes: true });
    for (const e of entries.filter((x) => x.isFile() && !x.parentPath.includes('objects')))
      expect(readFileSync(path.join(e.parentPath, e.name)).includes(repo.dir), e.name).toBe(false);
    // Its objects are its own: one pack, no loose files.
    expect(gitIn(root, 'count-objects', '-v')).toMatch(/^count: 0\n[\s\S]*packs: 1\n/);
  });

  it('is the same commit for the same files, whichever copy and label', async () => {
    const again = await checkouts.add('HEAD', 'overlay');
    expect(gitIn(again, 'rev-parse', 'HEAD')).toBe(gitIn(root, 'rev-parse', 'HEAD'));
  });
});

describe('checkouts that are repositories, at the edges', () => {
  it('keeps a submodule a gitlink: its files are written and the status is clean', async () => {
    const data = GitDir.create({ 'cases.json': '[1, 2]\n' });
    const repo = GitDir.create({ 'src/a.py': 'A = 1\n' });
    repo.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', data.dir, 'vendor/data');
    repo.commit('a submodule');
    const checkouts = new Checkouts(Git.forEnv(execFile, repo.dir, process.env), 0);
    try {
      const root = await checkouts.add('HEAD', 'head');
      expect(readFileSync(path.join(root, 'vendor/data/cases.json'), 'utf8')).toBe('[1, 2]\n');
      expect(gitIn(root, 'ls-files', '-s', 'vendor/data')).toBe(`160000 ${data.head()} 0\tvendor/data`);
      expect(gitIn(root, 'status', '--porcelain')).toBe('');
    } finally {
      await checkouts.dispose();
    }
  });

  it('a tree with no files is a repository with the empty tree', async () => {
    const repo = GitDir.create();
    repo.git('commit', '-q', '--allow-empty', '-m', 'nothing');
    const checkouts = new Checkouts(Git.forEnv(execFile, repo.dir, process.env), 0);
    try {
      const root = await checkouts.add('HEAD', 'head');
      expect(gitIn(root, 'rev-parse', 'HEAD^{tree}')).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
      expect(gitIn(root, 'status', '--porcelain')).toBe('');
    } finally {
      await checkouts.dispose();
    }
  });

  it('refuses a revision with a tree entry named .git (git never checks one out) before writing anything', async () => {
    const repo = GitDir.create({ 'ok.txt': 'ok\n' });
    const blob = repo.git('rev-parse', 'HEAD:ok.txt');
    const inner = execFileSync('git', ['mktree'], {
      cwd: repo.dir,
      input: `100644 blob ${blob}\tconfig\n`,
      encoding: 'utf8',
    }).trim();
    const tree = execFileSync('git', ['mktree'], {
      cwd: repo.dir,
      input: `040000 tree ${inner}\t.GIT\n100644 blob ${blob}\tok.txt\n`,
      encoding: 'utf8',
    }).trim();
    const checkouts = new Checkouts(Git.forEnv(execFile, repo.dir, process.env), 0);
    try {
      const err = await checkouts.add(tree, 'head').catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'PATH_INVALID', details: { path: '.GIT/config' } });
      expect(String((err as Error).message)).toContain('tree entry named .git');
      const [made] = checkouts.paths;
      expect(readdirSync(path.join(made as string, 'tree'))).toEqual([]);
    } finally {
      await checkouts.dispose();
    }
  });
});

describe('fastImportPath', () => {
  it('leaves a plain path alone, spaces and non-ASCII included', () => {
    expect(fastImportPath('a b/ünï.md')).toBe('a b/ünï.md');
  });

  it('C-quotes a path with a newline, a tab, a leading quote or a backslash', () => {
    expect(fastImportPath('a\nb')).toBe('"a\\nb"');
    expect(fastImportPath('a\tb')).toBe('"a\\tb"');
    expect(fastImportPath('"q".md')).toBe('"\\"q\\".md"');
    expect(fastImportPath('a\\b')).toBe('"a\\\\b"');
    expect(fastImportPath('x\x01y')).toBe('"x\\001y"');
  });
});
