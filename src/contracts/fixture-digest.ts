/**
 * A canonical pair (`fixtures.canonical`): a JSON fixture of the
 * repository's own shape, and a plain-text digest file holding the SHA-256
 * of its canonical JSON (`fixtures/lock.sha256`). Both are contract files;
 * neither has a JSON Schema (the fixture's shape is the repository's, the
 * digest is one line).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type ContractRoot, readRootText } from '../config/contract-file.js';
import type { PatchgateConfig } from '../config/schema.js';
import { ContractFileError, InputError, InternalError } from '../errors.js';
import { JsonSyntaxError } from '../json/parse.js';
import { canonicalDigest } from '../json/python-dumps.js';
import type { FileFormat } from './format.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reads a digest file: one SHA-256 hex digest, surrounding whitespace ignored. */
export async function readDigestFile(
  root: ContractRoot,
  file: string,
  revision: string,
  maxBytes: number,
): Promise<string> {
  const text = await readRootText(root, file, {
    label: `digest file ${file} in ${revision}`,
    details: { file },
    maxBytes,
    what: 'a contract file',
    raise: 'a digest file holds one 64-character digest, so this is not one',
  });
  if (text === undefined) {
    throw new InputError(
      'CONTRACT_INVALID',
      `cannot read digest file ${file} in ${revision}: it does not exist`,
      { file },
    );
  }
  const digest = text.trim();
  if (!/^[0-9a-f]{64}$/.test(digest)) {
    throw new ContractFileError('CONTRACT_INVALID', [
      {
        file,
        path: '',
        line: 1,
        column: 1,
        message: `expected one SHA-256 digest (64 lowercase hex characters), got ${JSON.stringify(digest.slice(0, 80))}.`,
      },
    ]);
  }
  return digest;
}

type Digested =
  | { ok: true; digest: string }
  | { ok: false; reason: string; line?: number; column?: number }
  | { ok: false; missing: true };

/** The seed-000 digest of a fixture file in one checkout, or why there is none. */
export async function digestFixtureFile(root: string, file: string): Promise<Digested> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path.join(root, file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, missing: true };
    throw new InputError('FILE_UNREADABLE', `cannot read ${file}: ${(err as Error).message}`, { file });
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'is not valid UTF-8' };
  }
  try {
    return { ok: true, digest: canonicalDigest(text) };
  } catch (err) {
    if (err instanceof JsonSyntaxError)
      return { ok: false, reason: `is not valid JSON: ${err.message}`, line: err.line, column: err.column };
    return { ok: false, reason: (err as Error).message };
  }
}

const FILE = /^fixtures\.canonical\[(\d+)\]\.file$/;

export const fixtureDigestFormat = {
  kind: 'file',
  roles: ['fixtures.canonical[].file', 'fixtures.canonical[].digest'],
  layer: 'fixtures',
  describe: 'canonical fixture and its digest file (fixtures/lock.json, fixtures/lock.sha256)',
  files: (config: PatchgateConfig) =>
    config.fixtures.canonical.flatMap((c, i) => [
      { path: c.file, role: `fixtures.canonical[${i}].file` },
      { path: c.digest, role: `fixtures.canonical[${i}].digest` },
    ]),
  missing: {
    create(role: string, config: PatchgateConfig) {
      const fixture = FILE.exec(role);
      if (fixture)
        return 'it is the fixture the digest file locks: restore it, or remove the entry from fixtures.canonical';
      const entry = config.fixtures.canonical[Number(/\[(\d+)\]/.exec(role)?.[1])];
      return `run \`patchgate lock\` to write the canonical digest of ${entry?.file ?? 'its fixture'}`;
    },
  },
  async read(root, { path: file, role }, env) {
    if (!FILE.test(role)) return readDigestFile(root, file, env.revision, env.read.maxBytes);
    // A fixture is digested byte for byte from a checkout: the frozen snapshots hold contract text only.
    if (typeof root !== 'string')
      throw new InternalError(
        `canonical fixture ${file} was asked of a frozen snapshot; it is read from a checkout`,
      );
    const d = await digestFixtureFile(root, file);
    if (!d.ok && !('missing' in d)) {
      throw new ContractFileError('CONTRACT_INVALID', [
        {
          file,
          path: '',
          ...(d.line !== undefined ? { line: d.line, column: d.column ?? 1 } : {}),
          message: `${d.reason}, so its canonical digest cannot be checked (${role}).`,
        },
      ]);
    }
    return d.ok ? d.digest : undefined;
  },
} satisfies FileFormat<string | undefined>;
