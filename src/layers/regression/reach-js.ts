/**
 * JavaScript and TypeScript reach, from the TypeScript compiler's AST: static
 * and dynamic imports and `require`, `process.exit` / `reallyExit` / `abort`,
 * exit handlers, writes to the test globals, and reads of the variables test
 * runners set. Parsing only: nothing here evaluates the head's code.
 */
import type TS from 'typescript';
import { classifyJsImport, type Reach } from './reach-rules.js';

const RUNNER_VARS = new Set([
  'VITEST',
  'VITEST_WORKER_ID',
  'VITEST_POOL_ID',
  'VITEST_MODE',
  'JEST_WORKER_ID',
  'MOCHA_WORKER_ID',
]);
const TEST_GLOBALS = new Set([
  'expect',
  'it',
  'test',
  'describe',
  'beforeEach',
  'afterEach',
  'beforeAll',
  'afterAll',
  'vi',
  'jest',
  'jasmine',
  'assert',
]);
const EXIT_CALLS = new Set(['process.exit', 'process.reallyExit', 'process.abort', 'process.kill']);
const EXIT_EVENTS = new Set(['exit', 'beforeExit', 'uncaughtException', 'unhandledRejection']);

/** `a.b.c` for an identifier / property-access chain (`globalThis` and `global` dropped), else undefined. */
function dotted(ts: typeof TS, node: TS.Node): string | undefined {
  if (ts.isIdentifier(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) {
    const left = dotted(ts, node.expression);
    return left === undefined ? undefined : `${left}.${node.name.text}`;
  }
  if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) {
    const left = dotted(ts, node.expression);
    return left === undefined ? undefined : `${left}.${node.argumentExpression.text}`;
  }
  if (ts.isParenthesizedExpression(node)) return dotted(ts, node.expression);
  return undefined;
}

const unglobal = (name: string) => name.replace(/^(globalThis|global|window|self)\./, '');

function kindFor(ts: typeof TS, file: string): TS.ScriptKind {
  if (/\.[cm]?tsx$/.test(file)) return ts.ScriptKind.TSX;
  if (/\.[cm]?ts$/.test(file)) return ts.ScriptKind.TS;
  if (/\.jsx$/.test(file)) return ts.ScriptKind.JSX;
  return ts.ScriptKind.JS;
}

export function jsReach(
  ts: typeof TS,
  file: string,
  text: string,
  isTestPath: (p: string) => boolean,
): Reach[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kindFor(ts, file));
  const out: Reach[] = [];
  const at = (node: TS.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const spec = (node: TS.Node, s: string) => {
    const what = classifyJsImport(file, s, isTestPath);
    if (what) out.push({ line: at(node), what, detail: s });
  };
  const visit = (node: TS.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteralLike(node.moduleSpecifier)) spec(node, node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteralLike(e)) spec(node, e.text);
    } else if (ts.isCallExpression(node)) {
      const callee =
        node.expression.kind === ts.SyntaxKind.ImportKeyword ? 'import' : dotted(ts, node.expression);
      const first = node.arguments[0];
      const name = callee === undefined ? undefined : unglobal(callee);
      if (
        (name === 'import' || name === 'require' || name === 'module.require') &&
        first &&
        ts.isStringLiteralLike(first)
      )
        spec(node, first.text);
      else if (name !== undefined && EXIT_CALLS.has(name))
        out.push({
          line: at(node),
          what: `calls ${name}() (the runner would stop before it reports)`,
          detail: name,
        });
      else if (
        name !== undefined &&
        /^process\.(on|once|addListener|prependListener)$/.test(name) &&
        first &&
        ts.isStringLiteralLike(first) &&
        EXIT_EVENTS.has(first.text)
      )
        out.push({
          line: at(node),
          what: `registers a process '${first.text}' handler`,
          detail: `${name}('${first.text}')`,
        });
      else if (
        name === 'Object.defineProperty' &&
        first &&
        dotted(ts, first) &&
        /^(globalThis|global)$/.test(dotted(ts, first) ?? '')
      ) {
        const key = node.arguments[1];
        if (key && ts.isStringLiteralLike(key) && TEST_GLOBALS.has(key.text))
          out.push({ line: at(node), what: `replaces the test global '${key.text}'`, detail: key.text });
      }
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const target = dotted(ts, node.left);
      if (target && /^(globalThis|global)\./.test(target) && TEST_GLOBALS.has(unglobal(target)))
        out.push({
          line: at(node),
          what: `replaces the test global '${unglobal(target)}'`,
          detail: unglobal(target),
        });
    } else if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      const name = dotted(ts, node);
      const v = name?.startsWith('process.env.') ? name.slice('process.env.'.length) : undefined;
      if (v !== undefined && RUNNER_VARS.has(v))
        out.push({ line: at(node), what: `reads the test runner variable ${v}`, detail: v });
    } else if (ts.isIdentifier(node) && /^__vitest_\w+__$|^__VITEST_\w+__$/.test(node.text)) {
      out.push({ line: at(node), what: `touches vitest internals (${node.text})`, detail: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
