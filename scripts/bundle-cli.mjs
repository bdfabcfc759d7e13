// Bundles the CLI (dist/cli/bin.js and everything it imports, dependencies
// included) into a few files, in place: every `patchgate` command is a fresh
// Node process, and loading some 400 separate modules cost it 0.5-0.7 CPU-s
// before any work started, about three times what the bundle costs. Each
// command stays its own chunk, loaded only when run.
//
// Kept out of the bundle:
// - typescript: one 9 MB file loaded only by the checks that parse JS/TS
//   (src/util/typescript.ts explains how it is loaded);
// - jiti: it loads users' TypeScript configs and finds its own helper files
//   next to itself;
// - better-sqlite3 and pg, the run history's drivers: the first loads a native
//   addon from beside itself, and both load only when a command uses the
//   history.
// The library (dist/index.js), the processes the sandbox starts
// (dist/sandbox/host/, dist/sandboxed/) and the .d.ts files stay as tsc wrote
// them. Chunks sit in dist/cli/, two folders below the package like the
// modules they were made from, so src/util/package-root.ts finds the same
// root from either.
import { build } from 'esbuild';

const result = await build({
  entryPoints: { bin: 'dist/cli/bin.js' },
  outdir: 'dist/cli',
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'bundle-[name]-[hash]',
  external: ['typescript', 'jiti', 'better-sqlite3', 'pg'],
  // Bundled CommonJS dependencies (yaml, picomatch) call require() for Node's builtins.
  banner: {
    js: "import { createRequire as pgCreateRequire } from 'node:module'; const require = pgCreateRequire(import.meta.url);",
  },
  legalComments: 'linked',
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'));
const bytes = outputs.reduce((n, [, o]) => n + o.bytes, 0);
console.log(`bundled the CLI: ${outputs.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MB in dist/cli/`);
