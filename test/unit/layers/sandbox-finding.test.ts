import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import { networkFinding, networkSettings } from '../../../src/layers/sandbox-finding.js';

const all = () => true;
const status = { available: false as const, reason: 'slirp4netns is not installed', next: 'install it' };

describe('which head code the base config gives network', () => {
  it('names every key that gives a layer that will run network: the install only when there is one', () => {
    const config = configSchema.parse({
      tests: { command: ['sh', 'run.sh', '{junit}'], setup: ['npm', 'ci'], network: true },
      seeds: { network: true },
      hits: { network: true },
    });
    expect(networkSettings(config, all)).toEqual([
      'tests.setupNetwork',
      'tests.network',
      'seeds.network',
      'hits.network',
    ]);
    expect(networkSettings(config, (layer) => layer !== 'hits')).toEqual([
      'tests.setupNetwork',
      'tests.network',
      'seeds.network',
    ]);
    const noSetup = configSchema.parse({ tests: { command: ['sh', 'run.sh', '{junit}'] } });
    expect(networkSettings(noSetup, all)).toEqual([]);
  });

  it('is a warning outside CI and an error under CI=true, naming the keys, the reason and the fix; nothing when none asks', () => {
    expect(networkFinding(status, ['tests.setupNetwork'], {})).toMatchObject({
      code: 'SANDBOX_NETWORK_UNAVAILABLE',
      severity: 'warn',
      evidence: { settings: ['tests.setupNetwork'], ci: false, network: 'none', next: 'install it' },
    });
    const ci = networkFinding(status, ['tests.setupNetwork', 'seeds.network'], { CI: 'true' });
    expect(ci).toMatchObject({ severity: 'error', evidence: { ci: true } });
    expect(ci?.message).toContain('tests.setupNetwork, seeds.network');
    expect(ci?.message).toContain('slirp4netns is not installed');
    expect(ci?.message).toContain('nothing of the head was run');
    expect(networkFinding(status, [], { CI: 'true' })).toBeUndefined();
    expect(
      networkFinding({ available: true, tool: 'slirp4netns' }, ['tests.network'], { CI: 'true' }),
    ).toBeUndefined();
  });
});
