/**
 * Which programs the pre-flight looks up, and what it says of each view.
 */
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import { configuredPrograms, programFindings } from '../../../src/layers/program-finding.js';

const PATH = { PATH: '/home/u/.pyenv/shims:/usr/bin' };

describe('configuredPrograms', () => {
  const config = configSchema.parse({
    tests: { preset: 'pytest', setup: ['pip', 'install', '-e', '.'] },
    seeds: {},
  });
  const all = () => true;

  it("names the preset's program and the setup's, once each: seeds.python's python3 is the same lookup", () => {
    expect(configuredPrograms(config, all, PATH).map((p) => [p.setting, p.program])).toEqual([
      ['tests.preset (pytest)', 'python3'],
      ['tests.setup', 'pip'],
    ]);
  });

  it('leaves seeds.python out when no tape row runs pytest (fast-check rows run in Node)', () => {
    const js = configSchema.parse({ tests: { preset: 'vitest' }, seeds: { python: 'python3.12' } });
    expect(configuredPrograms(js, all, PATH, false).map((p) => p.setting)).toEqual(['tests.preset (vitest)']);
    expect(configuredPrograms(js, all, PATH, true).map((p) => p.setting)).toContain('seeds.python');
  });

  it("names what a shell's -c script and env launch, with the command that launches them", () => {
    const wrapped = configSchema.parse({
      tests: {
        command: ['env', 'CI=1', 'pnpm', 'exec', 'vitest', 'run', '--outputFile={junit}'],
        setup: ['sh', '-c', 'corepack enable && pnpm install --frozen-lockfile'],
      },
    });
    expect(configuredPrograms(wrapped, all, PATH)).toEqual([
      { setting: 'tests.command', program: 'env', searchPath: PATH.PATH },
      {
        setting: 'tests.command',
        program: 'pnpm',
        searchPath: PATH.PATH,
        via: 'env',
        command: ['env', 'CI=1', 'pnpm', 'exec', 'vitest', 'run', '--outputFile=report.xml'],
      },
      { setting: 'tests.setup', program: 'sh', searchPath: PATH.PATH },
      {
        setting: 'tests.setup',
        program: 'corepack',
        searchPath: PATH.PATH,
        via: 'the sh -c script',
        command: ['sh', '-c', 'corepack enable && pnpm install --frozen-lockfile'],
      },
    ]);
  });

  it("looks up what the hits layer's harness commands launch", () => {
    const hits = configSchema.parse({
      hits: {
        properties: ['props/*.ts'],
        harnesses: [{ command: ['bash', '-c', 'deno run harness.ts'], fixture: 'fixtures/a.json' }],
      },
    });
    expect(configuredPrograms(hits, all, PATH).map((p) => [p.setting, p.program])).toEqual([
      ['hits.harnesses', 'bash'],
      ['hits.harnesses', 'deno'],
    ]);
  });

  it('takes the PATH of tests.env when it sets one', () => {
    const own = configSchema.parse({ tests: { preset: 'pytest', env: { PATH: '/opt/py/bin' } } });
    expect(configuredPrograms(own, all, PATH)[0]?.searchPath).toBe('/opt/py/bin');
  });
});

describe('programFindings', () => {
  const program = { setting: 'tests.preset (pytest)', program: 'python3', searchPath: PATH.PATH };

  it('says nothing when the sandbox runs the same file', () => {
    const view = { program: 'python3', host: '/usr/bin/python3', sandbox: '/usr/bin/python3', hidden: [] };
    expect(programFindings([{ program, view }])).toEqual([]);
  });

  it('warns with both files and the folder to mount when another one runs', () => {
    const view = {
      program: 'python3',
      host: '/home/u/.pyenv/shims/python3',
      sandbox: '/usr/bin/python3',
      hidden: ['/home/u/.pyenv'],
    };
    const [f] = programFindings([{ program, view }]);
    expect(f).toMatchObject({
      code: 'PROGRAM_SUBSTITUTED',
      severity: 'warn',
      evidence: { hidden: ['/home/u/.pyenv'] },
    });
    expect(String(f?.evidence.next)).toContain('"/home/u/.pyenv" to sandbox.readOnly');
  });

  it('is an error when none runs', () => {
    const view = { program: 'python3', host: '/home/u/.pyenv/shims/python3', hidden: ['/home/u/.pyenv'] };
    expect(programFindings([{ program, view }])).toMatchObject([
      { code: 'PROGRAM_HIDDEN', severity: 'error' },
    ]);
  });

  it("is an error naming the script, its #! line and the hidden interpreter when the script's interpreter is hidden", () => {
    const pnpm = { setting: 'tests.setup', program: 'pnpm', searchPath: PATH.PATH };
    const view = {
      program: 'pnpm',
      host: '/usr/local/bin/pnpm',
      sandbox: '/usr/local/bin/pnpm',
      hidden: [],
      interpreter: {
        program: 'node',
        host: '/home/u/.nvm/versions/node/v20/bin/node',
        hidden: ['/home/u/.nvm/versions/node/v20'],
        script: '/usr/local/bin/pnpm',
        line: '#!/usr/bin/env node',
      },
    };
    const [f, ...more] = programFindings([{ program: pnpm, view }]);
    expect(more).toEqual([]);
    expect(f).toMatchObject({
      code: 'PROGRAM_HIDDEN',
      severity: 'error',
      evidence: {
        setting: 'tests.setup',
        program: 'node',
        host: '/home/u/.nvm/versions/node/v20/bin/node',
        hidden: ['/home/u/.nvm/versions/node/v20'],
        scripts: ['/usr/local/bin/pnpm'],
        line: '#!/usr/bin/env node',
      },
    });
    expect(f?.message).toBe(
      'tests.setup runs "pnpm" as /usr/local/bin/pnpm, a script whose first line (#!/usr/bin/env node) runs "node", which is /home/u/.nvm/versions/node/v20/bin/node on this machine\'s PATH, but the sandbox cannot see it (/home/u/.nvm/versions/node/v20 is not in its view) and finds no other: nothing of the head was run',
    );
  });

  it('names the configured command when a launcher reaches the hidden program', () => {
    const reached = {
      setting: 'tests.setup',
      program: 'pnpm',
      searchPath: PATH.PATH,
      via: 'the sh -c script',
      command: ['sh', '-c', 'pnpm install'],
    };
    const view = {
      program: 'pnpm',
      host: '/home/u/.local/share/pnpm/pnpm',
      hidden: ['/home/u/.local/share/pnpm'],
    };
    const [f] = programFindings([{ program: reached, view }]);
    expect(f?.message).toContain(
      'tests.setup runs "pnpm" (through the sh -c script of ["sh","-c","pnpm install"])',
    );
    expect(f?.evidence).toMatchObject({ command: ['sh', '-c', 'pnpm install'], via: 'the sh -c script' });
  });
});
