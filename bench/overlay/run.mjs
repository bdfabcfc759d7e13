#!/usr/bin/env node
// Overlay benchmark (issue 17): what asking the base's runner configuration
// which files it loads costs, on top of building the overlay from the globs.
//   A vitest repository of 4,000 production modules and 1,000 test files,
//   whose vitest.config.ts names setup files, imports a module of its own and
//   aliases a stub (so every JavaScript file of the base is read once to tell
//   instruments from code), and a tsconfig with paths; the patch changes 40
//   production modules, one setup file and a paths entry.
//   yardstick: buildOverlayTree with the test side the globs alone give (the
//   overlay before this work), same repository, same run.
//   ratio = buildOverlay (runner configuration read, then the overlay) / yardstick.
//                                                             goal: <= 3x
// Usage: node bench/overlay/run.mjs [--runs N] [--keep]
// Needs a build first (`npm run build`); always exits 0, since it is a measurement.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs, requireBuild } from '../lib/cli.mjs';

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url);
const args = benchArgs(process.argv.slice(2), { runs: 5 });
const PRODUCTION = 4000;
const TESTS = 1000;
const CHANGED = 40;
const GOAL = 3;

requireBuild('overlay', dist('overlay/overlay-tree.js'));
const { buildOverlay, buildOverlayTree } = await import(dist('overlay/overlay-tree.js').href);
const { testSideFor } = await import(dist('overlay/test-side.js').href);
const { configSchema } = await import(dist('config/schema.js').href);
const { Git } = await import(dist('git/git.js').href);
const { execFile } = await import(dist('git/exec.js').href);
const { loadTypescript } = await import(dist('util/typescript.js').href);

const env = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};
const git = (cwd, ...a) => {
  const r = spawnSync('git', a, { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`git ${a.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};
const write = (root, files) => {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-bench-overlay-'));
const files = {
  'package.json': '{"name":"bench","private":true,"type":"module"}\n',
  'tsconfig.json': '{"compilerOptions":{"baseUrl":".","paths":{"@/*":["src/*"]}}}\n',
  'vitest.config.ts': `import path from 'node:path';
import { shared } from './vitest.shared';
export default {
  test: {
    ...shared,
    setupFiles: ['./config/setup.ts', path.resolve(__dirname, 'config/dom.ts')],
    alias: { 'virtual:env': path.resolve(__dirname, 'stubs/env.ts') },
  },
};
`,
  'vitest.shared.ts': "export const shared = { globalSetup: './config/global.ts' };\n",
  'config/setup.ts': 'export {};\n',
  'config/dom.ts': 'export {};\n',
  'config/global.ts': 'export default () => {};\n',
  'stubs/env.ts': 'export const env = {};\n',
};
for (let i = 0; i < PRODUCTION; i++) {
  const dep = i > 0 ? `import { f${i - 1} } from './m${i - 1}.js';\n` : '';
  files[`src/d${i % 40}/m${i}.ts`] = `${dep}export const f${i} = (x: number) => x + ${i};\n`;
}
for (let i = 0; i < TESTS; i++)
  files[`test/t${i}.test.ts`] =
    `import { expect, it } from 'vitest';\nimport { f${i} } from '@/d${i % 40}/m${i}';\nit('adds', () => expect(f${i}(1)).toBe(${i + 1}));\n`;
write(dir, files);
git(dir, 'init', '-q', '-b', 'main');
git(dir, 'add', '-A');
git(dir, 'commit', '-q', '-m', 'base');
const base = git(dir, 'rev-parse', 'HEAD');
const change = {
  'config/setup.ts': "import { expect } from 'vitest';\nexpect.extend({});\n",
  'tsconfig.json': '{"compilerOptions":{"baseUrl":".","paths":{"@/*":["src/*"],"@lib/*":["lib/*"]}}}\n',
};
for (let i = 0; i < CHANGED; i++)
  change[`src/d${i % 40}/m${i}.ts`] = `export const f${i} = (x: number) => x + ${i} + 0;\n`;
write(dir, change);
git(dir, 'add', '-A');
git(dir, 'commit', '-q', '-m', 'head');
const headTree = git(dir, 'rev-parse', 'HEAD^{tree}');

const repo = Git.forEnv(execFile, dir, process.env);
const config = configSchema.parse({ tests: { preset: 'vitest' } });
await loadTypescript();

async function time(fn) {
  const t0 = performance.now();
  const out = await fn();
  return { ms: performance.now() - t0, out };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`overlay: load average ${os.loadavg()[0].toFixed(2)} at start, ${args.runs} rounds`);
console.log(
  `repository: ${PRODUCTION} production modules, ${TESTS} test files; patch: ${CHANGED} modules, a setup file, a paths entry`,
);
// One warm-up of each: git's object cache and the JIT.
await buildOverlayTree(repo, base, headTree, testSideFor(config));
await buildOverlay(repo, base, headTree, config, 'patchgate.config.json');
const globs = [];
const full = [];
let last;
for (let r = 0; r < args.runs; r++) {
  const pair = [
    () => time(() => buildOverlayTree(repo, base, headTree, testSideFor(config))),
    () => time(() => buildOverlay(repo, base, headTree, config, 'patchgate.config.json')),
  ];
  // Alternate which goes first.
  const order = r % 2 === 0 ? [0, 1] : [1, 0];
  for (const i of order) {
    const { ms, out } = await pair[i]();
    (i === 0 ? globs : full).push(ms);
    if (i === 1) last = out;
  }
}
const ratio = median(full) / median(globs);
console.log(
  `globs only (yardstick): median ${median(globs).toFixed(0)} ms, best ${Math.min(...globs).toFixed(0)} ms`,
);
console.log(
  `runner configuration read: median ${median(full).toFixed(0)} ms, best ${Math.min(...full).toFixed(0)} ms`,
);
console.log(
  `named ${last.named.length} paths, restored ${last.restored.join(', ')}, merged ${last.merged.join(', ') || 'none'}`,
);
console.log(`ratio ${ratio.toFixed(2)}x (goal <= ${GOAL}x): ${ratio <= GOAL ? 'PASS' : 'MISS'}`);
if (!args.has('--keep')) fs.rmSync(dir, { recursive: true, force: true });
else console.log(`kept ${dir}`);
