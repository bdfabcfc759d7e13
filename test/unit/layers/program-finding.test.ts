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
});
