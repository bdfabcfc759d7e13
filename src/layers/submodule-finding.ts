/**
 * Files under a submodule whose commit the repository does not have are not
 * in the gate's checkouts: a fixture there cannot be judged (the gate cannot
 * decide, never "missing", which would blame the patch), and a test that reads
 * them fails on every side.
 */
import type { MissingSubmodule } from '../git/submodules.js';
import type { Finding } from './types.js';

/** The missing submodule `file` lies under, if any. */
export function missingSubmoduleOf(
  missing: readonly MissingSubmodule[] | undefined,
  file: string,
): MissingSubmodule | undefined {
  return missing?.find((m) => file === m.path || file.startsWith(`${m.path}/`));
}

const NEXT =
  'check the submodule out before the gate runs (`git submodule update --init --recursive`, or `submodules: recursive` in actions/checkout)';

/** One finding for the fixtures under one missing submodule. */
export function unjudgedFixtures(layer: string, sub: MissingSubmodule, files: readonly string[]): Finding {
  return {
    code: 'SUBMODULE_MISSING',
    layer,
    severity: 'error',
    message: `${files.length} locked fixture(s) under the submodule ${sub.path} cannot be judged: ${sub.why}`,
    evidence: { path: sub.path, commit: sub.commit, fixtures: [...files].sort(), why: sub.why, next: NEXT },
  };
}

/** A warning per submodule missing from the head: why tests that read its files fail on every side. */
export function missingSubmoduleWarnings(missing: readonly MissingSubmodule[]): Finding[] {
  return missing.map((m) => ({
    code: 'SUBMODULE_MISSING',
    layer: 'gate',
    severity: 'warn',
    message: `the submodule ${m.path} (commit ${m.commit.slice(0, 12)}) is empty in the gate's checkouts: ${m.why}; tests that read its files fail on the base and the head alike`,
    evidence: { path: m.path, commit: m.commit, why: m.why, next: NEXT },
  }));
}
