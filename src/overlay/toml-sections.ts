/**
 * TOML files split by table with a real TOML 1.0 parser (smol-toml), never by
 * lines: `tool.pytest.ini_options.addopts = "…"` at the top level, an inline
 * table `tool = { pytest = { … } }`, quoted keys and arrays of tables all
 * name the same tables as a `[tool.pytest.ini_options]` header does, so the
 * split works on the document's data, not on how it is spelled.
 */
import { parse, stringify, TomlError } from 'smol-toml';

type Table = Record<string, unknown>;

export class TomlParseError extends Error {
  readonly code = 'TOML_PARSE';
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'TomlParseError';
  }
}

const isTable = (v: unknown): v is Table =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** The document's data; throws TomlParseError with the line where the parser stopped. */
export function parseToml(text: string): Table {
  try {
    // Big integers stay exact, so a document written back says what it said.
    return parse(text, { integersAsBigInt: 'asNeeded' }) as Table;
  } catch (err) {
    if (err instanceof TomlError)
      throw new TomlParseError(err.line, err.message.split('\n')[0] ?? 'invalid TOML');
    throw err;
  }
}

function lookup(doc: Table, keys: readonly string[]): { found: boolean; value?: unknown } {
  let node: unknown = doc;
  for (const k of keys) {
    if (!isTable(node) || !Object.hasOwn(node, k)) return { found: false };
    node = node[k];
  }
  return { found: true, value: node };
}

/** Deep equality of TOML values: dates by their written form, NaN equal to itself. */
export function sameToml(a: unknown, b: unknown): boolean {
  // A TOML date writes itself out as spelled (local date, local time, offset): equal forms, equal values.
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && a.toISOString() === b.toISOString();
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameToml(x, b[i]))
    );
  if (isTable(a) || isTable(b)) {
    if (!isTable(a) || !isTable(b)) return false;
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameToml(a[k], b[k]))
    );
  }
  return Object.is(a, b);
}

/** Removes `keys` from the document, and the tables that removal leaves empty. */
function remove(doc: Table, keys: readonly string[]): void {
  const trail: Table[] = [doc];
  for (const k of keys.slice(0, -1)) {
    const next = (trail[trail.length - 1] as Table)[k];
    if (!isTable(next)) return;
    trail.push(next);
  }
  delete (trail[trail.length - 1] as Table)[keys[keys.length - 1] as string];
  for (let i = trail.length - 1; i > 0; i--) {
    if (Object.keys(trail[i] as Table).length > 0) break;
    delete (trail[i - 1] as Table)[keys[i - 1] as string];
  }
}

function put(doc: Table, keys: readonly string[], value: unknown): void {
  let node = doc;
  for (const k of keys.slice(0, -1)) {
    // A key the head made a plain value is a table again: the base's test table must be reachable.
    if (!isTable(node[k]))
      Object.defineProperty(node, k, { value: {}, enumerable: true, writable: true, configurable: true });
    node = node[k] as Table;
  }
  Object.defineProperty(node, keys[keys.length - 1] as string, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * Dotted rule paths as key lists, a trailing `*` (`tool.pytest*`) standing
 * for every key of that table, on either side, that starts so.
 */
function keyLists(paths: readonly string[], docs: readonly Table[]): string[][] {
  const out = new Map<string, string[]>();
  for (const dotted of paths) {
    const keys = dotted.split('.');
    const last = keys[keys.length - 1] as string;
    if (!last.endsWith('*')) {
      out.set(JSON.stringify(keys), keys);
      continue;
    }
    const parent = keys.slice(0, -1);
    for (const doc of docs) {
      const table = lookup(doc, parent).value;
      if (!isTable(table)) continue;
      for (const k of Object.keys(table))
        if (k.startsWith(last.slice(0, -1))) out.set(JSON.stringify([...parent, k]), [...parent, k]);
    }
  }
  return [...out.values()];
}

/**
 * The head's document with every table `paths` names replaced by the base's
 * (or removed, where the base has none), however either side spells them.
 * Both texts must parse (TomlParseError otherwise). Returns the head's text
 * itself when those tables hold the same data on both sides; otherwise the
 * merged document, written out by the parser's own serializer.
 */
export function mergeTomlSections(paths: readonly string[], base: string, head: string): string {
  const b = parseToml(base);
  const h = parseToml(head);
  const tests = keyLists(paths, [b, h]);
  const same = tests.every((keys) => {
    const x = lookup(b, keys);
    const y = lookup(h, keys);
    return x.found === y.found && sameToml(x.value, y.value);
  });
  if (same) return head;
  for (const keys of tests) {
    remove(h, keys);
    const fromBase = lookup(b, keys);
    if (fromBase.found) put(h, keys, fromBase.value);
  }
  const merged = stringify(h);
  // What pytest will read must be exactly that document: the base's test tables and the head's rest.
  if (!sameToml(parseToml(merged), h))
    throw new Error('internal: the merged TOML file does not read back as the document written');
  return merged;
}
