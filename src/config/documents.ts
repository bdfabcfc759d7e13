import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Pair,
  parseDocument,
  visit,
  type YAMLMap,
} from 'yaml';
import type { z } from 'zod';
import { ContractFileError, type Problem } from '../errors.js';
import { JsonSyntaxError, parseJsonValueSliced } from '../json/parse.js';
import { runToEnd, type SliceBudget, type Sliced } from '../util/time-slice.js';
import { issuesToProblemsSliced, type Locator } from './issues.js';
import { safeParseSliced } from './sliced-validation.js';

export interface ParsedDocument {
  value: unknown;
  locate: Locator;
  /**
   * Does, in slices, the indexing `locate(path)` would otherwise do in one
   * step (a lookup through an object of a million keys indexes it first).
   */
  prepare(path: readonly PropertyKey[], budget: SliceBudget): Iterable<undefined>;
  /** How many entries the locator has indexed: each container once, so a test can pin lookups as linear. */
  indexed(): number;
  /** `Object.keys` of an object of `value`, cheap for large ones (see `PlainJson.keysOf`). */
  keysOf(obj: object): readonly string[];
}

/** What validation needs: a document, or a value with no positions (a config loaded as a module). */
export type Validatable = Pick<ParsedDocument, 'value'> &
  Partial<Pick<ParsedDocument, 'locate' | 'prepare' | 'keysOf'>>;

type DocumentCode = 'CONFIG_INVALID' | 'CONTRACT_INVALID';

/**
 * Parses a JSON contract or config file in slices. Duplicate keys are an
 * error here: in a file that only humans edit, a repeated key is always a
 * mistake.
 */
export function* parseJsonDocumentSliced(
  text: string,
  file: string,
  code: DocumentCode,
  budget: SliceBudget,
): Sliced<ParsedDocument> {
  try {
    const { value, positions, keysOf } = yield* parseJsonValueSliced(
      text,
      { duplicateKeys: 'error' },
      budget,
    );
    return {
      value,
      keysOf,
      locate: (path, wantKey) => positions.locate(path, wantKey),
      prepare: (path, b) => positions.prepare(path, b),
      indexed: () => positions.indexed,
    };
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      throw new ContractFileError(code, [
        { file, path: '', line: err.line, column: err.column, message: `is not valid JSON: ${err.message}` },
      ]);
    }
    throw err;
  }
}

/** {@link parseJsonDocumentSliced} in one go, for small files and synchronous callers. */
export function parseJsonDocument(text: string, file: string, code: DocumentCode): ParsedDocument {
  return runToEnd((budget) => parseJsonDocumentSliced(text, file, code, budget));
}

/**
 * Aliases `toJS` expands before giving up. A config needs few, if any; the
 * limit stops an alias bomb (each level doubling the one below) from filling
 * memory before validation could reject it.
 */
const MAX_YAML_ALIASES = 100;

/** The first alias in document order, optionally one naming `source`. */
function firstAlias(doc: Document, source?: string): { range?: [number, number, number] | null } | undefined {
  let found: { range?: [number, number, number] | null } | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (source !== undefined && node.source !== source) return undefined;
      found = node;
      return visit.BREAK;
    },
  });
  return found;
}

/**
 * `toJS` throws a plain ReferenceError for an alias it will not expand; the
 * file is bad input, so it becomes a problem located at the alias.
 */
function aliasProblem(err: ReferenceError, doc: Document, file: string, lineCounter: LineCounter): Problem {
  const unresolved = /^Unresolved alias \(the anchor must be set before the alias\): (.*)$/.exec(err.message);
  const alias = firstAlias(doc, unresolved?.[1]);
  const offset = alias?.range?.[0];
  const pos = offset === undefined ? undefined : lineCounter.linePos(offset);
  const message = unresolved
    ? `is not valid YAML: the alias *${unresolved[1]} comes before its anchor &${unresolved[1]} is set.`
    : `is not valid YAML for patchgate: its aliases expand to more than ${MAX_YAML_ALIASES} copies of anchored values, the shape of an alias bomb, so write the values out instead.`;
  return { file, path: '', ...(pos ? { line: pos.line, column: pos.col } : {}), message };
}

/**
 * Parses a YAML config. Not sliced: the yaml library has no way to pause
 * in the middle of a document, which is why YAML files get a cap of their
 * own (see `YAML_CONFIG_MAX_BYTES` in load.ts).
 */
export function parseYamlDocument(text: string, file: string, code: DocumentCode): ParsedDocument {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true, strict: true });
  if (doc.errors.length > 0) {
    const problems: Problem[] = doc.errors.map((e) => {
      const pos = e.linePos?.[0];
      const first = e.message.split('\n')[0] ?? e.message;
      return { file, path: '', line: pos?.line, column: pos?.col, message: `is not valid YAML: ${first}` };
    });
    throw new ContractFileError(code, problems);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    if (err instanceof ReferenceError)
      throw new ContractFileError(code, [aliasProblem(err, doc, file, lineCounter)]);
    throw err;
  }

  // Each map is indexed once, on the first lookup through it; the last of
  // equal keys wins, as in `toJS` (strict parsing rejects them anyway).
  const maps = new WeakMap<YAMLMap, Map<unknown, Pair>>();
  let indexed = 0;
  const pairOf = (map: YAMLMap, seg: PropertyKey): Pair | undefined => {
    let index = maps.get(map);
    if (index === undefined) {
      index = new Map();
      for (const pair of map.items as Pair[]) {
        index.set(isScalar(pair.key) ? pair.key.value : pair.key, pair);
        indexed++;
      }
      maps.set(map, index);
    }
    return index.get(seg);
  };
  const locate: Locator = (path, wantKey) => {
    let node: unknown = doc.contents;
    let keyNode: unknown;
    for (const seg of path) {
      if (isMap(node)) {
        const pair = pairOf(node, seg);
        keyNode = pair?.key;
        node = pair?.value;
      } else if (isSeq(node) && typeof seg === 'number') {
        node = node.items[seg];
        keyNode = undefined;
      } else return undefined;
    }
    const target = (wantKey && keyNode ? keyNode : node) as { range?: [number, number, number] } | undefined;
    const offset = target?.range?.[0];
    if (offset === undefined) return undefined;
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  // Nothing to slice: a YAML config is small (it has a cap of its own).
  const prepare = (): Iterable<undefined> => [];
  return { value, locate, prepare, indexed: () => indexed, keysOf: Object.keys };
}

/** Validates a document against a schema in slices, collecting every problem at once. */
export function* validateDocumentSliced<S extends z.ZodType>(
  schema: S,
  doc: Validatable,
  file: string,
  code: DocumentCode,
  budget: SliceBudget,
): Sliced<z.output<S>> {
  const result = yield* safeParseSliced(schema, doc.value, budget, doc.keysOf);
  if (result.success) return result.data;
  throw new ContractFileError(code, yield* issuesToProblemsSliced(result.issues, file, schema, doc, budget));
}

/** {@link validateDocumentSliced} in one go. */
export function validateDocument<S extends z.ZodType>(
  schema: S,
  doc: Validatable,
  file: string,
  code: DocumentCode,
): z.output<S> {
  return runToEnd((budget) => validateDocumentSliced(schema, doc, file, code, budget));
}
