import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractReadOptions } from '../../../src/config/contract-file.js';
import { configSchema } from '../../../src/config/schema.js';
import { type ReadEnv, roleKey } from '../../../src/contracts/format.js';
import {
  CONTRACT_FORMATS,
  contractFilesFor,
  contractFilesOf,
  formatOfRole,
} from '../../../src/contracts/registry.js';
import { LAYERS } from '../../../src/pipeline.js';
import { tempDir } from '../../helpers/gitdir.js';

/** Every layer on, two canonical pairs and two matrix globs, so indexed and glob roles repeat. */
const everyLayer = configSchema.parse({
  fixtures: {
    canonical: [
      { file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' },
      { file: 'golden/b.json', digest: 'golden/b.sha256' },
    ],
  },
  hits: {},
  seeds: {},
  tests: { preset: 'vitest' },
  signatures: {},
  stability: {},
  claims: { matrix: ['claims/*.yaml', 'more/*.yml'] },
});

const SRC = new URL('../../../src/', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(abs);
    return e.name.endsWith('.ts') ? [abs] : [];
  });
}

const regexText = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the registry of contract formats', () => {
  it('has exactly one format for every role a layer names, and every format role is named by a layer', () => {
    const roles = LAYERS.flatMap((l) => l.contractFiles(everyLayer)).map((c) => c.role);
    expect(roles.filter((r) => formatOfRole(r) === undefined)).toEqual([]);
    const claimed = CONTRACT_FORMATS.flatMap((f) => f.roles);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect([...new Set(roles.map(roleKey))].sort()).toEqual([...claimed].sort());
    expect(formatOfRole('fixtures.canonical[1].digest')?.roles).toContain('fixtures.canonical[].digest');
    expect(formatOfRole('claims.nothing')).toBeUndefined();
  });

  it('gives each layer the files its formats name, canonical pairs interleaved as the gate reads them', () => {
    expect(contractFilesOf('fixtures', everyLayer)).toEqual([
      { path: 'FIXTURE_LOCK.json', role: 'fixtures.lock' },
      { path: 'fixtures/lock.json', role: 'fixtures.canonical[0].file' },
      { path: 'fixtures/lock.sha256', role: 'fixtures.canonical[0].digest' },
      { path: 'golden/b.json', role: 'fixtures.canonical[1].file' },
      { path: 'golden/b.sha256', role: 'fixtures.canonical[1].digest' },
    ]);
    expect(contractFilesOf('claims', everyLayer)).toEqual([
      { path: 'claims/*.yaml', role: 'claims.matrix', glob: true },
      { path: 'more/*.yml', role: 'claims.matrix', glob: true },
      { path: 'freeze/ledger.json', role: 'claims.ledger' },
    ]);
    expect(contractFilesOf('regression', everyLayer)).toEqual([]);
    for (const l of LAYERS) expect(l.contractFiles(everyLayer)).toEqual(contractFilesOf(l.name, everyLayer));
  });

  it('lists the contract files of the layers that are on only, in the gate order', () => {
    expect(contractFilesFor(everyLayer).map((c) => c.path)).toEqual([
      'FIXTURE_LOCK.json',
      'fixtures/lock.json',
      'fixtures/lock.sha256',
      'golden/b.json',
      'golden/b.sha256',
      'flake_ledger.json',
      'property_seeds.json',
      'flake_signatures.json',
      'stability_freeze.json',
      'claims/*.yaml',
      'more/*.yml',
      'freeze/ledger.json',
    ]);
    // A section turned off names no file the gate reads, though its file keeps its default name.
    const off = configSchema.parse({
      fixtures: { enabled: false },
      hits: { enabled: false },
      claims: { enabled: false },
    });
    expect(contractFilesFor(off)).toEqual([]);
    expect(contractFilesOf('hits', off)).toEqual([{ path: 'flake_ledger.json', role: 'hits.ledger' }]);
  });

  it('marks every file of a glob format as a glob, and no file of a named format', () => {
    for (const f of CONTRACT_FORMATS)
      for (const c of f.files(everyLayer))
        expect([f.roles[0], c.glob === true]).toEqual([f.roles[0], f.kind === 'glob']);
  });

  it('reads back every empty file init scaffolds with the format’s own reader', async () => {
    const root = tempDir('pg-formats-');
    const env: ReadEnv = {
      config: everyLayer,
      configFile: 'patchgate.config.json',
      revision: 'the working tree',
      read: contractReadOptions(everyLayer),
    };
    const scaffolded: string[] = [];
    for (const f of CONTRACT_FORMATS) {
      if (f.kind !== 'file' || !f.empty) continue;
      for (const c of f.files(everyLayer)) {
        mkdirSync(path.dirname(path.join(root, c.path)), { recursive: true });
        writeFileSync(path.join(root, c.path), f.empty.text('./schema.json'));
        const value = await f.read(root, c, env);
        scaffolded.push(
          `${c.role}: ${(f.check?.(value, c, env) ?? []).map((p) => `${p.file} ${p.path}`).join(', ')}`,
        );
      }
    }
    // An empty tape is valid, but the seeds layer would check nothing with it: validate says so, on the config.
    expect(scaffolded).toEqual([
      'hits.ledger: ',
      'seeds.tape: patchgate.config.json seeds.tape',
      'signatures.freeze: ',
      'stability.freeze: ',
      'claims.ledger: ',
    ]);
  });

  it('no module outside src/contracts chooses what to do by comparing a role string', () => {
    const roles = CONTRACT_FORMATS.flatMap((f) => f.roles);
    const patterns = roles.flatMap((role) => {
      if (!role.includes('[]')) {
        const r = `['"\`]${regexText(role)}['"\`]`;
        return [new RegExp(`(===|!==|case)\\s*${r}`), new RegExp(`${r}\\s*(===|!==|:)`)];
      }
      // An indexed role in a string, a template or a regex (`fixtures\.canonical\[`), not a config access.
      const prefix = role.slice(0, role.indexOf('[')).split('.').map(regexText).join('\\\\?\\.');
      return [new RegExp(`[\`'"^/]${prefix}\\\\?\\[`)];
    });
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      if (file.startsWith(path.join(SRC, 'contracts'))) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (patterns.some((p) => p.test(line)))
            offenders.push(`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});
