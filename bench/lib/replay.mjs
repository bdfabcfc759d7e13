// Replaying public repositories through the built CLI (bench/real, bench/mutation): a shell without the
// override variables a developer may have set, git as a bench identity, and a clone whose submodules come
// from the sources given on the command line.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The environment the replayed commands get: no colours, no CI summary, no override token. */
export const REPLAY_ENV = { ...process.env, CI: '', NO_COLOR: '1', GITHUB_STEP_SUMMARY: '' };
delete REPLAY_ENV.PATCHGATE_TESTS_OVERRIDE;
delete REPLAY_ENV.FIXTURE_OVERRIDE;
delete REPLAY_ENV.PATCHGATE_CONTRACTS_OVERRIDE;

export function sh(cmd, argv, cwd, env = {}, input) {
  const r = spawnSync(cmd, argv, {
    cwd,
    encoding: 'utf8',
    env: { ...REPLAY_ENV, ...env },
    maxBuffer: 256 * 1024 * 1024,
    ...(input !== undefined ? { input } : {}),
  });
  if (r.error) throw r.error;
  return r;
}

const GIT_ID = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

export const tryGit = (cwd, ...a) => sh('git', ['-c', 'protocol.file.allow=always', ...a], cwd, GIT_ID);

export function git(cwd, ...a) {
  const r = tryGit(cwd, ...a);
  if (r.status !== 0) throw new Error(`git ${a.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * Clones `sources[name]` into `work` and makes each submodule of `submodules` (path → { source,
 * fallback }) available in `.git/modules`, pinned to a commit its source has: the recorded one, else
 * `origin/<fallback>`, without any blob a fetched snapshot lacks. Returns the clone and the pins.
 */
export function cloneRepo(name, submodules, sources, work) {
  const dir = path.join(work, name);
  git(work, 'clone', '-q', '--no-hardlinks', sources[name], dir);
  const pins = {};
  for (const [sub, spec] of Object.entries(submodules)) {
    const source = sources[spec.source];
    if (!source) {
      console.log(
        `  ${name}: no source for submodule ${sub} (give ${spec.source}=PATH|URL); its tests fail alike`,
      );
      continue;
    }
    git(dir, 'config', `submodule.${sub}.url`, source);
    // Fails when the recorded commit is missing, but leaves the submodule's clone in .git/modules.
    tryGit(dir, 'submodule', 'update', '--init', '--', sub);
    const modules = path.join(dir, '.git', 'modules', sub);
    if (!fs.existsSync(modules)) continue;
    const recorded = git(dir, 'ls-tree', 'HEAD', sub).split(/\s+/)[2];
    const has = tryGit(modules, 'cat-file', '-e', `${recorded}^{commit}`).status === 0;
    const commit = has ? recorded : git(modules, 'rev-parse', `origin/${spec.fallback}`);
    // A fetched snapshot may list its largest blobs without them: a commit without those files, on top.
    const blobs = git(modules, 'ls-tree', '-r', commit)
      .split('\n')
      .filter((l) => l.includes(' blob '))
      .map((l) => ({ sha: l.split(/\s+/)[2], file: l.slice(l.indexOf('\t') + 1) }));
    const check = sh(
      'git',
      ['cat-file', '--batch-check'],
      modules,
      {},
      `${blobs.map((b) => b.sha).join('\n')}\n`,
    );
    const missing = new Set(
      check.stdout
        .split('\n')
        .filter((l) => l.endsWith(' missing'))
        .map((l) => l.split(' ')[0]),
    );
    let pinned = commit;
    if (missing.size > 0) {
      const index = path.join(modules, 'bench-index');
      sh('git', ['read-tree', commit], modules, { GIT_INDEX_FILE: index });
      const gone = blobs.filter((b) => missing.has(b.sha)).map((b) => b.file);
      sh(
        'git',
        ['update-index', '--force-remove', '-z', '--stdin'],
        modules,
        { GIT_INDEX_FILE: index },
        `${gone.join('\0')}\0`,
      );
      const tree = sh('git', ['write-tree'], modules, { GIT_INDEX_FILE: index }).stdout.trim();
      pinned = git(
        modules,
        'commit-tree',
        tree,
        '-p',
        commit,
        '-m',
        'bench: without the blobs the snapshot lacks',
      );
      fs.rmSync(index, { force: true });
    }
    pins[sub] = pinned;
    if (pinned !== recorded)
      console.log(
        `  ${name}: ${sub} pinned to ${pinned.slice(0, 12)} (${has ? recorded.slice(0, 12) : `${spec.fallback} of ${source}; the recorded ${recorded.slice(0, 12)} is not there`}${missing.size > 0 ? `, ${missing.size} blobs the snapshot lacks left out` : ''})`,
      );
  }
  return { dir, pins };
}

/**
 * `patchgate init --baseline` in `dir` as a new user runs it (owner `maintainers`, no expiry before 2099),
 * committed; returns how long init took, in ms.
 */
export function initBaseline(cli, dir, today, extra = []) {
  const t0 = performance.now();
  const init = sh(
    'node',
    [
      cli,
      'init',
      '--owner',
      'maintainers',
      '--baseline',
      '--expires',
      '2099-12-31',
      '--today',
      today,
      ...extra,
    ],
    dir,
  );
  if (init.status !== 0)
    throw new Error(`patchgate init --baseline failed: ${init.stdout}${init.stderr}`.trim());
  const onboarding = performance.now() - t0;
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--no-verify', '-m', 'patchgate: init --baseline');
  return onboarding;
}
