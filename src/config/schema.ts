import { z } from 'zod';
import { checkRepoPath } from '../util/repo-path.js';
import { DEFAULT_CONTRACT_BYTES, MAX_CONTRACT_BYTES } from './contract-file.js';
import { NODE_VALUE_FLAGS } from './node-flags.js';

/** A repo-relative path; escaping the repository is a config error. */
const repoPath = z.string().superRefine((value, ctx) => {
  const problem = checkRepoPath(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `path '${value}' ${problem}` });
});

/** A glob over repo-relative paths; same escaping rules as a path. */
const repoGlob = z.string().superRefine((value, ctx) => {
  const problem = checkRepoPath(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `glob '${value}' ${problem}` });
});

/** Variables a layer passes to head code: the values come from the base config, never from the head. */
const headEnv = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name'), z.string())
  .default({});

/** An absolute host path, for folders head processes may read. */
const hostPath = z.string().superRefine((value, ctx) => {
  if (!value.startsWith('/') || value.split('/').includes('..'))
    ctx.addIssue({ code: 'custom', message: `'${value}' must be an absolute path without '..'` });
});

const sandboxSchema = z
  .strictObject({
    allowUnsandboxed: z
      .boolean()
      .default(false)
      .describe(
        'Under CI=true, running head code without bubblewrap is an error verdict unless this is true (then it is recorded as a warning).',
      ),
    readOnly: z
      .array(hostPath)
      .default([])
      .describe(
        'More host folders head processes may read, besides the system folders (e.g. an interpreter installed under a home folder).',
      ),
    limits: z
      .strictObject({
        memoryMb: z
          .int()
          .min(64)
          .default(4096)
          .describe(
            'Memory of one head process tree: its resident memory plus what its memory-backed folders (/tmp, /dev/shm) hold.',
          ),
        processes: z.int().min(16).default(1024).describe('Processes the sandbox user may have at once.'),
        fileMb: z
          .int()
          .min(1)
          .default(1024)
          .describe('Largest file a head process may write, logs included.'),
        diskMb: z
          .int()
          .min(16)
          .default(4096)
          .describe(
            'Bytes head processes may add to a folder they write (a checkout, its scratch), counted over every head process that writes it: the install, every test run.',
          ),
      })
      .default({ memoryMb: 4096, processes: 1024, fileMb: 1024, diskMb: 4096 }),
  })
  .describe('How head code is sandboxed (bubblewrap on Linux).');

export type SandboxConfig = z.output<typeof sandboxSchema>;

export const DEFAULT_PROTECTED_GLOBS = [
  '.github/workflows/**',
  'CODEOWNERS',
  '.github/CODEOWNERS',
  'docs/CODEOWNERS',
];

const canonicalFixture = z.strictObject({
  file: repoPath.describe(
    'The JSON fixture whose canonical form (sorted keys, Python `json.dumps` spacing) is digested, e.g. fixtures/lock.json.',
  ),
  digest: repoPath.describe(
    'The file holding the expected SHA-256 hex digest of that canonical form, e.g. fixtures/lock.sha256.',
  ),
});

const jsonValue = z.json();

const operatorSpec = z.union([
  z.string().min(1).describe('A built-in operator name, e.g. num.inc, str.case, arr.drop_last.'),
  z.strictObject({ set: jsonValue }).describe('Replace the value.'),
  z.strictObject({ add: z.number() }).describe('Add to a number.'),
  z.strictObject({ append: jsonValue }).describe('Append to an array.'),
]);

const fixturePath = repoPath.describe(
  'A locked JSON fixture (named in FIXTURE_LOCK.json or fixtures.canonical).',
);

const hitsSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Run the hits layer.'),
    properties: z
      .array(repoGlob)
      .default([])
      .describe('Globs of TypeScript/JavaScript modules exporting defineProperty() definitions.'),
    python: z
      .array(
        z.strictObject({
          module: repoPath.describe("A Python file with a PROPERTIES list (the seed's properties.py style)."),
          fixture: fixturePath,
          python: z.string().min(1).default('python3').describe('The Python interpreter to run.'),
        }),
      )
      .default([])
      .describe('Python property modules, run through the bundled adapter over the harness protocol.'),
    harnesses: z
      .array(z.strictObject({ command: z.array(z.string().min(1)).min(1), fixture: fixturePath }))
      .default([])
      .describe(
        'Commands speaking the JSON-lines harness protocol (docs/harness-protocol.md), one persistent process each.',
      ),
    commands: z
      .array(
        z.strictObject({
          name: z.string().min(1),
          fixture: fixturePath,
          claims: z.array(z.string().min(1)),
          command: z.array(z.string().min(1)).min(1),
        }),
      )
      .default([])
      .describe('Slow fallback: a command run once per mutant with PATCHGATE_FIXTURE set; exit 0 = pass.'),
    maxDepth: z
      .int()
      .min(1)
      .max(64)
      .default(4)
      .describe('How deep into the fixture fields are perturbed (top-level fields are depth 1).'),
    runs: z
      .int()
      .min(1)
      .max(20)
      .default(3)
      .describe(
        'Runs per revision; disagreeing runs are a flake. 3 is a convention, not a measured optimum.',
      ),
    timeoutMs: z
      .int()
      .min(10)
      .default(2000)
      .describe('Per-check timeout; a check that does not return is stopped and reported.'),
    workers: z
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'Sandboxed processes for TypeScript/JavaScript properties, per revision scored (default: the cores, shared among the revisions scored at once).',
      ),
    network: z.boolean().default(false).describe('Give property code network access (off by default).'),
    operators: z
      .array(
        z.strictObject({
          path: z.string().min(1),
          replace: z
            .boolean()
            .default(false)
            .describe('Use only these operators for this path instead of adding them.'),
          use: z.array(operatorSpec).min(1),
        }),
      )
      .default([])
      .describe("Per-field operator overrides (the seed's PERTURB table)."),
    interactions: z
      .array(z.tuple([z.string().min(1), z.string().min(1)]))
      .default([])
      .describe('Field pairs perturbed together; only these, never the full product.'),
    ledger: repoPath
      .default('flake_ledger.json')
      .describe(
        'The flake ledger: per property, known flakes by cause class, each with owner, expiry and the fixture digest it was seen under (see docs/freeze-ledger.md).',
      ),
  })
  .describe(
    'Layer `hits`: can each property still be failed by its locked fixture, and did the hit surface shrink?',
  );

export type HitsConfig = z.output<typeof hitsSchema>;

const seedsSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Run the seeds layer.'),
    tape: repoPath
      .default('property_seeds.json')
      .describe(
        'The seed tape: per property, the seeds that once found a counterexample (replayed on every patch) and a floor on examples (see docs/seed-tape.md).',
      ),
    properties: z
      .array(repoGlob)
      .default([])
      .describe(
        'Globs of TypeScript/JavaScript modules exporting defineSeedProperty() definitions (fast-check rows).',
      ),
    python: z
      .string()
      .min(1)
      .default('python3')
      .describe('The interpreter pytest rows run with (`python -m pytest`).'),
    timeoutMs: z
      .int()
      .min(10)
      .default(10_000)
      .describe(
        'Budget of one fast-check run (one example or shrink step); a property that hangs is stopped.',
      ),
    processTimeoutMs: z.int().min(1000).default(600_000).describe('Budget of one pytest or command process.'),
    workers: z
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe(
        "Sandboxed processes for fast-check properties, and pytest processes for the default switch's (test, seed) pairs, each with whole test files (default: the number of cores).",
      ),
    env: headEnv.describe('Variables the replays run with, e.g. {"PYTHONPATH": "src:."}.'),
    network: z.boolean().default(false).describe('Give seed replays network access (off by default).'),
  })
  .describe('Layer `seeds`: do recorded counterexample seeds still hold, at no fewer examples?');

export type SeedsConfig = z.output<typeof seedsSchema>;

export const TEST_PRESETS = [
  'vitest',
  'jest',
  'mocha',
  'node-test',
  'pytest',
  'go',
  'cargo-nextest',
  'maven',
  'generic',
] as const;

