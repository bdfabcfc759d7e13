import { closeSync, ftruncateSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONTRACT_BYTES,
  readContractText,
  readContractTextIfExists,
} from '../../../src/config/contract-file.js';
import { loadConfig, YAML_CONFIG_MAX_BYTES } from '../../../src/config/load.js';
import { configSchema } from '../../../src/config/schema.js';
import { parseFixtureLockSliced, readFixtureLock } from '../../../src/contracts/fixture-lock.js';
import { readTape, readTapeIfExists } from '../../../src/contracts/seed-tape.js';
import { readFlakeLedger } from '../../../src/freeze/flake-ledger.js';
import { readSignatureFreeze } from '../../../src/freeze/signature-freeze.js';
import { readStabilityFreeze } from '../../../src/freeze/stability-freeze.js';
import { runInSlices } from '../../../src/util/time-slice.js';
import { lockFor } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/gitdir.js';
import { problemLines } from '../../helpers/problems.js';

/** A file of `size` bytes that takes no disk: the cap is checked before anything is read. */
function sparse(file: string, size: number): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, 'w');
  ftruncateSync(fd, size);
  closeSync(fd);
}

describe('the size cap on contract files', () => {
  it('refuses a larger file before reading it, naming the file, its size, the cap and how to raise it', async () => {
    const dir = tempDir();
    sparse(path.join(dir, 'FIXTURE_LOCK.json'), 3 * 1024 * 1024 + 5);
    const err = await readContractTextIfExists(
      dir,
      'FIXTURE_LOCK.json',
      'the base revision',
      2 * 1024 * 1024,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'FILE_TOO_LARGE',
      kind: 'input',
      message:
        'FIXTURE_LOCK.json in the base revision is 3.0 MiB (3145733 bytes), more than the 2.0 MiB (2097152 bytes) a contract file may be; if it really is meant to be this large, raise `limits.contractBytes` in the config in a human commit',
      details: { file: 'FIXTURE_LOCK.json', size: 3145733, maxBytes: 2097152 },
    });
  });

  it('reads a file of exactly the cap', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'a.json'), '{"x": 1}');
    expect(await readContractText(dir, 'a.json', 'the base revision', 'create it', 8)).toBe('{"x": 1}');
    await expect(readContractText(dir, 'a.json', 'the base revision', 'create it', 7)).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
    });
  });

  it('still tells a missing file from an unreadable one', async () => {
    const dir = tempDir();
    expect(await readContractTextIfExists(dir, 'nope.json', 'the head', 100)).toBeUndefined();
    await expect(readContractText(dir, 'nope.json', 'the head', 'create it', 100)).rejects.toMatchObject({
      code: 'CONTRACT_INVALID',
      message: 'nope.json does not exist in the head; create it',
    });
    mkdirSync(path.join(dir, 'adir.json'));
    await expect(readContractTextIfExists(dir, 'adir.json', 'the head', 100)).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
      message: 'cannot read adir.json in the head: it is a directory',
    });
  });

  it('is the one each reader is given', async () => {
    const dir = tempDir();
    const text = '{"version": 1, "rules": []}';
    for (const f of ['ledger.json', 'tape.json', 'stab.json', 'sig.json', 'lock.json'])
      writeFileSync(path.join(dir, f), text);
    const small = { maxBytes: 4 };
    const tooLarge = { code: 'FILE_TOO_LARGE' };
    await expect(readFlakeLedger(dir, 'ledger.json', 'base', small)).rejects.toMatchObject(tooLarge);
    await expect(readTape(dir, 'tape.json', 'base', small)).rejects.toMatchObject(tooLarge);
    await expect(readTapeIfExists(dir, 'tape.json', 'head', small)).rejects.toMatchObject(tooLarge);
    await expect(readStabilityFreeze(dir, 'stab.json', 'base', small)).rejects.toMatchObject(tooLarge);
    await expect(readSignatureFreeze(dir, 'sig.json', 'base', small)).rejects.toMatchObject(tooLarge);
    await expect(readFixtureLock(dir, 'lock.json', ['testdata'], 'base', small)).rejects.toMatchObject(
      tooLarge,
    );
  });

  it('is 256 MiB unless the config says otherwise, and the config may only ask for what fits in a string', () => {
    expect(DEFAULT_CONTRACT_BYTES).toBe(256 * 1024 * 1024);
    expect(configSchema.parse({}).limits).toEqual({ contractBytes: DEFAULT_CONTRACT_BYTES });
    expect(configSchema.parse({ limits: { contractBytes: 1000 } }).limits.contractBytes).toBe(1000);
    for (const bad of [0, 1.5, 2 ** 29, '1000']) {
      expect(configSchema.safeParse({ limits: { contractBytes: bad } }).success, String(bad)).toBe(false);
    }
    expect(configSchema.safeParse({ limits: { contractBytes: 100, other: 1 } }).success).toBe(false);
  });
});

