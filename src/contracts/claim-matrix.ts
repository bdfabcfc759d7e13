/**
 * The claim matrix (`claims/*.yaml`): rows are behavioural claims, columns
 * the three checks that must back each one. The files are contract files,
 * read from the base's frozen snapshot. A cell may be left empty here — that
 * is a finding (CLAIM_UNBOUND), not a parse error — but everything else about
 * the file's shape is checked, and every problem of every matrix file is
 * reported at once.
 */
import { z } from 'zod';
import { type ContractRoot, readContractTextIfExists } from '../config/contract-file.js';
import { parseYamlDocument, validateDocument } from '../config/documents.js';
import { YAML_CONFIG_MAX_BYTES } from '../config/load.js';
import type { PatchgateConfig } from '../config/schema.js';
import { ContractFileError, PatchgateError, type Problem } from '../errors.js';
import { nonBlank } from '../freeze/fields.js';
import { pushAll } from '../util/arrays.js';
import type { GlobFormat, MatchedRead } from './format.js';

export const CELLS = ['fixture', 'property', 'freeze'] as const;
export type Cell = (typeof CELLS)[number];

/** A cell left out, null or blank is the same empty cell. */
const cell = z.string().nullable().optional();

const claimSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'expected an id such as C1 (a letter, then letters, digits, _ . -)'),
  statement: nonBlank('the claim in one sentence, with its bound'),
  fixture: cell.describe('A locked fixture file the production code must reproduce.'),
  property: cell.describe(
    'A test node id (path::name) of a property test, `hits:NAME`, `seed:ID`, or a bare patchgate property / seed-tape id.',
  ),
  freeze: cell.describe('A freeze id of the ledger: `ID`, `LEDGER#ID` or `freeze:ID`.'),
  covers: z
    .array(nonBlank('a glob, or GLOB#SYMBOL'))
    .optional()
    .describe('The production code this claim is about, for claims.coverage: globs, or GLOB#SYMBOL.'),
});

export const matrixFileSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Path or URL of the JSON Schema, for editors.'),
    patch: nonBlank('the name of the patch the claims are about'),
    claims: z.array(claimSchema).nullable().optional(),
  })
  .nullable();

export interface Claim {
  id: string;
  statement: string;
  fixture?: string;
  property?: string;
  freeze?: string;
  covers: string[];
  /** Where the claim is written. */
  source: { file: string; index: number; line?: number };
}

export interface ClaimMatrix {
  /** Matrix files read, in path order; a file with no claim is listed with `claims: 0`. */
  files: { file: string; patch?: string; claims: number }[];
  claims: Claim[];
}

const filled = (v: string | null | undefined): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;

/**
 * Parses every matrix file. `texts` are (path, text) pairs in any order.
 * Throws one ContractFileError listing every problem of every file: YAML
 * errors with line and column, schema errors as sentences, duplicate ids in a
 * file and ids reused across files.
 */
