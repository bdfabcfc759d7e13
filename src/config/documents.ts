import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { ContractFileError, type Problem } from '../errors.js';
import { type JsonNode, JsonSyntaxError, parseJson, toPlainValue } from '../json/parse.js';
import { issuesToProblems, type Locator } from './issues.js';

export interface ParsedDocument {
  value: unknown;
  locate: Locator;
}

function jsonLocator(root: JsonNode): Locator {
  return (path, wantKey) => {
    let node: JsonNode | undefined = root;
    let keyLoc: { line: number; column: number } | undefined;
    for (const seg of path) {
      if (!node) return undefined;
      if (node.type === 'object') {
        // Last duplicate wins, as in toPlainValue.
        const entry: Extract<JsonNode, { type: 'object' }>['entries'][number] | undefined = [...node.entries]
          .reverse()
          .find((e) => e.key === seg);
        keyLoc = entry?.keyLoc;
        node = entry?.value;
      } else if (node.type === 'array' && typeof seg === 'number') {
        node = node.items[seg];
        keyLoc = undefined;
      } else return undefined;
    }
    const loc = wantKey && keyLoc ? keyLoc : node?.loc;
    return loc ? { line: loc.line, column: loc.column } : undefined;
  };
}

/**
 * Parses a JSON contract or config file. Duplicate keys are an error here:
 * in a file that only humans edit, a repeated key is always a mistake.
 */
export function parseJsonDocument(
  text: string,
  file: string,
  code: 'CONFIG_INVALID' | 'CONTRACT_INVALID',
): ParsedDocument {
  try {
    const root = parseJson(text, { duplicateKeys: 'error' });
    return { value: toPlainValue(root), locate: jsonLocator(root) };
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      throw new ContractFileError(code, [
        { file, path: '', line: err.line, column: err.column, message: `is not valid JSON: ${err.message}` },
      ]);
    }
    throw err;
  }
}

export function parseYamlDocument(
  text: string,
  file: string,
  code: 'CONFIG_INVALID' | 'CONTRACT_INVALID',
): ParsedDocument {
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
  const locate: Locator = (path, wantKey) => {
    let node: unknown = doc.contents;
    let keyNode: unknown;
    for (const seg of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === seg);
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
  return { value: doc.toJS({ maxAliasCount: 100 }), locate };
}

/** Validates a parsed document against a schema, collecting every problem at once. */
export function validateDocument<S extends z.ZodType>(
  schema: S,
  doc: ParsedDocument | { value: unknown; locate?: Locator },
  file: string,
  code: 'CONFIG_INVALID' | 'CONTRACT_INVALID',
): z.output<S> {
  const result = schema.safeParse(doc.value, { reportInput: true });
  if (result.success) return result.data;
  throw new ContractFileError(code, issuesToProblems(result.error.issues, file, schema, doc.locate));
}
