/**
 * Claims against hits. A property claims fixture paths; the scorer finds the
 * paths whose perturbation flipped its status. A claim is true when some hit
 * lies under it (`lines` is hit by `lines[1].qty`); a hit under no claim is an
 * unclaimed hit. Both lists feed the seed's `false_claims` / `unclaimed_hits`.
 */

import { byCodePoint } from '../../../util/compare.js';
import { isUnder, type JsonPath, lookupPath, parsePath } from './json-path.js';

export interface ClaimScore {
  false_claims: string[];
  unclaimed_hits: string[];
}

function parsedAll(paths: readonly string[]): { text: string; path: JsonPath }[] {
  return [...new Set(paths)].map((text) => ({ text, path: parsePath(text) }));
}

/**
 * Scores claims against hit paths. Both lists come back as given (not
 * re-formatted), deduplicated and sorted by code point. Paths are compared
 * parsed, so `meta["a"]` and `meta.a` are the same path. A malformed path
 * throws `PathSyntaxError`; run `validateClaims` first to report those.
 */
export function scoreClaims(claims: readonly string[], hits: readonly string[]): ClaimScore {
  const c = parsedAll(claims);
  const h = parsedAll(hits);
  const false_claims = c.filter((x) => !h.some((y) => isUnder(y.path, x.path))).map((x) => x.text);
  const unclaimed_hits = h.filter((y) => !c.some((x) => isUnder(y.path, x.path))).map((y) => y.text);
  return { false_claims: false_claims.sort(byCodePoint), unclaimed_hits: unclaimed_hits.sort(byCodePoint) };
}

/**
 * The claims that name no existing path of `fixture`, in the order given
 * (duplicates once). A claim that does not parse names no path either and is
 * included; `parsePath` on it gives the reason.
 */
export function validateClaims(claims: readonly string[], fixture: unknown): string[] {
  const missing: string[] = [];
  for (const text of new Set(claims)) {
    let path: JsonPath;
    try {
      path = parsePath(text);
    } catch {
      missing.push(text);
      continue;
    }
    if (!lookupPath(fixture, path).found) missing.push(text);
  }
  return missing;
}
