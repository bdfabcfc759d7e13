import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { PatchgateError } from '../errors.js';

/**
 * Replaces `abs` with `text` in one step: written and flushed to a temp file
 * in the same folder, then renamed over it, so a reader (or a crash) sees
 * the old contract file or the new one, never half of one. The temp file is removed
 * on any failure.
 */
export async function writeFileAtomic(abs: string, text: string, label: string): Promise<void> {
  const temp = path.join(
    path.dirname(abs),
    `.${path.basename(abs)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, abs);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    const reason = err instanceof Error ? err.message : String(err);
    throw new PatchgateError(
      'OUTPUT_WRITE_FAILED',
      'internal',
      `could not write ${label}: ${reason}; the file was left as it was`,
      { file: label },
      { cause: err },
    );
  }
}