describe('the size cap on the config file', () => {
  it('is the default one: the config cannot raise its own cap', async () => {
    const dir = tempDir();
    sparse(path.join(dir, 'patchgate.config.json'), DEFAULT_CONTRACT_BYTES + 1);
    await expect(loadConfig(dir)).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
      message: expect.stringMatching(
        /^patchgate\.config\.json is 256\.0 MiB \(268435457 bytes\), more than the 256\.0 MiB \(268435456 bytes\) a config file may be; `limits\.contractBytes` does not apply to the config itself/,
      ),
    });
  });

  it('holds a module config to it too, before loading it', async () => {
    const dir = tempDir();
    sparse(path.join(dir, 'patchgate.config.ts'), DEFAULT_CONTRACT_BYTES + 1);
    await expect(loadConfig(dir)).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
  });

  it('is 256 KiB for YAML, which cannot be read in slices', async () => {
    const dir = tempDir();
    const line = '# a comment that only makes the file longer, as a generated config might\n';
    const text = `fixtures:\n  roots: [testdata]\n${line.repeat(Math.ceil(YAML_CONFIG_MAX_BYTES / line.length))}`;
    writeFileSync(path.join(dir, 'patchgate.config.yaml'), text);
    await expect(loadConfig(dir)).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
      message: expect.stringContaining(
        'more than the 256.0 KiB (262144 bytes) a YAML config may be; YAML is parsed in one step that cannot be interrupted, so write a config this large as patchgate.config.json',
      ),
    });
    writeFileSync(path.join(dir, 'patchgate.config.yaml'), 'fixtures:\n  roots: [testdata]\n');
    expect((await loadConfig(dir)).config.fixtures.roots).toEqual(['testdata']);
  });
});

describe('reading a contract file in slices', () => {
  const bigLock = () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5000; i++) files[`testdata/f${i}.json`] = `${i}`;
    return lockFor(files);
  };

  it('rejects with ABORTED when the signal fires mid-parse, without finishing the parse', async () => {
    const text = bigLock();
    const controller = new AbortController();
    let slices = 0;
    const reading = runInSlices(
      function* (budget) {
        const parse = parseFixtureLockSliced(text, 'FIXTURE_LOCK.json', ['testdata'], budget);
        for (;;) {
          const step = parse.next();
          if (step.done) return step.value;
          if (++slices === 3) setImmediate(() => controller.abort());
          yield;
        }
      },
      controller.signal,
      0,
    );
    await expect(reading).rejects.toMatchObject({ code: 'ABORTED', message: 'the run was interrupted' });
    expect(slices).toBeGreaterThanOrEqual(3);
    expect(slices).toBeLessThan(6);
  });

  it('gives what reading it in one go gives', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'FIXTURE_LOCK.json'), bigLock());
    const lock = await readFixtureLock(dir, 'FIXTURE_LOCK.json', ['testdata'], 'base', {
      maxBytes: DEFAULT_CONTRACT_BYTES,
      signal: new AbortController().signal,
    });
    expect(Object.keys(lock.files)).toHaveLength(5000);
    expect(lock.override_token_env).toBe('FIXTURE_OVERRIDE');
  });

  it("stops every reader once the run's signal has fired", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'ledger.json'), '{"version": 1, "rules": []}');
    writeFileSync(path.join(dir, 'tape.json'), '{"properties": []}');
    writeFileSync(path.join(dir, 'stab.json'), '{"freezes": []}');
    writeFileSync(path.join(dir, 'sig.json'), '{"signatures": []}');
    writeFileSync(path.join(dir, 'lock.json'), lockFor({}));
    const controller = new AbortController();
    controller.abort();
    const read = { maxBytes: DEFAULT_CONTRACT_BYTES, signal: controller.signal };
    const aborted = { code: 'ABORTED' };
    await expect(readFlakeLedger(dir, 'ledger.json', 'base', read)).rejects.toMatchObject(aborted);
    await expect(readTape(dir, 'tape.json', 'base', read)).rejects.toMatchObject(aborted);
    await expect(readTapeIfExists(dir, 'tape.json', 'head', read)).rejects.toMatchObject(aborted);
    await expect(readStabilityFreeze(dir, 'stab.json', 'base', read)).rejects.toMatchObject(aborted);
    await expect(readSignatureFreeze(dir, 'sig.json', 'base', read)).rejects.toMatchObject(aborted);
    await expect(readFixtureLock(dir, 'lock.json', ['testdata'], 'base', read)).rejects.toMatchObject(
      aborted,
    );
    await expect(loadConfig(dir, 'the base', { signal: controller.signal })).rejects.toMatchObject({
      code: 'CONFIG_NOT_FOUND',
    });
    writeFileSync(path.join(dir, 'patchgate.config.json'), '{}');
    await expect(loadConfig(dir, 'the base', { signal: controller.signal })).rejects.toMatchObject(aborted);
  });

  it('reports a bad key of a large lock located, without looking up the others', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[i === 1234 ? 'outside/f.json' : `testdata/f${i}.json`] = `${i}`;
    const dir = tempDir();
    writeFileSync(path.join(dir, 'FIXTURE_LOCK.json'), lockFor(files));
    const err = await readFixtureLock(dir, 'FIXTURE_LOCK.json', ['testdata'], 'base', {
      maxBytes: DEFAULT_CONTRACT_BYTES,
    }).catch((e: unknown) => e);
    expect(problemLines(err, 'CONTRACT_INVALID')).toEqual([
      "FIXTURE_LOCK.json:4:5: files.outside/f.json: path 'outside/f.json' is not under any fixture root (fixtures.roots: testdata), so it could never be checked.",
    ]);
  });
});
