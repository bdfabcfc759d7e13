import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DEFAULT_SLICE_MS, SliceBudget } from '../util/time-slice.js';
import type { Finding } from './types.js';

/**
 * Contract files and locked fixtures of the head checkout, as they were
 * before any head code ran. Head code may write its own checkout (tests keep
 * caches there), so a test that rewrites a broken golden file back to the
 * expected output, or a property that edits the tape, would change what a
 * later layer reads. After each layer that ran head code the guard compares,
 * reports every write as CONTRACT_WRITTEN, and puts the original bytes back,
 * so every layer judges what the patch contains.
 */
export class WrittenGuard {
  private constructor(
    readonly root: string,
    private readonly original: Map<string, Buffer | undefined>,
  ) {}

  static async take(root: string, paths: Iterable<string>): Promise<WrittenGuard> {
    const original = new Map<string, Buffer | undefined>();
    const budget = new SliceBudget(DEFAULT_SLICE_MS);
    for (const p of new Set(paths)) {
      original.set(p, await readRegular(path.join(root, p)));
      if (budget.due()) await slice(budget);
    }
    return new WrittenGuard(root, original);
  }

  /** Findings for every guarded path head code changed during `layer`; the original bytes are restored. */
  async check(layer: string): Promise<Finding[]> {
    const findings: Finding[] = [];
    const budget = new SliceBudget(DEFAULT_SLICE_MS);
    for (const [rel, before] of this.original) {
      if (budget.due()) await slice(budget);
      const abs = path.join(this.root, rel);
      const now = await readRegular(abs);
      if (now === undefined && before === undefined) continue;
      if (now !== undefined && before !== undefined && now.equals(before)) continue;
      findings.push({
        code: 'CONTRACT_WRITTEN',
        layer,
        severity: 'reject',
        message: `head code ${before === undefined ? 'created' : now === undefined ? 'deleted' : 'rewrote'} ${rel} while the ${layer} layer ran; the gate judged the file as the patch has it, and a test that writes its own evidence is not checking it`,
        evidence: {
          path: rel,
          before: before === undefined ? null : sha256(before),
          after: now === undefined ? null : sha256(now),
          next: `find the test or property that writes ${rel} and make it compare instead of write`,
        },
      });
      // Later layers read the bytes the patch committed, never what its code wrote.
      if (before !== undefined) await this.restore(abs, before);
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
