import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { freezeCommand } from '../../../src/cli/commands/freeze.js';
import { ledgerCommand } from '../../../src/cli/commands/ledger.js';
import { recordCommand } from '../../../src/cli/commands/record.js';
import { seedsCommand } from '../../../src/cli/commands/seeds.js';
import { signaturesCommand } from '../../../src/cli/commands/signatures.js';
import { configSchema } from '../../../src/config/schema.js';
import { installedSchemaRef, jsonSchemaDocument } from '../../../src/config/schema-files.js';
import { parseClaimMatrix } from '../../../src/contracts/claim-matrix.js';
import { parseFixtureLock } from '../../../src/contracts/fixture-lock.js';
import {
  ALL_JSON_SCHEMAS,
  CONTRACT_JSON_SCHEMAS,
  schemaForRole,
} from '../../../src/contracts/json-schemas.js';
import { EMPTY_CONTRACT_ROLES, emptyContractText, renderConfig } from '../../../src/contracts/scaffold.js';
import { parseTape } from '../../../src/contracts/seed-tape.js';
import { parseClaimLedger, serializeValidated } from '../../../src/freeze/claim-ledger.js';
import { parseFlakeLedger } from '../../../src/freeze/flake-ledger.js';
import { parseSignatureFreeze } from '../../../src/freeze/signature-freeze.js';
import { parseStabilityFreeze } from '../../../src/freeze/stability-freeze.js';
import { relockFixtures } from '../../../src/layers/fixtures/relock.js';
import { LAYERS } from '../../../src/pipeline.js';
import { memoryIO } from '../../helpers/cli-io.js';
import { GitDir } from '../../helpers/gitdir.js';
import { jsonSchemaErrors } from '../../helpers/json-schema-check.js';