export function parseClaimMatrix(texts: readonly { file: string; text: string }[]): ClaimMatrix {
  const problems: Problem[] = [];
  const out: ClaimMatrix = { files: [], claims: [] };
  const firstSeen = new Map<string, { file: string; line?: number }>();
  for (const { file, text } of [...texts].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
    const size = Buffer.byteLength(text, 'utf8');
    if (size > YAML_CONFIG_MAX_BYTES) {
      // The YAML parser cannot be paused mid-document, so a matrix is held to the YAML config's cap.
      problems.push({
        file,
        path: '',
        message: `is ${size} bytes; a claim matrix is at most ${YAML_CONFIG_MAX_BYTES} bytes (split it into several files)`,
      });
      continue;
    }
    let doc: ReturnType<typeof parseYamlDocument>;
    let parsed: z.output<typeof matrixFileSchema>;
    try {
      doc = parseYamlDocument(text, file, 'CONTRACT_INVALID');
      parsed = validateDocument(matrixFileSchema, doc, file, 'CONTRACT_INVALID');
    } catch (err) {
      if (err instanceof ContractFileError) {
        pushAll(problems, err.problems);
        continue;
      }
      throw err;
    }
    const claims = parsed?.claims ?? [];
    out.files.push({ file, ...(parsed?.patch ? { patch: parsed.patch } : {}), claims: claims.length });
    for (const [index, c] of claims.entries()) {
      const line = doc.locate(['claims', index], false)?.line;
      const prev = firstSeen.get(c.id);
      if (prev) {
        const where = prev.file === file ? 'earlier in this file' : `in ${prev.file}`;
        problems.push({
          file,
          path: `claims[${index}].id`,
          ...(doc.locate(['claims', index, 'id'], false) ?? {}),
          message: `claim id '${c.id}' is already used ${where}${prev.line !== undefined ? ` (line ${prev.line})` : ''}; a claim id names one claim, never reused`,
        });
        continue;
      }
      firstSeen.set(c.id, { file, ...(line !== undefined ? { line } : {}) });
      const fixture = filled(c.fixture);
      const property = filled(c.property);
      const freeze = filled(c.freeze);
      out.claims.push({
        id: c.id,
        statement: c.statement.trim(),
        ...(fixture ? { fixture } : {}),
        ...(property ? { property } : {}),
        ...(freeze ? { freeze } : {}),
        covers: c.covers ?? [],
        source: { file, index, ...(line !== undefined ? { line } : {}) },
      });
    }
  }
  if (problems.length > 0) throw new ContractFileError('CONTRACT_INVALID', problems);
  return out;
}

/**
 * Reads every matrix file of `files` and parses them together, so every
 * problem of every file is reported at once: the claims layer on each
 * revision's snapshot, and `patchgate validate` on the working tree. A file
 * that cannot be read is thrown, unless `asProblem` makes it one more
 * problem of that file.
 */
export async function readClaimMatrixFiles(
  root: ContractRoot,
  files: readonly string[],
  revision: string,
  maxBytes: number,
  asProblem?: (err: PatchgateError, file: string) => Problem,
): Promise<MatchedRead<ClaimMatrix>> {
  const texts: { file: string; text: string }[] = [];
  const problems: Problem[] = [];
  const failed = new Set<string>();
  for (const file of files) {
    try {
      const text = await readContractTextIfExists(root, file, revision, maxBytes);
      if (text !== undefined) texts.push({ file, text });
    } catch (err) {
      if (err instanceof ContractFileError) pushAll(problems, err.problems);
      else if (asProblem && err instanceof PatchgateError && err.kind === 'input' && err.code !== 'ABORTED')
        problems.push(asProblem(err, file));
      else throw err;
      failed.add(file);
    }
  }
  try {
    return { value: parseClaimMatrix(texts), problems, failed };
  } catch (err) {
    if (!(err instanceof ContractFileError)) throw err;
    pushAll(problems, err.problems);
    for (const p of err.problems) failed.add(p.file);
    return { problems, failed };
  }
}

export const claimMatrixFormat = {
  kind: 'glob',
  roles: ['claims.matrix'],
  layer: 'claims',
  describe: 'claim matrix (claims/*.yaml)',
  files: (config: PatchgateConfig) =>
    config.claims?.matrix.map((g) => ({ path: g, role: 'claims.matrix', glob: true })) ?? [],
  schema: { file: 'claim-matrix.schema.json', schema: matrixFileSchema },
  readMatched: (root, files, env, asProblem) =>
    readClaimMatrixFiles(root, files, env.revision, env.read.maxBytes, asProblem),
  // An enabled layer with nothing to check is an error: the claims layer rejects every patch with CLAIMS_EMPTY.
  check: (matrix, { files, patterns }, env) =>
    matrix.claims.length > 0
      ? []
      : [
          {
            file: env.configFile,
            path: 'claims.matrix',
            message:
              files.length === 0
                ? `matches no file in ${env.revision} (${patterns.join(', ')}): the claims layer would reject every patch with CLAIMS_EMPTY; write a claim matrix, or set claims.enabled to false.`
                : `the claim matrix (${files.join(', ')}) has no claims: the claims layer would reject every patch with CLAIMS_EMPTY.`,
          },
        ],
} satisfies GlobFormat<ClaimMatrix>;
