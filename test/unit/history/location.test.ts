import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execFile } from '../../../src/git/exec.js';
import { Git } from '../../../src/git/git.js';
import { repositoryKeyOf } from '../../../src/history/repository.js';
import { foldTestRuns } from '../../../src/history/run.js';
import { guardSqliteLocation, historyCompanions, historyLocation } from '../../../src/history/store.js';
import { GitDir, tempDir } from '../../helpers/gitdir.js';

async function guard(repo: GitDir): Promise<unknown> {
  const loc = historyLocation({}, repo.dir);
  if (loc.kind !== 'sqlite') throw new Error('expected the SQLite store');
  return guardSqliteLocation(Git.forEnv(execFile, repo.dir, process.env), loc).catch((e: unknown) => e);
}

describe('where the SQLite history may be', () => {
  it('accepts an untracked .patchgate folder, or none', async () => {
    const repo = GitDir.create({ 'a.txt': 'a\n' });
    expect(await guard(repo)).toBeUndefined();
    mkdirSync(path.join(repo.dir, '.patchgate'));
    writeFileSync(path.join(repo.dir, '.patchgate/history.sqlite'), '');
    expect(await guard(repo)).toBeUndefined();
  });

  it('refuses a planted companion file that is a symlink (the WAL a write would follow)', async () => {
    const repo = GitDir.create({ 'a.txt': 'a\n' });
    mkdirSync(path.join(repo.dir, '.patchgate'));
    symlinkSync(path.join(tempDir(), 'elsewhere'), path.join(repo.dir, '.patchgate/history.sqlite-wal'));
    expect(await guard(repo)).toMatchObject({
      code: 'HISTORY_UNSAFE',
      message: expect.stringContaining('has a symlink on its path (.patchgate/history.sqlite-wal)'),
    });
  });

  it('refuses a folder git tracks in HEAD only (taken out of the index), and a .patchgate that is a file', async () => {
    const tracked = GitDir.create({ 'a.txt': 'a\n', '.patchgate/history.sqlite': 'forged\n' });
    tracked.git('rm', '-q', '-r', '--cached', '.patchgate');
    expect(await guard(tracked)).toMatchObject({
      code: 'HISTORY_UNSAFE',
      message: expect.stringContaining('is in a folder git tracks (.patchgate/history.sqlite)'),
    });
    const file = GitDir.create({ 'a.txt': 'a\n', '.gitignore': '.patchgate\n' });
    writeFileSync(path.join(file.dir, '.patchgate'), 'not a folder\n');
    expect(await guard(file)).toMatchObject({
      code: 'HISTORY_UNSAFE',
      message: expect.stringContaining('cannot be created: .patchgate is not a folder'),
    });
  });

  it('leaves the store and its companions out of a working-tree head', () => {
    expect(historyCompanions('/r').map((p) => path.basename(p))).toEqual([
      'history.sqlite',
      'history.sqlite-wal',
      'history.sqlite-shm',
      'history.sqlite-journal',
    ]);
  });
});

describe('repositoryKeyOf', () => {
  it('drops the credentials a CI checkout puts in the remote, and .git', () => {
    expect(repositoryKeyOf('https://x-access-token:ghs_secret@github.com/acme/app.git', '/w/app')).toBe(
      'https://github.com/acme/app',
    );
    expect(repositoryKeyOf('git@github.com:acme/app.git\n', '/w/app')).toBe('git@github.com:acme/app');
    expect(repositoryKeyOf(undefined, '/w/app')).toBe('app');
    expect(repositoryKeyOf('  ', '/w/app')).toBe('app');
  });
});

describe('foldTestRuns', () => {
  it('folds one side of one run per test: a pass and a fail are a flake, a retry pass is one, durations average', () => {
    const fail = { kind: 'AssertionError', message: 'expected 3 to be 4', body: '' };
    const rows = foldTestRuns([
      {
        side: 'base',
        tests: [
          { id: 'a', status: 'failed', failures: [fail], time: 0.2 },
          {
            id: 'b',
            status: 'flaky',
            retries: [{ status: 'failed', kind: 'Timeout', message: 'took 5000ms' }],
          },
          { id: 'c', status: 'skipped' },
        ],
      },
      { side: 'base', tests: [{ id: 'a', status: 'passed', time: 0.1 }] },
      { side: 'overlay', tests: [{ id: 'a', status: 'passed' }] },
    ]);
    expect(rows).toEqual([
      {
        side: 'base',
        testId: 'a',
        runs: 2,
        passed: 1,
        failed: 1,
        skipped: 0,
        flaky: true,
        durationMs: 150,
        signature: {
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
          template: 'AssertionError|expected <N> to be <N>',
        },
      },
      {
        side: 'base',
        testId: 'b',
        runs: 1,
        passed: 0,
        failed: 1,
        skipped: 0,
        flaky: true,
        signature: expect.objectContaining({ template: 'Timeout|took <DUR>' }),
      },
      { side: 'base', testId: 'c', runs: 1, passed: 0, failed: 0, skipped: 1, flaky: false },
      { side: 'overlay', testId: 'a', runs: 1, passed: 1, failed: 0, skipped: 0, flaky: false },
    ]);
  });
});
