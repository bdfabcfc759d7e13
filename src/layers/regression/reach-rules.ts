/** What counts as test machinery, for the reach check's two parsers. */
import { importCandidates } from '../../util/import-candidates.js';

/** One reach in one file. `what` reads after "production code …". */
export interface Reach {
  line: number;
  what: string;
  /** What it names (a module, a call), for the evidence and to match it against the base's copy. */
  detail: string;
}

const JS_TEST_MODULES = [
  /^vitest(\/|$)/,
  /^@vitest\//,
  /^jest(\/|$)/,
  /^@jest\//,
  /^expect$/,
  /^mocha$/,
  /^chai(\/|$)/,
  /^node:test$/,
  /^fast-check$/,
  /^@fast-check\//,
  /^patchgate(\/|$)/,
];
const PY_TEST_MODULES = /^(pytest|_pytest|hypothesis|pluggy|conftest|patchgate_\w+)(\.|$)/;

/** A module specifier, classified: a test tool, test-side code, or nothing to say. */
export function classifyJsImport(
  file: string,
  spec: string,
  isTestPath: (p: string) => boolean,
): string | undefined {
  if (JS_TEST_MODULES.some((r) => r.test(spec))) return `imports the test module '${spec}'`;
  if (!spec.startsWith('.')) return undefined;
  return importCandidates(file, spec).some(isTestPath) ? `imports test-side code '${spec}'` : undefined;
}

export function classifyPyImport(module: string, isTestPath: (p: string) => boolean): string | undefined {
  if (PY_TEST_MODULES.test(module)) return `imports the test module '${module}'`;
  const asPath = module.replace(/\./g, '/');
  // `tests.helpers` as a repository path, and under a src layout.
  for (const prefix of ['', 'src/'])
    if (isTestPath(`${prefix}${asPath}.py`) || isTestPath(`${prefix}${asPath}/__init__.py`))
      return `imports test-side code '${module}'`;
  return undefined;
}
