import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRunError } from '../../../../src/runners/tests/errors.js';
import { type PrepareWorktreeOptions, prepareWorktree } from '../../../../src/runners/tests/setup.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { testSandbox } from '../../../helpers/sandbox.js';

const sandbox = await testSandbox();

/** A setup command that leaves a marker in the worktree, as `npm ci` leaves node_modules. */
const MARK = [process.execPath, '-e', "require('fs').writeFileSync('setup-marker', 'installed')"];

function checkouts(headFiles: Record<string, string>, baseFiles: Record<string, string>) {
  const head = tempDir('pg-head-');
  const base = tempDir('pg-base-');
  const write = (root: string, files: Record<string, string>) => {
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
    }
  };
  write(head, headFiles);
  write(base, baseFiles);
  return { head, base, out: path.join(tempDir(), 'out') };
}

function options(
  c: { head: string; base: string; out: string },
  extra: Partial<PrepareWorktreeOptions> = {},
): PrepareWorktreeOptions {
  return {
    sandbox,
    worktree: c.base,
    setup: MARK,
    env: {},
    timeoutMs: 20_000,
    outDir: c.out,
    label: 'base-setup',
    reuseFrom: {
      root: c.head,
      lockfiles: ['package-lock.json', 'uv.lock'],
      dirs: ['node_modules', '.venv'],
    },
    ...extra,
  };
}

async function setupError(p: Promise<unknown>): Promise<TestRunError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TestRunError);
  return err as TestRunError;
}

const LOCK = '{"lockfileVersion":3,"packages":{"":{"name":"x"}}}\n';

