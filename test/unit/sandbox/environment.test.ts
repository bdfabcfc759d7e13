/**
 * The sandbox composes a head process's environment itself: the host's
 * harmless variables, then what the caller adds. A caller that adds nothing
 * still gets a PATH, and no caller can hand on what the host keeps secret,
 * because no caller below the pipeline holds the host's environment.
 */
import { describe, expect, it } from 'vitest';
import { Sandbox } from '../../../src/sandbox/sandbox.js';
import { tempDir } from '../../helpers/gitdir.js';
import { testSandbox } from '../../helpers/sandbox.js';

const machine = await testSandbox();
const host = {
  PATH: '/usr/bin:/bin',
  HOME: '/root',
  LANG: 'C.UTF-8',
  GITHUB_TOKEN: 'ghp_secret',
  FIXTURE_OVERRIDE: 'human-token',
  AWS_SECRET_ACCESS_KEY: 'aws',
  PYTHONPATH: '/home/me/lib',
};

function printedEnv(sandbox: Sandbox, add: Record<string, string>): Promise<Record<string, string>> {
  const cwd = tempDir('pg-env-');
  const proc = sandbox.spawn({
    argv: ['/usr/bin/env', '-0'],
    cwd,
    env: add,
    writable: [cwd],
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.child.stdout?.on('data', (b: Buffer) => {
    out += b.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    proc.child.once('error', reject);
    proc.child.once('close', () => {
      const env: Record<string, string> = {};
      for (const entry of out.split('\0').filter(Boolean)) {
        const eq = entry.indexOf('=');
        env[entry.slice(0, eq)] = entry.slice(eq + 1);
      }
      resolve(env);
    });
  });
}

describe("a head process's environment", () => {
  it("is the host's harmless variables plus the caller's, never a token or credential of the host", async () => {
    const sandbox = new Sandbox(machine.isolation, { hostEnv: host });
    const env = await printedEnv(sandbox, { CONFIG_VAR: 'from the base config' });
    expect(env.PATH).toBe('/usr/bin:/bin');
    expect(env.LANG).toBe('C.UTF-8');
    expect(env.CONFIG_VAR).toBe('from the base config');
    expect(env.PYTHONUTF8).toBe('1');
    for (const secret of ['GITHUB_TOKEN', 'FIXTURE_OVERRIDE', 'AWS_SECRET_ACCESS_KEY', 'PYTHONPATH'])
      expect(env[secret]).toBeUndefined();
  });

  it('has a PATH when the caller adds nothing, and the caller may set a variable over the host one', async () => {
    const sandbox = new Sandbox(machine.isolation, { hostEnv: host });
    expect((await printedEnv(sandbox, {})).PATH).toBe('/usr/bin:/bin');
    expect((await printedEnv(sandbox, { LANG: 'en_GB.UTF-8' })).LANG).toBe('en_GB.UTF-8');
  });

  it('is what `environment` tells the gate, so a program is looked up on the PATH the process gets', () => {
    const sandbox = new Sandbox(machine.isolation, { hostEnv: host });
    expect(sandbox.environment({ X: '1' })).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/root',
      LANG: 'C.UTF-8',
      PYTHONUTF8: '1',
      PYTHONDONTWRITEBYTECODE: '1',
      X: '1',
    });
  });
});
