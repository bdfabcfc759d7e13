/**
 * Import boundaries of src/, checked by `npm run lint` (dependency-cruiser).
 * Each rule's comment is what a violation prints: the rule, and why it holds.
 * CONTRIBUTING.md explains the folder order and what to do when a rule
 * stands in the way.
 */

/**
 * The folders from the bottom up, as today's import graph has them. A module
 * may import its own tier and the tiers below, never one above: a lower
 * folder that needed an upper one would tie the basics to the gate's whole
 * machinery (and every cycle between folders could only lie within one tier).
 * The config is read before any contract file: what reads contract files by
 * the registry (validate, init's scaffolding, the JSON Schemas) lives in
 * contracts/, above the config and the freeze readers. Only
 * run-time imports count: two type-only imports go upward today
 * (src/runners/tests/session.ts → src/config/schema.ts and
 * src/runners/harness/protocol.ts → src/layers/hits/model.ts).
 */
const TIERS = [
  ['src/errors.ts', 'src/codes.ts'],
  ['src/util/', 'src/json/', 'src/junit/', 'src/signatures/', 'src/shard/'],
  ['src/sandbox/', 'src/git/'],
  ['src/runners/'],
  ['src/config/'],
  ['src/freeze/', 'src/overlay/'],
  ['src/contracts/'],
  ['src/layers/', 'src/sandboxed/'],
  ['src/report/', 'src/history/'],
  ['src/steps/', 'src/baseline/', 'src/define.ts'],
  ['src/pipeline.ts'],
  ['src/cli/', 'src/index.ts'],
];

const escape = (p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A path pattern matching the folders (by prefix) and files (exactly) listed. */
const pathsOf = (entries) => `^(${entries.map((e) => (e.endsWith('/') ? escape(e) : `${escape(e)}$`)).join('|')})`;

const tierRules = TIERS.slice(0, -1).map((tier, i) => ({
  name: `tier-${i}-imports-upward`,
  severity: 'error',
  comment:
    `A module of ${tier.join(', ')} (tier ${i} of the folder order in .dependency-cruiser.cjs) imports one of a tier above it: ` +
    'lower folders never import upper ones. Move what both need down (or the importing code up), or pass it in as an argument.',
  from: { path: pathsOf(tier) },
  // Types vanish at run time; the tiers are about what loads what (the type-only imports upward are listed above).
  to: { path: pathsOf(TIERS.slice(i + 1).flat()), dependencyTypesNot: ['type-only'] },
}));

/**
 * What runs inside a sandboxed process besides head code: the pool's host and
 * its writer thread, and the handler modules (the hits scorer, the seed
 * replayer) with everything they load. It holds the channel key and shares an
 * interpreter with head code, so it loads only what it needs; whatever it
 * loads is also code head code can reach and patch at run time.
 */
const SANDBOXED = [
  'src/sandbox/host/host.ts',
  'src/sandbox/host/relay.ts',
  'src/sandbox/channel.ts',
  'src/sandboxed/',
  'src/layers/hits/define-property.ts',
  'src/layers/hits/perturb/',
  'src/layers/seeds/define-seed-property.ts',
  'src/util/module-loader.ts',
  // Pure path arithmetic, where the package's own files are: module-loader resolves `patchgate` with it.
  'src/util/package-root.ts',
  'src/util/branded-exports.ts',
  'src/util/compare.ts',
];

module.exports = {
  forbidden: [
    {
      name: 'core-imports-cli',
      severity: 'error',
      comment:
        'Only the CLI touches process, argv and the terminal; the core (everything in src/ but src/cli/) is a library the CLI and users call, and never imports src/cli/.',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'pipeline-outside-cli',
      severity: 'error',
      comment:
        'src/pipeline.ts runs the whole gate: only the CLI (src/cli/) and the public API (src/index.ts) start it. A module below it that imported it would load every layer.',
      from: { path: '^src/', pathNot: ['^src/cli/', '^src/index\\.ts$'] },
      to: { path: '^src/pipeline\\.ts$' },
    },
    {
      name: 'index-imported-inside',
      severity: 'error',
      comment:
        "src/index.ts is the public API for the package's users; code inside src/ imports the module it needs, never the barrel (it would load everything, and make cycles).",
      from: { path: '^src/' },
      to: { path: '^src/index\\.ts$' },
    },
    {
      name: 'config-imports-layers',
      severity: 'error',
      comment:
        'The config is read and validated before any layer exists: src/config/ never imports src/layers/ or src/pipeline.ts. What a layer contributes to validation comes through src/contracts/ (the contract formats).',
      from: { path: '^src/config/' },
      to: { path: ['^src/layers/', '^src/pipeline\\.ts$'] },
    },
    {
      name: 'sandboxed-imports-gate',
      severity: 'error',
      comment:
        'This module runs inside a sandboxed process, next to head code (see SANDBOXED in .dependency-cruiser.cjs): it may load only the modules listed there. Anything else of the gate it loaded would run where head code can reach it.',
      from: { path: pathsOf(SANDBOXED) },
      to: { path: '^src/', pathNot: pathsOf(SANDBOXED), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'sandboxed-imports-packages',
      severity: 'error',
      comment:
        'Code that runs in a sandboxed process loads no npm package at run time but jiti (the loader of head modules): every package it loaded would share an interpreter with head code.',
      from: { path: pathsOf(SANDBOXED) },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'],
        // Wherever node_modules really is (a symlinked one resolves outside the repository).
        pathNot: '(^|/)node_modules/jiti/',
        dependencyTypesNot: ['type-only'],
      },
    },
    ...tierRules,
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file: a typo, or a module that was moved.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports are seen (the rules above say where they count), so an `import type` cannot hide an import.
    tsPreCompilationDeps: true,
    // Only what changed is parsed again: the lint stays fast.
    cache: { folder: 'node_modules/.cache/dependency-cruiser', strategy: 'content' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