describe('prepareWorktree', () => {
  it('symlinks the head’s dependencies when the lockfiles are identical', async () => {
    const c = checkouts(
      { 'package-lock.json': LOCK, 'node_modules/left-pad/index.js': 'module.exports = 1;\n' },
      { 'package-lock.json': LOCK },
    );
    const result = await prepareWorktree(options(c));
    expect(result).toEqual({ reused: true, dirs: ['node_modules'] });
    const link = path.join(c.base, 'node_modules');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(path.join(c.head, 'node_modules'));
    expect(readFileSync(path.join(link, 'left-pad', 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
    expect(existsSync(path.join(c.base, 'setup-marker'))).toBe(false);
    // Preparing again replaces its own link rather than refusing.
    expect(await prepareWorktree(options(c))).toEqual({ reused: true, dirs: ['node_modules'] });
  });

  it('runs the setup command when a lockfile differs', async () => {
    const c = checkouts(
      { 'package-lock.json': LOCK, 'node_modules/left-pad/index.js': '' },
      { 'package-lock.json': LOCK.replace('"x"', '"y"') },
    );
    const result = await prepareWorktree(options(c));
    expect(result).toMatchObject({ reused: false, ran: true });
    expect(result.reused === false && result.reason).toContain('package-lock.json differs');
    expect(readFileSync(path.join(c.base, 'setup-marker'), 'utf8')).toBe('installed');
    expect(existsSync(path.join(c.base, 'node_modules'))).toBe(false);
    expect(result.reused === false && result.stdoutFile).toBe(path.join(c.out, 'base-setup.stdout.log'));
  });

  it.each([
    [
      'a lockfile on one side only',
      { 'package-lock.json': LOCK, 'uv.lock': 'v1' },
      { 'package-lock.json': LOCK },
      'uv.lock exists only',
    ],
    ['no lockfile at all', {}, {}, 'none of the lockfiles'],
  ])('runs the setup command with %s', async (_, headFiles, baseFiles, why) => {
    const c = checkouts({ ...headFiles, 'node_modules/a/index.js': '' }, baseFiles);
    const result = await prepareWorktree(options(c));
    expect(result).toMatchObject({ reused: false, ran: true });
    expect(result.reused === false && result.reason).toContain(why);
    expect(existsSync(path.join(c.base, 'setup-marker'))).toBe(true);
  });

  it('borrows where neither side has a lockfile but the manifests are byte-identical', async () => {
    const manifest = '{"name": "x", "dependencies": {"left-pad": "^1.3.0"}}\n';
    const c = checkouts(
      { 'package.json': manifest, 'node_modules/left-pad/index.js': '' },
      { 'package.json': manifest },
    );
    const withManifests = (reuseFrom: PrepareWorktreeOptions['reuseFrom']) =>
      options(c, { reuseFrom: { ...reuseFrom!, manifests: ['package.json', 'pyproject.toml'] } });
    expect(await prepareWorktree(withManifests(options(c).reuseFrom))).toEqual({
      reused: true,
      dirs: ['node_modules'],
    });
    expect(existsSync(path.join(c.base, 'setup-marker'))).toBe(false);
  });

  it('installs where neither side has a lockfile and a manifest differs', async () => {
    const c = checkouts(
      { 'package.json': '{"name": "x", "dependencies": {"a": "1"}}\n', 'node_modules/a/index.js': '' },
      { 'package.json': '{"name": "x", "dependencies": {"a": "2"}}\n' },
    );
    const reuseFrom = { ...options(c).reuseFrom!, manifests: ['package.json'] };
    const result = await prepareWorktree(options(c, { reuseFrom }));
    expect(result).toMatchObject({ reused: false, ran: true });
    expect(result.reused === false && result.reason).toContain('package.json differs');
  });

  it('does not borrow dependencies that point back into the head’s own sources', async () => {
    const ws = checkouts(
      { 'package-lock.json': LOCK, 'packages/app/index.js': '', 'node_modules/left-pad/index.js': '' },
      { 'package-lock.json': LOCK },
    );
    mkdirSync(path.join(ws.head, 'node_modules', '@me'), { recursive: true });
    symlinkSync('../../packages/app', path.join(ws.head, 'node_modules', '@me', 'app'));
    const workspace = await prepareWorktree(options(ws));
    expect(workspace).toMatchObject({ reused: false, ran: true });
    expect(workspace.reused === false && workspace.reason).toContain('node_modules/@me/app');

    const editable = checkouts({ 'uv.lock': 'v1', 'src/proj/__init__.py': '' }, { 'uv.lock': 'v1' });
    const sp = path.join(editable.head, '.venv', 'lib', 'python3.12', 'site-packages');
    mkdirSync(sp, { recursive: true });
    writeFileSync(path.join(sp, '_proj.pth'), `${path.join(editable.head, 'src')}\n`);
    const venv = await prepareWorktree(options(editable));
    expect(venv).toMatchObject({ reused: false, ran: true });
    expect(venv.reused === false && venv.reason).toContain('_proj.pth');
  });

  it('never replaces a folder the worktree already has', async () => {
    const c = checkouts(
      { 'package-lock.json': LOCK, 'node_modules/a/index.js': '' },
      { 'package-lock.json': LOCK, 'node_modules/.keep': 'mine' },
    );
    const result = await prepareWorktree(options(c));
    expect(result).toMatchObject({ reused: false, ran: true });
    expect(readFileSync(path.join(c.base, 'node_modules', '.keep'), 'utf8')).toBe('mine');
  });

  it('without reuse or a setup command there is nothing to do', async () => {
    const c = checkouts({}, {});
    expect(await prepareWorktree(options(c, { reuseFrom: undefined, setup: undefined }))).toEqual({
      reused: false,
      ran: false,
    });
  });

  it('a failing setup names the command, the exit code and the logs', async () => {
    const c = checkouts({}, {});
    const argv = [
      process.execPath,
      '-e',
      "console.log('resolving'); console.error('npm ERR! boom'); process.exit(7)",
    ];
    const err = await setupError(prepareWorktree(options(c, { setup: argv, reuseFrom: undefined })));
    const stderrLog = path.join(c.out, 'base-setup.stderr.log');
    expect(err.code).toBe('SETUP_FAILED');
    expect(err.kind).toBe('input');
    expect(err.message).toContain(`setup command \`${process.execPath} -e`);
    expect(err.message).toContain('exited with code 7');
    expect(err.message).toContain(stderrLog);
    expect(err.message).toContain('npm ERR! boom');
    expect(err.details).toMatchObject({ exitCode: 7, timedOut: false, stderrFile: stderrLog });
    expect(readFileSync(path.join(c.out, 'base-setup.stdout.log'), 'utf8')).toBe('resolving\n');
  });

  it('a setup that hangs or cannot start is SETUP_FAILED too', async () => {
    const c = checkouts({}, {});
    const hang = await setupError(
      prepareWorktree(
        options(c, {
          setup: [process.execPath, '-e', 'setInterval(() => {}, 1000)'],
          reuseFrom: undefined,
          timeoutMs: 300,
        }),
      ),
    );
    expect(hang.code).toBe('SETUP_FAILED');
    expect(hang.message).toContain('timed out after 300 ms');
    const missing = await setupError(
      prepareWorktree(options(c, { setup: [path.join(c.base, 'no-such-installer')], reuseFrom: undefined })),
    );
    expect(missing.code).toBe('SETUP_FAILED');
    expect(missing.message).toContain('could not be started');
  });
});
