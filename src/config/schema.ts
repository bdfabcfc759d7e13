import { z } from 'zod';
import { checkRepoPath } from '../util/repo-path.js';

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

export const DEFAULT_PROTECTED_GLOBS = [
  '.github/workflows/**',
  'CODEOWNERS',
  '.github/CODEOWNERS',
  'docs/CODEOWNERS',
];

const canonicalFixture = z.strictObject({
  file: repoPath.describe(
    'The JSON fixture whose canonical form is digested (seed 000: fixtures/lock.json).',
  ),
  digest: repoPath.describe(
    'The file holding the expected SHA-256 hex digest (seed 000: fixtures/lock.sha256).',
  ),
});

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
      })
      .default({ protect: DEFAULT_PROTECTED_GLOBS })
      .describe('Layer `contracts`: paths an agent patch may not touch. Always on.'),
    fixtures: z
      .strictObject({
        enabled: z.boolean().default(true).describe('Run the fixtures layer.'),
        roots: z
          .array(repoPath)
          .min(1)
          .default(['testdata'])
          .describe('Folders (or files) whose raw bytes are locked by the tree lock.'),
        lock: repoPath.default('FIXTURE_LOCK.json').describe('The tree lock file (seed 001 format).'),
        owner: z
          .string()
          .min(1)
          .default('maintainers')
          .describe('Owner written for newly locked files by `patchgate lock`.'),
        canonical: z
          .array(canonicalFixture)
          .default([])
          .describe(
            'JSON fixtures digested canonically (seed 000: fixtures/lock.json + fixtures/lock.sha256).',
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
