/**
 * The `$schema` init writes into the config and each contract file, only
 * where it resolves: an editor that cannot find the schema shows an error on
 * a file that is fine. Two places can hold the package's schemas for a
 * repository: `node_modules/patchgate/schema/` (patchgate installed in it),
 * or the `schema/` folder of the patchgate that is running, when that copy
 * is inside the repository (vendored, or patchgate's own checkout). A copy
 * outside the repository (a global install, `npx` cache, a path on this
 * machine) resolves on this machine only, so nothing is written then.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { packageRoot } from '../util/package-root.js';
import { CONFIG_JSON_SCHEMA, INSTALLED_SCHEMA_DIR } from './schema-files.js';

/** `(file, schemaFile)` → the `$schema` value for repo-relative `file`, or undefined to write none. */
export type SchemaRefs = (file: string, schemaFile: string) => string | undefined;

/** The running package's `schema/` folder. */
export function packageSchemaDir(): string {
  return path.join(packageRoot(), 'schema');
}

async function isFile(abs: string): Promise<boolean> {
  return stat(abs).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** `to` relative to the folder of repo-relative `file`, as a `./`-led POSIX path. */
function relativeTo(file: string, to: string): string {
  const rel = path.posix.relative(path.posix.dirname(file), to);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/**
 * Where the schemas resolve for `repoRoot`, or undefined when they do not:
 * the installed package first (what a teammate's checkout has after
 * `npm ci`), then the running package's copy inside the repository.
 */
export async function schemaDirFor(
  repoRoot: string,
  packageDir: string = packageSchemaDir(),
): Promise<string | undefined> {
  if (await isFile(path.join(repoRoot, INSTALLED_SCHEMA_DIR, CONFIG_JSON_SCHEMA.file)))
    return INSTALLED_SCHEMA_DIR;
  if (!(await isFile(path.join(packageDir, CONFIG_JSON_SCHEMA.file)))) return undefined;
  const [root, pkg] = await Promise.all([realpath(repoRoot), realpath(packageDir)]);
  const rel = path.relative(root, pkg);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/** The `$schema` of each file for `repoRoot`, from `schemaDirFor`. */
export async function schemaRefsFor(repoRoot: string, packageDir?: string): Promise<SchemaRefs> {
  const dir = await schemaDirFor(repoRoot, packageDir);
  return (file, schemaFile) => (dir === undefined ? undefined : relativeTo(file, `${dir}/${schemaFile}`));
}
