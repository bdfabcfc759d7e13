/**
 * The JSON reader's public face. It accepts exactly what Python's
 * `json.loads` accepts (NaN and Infinity only on request), keeps positions,
 * and never recurses, so a hostile file cannot exhaust the JS stack. Its
 * parts: the lexer (lexer.ts: tokens and error wording), the grammar both
 * readers share (grammar.ts), the tree reader (tree.ts: a node per value,
 * for canonical digests and tape edits) and the plain-values reader
 * (values.ts: what `JSON.parse` would give plus a compact position index,
 * for contract and config files).
 */
export {
  DEFAULT_MAX_DEPTH,
  JsonSyntaxError,
  type Loc,
  type ParseJsonOptions,
  type StepBudget,
} from './lexer.js';
export {
  type JsonArrayNode,
  type JsonNode,
  type JsonObjectEntry,
  type JsonObjectNode,
  parseJson,
  parseJsonSliced,
  pythonKeyIdentity,
  toPlainValue,
} from './tree.js';
export { type PlainJson, parseJsonValue, parseJsonValueSliced } from './values.js';
