import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractReadOptions } from '../../../src/config/contract-file.js';
import { ContractSnapshot } from '../../../src/config/contract-snapshot.js';
import { configSchema } from '../../../src/config/schema.js';
import { fixtureDigestFormat } from '../../../src/contracts/fixture-digest.js';
import type { ReadEnv } from '../../../src/contracts/format.js';
import { ContractFileError, InternalError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/gitdir.js';

const config = configSchema.parse({
  fixtures: { canonical: [{ file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' }] },
});
const env: ReadEnv = {
  config,
  configFile: 'patchgate.config.json',
  revision: 'the base revision',
  read: contractReadOptions(config),
};
const FILE = { path: 'fixtures/lock.json', role: 'fixtures.canonical[0].file' };
const DIGEST = { path: 'fixtures/lock.sha256', role: 'fixtures.canonical[0].digest' };

describe('the canonical fixture and digest file format', () => {
  it('reads the digest file from a frozen snapshot, and refuses one that is not a digest, located', async () => {
    const good = ContractSnapshot.of('the base revision', { 'fixtures/lock.sha256': `${'a'.repeat(64)}\n` });
    expect(await fixtureDigestFormat.read(good, DIGEST, env)).toBe('a'.repeat(64));
    const bad = ContractSnapshot.of('the base revision', { 'fixtures/lock.sha256': 'not a digest' });
    const err = await fixtureDigestFormat.read(bad, DIGEST, env).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContractFileError);
    expect((err as ContractFileError).problems).toMatchObject([
      { file: 'fixtures/lock.sha256', line: 1, column: 1 },
    ]);
  });

  it('digests the fixture of a checkout, and says why one that is not JSON cannot be checked', async () => {
    const root = tempDir('pg-digest-');
    const broken = { ...FILE, path: 'fixtures-lock.json' };
    writeFileSync(path.join(root, broken.path), '{"a": ');
    const err = await fixtureDigestFormat.read(root, broken, env).catch((e: unknown) => e);
    expect((err as ContractFileError).problems[0]?.message).toMatch(
      /^is not valid JSON: .*, so its canonical digest cannot be checked \(fixtures\.canonical\[0\]\.file\)\.$/,
    );
    writeFileSync(path.join(root, broken.path), '{"b": 1, "a": 2}');
    expect(await fixtureDigestFormat.read(root, broken, env)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is an internal error to ask a frozen snapshot for the fixture: fixtures are digested from a checkout', async () => {
    const snapshot = ContractSnapshot.of('the base revision', { 'fixtures/lock.json': '{}' });
    await expect(fixtureDigestFormat.read(snapshot, FILE, env)).rejects.toBeInstanceOf(InternalError);
  });

  it('says how to create each half of a missing pair', () => {
    if (!('create' in fixtureDigestFormat.missing)) throw new Error('the pair is never read as empty');
    expect(fixtureDigestFormat.missing.create(DIGEST.role, config)).toBe(
      'run `patchgate lock` to write the canonical digest of fixtures/lock.json',
    );
    expect(fixtureDigestFormat.missing.create(FILE.role, config)).toMatch(
      /^it is the fixture the digest file locks/,
    );
  });
});