const DEFAULT_LOCKFILES = [
  'package-lock.json',
  'npm-shrinkwrap.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lockb',
  'poetry.lock',
  'uv.lock',
  'requirements.txt',
  'Pipfile.lock',
  'Cargo.lock',
  'go.sum',
];

/** What declares dependencies where no lockfile pins them. */
const DEFAULT_MANIFESTS = [
  'package.json',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'Pipfile',
  'Cargo.toml',
  'go.mod',
  'pom.xml',
  'build.gradle',
];

const testsSchema = z
  .strictObject({
    preset: z.enum(TEST_PRESETS).optional().describe('A ready-made test command; `generic` needs `command`.'),
    command: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        'The test command as argv, with {junit} (report path) and {tests} (a subset of test ids) placeholders.',
      ),
    args: z
      .array(
        z
          .string()
          .min(1)
          .refine((a) => !a.includes('{junit}') && !a.includes('{tests}'), {
            message:
              'expected an argument of its own: {junit} and {tests} belong to the command, which places them',
          }),
      )
      .optional()
      .describe(
        'Extra arguments for the preset\'s command (or `command`), inserted just before {tests}, e.g. ["-m", "not slow"] for pytest or ["--import", "tsx"] for node-test: extend a preset instead of copying its command. No {junit} or {tests}.',
      ),
    timeoutMs: z.int().min(1000).default(600_000).describe('Per test run.'),
    setup: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Run in each temporary worktree before its tests, e.g. ["npm", "ci"].'),
    env: headEnv.describe('Variables the tests (and setup) run with, e.g. {"PYTHONPATH": "src:."}.'),
    paths: z
      .array(repoGlob)
      .optional()
      .describe(
        "Globs of the test side (tests, their configuration, setup files): the overlay takes these from the base. Default: the preset's (see README), plus the modules hits and seeds name; the files the base's runner configuration names are added either way. Set, it is the human-owned test side, and a configuration value the gate cannot read (TEST_CONFIG_UNREAD) is a warning instead of an error.",
      ),
    overrideTokenEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name')
      .default('PATCHGATE_TESTS_OVERRIDE')
      .describe(
        'The variable a human job sets to accept base tests that disagree with the head (REGRESSION, TEST_VANISHED), test-toolchain changes (TOOLCHAIN_CHANGED), changes to shared code the runner configuration imports (TEST_CONFIG_IMPORT_CHANGED), production code that reaches into the tests (PRODUCTION_REACHES_TESTS) and, with weakened: reject, weakened tests (TEST_WEAKENED); listed in overrides, never printed.',
      ),
    network: z.boolean().default(false).describe('Give the test runs network access (off by default).'),
    weakened: z
      .enum(['warn', 'reject'])
      .default('warn')
      .describe(
        'What a test-side edit that can hide a failure (a weakened assertion, an added skip, fewer examples, a narrowed strategy, a new hook…) is when no failing base test is behind it (TEST_WEAKENED): a warning that tells the reviewer what to look at, or a rejection (which tests.overrideTokenEnv accepts).',
      ),
    setupNetwork: z
      .boolean()
      .default(true)
      .describe('Give the setup command network access (on by default: installs fetch packages).'),
    reuse: z
      .strictObject({
        lockfiles: z.array(repoPath).default(DEFAULT_LOCKFILES),
        manifests: z
          .array(repoPath)
          .default(DEFAULT_MANIFESTS)
          .describe(
            'Compared where neither checkout has any of the lockfiles: identical bytes, one install.',
          ),
        dirs: z.array(repoPath).default(['node_modules']),
      })
      .default({ lockfiles: DEFAULT_LOCKFILES, manifests: DEFAULT_MANIFESTS, dirs: ['node_modules'] })
      .describe(
        'Installed dependency folders a checkout lends to the others when every lockfile is byte-identical: the base lends to the head and the overlay (never the other way); each folder is read-only to head code once its setup is done.',
      ),
  })
  .superRefine((t, ctx) => {
    if (!t.preset && !t.command) ctx.addIssue({ code: 'custom', message: 'needs a `preset` or a `command`' });
    // node reads no option after its first test path, so node-test tells args' flags from paths by the `-`.
    if (t.preset === 'node-test')
      for (const [i, a] of (t.args ?? []).entries())
        if (NODE_VALUE_FLAGS.has(a))
          ctx.addIssue({
            code: 'custom',
            path: ['args', i],
            message: `write ${a} and its value as one argument, ${a}=VALUE: the node-test preset puts flags before the test paths in args, and a value on its own would be read as a test path`,
          });
    if (t.preset === 'generic' && !t.command)
      ctx.addIssue({ code: 'custom', message: 'the generic preset needs a `command`' });
  })
  .describe("How to run the repository's tests (used by the signatures and stability layers).");

