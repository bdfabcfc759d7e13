/**
 * How a claim's property and freeze cells name their target. The seed's
 * scorer takes whatever follows the last `#` as the freeze id, so
 * `other/ledger.json#x` would be looked up in the configured ledger and the
 * table form `freeze:x` would look for an id called `freeze:x`; both are
 * parsed here, and a cell naming another ledger file is refused.
 */

export type PropertyRef =
  | { kind: 'test'; id: string }
  | { kind: 'hits'; name: string }
  | { kind: 'seed'; id: string }
  /** A bare name: a patchgate property or a seed-tape id, whichever exists. */
  | { kind: 'name'; name: string };

export function parsePropertyRef(cell: string): PropertyRef {
  const m = /^(test|hits|seed):(.+)$/.exec(cell);
  if (m) {
    const rest = (m[2] as string).trim();
    if (m[1] === 'test') return { kind: 'test', id: rest };
    if (m[1] === 'hits') return { kind: 'hits', name: rest };
    return { kind: 'seed', id: rest };
  }
  // A node id always has `::` (pytest `file.py::test`, and patchgate's own `suite::class::name`).
  if (cell.includes('::')) return { kind: 'test', id: cell };
  return { kind: 'name', name: cell };
}

export type FreezeRef = { ok: true; id: string } | { ok: false; ledger: string; id: string };

export function parseFreezeRef(cell: string, ledger: string): FreezeRef {
  if (cell.startsWith('freeze:')) return { ok: true, id: cell.slice('freeze:'.length).trim() };
  const hash = cell.lastIndexOf('#');
  if (hash === -1) return { ok: true, id: cell };
  const file = cell.slice(0, hash).trim().replace(/^\.\//, '');
  const id = cell.slice(hash + 1).trim();
  return file === ledger ? { ok: true, id } : { ok: false, ledger: file, id };
}
