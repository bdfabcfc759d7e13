import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema, type PatchgateConfigInput } from '../../../../src/config/schema.js';
import type { Change } from '../../../../src/git/changes.js';
import { overlayScoringNeeded } from '../../../../src/layers/hits/overlay-needed.js';
import type { LayerContext } from '../../../../src/layers/types.js';
import { tempDir } from '../../../helpers/gitdir.js';

type Texts = Record<string, string>;
const HITS: PatchgateConfigInput = { hits: { properties: ['properties/*.ts'] } };

/** The base checkout on disk (modules are found there) and committed; only these fields are read. */
function context(
  base: Texts,
  opts: { config?: PatchgateConfigInput; changes?: Change[]; sameAsHead?: boolean } = {},
) {
  const root = tempDir('pg-overlay-needed-');
  for (const [rel, text] of Object.entries(base)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  // A test double: overlayScoringNeeded reads only these fields of the context.
  return {
    config: configSchema.parse(opts.config ?? HITS),
    base: { root, readCommitted: async (file: string) => base[file] },
    overlay: { sameAsHead: opts.sameAsHead ?? false },
    changes: opts.changes ?? [{ kind: 'modified', path: 'properties/p.ts' }],
  } as unknown as LayerContext;
}

const prop = (imports: string) =>
  `${imports}\nimport { defineProperty } from 'patchgate';\nexport default defineProperty({});\n`;

describe('overlayScoringNeeded', () => {
  it("skips the overlay for a property that imports only patchgate and node's builtins", async () => {
    const ctx = context({ 'properties/p.ts': prop("import fs from 'node:fs';") });
    expect(await overlayScoringNeeded(ctx)).toBe(false);
  });

  it('scores the overlay for a property that imports production code', async () => {
    const ctx = context({
      'properties/p.ts': prop("import { supported } from '../src/currency.js';"),
      'src/currency.ts': 'export const supported = () => true;\n',
    });
    expect(await overlayScoringNeeded(ctx)).toBe(true);
  });

  it('follows test-side helpers: a helper that imports production code makes the overlay needed', async () => {
    const base = {
      'properties/p.ts': prop("import { total } from '../test/helpers.js';"),
      'test/helpers.ts': "export { total } from '../src/total.js';\n",
      'src/total.ts': 'export const total = 1;\n',
    };
    expect(await overlayScoringNeeded(context(base))).toBe(true);
    const selfContained = { ...base, 'test/helpers.ts': 'export const total = 1;\n' };
    expect(await overlayScoringNeeded(context(selfContained))).toBe(false);
  });

  it('scores the overlay for an npm import other than patchgate or fast-check, and for an import it cannot find', async () => {
    expect(await overlayScoringNeeded(context({ 'properties/p.ts': prop("import _ from 'lodash';") }))).toBe(
      true,
    );
    expect(
      await overlayScoringNeeded(context({ 'properties/p.ts': prop("import x from './gone.js';") })),
    ).toBe(true);
  });

  it('scores the overlay whenever Python property modules are configured, or a fixture changed', async () => {
    const python = context(
      { 'properties/p.ts': prop(''), 'props.py': 'PROPERTIES = []\n' },
      {
        config: {
          hits: { properties: ['properties/*.ts'], python: [{ module: 'props.py', fixture: 'f.json' }] },
        },
      },
    );
    expect(await overlayScoringNeeded(python)).toBe(true);
    const fixture = context(
      { 'properties/p.ts': prop('') },
      {
        config: { ...HITS, fixtures: { roots: ['fixtures'] } },
        changes: [{ kind: 'modified', path: 'fixtures/lock.json' }],
      },
    );
    expect(await overlayScoringNeeded(fixture)).toBe(true);
  });

  it('never scores an overlay that is the head itself', async () => {
    const ctx = context(
      { 'properties/p.ts': prop("import { a } from '../src/a.js';") },
      { sameAsHead: true },
    );
    expect(await overlayScoringNeeded(ctx)).toBe(false);
  });
});
