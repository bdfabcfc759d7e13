/**
 * Gathers what the readers find: named paths, values that could not be
 * read, and candidates whose role depends on who else imports them.
 */

import type { JsValue } from './js-value.js';
import { isPathLike, moduleGlobs, repoPathOf } from './paths.js';
import type { BaseFiles, NamedPath, UnreadValue } from './types.js';

/** Keys whose values map module names to targets (vitest/vite `alias`, jest `moduleNameMapper`). */
const MAPPING_KEYS = /(^|\.)(alias|moduleNameMapper)$/;

/** A file that is an instrument only if nothing but the runner's configuration loads it. */
export interface Candidate {
  path: string;
  from: string;
  line: number;
  key: string;
  kind: 'import' | 'alias';
}

export class Collector {
  readonly named: NamedPath[] = [];
  readonly unread: UnreadValue[] = [];
  readonly candidates: Candidate[] = [];

  constructor(readonly files: BaseFiles) {}

  name(path: string, from: string, line: number, key: string, except?: readonly string[]): void {
    this.named.push({ path, from, line, key, ...(except && except.length > 0 ? { except } : {}) });
  }

  /** Every file a module path may resolve to, as named by `key`. */
  module(repoPath: string, from: string, line: number, key: string): void {
    for (const g of moduleGlobs(repoPath, this.files)) this.name(g, from, line, key);
  }

  cannotRead(key: string, v: JsValue & { kind: 'unknown' }): void {
    // The same unknown spread stands behind every key under it: reported once, under the first.
    if (this.unread.some((u) => u.file === v.file && u.line === v.line && u.value === v.text)) return;
    this.unread.push({
      file: v.file,
      line: v.line,
      key,
      value: v.text,
      why: v.why,
      ...(MAPPING_KEYS.test(key) ? { mapping: true } : {}),
    });
  }

  candidate(c: Candidate): void {
    this.candidates.push(c);
  }

  /**
   * The strings a value may be, each with its line; unknown parts are
   * reported under `key`. `either` gives every option, arrays every item.
   */
  strings(v: JsValue, file: string, key: string, out: (s: JsValue & { kind: 'string' }) => void): void {
    switch (v.kind) {
      case 'string':
        out(v);
        return;
      case 'array':
        for (const item of v.items) this.strings(item, file, key, out);
        return;
      case 'either':
        for (const o of v.options) this.strings(o, file, key, out);
        return;
      case 'unknown':
        this.cannotRead(key, v);
        return;
      case 'import':
        this.cannotRead(key, {
          kind: 'unknown',
          line: v.line,
          text: `${v.name} from '${v.specifier}'`,
          why: 'a value imported from a module the gate does not read',
          file,
        });
        return;
      default:
        return;
    }
  }

  /**
   * A key whose strings name modules the runner loads. `bare` says whether a
   * name without `./` may also be a path from the root (vitest's setupFiles)
   * rather than only a package.
   */
  modules(v: JsValue, file: string, key: string, root: string, bare: boolean): void {
    this.strings(v, file, key, (s) => {
      if (!bare && !isPathLike(s.value, s.resolved)) return;
      const p = repoPathOf(s.value, s.resolved, root);
      if (p !== undefined) this.module(p, file, s.line, key);
    });
  }
}
