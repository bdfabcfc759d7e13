import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectInvocation, type InvocationFacts, invocationOf } from '../../../src/cli/invocation.js';
import { memoryIO } from '../../helpers/cli-io.js';
import { tempDir } from '../../helpers/gitdir.js';

const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

function facts(over: Partial<InvocationFacts>): InvocationFacts {
  return { script: undefined, realScript: undefined, cwd: '/home/u/app', path: SYSTEM_PATH, ...over };
}

describe('detectInvocation: the command a hint prints to start patchgate again', () => {
  it("a project's dependency, through its bin link (npx, npm run, ./node_modules/.bin): npx patchgate", () => {
    const inv = detectInvocation(
      facts({
        script: '/home/u/app/node_modules/.bin/patchgate',
        realScript: '/home/u/app/node_modules/patchgate/dist/cli/bin.js',
        path: ['/home/u/app/node_modules/.bin', ...SYSTEM_PATH],
      }),
    );
    expect(inv).toEqual({ kind: 'local', argv: ['npx', 'patchgate'], command: 'npx patchgate' });
  });

  it('a dependency of an enclosing project, run from a subfolder, is still found by npx', () => {
    const inv = detectInvocation(
      facts({
        script: '/home/u/app/node_modules/.bin/patchgate',
        realScript: '/home/u/app/node_modules/patchgate/dist/cli/bin.js',
        cwd: '/home/u/app/packages/core',
      }),
    );
    expect(inv.kind).toBe('local');
  });

  it("the dependency's bin run by its own path from inside the project, and pnpm's store copy, count as local", () => {
    const script = '/home/u/app/node_modules/patchgate/dist/cli/bin.js';
    expect(detectInvocation(facts({ script, realScript: script })).kind).toBe('local');
    const pnpm = '/home/u/app/node_modules/.pnpm/patchgate@0.1.0/node_modules/patchgate/dist/cli/bin.js';
    expect(detectInvocation(facts({ script: pnpm, realScript: pnpm })).kind).toBe('local');
  });

  it("another project's dependency, run from outside it, is named by its path: npx would not find it here", () => {
    const inv = detectInvocation(
      facts({
        script: '/home/u/tools/node_modules/.bin/patchgate',
        realScript: '/home/u/tools/node_modules/patchgate/dist/cli/bin.js',
        cwd: '/home/u/app',
      }),
    );
    expect(inv).toEqual({
      kind: 'path',
      argv: ['node', '/home/u/tools/node_modules/patchgate/dist/cli/bin.js'],
      command: 'node /home/u/tools/node_modules/patchgate/dist/cli/bin.js',
    });
  });

  it('a folder named like the project but longer does not hold the working folder', () => {
    const inv = detectInvocation(
      facts({
        script: '/home/u/app/node_modules/.bin/patchgate',
        realScript: '/home/u/app/node_modules/patchgate/dist/cli/bin.js',
        cwd: '/home/u/app-two',
      }),
    );
    expect(inv.kind).toBe('path');
  });

  it('a global install (a link in a PATH folder): patchgate', () => {
    const inv = detectInvocation(
      facts({ script: '/usr/bin/patchgate', realScript: '/usr/lib/node_modules/patchgate/dist/cli/bin.js' }),
    );
    expect(inv).toEqual({ kind: 'global', argv: ['patchgate'], command: 'patchgate' });
  });

  it('a link named patchgate in a folder that is not on PATH is named by its real path', () => {
    const inv = detectInvocation(
      facts({ script: '/opt/pg/bin/patchgate', realScript: '/opt/pg/lib/patchgate/dist/cli/bin.js' }),
    );
    expect(inv.argv).toEqual(['node', '/opt/pg/lib/patchgate/dist/cli/bin.js']);
  });

  it('the bin of a clone, run with node: node and its path, quoted for the shell', () => {
    const inv = detectInvocation(
      facts({ script: "/home/u/my tools/patchgate's/dist/cli/bin.js", realScript: undefined }),
    );
    expect(inv.kind).toBe('path');
    expect(inv.command).toBe(`node '/home/u/my tools/patchgate'\\''s/dist/cli/bin.js'`);
  });

  it('a copy npx fetched into its cache: npx fetches it again, with the --package spec when npm passed one', () => {
    const cached = {
      script: '/root/.npm/_npx/15751b6698daeb43/node_modules/.bin/patchgate',
      realScript: '/root/.npm/_npx/15751b6698daeb43/node_modules/patchgate/dist/cli/bin.js',
    };
    expect(detectInvocation(facts(cached)).command).toBe('npx --yes patchgate');
    expect(
      detectInvocation(facts({ ...cached, npxPackage: '/home/u/patchgate/patchgate-0.1.0.tgz' })).command,
    ).toBe('npx --yes --package=/home/u/patchgate/patchgate-0.1.0.tgz patchgate');
  });

  it('npx cache wins over the local rule even when the user works inside the cache folder', () => {
    const inv = detectInvocation(
      facts({
        script: '/root/.npm/_npx/abc123/node_modules/.bin/patchgate',
        realScript: '/root/.npm/_npx/abc123/node_modules/patchgate/dist/cli/bin.js',
        cwd: '/root/.npm/_npx/abc123',
      }),
    );
    expect(inv.kind).toBe('npx');
  });

  it('no script (main driven in-process) gets the bare name', () => {
    expect(detectInvocation(facts({})).command).toBe('patchgate');
  });
});

describe('invocationOf reads the script the process ran', () => {
  it("resolves a bin link to the real file, as npm's links are read", async () => {
    const dir = tempDir();
    const bin = path.join(dir, 'tools', 'patchgate', 'dist', 'cli', 'bin.js');
    mkdirSync(path.dirname(bin), { recursive: true });
    writeFileSync(bin, '');
    mkdirSync(path.join(dir, 'links'));
    symlinkSync(bin, path.join(dir, 'links', 'patchgate'));
    const { io } = memoryIO(path.join(dir, 'work'), { PATH: '/usr/bin' });
    io.script = path.join(dir, 'links', 'patchgate');
    expect((await invocationOf(io)).argv).toEqual(['node', bin]);
    io.env.PATH = `/usr/bin${path.delimiter}${path.join(dir, 'links')}`;
    expect((await invocationOf(io)).argv).toEqual(['patchgate']);
  });

  it('a script that is gone is named by the path it was given', async () => {
    const { io } = memoryIO('/');
    io.script = '/nowhere/patchgate/dist/cli/bin.js';
    expect((await invocationOf(io)).argv).toEqual(['node', '/nowhere/patchgate/dist/cli/bin.js']);
  });
});
