import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { ContractFileError, InputError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/gitdir.js';
import { problemLines } from '../../helpers/problems.js';

async function problemsFor(file: string, text: string): Promise<string[]> {
  const dir = tempDir();
  writeFileSync(path.join(dir, file), text);
  try {
    await loadConfig(dir);
  } catch (err) {
    return problemLines(err);
  }
  throw new Error('expected the config to be rejected');
}

describe('config loading', () => {
  it('fills defaults for an empty JSON config', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'patchgate.config.json'), '{}');
    const { config, file } = await loadConfig(dir);
    expect(file).toBe('patchgate.config.json');
    expect(config.fixtures).toEqual({
      enabled: true,
      roots: ['testdata'],
      lock: 'FIXTURE_LOCK.json',
      owner: 'maintainers',
      canonical: [],
    });
    expect(config.contracts.protect).toContain('.github/workflows/**');
  });

  it('loads a TypeScript config written with defineConfig, without a build step', async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'patchgate.config.ts'),
      "import { defineConfig } from 'patchgate';\nconst roots: string[] = ['golden'];\nexport default defineConfig({ fixtures: { roots } });\n",
    );
    expect((await loadConfig(dir)).config.fixtures.roots).toEqual(['golden']);
  });

  it('loads an .mjs and a YAML config', async () => {
    const a = tempDir();
    writeFileSync(
      path.join(a, 'patchgate.config.mjs'),
      "export default { fixtures: { lock: 'locks/FIXTURES.json' } };\n",
    );
    expect((await loadConfig(a)).config.fixtures.lock).toBe('locks/FIXTURES.json');
    const b = tempDir();
    writeFileSync(path.join(b, 'patchgate.config.yaml'), 'fixtures:\n  roots: [golden, more]\n');
    expect((await loadConfig(b)).config.fixtures.roots).toEqual(['golden', 'more']);
  });

  it('refuses two config files at once', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'patchgate.config.json'), '{}');
    writeFileSync(path.join(dir, 'patchgate.config.yaml'), '{}');
    await expect(loadConfig(dir)).rejects.toThrow(
      /more than one patchgate config.*patchgate\.config\.json, patchgate\.config\.yaml/,
    );
  });

  it('says how to create a config when there is none', async () => {
    const err = await loadConfig(tempDir(), 'the base revision abc').catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err.code).toBe('CONFIG_NOT_FOUND');
    expect(err.message).toContain('patchgate init');
  });

  it('reports a TypeScript config that throws while loading', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'patchgate.config.ts'), "throw new Error('boom in config');\n");
    const err = await loadConfig(dir).catch((e) => e);
    expect(err).toBeInstanceOf(ContractFileError);
    expect(err.message).toContain('patchgate.config.ts: could not be loaded: boom in config');
  });

  // Every problem is reported at once, located, as a sentence.
  it.each<[string, string, string, string[]]>([
    [
      'a wrong type',
      'patchgate.config.json',
      '{"fixtures": {"enabled": 1}}',
      ['patchgate.config.json:1:26: fixtures.enabled: expected true or false, got the number 1.'],
    ],
    [
      'several problems at once',
      'patchgate.config.json',
      '{\n  "fixtures": {\n    "roots": [],\n    "lock": 7\n  },\n  "extra": true\n}',
      [
        'patchgate.config.json:3:14: fixtures.roots: expected at least 1 item(s), got a list.',
        'patchgate.config.json:4:13: fixtures.lock: expected a string, got the number 7.',
        "patchgate.config.json:6:3: extra: unknown key 'extra'; expected only '$schema', 'contracts', 'fixtures', 'hits', 'seeds', 'tests', 'signatures', 'stability', 'mutation', 'claims', 'sandbox', 'limits'.",
      ],
    ],
    [
      'an absolute path',
      'patchgate.config.yaml',
      'fixtures:\n  lock: /etc/lock.json\n',
      [
        "patchgate.config.yaml:2:9: fixtures.lock: path '/etc/lock.json' must be relative to the repository root, not absolute.",
      ],
    ],
    [
      'a backslash path',
      'patchgate.config.yaml',
      'fixtures:\n  roots: ["test\\\\data"]\n',
      [
        "patchgate.config.yaml:2:11: fixtures.roots[0]: path 'test\\data' must use forward slashes (/), not backslashes.",
      ],
    ],
    [
      'an escaping glob',
      'patchgate.config.json',
      '{"contracts": {"protect": ["../**"]}}',
      [
        "patchgate.config.json:1:28: contracts.protect[0]: glob '../**' must not contain '..' (paths may not leave the repository).",
      ],
    ],
    [
      'a canonical entry missing its digest',
      'patchgate.config.json',
      '{"fixtures": {"canonical": [{"file": "a.json"}]}}',
      ['patchgate.config.json:1:29: fixtures.canonical[0].digest: is required: expected a string.'],
    ],
    [
      'a duplicate key',
      'patchgate.config.json',
      '{"fixtures": {}, "fixtures": {}}',
      [
        expect.stringMatching(
          /^patchgate\.config\.json:1:18: is not valid JSON: .*duplicate.*fixtures/i,
        ) as unknown as string,
      ],
    ],
    [
      'a duplicate YAML key',
      'patchgate.config.yaml',
      'fixtures: {}\nfixtures: {}\n',
      [
        expect.stringMatching(
          /^patchgate\.config\.yaml:2:1: is not valid YAML: .*unique/i,
        ) as unknown as string,
      ],
    ],
    [
      'an override variable that is no variable name, and a test-side glob that leaves the repository',
      'patchgate.config.json',
      '{"tests": {"preset": "pytest", "overrideTokenEnv": "1-bad", "paths": ["../tests/**"]}}',
      [
        'patchgate.config.json:1:52: tests.overrideTokenEnv: expected an environment variable name, got the string "1-bad".',
        "patchgate.config.json:1:71: tests.paths[0]: glob '../tests/**' must not contain '..' (paths may not leave the repository).",
      ],
    ],
    [
      'a top-level list',
      'patchgate.config.yaml',
      '- a\n- b\n',
      ['patchgate.config.yaml:1:1: expected an object (a mapping of keys to values), got a list.'],
    ],
  ])('rejects %s', async (_what, file, text, expected) => {
    expect(await problemsFor(file, text)).toEqual(expected);
  });
});