export type TestsConfig = z.output<typeof testsSchema>;

const signaturesSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    freeze: repoPath
      .default('flake_signatures.json')
      .describe(
        'The signature freeze: failure signatures (kind and normalized message) that were already failing, each with owner, expiry and action.',
      ),
    scheme: z
      .enum(['patchgate', 'seed'])
      .default('patchgate')
      .describe(
        "How new rows normalize messages; `seed` reproduces the hashes of the original proposal's `normalize_message` (which replaces digits first), for rows its script wrote.",
      ),
  })
  .describe('Layer `signatures`: every failure and skip must be a known, frozen signature.');

const stabilitySchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    runs: z.int().min(2).max(50).default(5).describe("How many times the head's tests run."),
    parallel: z
      .int()
      .min(1)
      .max(16)
      .optional()
      .describe(
        "Reruns at once. Default 1: reruns side by side share the head's checkout, so tests that write into it can disturb each other and look flaky; raise it only where the tests keep to themselves (it pays for pytest and mocha, which run a suite on one core).",
      ),
    freeze: repoPath.default('stability_freeze.json').describe('Freeze rows for pre-existing flaky tests.'),
  })
  .describe(
    'Layer `stability`: does the head introduce a new flake? Runs last, only when the earlier layers passed.',
  );

const mutationSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Run the mutation probe.'),
    maxMutants: z
      .int()
      .min(1)
      .max(1000)
      .default(8)
      .describe(
        "At most this many mutants of the head's changed functions per patch, chosen the same way every run (one per function in turn, nearest the changed lines first); each that survives on the head also runs on the base where the function kept that code. The rest are counted as skipped.",
      ),
    unseen: z
      .enum(['warn', 'reject'])
      .default('warn')
      .describe('What a changed function no base test sees (CHANGED_CODE_UNSEEN) does to the verdict.'),
  })
  .describe(
    "Layer `mutation`: do the base's tests still see the code the patch changed? Mutants of each changed function run with the base's tests on the base and on the head's code. Runs after stability, only when the earlier layers passed.",
  );

const claimsSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Run the claims layer.'),
    matrix: z
      .array(repoGlob)
      .min(1)
      .default(['claims/*.yaml'])
      .describe(
        'Globs of the claim matrix files (YAML: `patch`, `claims: [{id, statement, fixture, property, freeze}]`).',
      ),
    ledger: repoPath
      .default('freeze/ledger.json')
      .describe(
        'The freeze-window ledger (`window_runs`, `entries`), updated by `patchgate record` on the main branch.',
      ),
    statements: z
      .enum(['off', 'warn', 'reject'])
      .default('warn')
      .describe(
        'What a claim sentence that names no bound, or only restates a function name, is: a warning, a rejection, or nothing.',
      ),
    coverage: z
      .union([z.boolean(), z.enum(['off', 'warn', 'reject'])])
      .default('off')
      .transform((v) => (v === true ? 'warn' : v === false ? 'off' : v))
      .describe(
        'Report production hunks no claim covers (CLAIM_UNCOVERED_CHANGE): true or "warn" records them, "reject" blocks the merge.',
      ),
    python: z
      .string()
      .min(1)
      .default('python3')
      .describe('The interpreter that reads Python hunks with its own `ast` (in the sandbox), for coverage.'),
  })
  .describe(
    'Layer `claims`: is every behavioural claim bound to a reviewed fixture, a property that ran, and an open freeze?',
  );

