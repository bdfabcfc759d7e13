import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../../src/config/schema.js';
import {
  formatValidation,
  validateContractFile,
  validateContracts,
} from '../../../src/contracts/validate.js';
import { InternalError } from '../../../src/errors.js';
import { sha256 } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/gitdir.js';

function folder(files: Record<string, string>): string {
  const dir = tempDir('pg-validate-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const LOCK = JSON.stringify({
  override_token_env: 'FIXTURE_OVERRIDE',
  files: { 'testdata/a.txt': { sha256: sha256('a'), owner: 'o' } },
});

const CONFIG = JSON.stringify({
  fixtures: { roots: ['testdata'] },
  tests: { preset: 'pytest' },
  signatures: {},
  stability: {},
  claims: {},
});

const CLEAN = {
  'patchgate.config.json': CONFIG,
  'testdata/a.txt': 'a',
  'FIXTURE_LOCK.json': LOCK,
  'flake_signatures.json': '{"signatures": []}',
  'stability_freeze.json': '{"freezes": []}',
  'claims/a.yaml': 'patch: p\nclaims:\n  - id: C1\n    statement: totals never exceed 100\n',
  'freeze/ledger.json': '{"window_runs": 20, "entries": {}}',
};

describe('validateContracts', () => {
  it('reads every contract file of every enabled layer and reports none on a clean tree', async () => {
    const r = await validateContracts(folder(CLEAN));
    expect(r.problems).toEqual([]);
    expect(r.files.map((f) => `${f.role} ${f.file} ${f.status}`)).toEqual([
      'config patchgate.config.json ok',
      'fixtures.lock FIXTURE_LOCK.json ok',
      'signatures.freeze flake_signatures.json ok',
      'stability.freeze stability_freeze.json ok',
      'claims.ledger freeze/ledger.json ok',
      'claims.matrix claims/a.yaml ok',
    ]);
  });

  it('lists every problem of every file at once instead of stopping at the first file', async () => {
    const { 'freeze/ledger.json': _missing, ...rest } = CLEAN;
    const r = await validateContracts(
      folder({
        ...rest,
        'FIXTURE_LOCK.json': '{"files": {}}',
        'flake_signatures.json': '{\n  "signatures": [{"sha256": "XYZ"}]\n}',
        'stability_freeze.json':
          '{"freezes": [{"test": "t", "owner": "o", "reason": "r", "expires": "2026-13-01", "action": "a"}]}',
        'claims/a.yaml': 'patch: p\nclaims:\n  - id: 1bad\n    statement: s\n',
      }),
    );
    expect(formatValidation(r)).toEqual([
      'FIXTURE_LOCK.json:1:1: override_token_env: is required: expected a string.',
      "flake_signatures.json:2:29: signatures[0].sha256: expected a SHA-256 digest of 64 lowercase hex characters, got 'XYZ'.",
      "stability_freeze.json:1:68: freezes[0].expires: expected a date such as 2026-10-04, got '2026-13-01', which is not a real calendar date.",
      expect.stringMatching(
        /^freeze\/ledger\.json: does not exist in the working tree, and patchgate\.config\.json names it \(claims\.ledger\); write \{"window_runs": 20, "entries": \{\}\} with an entry per freeze id the claim matrix names, and commit it in a human commit\.$/,
      ),
      expect.stringMatching(/^claims\/a\.yaml:3:\d+: claims\[0\]\.id: expected an id such as C1/),
    ]);
    expect(r.files.filter((f) => f.status !== 'ok').map((f) => `${f.file} ${f.status}`)).toEqual([
      'FIXTURE_LOCK.json invalid',
      'flake_signatures.json invalid',
      'stability_freeze.json invalid',
      'freeze/ledger.json missing',
      'claims/a.yaml invalid',
    ]);
  });

  it('locates a config problem and stops there: without a valid config no contract file is known', async () => {
    const r = await validateContracts(
      folder({ 'patchgate.config.json': '{\n  "fixtures": {"roots": []}\n}' }),
    );
    expect(formatValidation(r)).toEqual([
      expect.stringMatching(/^patchgate\.config\.json:2:\d+: fixtures\.roots: /),
    ]);
    expect(r.files).toEqual([{ file: 'patchgate.config.json', role: 'config', status: 'invalid' }]);
  });

  it('says there is no config, and that two configs are one too many', async () => {
    expect(formatValidation(await validateContracts(folder({ 'a.txt': '' })))).toEqual([
      expect.stringMatching(
        /^patchgate\.config\.\*: no patchgate config in the working tree .*patchgate init/,
      ),
    ]);
    const two = await validateContracts(
      folder({ 'patchgate.config.json': '{}', 'patchgate.config.yaml': '{}' }),
    );
    expect(formatValidation(two)).toEqual([
      expect.stringMatching(
        /^patchgate\.config\.json, patchgate\.config\.yaml: more than one patchgate config/,
      ),
    ]);
  });

  it('takes a missing stability freeze as the gate does (no freezes), with a note rather than a problem', async () => {
    const { 'stability_freeze.json': _gone, ...rest } = CLEAN;
    const r = await validateContracts(folder(rest));
    expect(r.problems).toEqual([]);
    expect(r.notes).toEqual([
      expect.stringContaining('stability_freeze.json (stability.freeze) does not exist'),
    ]);
  });

  it('reports what the gate rejects the config for when it reads the layers: empty tape, globs that match nothing, empty matrix', async () => {
    const r = await validateContracts(
      folder({
        'patchgate.config.json': JSON.stringify({
          fixtures: { roots: ['testdata'] },
          seeds: { properties: ['props/*.ts'] },
          claims: { matrix: ['claims/*.yaml'] },
        }),
        'testdata/a.txt': 'a',
        'FIXTURE_LOCK.json': LOCK,
        'property_seeds.json': '{"properties": []}',
        'freeze/ledger.json': '{"window_runs": 20, "entries": {}}',
      }),
    );
    expect(formatValidation(r)).toEqual([
      "patchgate.config.json: seeds.properties[0]: the glob 'props/*.ts' matches no file in the working tree, so this check would check nothing; fix the glob or remove it",
      expect.stringMatching(
        /^patchgate\.config\.json: seeds\.tape: the seeds layer is on, but property_seeds\.json records no property/,
      ),
      expect.stringMatching(
        /^patchgate\.config\.json: claims\.matrix: matches no file in the working tree \(claims\/\*\.yaml\).*CLAIMS_EMPTY/,
      ),
    ]);
  });

  it('reads canonical digest files and their fixtures', async () => {
    const r = await validateContracts(
      folder({
        'patchgate.config.json': JSON.stringify({
          fixtures: {
            roots: ['testdata'],
            canonical: [{ file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' }],
          },
        }),
        'testdata/a.txt': 'a',
        'FIXTURE_LOCK.json': LOCK,
        'fixtures/lock.json': '{"a": ',
        'fixtures/lock.sha256': 'not a digest\n',
      }),
    );
    expect(formatValidation(r)).toEqual([
      expect.stringMatching(/^fixtures\/lock\.json:1:\d+: is not valid JSON/),
      'fixtures/lock.sha256:1:1: expected one SHA-256 digest (64 lowercase hex characters), got "not a digest".',
    ]);
  });

  it('says how to create a missing fixture lock', async () => {
    const r = await validateContracts(folder({ 'patchgate.config.json': '{}', 'testdata/a.txt': 'a' }));
    expect(formatValidation(r)).toEqual([
      'FIXTURE_LOCK.json: does not exist in the working tree, and patchgate.config.json names it (fixtures.lock); run `patchgate lock` to write it from the fixture roots, and commit it in a human commit.',
    ]);
  });
});

describe('validateContracts: a config without tests', () => {
  it('is valid, and says the test layers are off with the section detection suggests', async () => {
    const r = await validateContracts(
      folder({
        'patchgate.config.json': JSON.stringify({ fixtures: { roots: ['testdata'] } }),
        'testdata/a.txt': 'a',
        'FIXTURE_LOCK.json': LOCK,
        'tox.ini': '[testenv]\ncommands = pytest\n',
      }),
    );
    expect(r.problems).toEqual([]);
    expect(r.testsOff?.headline).toBe(
      'warning: the test layers are off, so the gate judges only contracts and fixtures',
    );
    expect(r.testsOff?.detail).toContain(
      '`patchgate init` would now find pytest: tox.ini runs pytest: `pytest` (tox.ini:2)',
    );
    expect(r.testsOff?.lines).toEqual([
      '"tests": {"preset": "pytest"},',
      '"signatures": {}, "stability": {},',
    ]);
  });

  it('says nothing of the kind when the config has tests', async () => {
    expect((await validateContracts(folder(CLEAN))).testsOff).toBeUndefined();
  });
});

describe('validateContractFile', () => {
  const loaded = { config: configSchema.parse({}), file: 'patchgate.config.json' };

  it('reads one named contract with its format, as init does before wiring a file in', async () => {
    const r = await validateContractFile(
      folder({ 'flake_ledger.json': '{"version": 1, "rules": [{"property": "p"}]}' }),
      loaded,
      { path: 'flake_ledger.json', role: 'hits.ledger' },
    );
    expect(r.files).toEqual([{ file: 'flake_ledger.json', role: 'hits.ledger', status: 'invalid' }]);
    expect(r.problems.map((p) => p.path)).toContain('rules[0].cause_class');
  });

  it('is an internal error for a role no format fills: a bug of the caller, never an unread file', async () => {
    const read = validateContractFile(folder({ 'x.json': '{}' }), loaded, {
      path: 'x.json',
      role: 'hits.nothing',
    });
    await expect(read).rejects.toBeInstanceOf(InternalError);
    await expect(read).rejects.toThrow(/no contract format fills the role 'hits.nothing' \(x.json\)/);
  });

  it('is an internal error for a glob format asked by name: its files are only read together', async () => {
    const read = validateContractFile(folder({ 'claims/a.yaml': 'patch: p\n' }), loaded, {
      path: 'claims/a.yaml',
      role: 'claims.matrix',
    });
    await expect(read).rejects.toThrow(/claims\.matrix \(claims\/a\.yaml\) is read by globs, not by name/);
  });
});
