import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DEFAULT_SLICE_MS, SliceBudget } from '../util/time-slice.js';
import type { Finding } from './types.js';

/** What a guard watches, which decides the finding's code and words. */
export type GuardedKind =
  /** Contract files and locked fixtures of the head checkout. */
  | 'contract'
  /** The base's test side in the checkout the base's tests run in (the overlay, or the head when they are the same). */
  | 'test-side';

export interface GuardOptions {
  kind: GuardedKind;
  /** The file as git's objects have it: what is put back after a write (head code cannot reach those). */
  committed(rel: string): Promise<Buffer | undefined>;
}

/**
 * Files of a checkout as they were before any head code ran, by digest.
 * Head code may write its own checkout (tests keep caches there), so a test
 * that rewrites a broken golden file back to the expected output, a property
 * that edits the tape, or production code that rewrites the base's test files
 * on the overlay before the runner reads them would change what is judged.
 * After each layer that ran head code the guard compares, reports every write
 * (CONTRACT_WRITTEN, TEST_SIDE_WRITTEN), and puts the committed bytes back, so
 * every layer judges what the patch contains.
 */
export class WrittenGuard {
  private constructor(
    readonly root: string,
    private readonly original: Map<string, string | undefined>,
    private readonly options: GuardOptions,
  ) {}

  static async take(root: string, paths: Iterable<string>, options: GuardOptions): Promise<WrittenGuard> {
    const original = new Map<string, string | undefined>();
    const budget = new SliceBudget(DEFAULT_SLICE_MS);
    for (const p of new Set(paths)) {
      original.set(p, await digestOf(path.join(root, p)));
      if (budget.due()) await slice(budget);
    }
    return new WrittenGuard(root, original, options);
  }

  /** Findings for every guarded path head code changed during `layer`; the committed bytes are restored. */
  async check(layer: string): Promise<Finding[]> {
    const findings: Finding[] = [];
    const budget = new SliceBudget(DEFAULT_SLICE_MS);
    for (const [rel, before] of this.original) {
      if (budget.due()) await slice(budget);
      const abs = path.join(this.root, rel);
      const now = await digestOf(abs);
      if (now === before) continue;
      const how = before === undefined ? 'created' : now === undefined ? 'deleted' : 'rewrote';
      findings.push(
        this.options.kind === 'contract'
          ? {
              code: 'CONTRACT_WRITTEN',
              layer,
              severity: 'reject',
              message: `head code ${how} ${rel} while the ${layer} layer ran; the gate judged the file as the patch has it, and a test that writes its own evidence is not checking it`,
              evidence: {
                path: rel,
                before: before ?? null,
                after: now ?? null,
                next: `find the test or property that writes ${rel} and make it compare instead of write`,
              },
            }
          : {
              code: 'TEST_SIDE_WRITTEN',
              layer,
              severity: 'reject',
              message: `head code ${how} the base's test-side file ${rel} while the ${layer} layer ran: what the base's tests said there is not what the base's tests are`,
              evidence: {
                path: rel,
                before: before ?? null,
                after: now ?? null,
                next: `find the production code (or install script) that writes ${rel} and remove the write: code under test must not edit the tests that judge it`,
              },
            },
      );
      // Later layers read the bytes the patch committed, never what its code wrote.
      if (before !== undefined) {
        const bytes = await this.options.committed(rel);
        if (bytes !== undefined) await this.restore(abs, bytes);
      }
    }
    return findings;
  }

  /** The original bytes back in place, as a new regular file, never through a link head code planted. */
  private async restore(abs: string, bytes: Buffer): Promise<void> {
    const root = await realpath(this.root);
    const dir = await realpath(path.dirname(abs)).catch(() => undefined);
    if (dir === undefined || (dir !== root && !dir.startsWith(`${root}${path.sep}`))) return;
    await rm(abs, { recursive: true, force: true });
    await writeFile(path.join(dir, path.basename(abs)), bytes, { flag: 'wx' }).catch(() => undefined);
  }
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** A file's SHA-256, or the link it is, or undefined when absent (or not a regular file). */
async function digestOf(file: string): Promise<string | undefined> {
  const bytes = await readRegular(file);
  return bytes === undefined ? undefined : sha256(bytes);
}

/** Lets the event loop turn (a signal, a timer) between slices of a long walk. */
async function slice(budget: SliceBudget): Promise<void> {
  await nextTurn();
  budget.restart();
}

async function readRegular(file: string): Promise<Buffer | undefined> {
  try {
    // A lock of a million entries the patch deleted is a million absent paths: a synchronous lstat that
    // answers `undefined` costs a microsecond, an awaited one that throws ENOENT a thread-pool round trip
    // and an Error each.
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (st === undefined) return undefined;
    if (st.isSymbolicLink()) return Buffer.from(`symlink:${file}`);
    if (!st.isFile()) return undefined;
    return await readFile(file);
  } catch {
    return undefined;
  }
}
