/**
 * JSON files split by key: `package.json` (the runners' keys, the test
 * scripts, `imports`) and `tsconfig*.json` (module resolution). Two kinds of
 * test keys:
 *
 * - a *section* is the tests' as a whole: the overlay has the base's value,
 *   or none;
 * - an *alias map* (`compilerOptions.paths`, `imports`) is split entry by
 *   entry: an entry whose pattern matches a module specifier a base
 *   test-side file imports is the base's (or absent, as on the base), so
 *   every import of the base's tests resolves as on the base; the others,
 *   which only production code can reach, are the head's. A runner picks the
 *   most specific matching entry, and only the base's entries match those
 *   specifiers, so a new, narrower head entry cannot capture one either.
 */
import type TS from 'typescript';

type Json = Record<string, unknown>;

export class JsonParseError extends Error {
  readonly code = 'JSON_PARSE';
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'JsonParseError';
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A JSON object: strict JSON (a leading BOM allowed, which Node's own
 * package.json reader skips), or with `jsonc` the comments and trailing
 * commas tsconfig files may hold, read by the TypeScript compiler's own
 * reader. Throws JsonParseError for anything else.
 */
export function parseJsonObject(text: string, jsonc?: typeof TS): Json {
  const body = text.replace(/^\uFEFF/, '');
  let value: unknown;
  if (jsonc) {
    const r = jsonc.parseConfigFileTextToJson('tsconfig.json', body);
    if (r.error) throw new JsonParseError(jsonc.flattenDiagnosticMessageText(r.error.messageText, ' '));
    value = r.config;
  } else {
    try {
      value = JSON.parse(body);
    } catch (err) {
      throw new JsonParseError((err as Error).message);
    }
  }
  if (!isObject(value)) throw new JsonParseError('the top level is not an object');
  return value;
}

function getPath(obj: Json, dotted: string): { found: boolean; value?: unknown } {
  let node: unknown = obj;
  for (const part of dotted.split('.')) {
    if (!isObject(node) || !Object.hasOwn(node, part)) return { found: false };
    node = node[part];
  }
  return { found: true, value: node };
}

function define(obj: Json, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function setPath(obj: Json, dotted: string, value: unknown, present: boolean): void {
  const parts = dotted.split('.');
  let node = obj;
  for (const part of parts.slice(0, -1)) {
    const next = Object.hasOwn(node, part) ? node[part] : undefined;
    if (!isObject(next)) {
      if (!present) return;
      define(node, part, {});
    }
    node = node[part] as Json;
  }
  const last = parts[parts.length - 1] as string;
  if (present) define(node, last, value);
  else delete node[last];
}

/**
 * Whether a module specifier is one an alias key can map: TypeScript's
 * `paths` and Node's `imports` keys are exact, or hold one `*`
 * (prefix*suffix); an `imports` key ending in `/` maps a folder.
 */
export function aliasMatches(key: string, specifier: string): boolean {
  const star = key.indexOf('*');
  if (star < 0)
    return key.endsWith('/') && key.startsWith('#') ? specifier.startsWith(key) : key === specifier;
  const prefix = key.slice(0, star);
  const suffix = key.slice(star + 1);
  return (
    specifier.length >= prefix.length + suffix.length &&
    specifier.startsWith(prefix) &&
    specifier.endsWith(suffix)
  );
}

function mergeEntries(base: unknown, head: unknown, used: (key: string) => boolean): unknown {
  const b = isObject(base) ? base : {};
  const h = isObject(head) ? head : {};
  const out: Json = {};
  for (const [k, v] of Object.entries(h)) {
    if (!used(k)) define(out, k, v);
    else if (Object.hasOwn(b, k)) define(out, k, b[k]);
  }
  for (const [k, v] of Object.entries(b)) if (used(k) && !Object.hasOwn(h, k)) define(out, k, v);
  return out;
}

export interface JsonSplit {
  /** Dotted keys whose whole value is the tests'. */
  sections: readonly string[];
  /** Dotted keys of alias maps, split entry by entry. */
  entries: readonly string[];
}

/**
 * The head's object with the tests' keys as the base has them. `specifiers`
 * are the module specifiers the base's test side imports (undefined: not
 * known, and then every entry of an alias map is the base's). Returns the
 * head's text itself when the tests' keys are the same on both sides.
 */
export function mergeJsonSections(
  split: JsonSplit,
  base: Json,
  head: Json,
  headText: string,
  specifiers: readonly string[] | undefined,
): string {
  const used = (key: string) => specifiers === undefined || specifiers.some((s) => aliasMatches(key, s));
  const wanted = new Map<string, { found: boolean; value?: unknown }>();
  for (const key of split.sections) wanted.set(key, getPath(base, key));
  for (const key of split.entries) {
    const b = getPath(base, key);
    const h = getPath(head, key);
    const merged = mergeEntries(b.value, h.value, used) as Json;
    // With no entry left, the key is as absent as the head has it, or the head's map emptied.
    const empty = Object.keys(merged).length === 0 && !isObject(h.value);
    wanted.set(key, empty ? h : { found: true, value: merged });
  }
  const same = [...wanted].every(([key, want]) => {
    const have = getPath(head, key);
    return have.found === want.found && JSON.stringify(have.value) === JSON.stringify(want.value);
  });
  if (same) return headText;
  for (const [key, want] of wanted) setPath(head, key, want.value, want.found);
  return `${JSON.stringify(head, null, 2)}\n`;
}
