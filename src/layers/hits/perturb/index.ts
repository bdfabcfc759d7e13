/** The pure part of the hits layer: JSON paths, perturbation operators, mutants and claim scoring. */

export { type ClaimScore, scoreClaims, validateClaims } from './claims.js';
export {
  formatPath,
  isUnder,
  type JsonPath,
  type Lookup,
  lookupPath,
  PathSyntaxError,
  parsePath,
  pathsEqual,
} from './json-path.js';
export { type JsonKind, type JsonValue, jsonEqual, kindOf } from './json-value.js';
export {
  countMutants,
  deepFreeze,
  generateMutants,
  type Mutant,
  PerturbConfigError,
  type PerturbOptions,
  type PerturbOverride,
} from './mutants.js';
export {
  BUILTIN_OPERATOR_NAMES,
  BUILTIN_OPERATORS,
  canonicalJsonText,
  EXTRA_KEY,
  type Operator,
  type OperatorSpec,
  OperatorSpecError,
  resolveOperator,
  SKIP,
} from './operators.js';
