/**
 * The import boundaries `npm run lint` checks (.dependency-cruiser.cjs), run
 * by the real dependency-cruiser on a small src/ tree that breaks each rule
 * once and keeps to it elsewhere: a rule that stopped firing, or fired on an
 * import it allows, fails here by name. The lint itself checks the real
 * src/ (and passes today).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/gitdir.js';
import { repoRoot } from '../helpers/shared.js';

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
    include: ['src'],
  }),
  'node_modules/jiti/package.json': '{"name":"jiti","version":"1.0.0","main":"index.js"}',
  'node_modules/jiti/index.js': 'module.exports = {};\n',
  'node_modules/leftpad/package.json': '{"name":"leftpad","version":"1.0.0","main":"index.js"}',
  'node_modules/leftpad/index.js': 'module.exports = {};\n',
  'src/errors.ts': 'export const E = 1;\n',
  'src/util/ok.ts': "import { E } from '../errors.js';\nexport const ok = E;\n",
  'src/util/up.ts': "import { g } from '../git/g.js';\nexport const up = g;\n",
  'src/git/g.ts': "import { run } from '../pipeline.js';\nexport const g = run;\n",
  'src/runners/r.ts': "import type { C } from '../config/schema.js';\nexport const r = (c: C) => c;\n",
  'src/config/schema.ts': 'export type C = string;\n',
  'src/layers/types.ts': 'export type T = number;\n',
  'src/layers/a.ts': "import { io } from '../cli/io.js';\nexport const a = io;\n",
  'src/layers/gone.ts': "import { x } from './no-such-module.js';\nexport const gone = x;\n",
  'src/config/c.ts': "import { a } from '../layers/a.js';\nexport const c = a;\n",
  'src/config/typed.ts': "import type { T } from '../layers/types.js';\nexport const typed = (t: T) => t;\n",
  'src/config/reads.ts':
    "import { formats } from '../contracts/registry.js';\nexport const reads = formats;\n",
  'src/freeze/f.ts': "import type { C } from '../config/schema.js';\nexport const f = (c: C) => c;\n",
  'src/contracts/registry.ts': "import { f } from '../freeze/f.js';\nexport const formats = [f];\n",
  'src/sandbox/channel.ts': 'export const sign = 1;\n',
  'src/sandbox/host/host.ts':
    "import { sign } from '../channel.js';\nimport { ok } from '../../util/ok.js';\nexport const h = sign + ok;\n",
  'src/sandboxed/hits-scorer.ts':
    "import jiti from 'jiti';\nimport pad from 'leftpad';\nimport { sign } from '../sandbox/channel.js';\nexport const w = [jiti, pad, sign];\n",
  'src/pipeline.ts': "import { a } from './layers/a.js';\nexport const run = a;\n",
  'src/index.ts': "export { run } from './pipeline.js';\n",
  'src/cli/io.ts': 'export const io = 1;\n',
  'src/cli/main.ts':
    "import { run } from '../pipeline.js';\nimport { io } from './io.js';\nexport const m = [run, io];\n",
  'src/cli/barrel.ts': "import { run } from '../index.js';\nexport const b = run;\n",
};

let violations: string[] = [];
let output = '';

beforeAll(() => {
  const root = tempDir('pg-boundaries-');
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  const run = spawnSync(
    process.execPath,
    [
      path.join(repoRoot, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs'),
      'src',
      '--config',
      path.join(repoRoot, '.dependency-cruiser.cjs'),
      '--output-type',
      'err-long',
      '--no-cache',
    ],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    },
  );
  output = `${run.stdout}${run.stderr}`;
  expect(run.status, output).not.toBe(0);
  violations = [...output.matchAll(/^\s*error (\S+): (\S+) → (\S+)$/gm)].map(
    (m) => `${m[1]}: ${m[2]} → ${m[3]}`,
  );
});

const of = (rule: string) =>
  violations
    .filter((v) => v.startsWith(`${rule}: `))
    .map((v) => v.slice(rule.length + 2))
    .sort();

describe('import boundaries (.dependency-cruiser.cjs)', () => {
  it('the core never imports src/cli/', () => {
    expect(of('core-imports-cli')).toEqual(['src/layers/a.ts → src/cli/io.ts']);
  });

  it('only src/cli/ and src/index.ts import src/pipeline.ts', () => {
    expect(of('pipeline-outside-cli')).toEqual(['src/git/g.ts → src/pipeline.ts']);
  });

  it('nothing inside src/ imports the public barrel src/index.ts', () => {
    expect(of('index-imported-inside')).toEqual(['src/cli/barrel.ts → src/index.ts']);
  });

  it('src/config/ never imports src/layers/, not even for a type', () => {
    expect(of('config-imports-layers')).toEqual([
      'src/config/c.ts → src/layers/a.ts',
      'src/config/typed.ts → src/layers/types.ts',
    ]);
  });

  it('lower folders never load upper ones at run time; a type-only import upward is not counted', () => {
    expect(of('tier-1-imports-upward')).toEqual(['src/util/up.ts → src/git/g.ts']);
    expect(of('tier-2-imports-upward')).toEqual(['src/git/g.ts → src/pipeline.ts']);
    // The config is read before any contract file: it never loads the registry of formats (the freeze
    // readers and the registry load the config, downward).
    expect(of('tier-4-imports-upward')).toEqual([
      'src/config/c.ts → src/layers/a.ts',
      'src/config/reads.ts → src/contracts/registry.ts',
    ]);
    expect(of('tier-7-imports-upward')).toEqual(['src/layers/a.ts → src/cli/io.ts']);
    // runners → config/schema is type-only; cli → pipeline and pipeline → layers go downward.
    expect(violations.filter((v) => v.includes('src/runners/r.ts') || v.includes('src/cli/main.ts'))).toEqual(
      [],
    );
  });

  it('code that runs in a sandboxed process loads only the listed modules of the gate, and no package but jiti', () => {
    expect(of('sandboxed-imports-gate')).toEqual(['src/sandbox/host/host.ts → src/util/ok.ts']);
    expect(of('sandboxed-imports-packages')).toEqual([
      'src/sandboxed/hits-scorer.ts → node_modules/leftpad/index.js',
    ]);
  });

  it('an import that resolves to nothing is an error', () => {
    expect(of('not-to-unresolvable')).toEqual(['src/layers/gone.ts → ./no-such-module.js']);
  });

  it('finds nothing else, and says for each violation why the rule holds', () => {
    expect(violations).toHaveLength(13);
    // The reporter wraps each rule's comment to the terminal's width.
    const text = output.replace(/\s+/g, ' ');
    expect(text).toContain('only the CLI (src/cli/) and the public API (src/index.ts) start it');
    expect(text).toContain('lower folders never import upper ones');
    expect(output).toMatch(/x 13 dependency violations \(13 errors/);
  });
});
