/**
 * The symlinks the gate itself put into a checkout (dependency folders lent
 * from another checkout or from the user's working tree), so that the
 * sandbox mounts where they lead. Head code can write symlinks into its
 * checkout too: one it planted (`leak -> /root`) must never become a
 * read-only mount of the next head process. Only a link recorded here, still
 * leading where it led when the gate made it, is followed.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';

const lent = new Map<string, string>();

/** Records a link the gate made at `link`, leading to `target` (resolved now). */
export function recordLentLink(link: string, target: string): void {
  lent.set(path.resolve(link), realpathSync(target));
}

/** Where the gate's own links under `dir` (its direct entries) lead, if they still lead there. */
export function lentTargets(dir: string): string[] {
  const root = path.resolve(dir);
  const out: string[] = [];
  for (const [link, target] of lent) {
    if (path.dirname(link) !== root) continue;
    let now: string;
    try {
      now = realpathSync(link);
    } catch {
      continue; // gone or dangling: nothing to mount
    }
    if (now === target) out.push(target);
  }
  return out;
}