const shipped = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../../schema/${file}`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;

/** Each role's reader, as the gate calls it on text. */
const READERS: Record<string, (text: string, file: string) => unknown> = {
  'fixtures.lock': (t, f) => parseFixtureLock(t, f, ['testdata']),
  'hits.ledger': parseFlakeLedger,
  'seeds.tape': parseTape,
  'signatures.freeze': parseSignatureFreeze,
  'stability.freeze': parseStabilityFreeze,
  'claims.ledger': parseClaimLedger,
  'claims.matrix': (text, file) => parseClaimMatrix([{ file, text }]),
};

/** A config with every layer on, to list every contract role the layers name. */
const everyLayer = configSchema.parse({
  fixtures: { canonical: [{ file: 'fixtures/lock.json', digest: 'fixtures/lock.sha256' }] },
  hits: {},
  seeds: {},
  tests: { preset: 'vitest' },
  signatures: {},
  stability: {},
  claims: {},
});

describe('the JSON Schemas of the contract files', () => {
  it.each(
    ALL_JSON_SCHEMAS.map((s) => [s.file, s] as const),
  )('ships %s generated from the zod schema the reader validates with', (file, entry) => {
    expect(shipped(file)).toEqual(JSON.parse(JSON.stringify(jsonSchemaDocument(entry))));
  });

  it('has a schema for every JSON or YAML contract role a layer names', () => {
    const roles = new Set(
      LAYERS.flatMap((l) => l.contractFiles(everyLayer)).map((c) => c.role.replace(/\[\d+\]/g, '[]')),
    );
    // The canonical pair is a JSON fixture of the repository's own shape and a plain-text digest: no schema.
    roles.delete('fixtures.canonical[].file');
    roles.delete('fixtures.canonical[].digest');
    expect([...roles].sort()).toEqual(CONTRACT_JSON_SCHEMAS.map((s) => s.role).sort());
  });

  it.each(
    CONTRACT_JSON_SCHEMAS.map((s) => [s.role, s] as const),
  )('%s: forbids unknown keys and allows a $schema string, as the reader does', (role, entry) => {
    const doc = shipped(entry.file);
    const object =
      (doc.anyOf as Record<string, unknown>[] | undefined)?.find((s) => s.type === 'object') ?? doc;
    expect(object.additionalProperties).toBe(false);
    expect((object.properties as Record<string, unknown>).$schema).toMatchObject({ type: 'string' });
    const read = READERS[role];
    expect(read).toBeDefined();
    const text = role === 'claims.matrix' ? 'patch: p\nunknown: 1\n' : emptyWith(role, { unknown: 1 });
    expect(() => read?.(text, 'x')).toThrow(/unknown/);
  });
});

/** The empty contract of a role with extra top-level keys. */
function emptyWith(role: string, extra: Record<string, unknown>): string {
  const base =
    role === 'fixtures.lock'
      ? { override_token_env: 'FIXTURE_OVERRIDE', files: {} }
      : JSON.parse(emptyContractText(role as (typeof EMPTY_CONTRACT_ROLES)[number], 'x.json'));
  return JSON.stringify({ ...base, ...extra });
}

describe('the empty contract files init writes', () => {
  it.each(
    EMPTY_CONTRACT_ROLES.map((r) => [r]),
  )('%s: parses with the gate reader and validates against its JSON Schema, with and without $schema', (role) => {
    const file = role === 'claims.ledger' ? 'freeze/ledger.json' : 'contract.json';
    const entry = schemaForRole(role);
    if (!entry) throw new Error(`no schema for ${role}`);
    for (const schema of [false, true]) {
      const text = emptyContractText(role, file, { schema });
      expect(() => READERS[role]?.(text, file)).not.toThrow();
      const value = JSON.parse(text);
      expect(jsonSchemaErrors(shipped(entry.file), value)).toEqual([]);
      expect(value.$schema).toBe(schema ? installedSchemaRef(file, entry.file) : undefined);
    }
  });

  it('points $schema at the installed package relative to the file, so a nested file reaches node_modules', () => {
    expect(installedSchemaRef('flake_signatures.json', 'signature-freeze.schema.json')).toBe(
      './node_modules/patchgate/schema/signature-freeze.schema.json',
    );
    expect(installedSchemaRef('freeze/ledger.json', 'claim-ledger.schema.json')).toBe(
      '../node_modules/patchgate/schema/claim-ledger.schema.json',
    );
    expect(
      JSON.parse(emptyContractText('claims.ledger', 'freeze/ledger.json', { schema: true })).$schema,
    ).toBe('../node_modules/patchgate/schema/claim-ledger.schema.json');
  });

  it('writes $schema into the config only when asked (a repository with a package.json)', () => {
    const config = { fixtures: { roots: ['testdata'] } };
    expect(JSON.parse(renderConfig(config, 'json')).$schema).toBeUndefined();
    expect(JSON.parse(renderConfig(config, 'json', { schema: true })).$schema).toBe(
      './node_modules/patchgate/schema/patchgate.config.schema.json',
    );
    expect(renderConfig(config, 'yaml')).not.toContain('$schema');
    expect(renderConfig(config, 'yaml', { schema: true })).toMatch(/^# yaml-language-server: \$schema=/);
  });

  it('the structural checker rejects what the schema forbids, so a passing check means something', () => {
    const entry = schemaForRole('claims.ledger');
    if (!entry) throw new Error('no schema');
    const schema = shipped(entry.file);
    expect(jsonSchemaErrors(schema, { window_runs: 0, entries: {} })).not.toEqual([]);
    expect(jsonSchemaErrors(schema, { window_runs: 20, entries: {}, extra: true })).not.toEqual([]);
    expect(jsonSchemaErrors(schema, { window_runs: 20 })).toEqual(['$: entries is required']);
    expect(jsonSchemaErrors(schema, { $schema: 5, window_runs: 20, entries: {} })).toEqual([
      '$.$schema: expected string, got integer',
    ]);
  });

  it('a claim matrix with $schema reads, and matches its schema', () => {
    const text = '$schema: ../node_modules/patchgate/schema/claim-matrix.schema.json\npatch: p\nclaims: []\n';
    expect(parseClaimMatrix([{ file: 'claims/a.yaml', text }]).files).toEqual([
      { file: 'claims/a.yaml', patch: 'p', claims: 0 },
    ]);
    const entry = schemaForRole('claims.matrix');
    if (!entry) throw new Error('no schema');
    expect(jsonSchemaErrors(shipped(entry.file), parseYaml(text))).toEqual([]);
  });
});

const SCHEMA = './node_modules/patchgate/schema/x.schema.json';
const DIGEST = 'c'.repeat(64);

describe('the commands that rewrite a contract file keep the $schema they read', () => {
  it('lock: re-recording digests keeps the lock’s $schema', async () => {
    const repo = GitDir.create({
      'testdata/a.txt': 'a',
      'FIXTURE_LOCK.json': JSON.stringify({
        $schema: SCHEMA,
        override_token_env: 'FIXTURE_OVERRIDE',
        files: {},
      }),
    });
    const config = configSchema.parse({ fixtures: { roots: ['testdata'] } });
    const r = await relockFixtures({ repoRoot: repo.dir, config });
    expect(r.written).toBe(true);
    const lock = JSON.parse(readFileSync(repo.path('FIXTURE_LOCK.json'), 'utf8'));
    expect(Object.keys(lock)).toEqual(['$schema', 'override_token_env', 'files']);
    expect(lock.$schema).toBe(SCHEMA);
    expect(Object.keys(lock.files)).toEqual(['testdata/a.txt']);
  });

  it('ledger add keeps the flake ledger’s $schema', async () => {
    const repo = GitDir.create({
      'flake_ledger.json': JSON.stringify({ $schema: SCHEMA, version: 1, rules: [] }),
    });
    const args = [
      'add',
      '--property',
      'p',
      '--cause',
      'HASH_ORDER',
      '--owner',
      'o',
      '--expires',
      '2026-10-04',
    ];
    const { io } = memoryIO(repo.dir);
    await ledgerCommand([...args, '--action', 'sort', '--digest', DIGEST, '--today', '2026-09-20'], io);
    const ledger = JSON.parse(readFileSync(repo.path('flake_ledger.json'), 'utf8'));
    expect(ledger.$schema).toBe(SCHEMA);
    expect(ledger.rules).toHaveLength(1);
  });

  it('signatures add keeps the signature freeze’s $schema', async () => {
    const repo = GitDir.create({
      'flake_signatures.json': JSON.stringify({ $schema: SCHEMA, signatures: [] }),
    });
    const { io } = memoryIO(repo.dir);
    const test = 'tests/test_a.py::test_slow';
    await signaturesCommand(
      [
        'add',
        '--from',
        'r.xml',
        '--test',
        test,
        '--owner',
        'o',
        '--expires',
        '2026-10-04',
        '--action',
        'fix',
      ],
      { ...io, env: { CI_DATE: '2026-09-20' } },
      {
        parseReport: async () => ({
          tests: [{ id: test, status: 'failed', failures: [{ kind: 'TimeoutError', message: 'too slow' }] }],
        }),
      },
    );
    const freeze = JSON.parse(readFileSync(repo.path('flake_signatures.json'), 'utf8'));
    expect(freeze.$schema).toBe(SCHEMA);
    expect(freeze.signatures).toHaveLength(1);
    expect(parseSignatureFreeze(JSON.stringify(freeze), 'flake_signatures.json').$schema).toBe(SCHEMA);
  });

  it('seeds add keeps the tape’s $schema', async () => {
    const repo = GitDir.create({
      'patchgate.config.json': JSON.stringify({ seeds: {} }),
      'property_seeds.json': JSON.stringify({
        $schema: SCHEMA,
        properties: [{ id: 'p', nodeid: 'tests/t.py::test_p', min_examples: 10, seeds: [] }],
      }),
    });
    const { io } = memoryIO(repo.dir);
    expect(await seedsCommand(['add', 'p', '--seed', '42'], io)).toBe(0);
    const tape = JSON.parse(readFileSync(repo.path('property_seeds.json'), 'utf8'));
    expect(tape.$schema).toBe(SCHEMA);
    expect(tape.properties[0].seeds).toEqual(['42']);
  });

  it('record and freeze reopen keep the freeze-window ledger’s $schema', async () => {
    const repo = GitDir.create({
      'freeze/ledger.json': JSON.stringify({
        $schema: SCHEMA,
        window_runs: 3,
        entries: { cap: { status: 'open', fails_in_window: 0, checks: ['t::a'] } },
      }),
    });
    const read = () => JSON.parse(readFileSync(repo.path('freeze/ledger.json'), 'utf8'));
    const { io } = memoryIO(repo.dir);
    const outcome = { id: 't::a', suite: 't', classname: 't', name: 'a', status: 'failed' as const };
    expect(
      await recordCommand(['--junit', 'r.xml', '--at', '2026-09-12T21:14:00Z'], io, {
        parseReport: async () => ({ tests: [outcome] }),
      }),
    ).toBe(0);
    expect(read().$schema).toBe(SCHEMA);
    expect(read().entries.cap.status).toBe('blocked');
    expect(
      await freezeCommand(
        ['reopen', 'cap', '--reason', 'fixed', '--owner', 'o', '--at', '2026-09-13T00:00:00Z'],
        io,
      ),
    ).toBe(0);
    expect(read().$schema).toBe(SCHEMA);
    expect(Object.keys(read())).toEqual(['$schema', 'window_runs', 'entries', 'runs_recorded']);
    expect(read().entries.cap.status).toBe('open');
  });

  it('a ledger with $schema reads back as written (the validated serializer compares it)', () => {
    const text = `${JSON.stringify({ $schema: SCHEMA, window_runs: 20, entries: {} }, null, 2)}\n`;
    expect(serializeValidated(parseClaimLedger(text, 'freeze/ledger.json'), 'freeze/ledger.json')).toBe(text);
  });
});