export type ClaimsConfig = z.output<typeof claimsSchema>;

export const configSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Path or URL of the JSON Schema, for editors.'),
    contracts: z
      .strictObject({
        protect: z
          .array(repoGlob)
          .default(DEFAULT_PROTECTED_GLOBS)
          .describe(
            'Extra human-owned globs. The config file and every contract file it names are always protected.',
          ),
        overrideTokenEnv: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name')
          .default('PATCHGATE_CONTRACTS_OVERRIDE')
          .describe(
            'The variable a human job sets to accept a commit that touches contract paths (CONTRACT_TOUCHED), e.g. a maintainer editing a CI workflow; listed in overrides, never printed.',
          ),
      })
      .default({ protect: DEFAULT_PROTECTED_GLOBS, overrideTokenEnv: 'PATCHGATE_CONTRACTS_OVERRIDE' })
      .describe('Layer `contracts`: paths an agent patch may not touch. Always on.'),
    fixtures: z
      .strictObject({
        enabled: z.boolean().default(true).describe('Run the fixtures layer.'),
        roots: z
          .array(repoPath)
          .min(1)
          .default(['testdata'])
          .describe('Folders (or files) whose raw bytes are locked by the tree lock.'),
        lock: repoPath
          .default('FIXTURE_LOCK.json')
          .describe(
            'The tree lock file: the raw-byte SHA-256 of every fixture file under the fixture folders, and the override variable.',
          ),
        owner: z
          .string()
          .min(1)
          .default('maintainers')
          .describe('Owner written for newly locked files by `patchgate lock`.'),
        canonical: z
          .array(canonicalFixture)
          .default([])
          .describe(
            'JSON fixtures whose canonical form is checked against a digest file, e.g. fixtures/lock.json with fixtures/lock.sha256.',
          ),
      })
      .default({
        enabled: true,
        roots: ['testdata'],
        lock: 'FIXTURE_LOCK.json',
        owner: 'maintainers',
        canonical: [],
      })
      .describe('Layer `fixtures`: locked fixture bytes.'),
    hits: hitsSchema.optional(),
    seeds: seedsSchema.optional(),
    tests: testsSchema.optional(),
    signatures: signaturesSchema.optional(),
    stability: stabilitySchema.optional(),
    mutation: mutationSchema.optional(),
    claims: claimsSchema.optional(),
    sandbox: sandboxSchema.default({
      allowUnsandboxed: false,
      readOnly: [],
      limits: { memoryMb: 4096, processes: 1024, fileMb: 1024, diskMb: 4096 },
    }),
    limits: z
      .strictObject({
        contractBytes: z
          .int()
          .min(1)
          .max(
            MAX_CONTRACT_BYTES,
            `must be at most ${MAX_CONTRACT_BYTES}, the longest text JavaScript can hold`,
          )
          .default(DEFAULT_CONTRACT_BYTES)
          .describe(
            'Largest contract file (lock, ledger, freeze, tape) the gate reads, in bytes; a larger one is an input error. Default 256 MiB. Does not apply to this config file, which is always held to the default.',
          ),
      })
      .default({ contractBytes: DEFAULT_CONTRACT_BYTES })
      .describe('Bounds on what the gate reads.'),
  })
  .superRefine((c, ctx) => {
    for (const layer of ['signatures', 'stability', 'mutation'] as const) {
      if (c[layer]?.enabled && !c.tests) {
        ctx.addIssue({
          code: 'custom',
          path: [layer],
          message: `needs a \`tests\` section saying how to run the tests`,
        });
      }
    }
  })
  .describe(
    'patchgate configuration. Read from the base revision; the head cannot change the rules it is judged by.',
  );

/** What users write (everything optional). */
export type PatchgateConfigInput = z.input<typeof configSchema>;
/** What the gate runs on (defaults filled in). */
export type PatchgateConfig = z.output<typeof configSchema>;

/** Typed helper for `patchgate.config.ts`. */
export function defineConfig(config: PatchgateConfigInput): PatchgateConfigInput {
  return config;
}
