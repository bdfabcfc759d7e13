import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageSchemaDir, schemaDirFor, schemaRefsFor } from '../../../src/config/schema-ref.js';
import { renderConfig } from '../../../src/contracts/scaffold.js';
import { tempDir } from '../../helpers/gitdir.js';

/** A folder holding a copy of the package's schema folder's config schema at `at`. */
function withSchema(root: string, at: string): void {
  mkdirSync(path.join(root, at), { recursive: true });
  writeFileSync(path.join(root, at, 'patchgate.config.schema.json'), '{}');
}

describe('where $schema resolves', () => {
  it('is the running package’s schema folder, which exists', () => {
    expect(path.basename(packageSchemaDir())).toBe('schema');
  });

  it('points at node_modules/patchgate when the package is installed there, relative to each file', async () => {
    const repo = tempDir('pg-schema-');
    withSchema(repo, 'node_modules/patchgate/schema');
    const refs = await schemaRefsFor(repo, path.join(tempDir('pg-elsewhere-'), 'schema'));
    expect(refs('patchgate.config.json', 'patchgate.config.schema.json')).toBe(
      './node_modules/patchgate/schema/patchgate.config.schema.json',
    );
    expect(refs('freeze/ledger.json', 'claim-ledger.schema.json')).toBe(
      '../node_modules/patchgate/schema/claim-ledger.schema.json',
    );
  });

  it('follows an installed package that is a link (npm link, a file: dependency)', async () => {
    const repo = tempDir('pg-schema-');
    const pkg = tempDir('pg-pkg-');
    withSchema(pkg, 'schema');
    mkdirSync(path.join(repo, 'node_modules'));
    symlinkSync(pkg, path.join(repo, 'node_modules', 'patchgate'));
    expect(await schemaDirFor(repo, path.join(tempDir('pg-elsewhere-'), 'schema'))).toBe(
      'node_modules/patchgate/schema',
    );
  });

  it('uses the running copy’s own schema folder when that copy is inside the repository (vendored)', async () => {
    const repo = tempDir('pg-schema-');
    withSchema(repo, 'tools/patchgate/schema');
    const refs = await schemaRefsFor(repo, path.join(repo, 'tools/patchgate/schema'));
    expect(refs('patchgate.config.json', 'patchgate.config.schema.json')).toBe(
      './tools/patchgate/schema/patchgate.config.schema.json',
    );
  });

  it('writes none where nothing resolves: not installed, and run from a copy outside the repository', async () => {
    const repo = tempDir('pg-schema-');
    writeFileSync(path.join(repo, 'package.json'), '{}');
    const outside = tempDir('pg-global-');
    withSchema(outside, 'schema');
    const refs = await schemaRefsFor(repo, path.join(outside, 'schema'));
    expect(refs('patchgate.config.json', 'patchgate.config.schema.json')).toBeUndefined();
    const config = { fixtures: { roots: ['testdata'] } };
    expect(JSON.parse(renderConfig(config, 'json', { schema: refs })).$schema).toBeUndefined();
    expect(renderConfig(config, 'yaml', { schema: refs })).not.toContain('$schema');
  });
});
