import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { configSchema } from '../../../src/config/schema.js';
import { testsOffHeadline, testsOnLines } from '../../../src/config/tests-off.js';

describe('the lines that turn the test layers on', () => {
  it('are two lines a JSON config takes inside its object, and together make a valid config', () => {
    const lines = testsOnLines('patchgate.config.json', { preset: 'pytest', args: ['tests'] });
    expect(lines).toEqual([
      '"tests": {"preset": "pytest", "args": ["tests"]},',
      '"signatures": {}, "stability": {},',
    ]);
    const config = JSON.parse(`{"fixtures": {"enabled": false},\n${lines.join('\n').replace(/,$/, '')}}`);
    const parsed = configSchema.parse(config);
    expect(parsed.tests?.preset).toBe('pytest');
    expect(parsed.signatures?.enabled).toBe(true);
    expect(parsed.stability?.enabled).toBe(true);
  });

  it('are a line a key for YAML, which parses to the same settings', () => {
    const lines = testsOnLines('patchgate.config.yaml', { command: ['run-tests', '--junit={junit}'] });
    expect(parseYaml(lines.join('\n'))).toEqual({
      tests: { command: ['run-tests', '--junit={junit}'] },
      signatures: {},
      stability: {},
    });
  });

  it('start with the same headline from init and validate, naming the layers still on', () => {
    expect(testsOffHeadline(['contracts', 'fixtures'])).toBe(
      'warning: the test layers are off, so the gate judges only contracts and fixtures',
    );
    expect(testsOffHeadline(['contracts'])).toBe(
      'warning: the test layers are off, so the gate judges only contracts',
    );
  });
});
