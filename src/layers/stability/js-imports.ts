/**
 * What a JavaScript or TypeScript file loads, from the TypeScript compiler's
 * AST of its committed text (never run): static imports and re-exports,
 * `import()`, `require()`, `require.resolve()`, the modules a test mocks
 * (`vi.mock`, `jest.mock`, `vi.importActual`…), and every string literal, so
 * a data file a test reads by path can be told from one it never names. A
 * load whose target the text does not say (`import(name)`,
 * `import.meta.glob`) is kept as computed: it could load anything.
 */
import type TS from 'typescript';
import { scriptKind } from '../../util/typescript.js';

export interface JsLoad {
  line: number;
  /** The specifier as written; for a computed load, what the call was. */
  spec: string;
  computed?: true;
}

export interface JsFileLoads {
  loads: JsLoad[];
  strings: string[];
  /** Property names and regular expressions too (a runner configuration's alias keys). */
  words: string[];
}

const LOADERS = new Set(['import', 'require', 'require.resolve', 'module.require']);
const MOCKERS = new Set([
  'vi.mock',
  'vi.doMock',
  'vi.unmock',
  'vi.importActual',
  'vi.importMock',
  'jest.mock',
  'jest.doMock',
  'jest.unmock',
  'jest.requireActual',
  'jest.requireMock',
  'jest.createMockFromModule',
]);
const MAX_STRING = 300;

function dotted(ts: typeof TS, node: TS.Node): string | undefined {
  if (ts.isIdentifier(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) {
    const left = dotted(ts, node.expression);
    return left === undefined ? undefined : `${left}.${node.name.text}`;
  }
  if (node.kind === ts.SyntaxKind.ImportKeyword) return 'import';
  if (ts.isMetaProperty(node)) return `${ts.tokenToString(node.keywordToken)}.${node.name.text}`;
  return undefined;
}

export function jsLoads(ts: typeof TS, file: string, text: string): JsFileLoads {
  // No parent pointers: nothing here walks up, and setting them costs a quarter of the parse.
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, scriptKind(ts, file));
  const loads: JsLoad[] = [];
  const strings = new Set<string>();
  const words = new Set<string>();
  const at = (node: TS.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const literal = (node: TS.Node | undefined): string | undefined =>
    node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
  const visit = (node: TS.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      // A type-only import is erased before anything runs.
      const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly : node.isTypeOnly;
      const spec = literal(node.moduleSpecifier);
      if (spec !== undefined && !typeOnly) loads.push({ line: at(node), spec });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const spec = literal(node.moduleReference.expression);
      if (spec !== undefined && !node.isTypeOnly) loads.push({ line: at(node), spec });
    } else if (ts.isCallExpression(node)) {
      const callee = dotted(ts, node.expression)?.replace(/^(globalThis|global)\./, '');
      if (callee !== undefined && (LOADERS.has(callee) || MOCKERS.has(callee))) {
        const spec = literal(node.arguments[0]);
        if (spec !== undefined) loads.push({ line: at(node), spec });
        else if (LOADERS.has(callee)) loads.push({ line: at(node), spec: `${callee}(…)`, computed: true });
      } else if (callee === 'import.meta.glob' || callee === 'require.context') {
        loads.push({ line: at(node), spec: `${callee}(…)`, computed: true });
      }
    } else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (node.text.length <= MAX_STRING) strings.add(node.text);
    } else if (ts.isRegularExpressionLiteral(node)) {
      const m = /^\/(.*)\/[a-z]*$/s.exec(node.text);
      if (m?.[1] !== undefined) words.add(m[1]);
    } else if (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) {
      const name = node.name;
      if (ts.isIdentifier(name) || ts.isStringLiteral(name)) words.add(name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const s of strings) words.add(s);
  return { loads, strings: [...strings], words: [...words] };
}
