/**
 * What a JavaScript or TypeScript expression names in the runtime, so that no
 * alias hides a read: `const p = process; p.argv`, `const { argv } = process`,
 * `import { argv } from 'node:process'`, `globalThis['VIT' + 'EST']`,
 * `require('node:process').env[k]`. Names are bound with the TypeScript
 * checker (one file, no lib, nothing resolved on disk), so scopes, shadowing
 * and `declare` work as the language says; strings are folded by JsFolder.
 * Parsing only: nothing here evaluates the head's code.
 */
import type TS from 'typescript';
import { JsFolder } from './reach-js-fold.js';

/** A runtime path, e.g. `['process', 'env', 'VITEST']`; `?` is a key the gate cannot compute. */
export type RuntimePath = readonly string[];
export const COMPUTED = '?';

/** Free names that are the runtime's own objects. */
const ROOTS: Readonly<Record<string, RuntimePath>> = {
  process: ['process'],
  globalThis: ['global'],
  global: ['global'],
  window: ['global'],
  self: ['global'],
  frames: ['global'],
  require: ['require'],
  module: ['module'],
  Error: ['Error'],
  TypeError: ['Error'],
  RangeError: ['Error'],
  SyntaxError: ['Error'],
  ReferenceError: ['Error'],
  EvalError: ['Error'],
  URIError: ['Error'],
  AggregateError: ['Error'],
  Function: ['Function'],
  eval: ['eval'],
  Reflect: ['Reflect'],
  Object: ['Object'],
  JSON: ['JSON'],
  String: ['String'],
  Number: ['Number'],
  parseInt: ['parseInt'],
  parseFloat: ['parseFloat'],
  Boolean: ['Boolean'],
  Buffer: ['Buffer'],
  atob: ['atob'],
  decodeURIComponent: ['decodeURIComponent'],
  unescape: ['unescape'],
  structuredClone: ['structuredClone'],
  Array: ['Array'],
};

/** Modules whose exports are runtime paths. */
const MODULE_ROOTS: Readonly<Record<string, string>> = {
  process: 'process',
  worker_threads: 'worker_threads',
  cluster: 'cluster',
  util: 'util',
  module: 'Module',
  vm: 'vm',
  v8: 'v8',
  inspector: 'inspector',
};

/** The runtime root a module specifier names (`node:process` → `process`), if it is one. */
export function moduleRoot(spec: string): RuntimePath | undefined {
  const name = MODULE_ROOTS[spec.replace(/^node:/, '')];
  return name === undefined ? undefined : [name];
}

/** Every free name the check gives a meaning; any other free name is nothing to it. */
export const TEST_GLOBALS = new Set([
  'describe',
  'it',
  'test',
  'expect',
  'vi',
  'vitest',
  'jest',
  'jasmine',
  'suite',
  'bench',
  'beforeEach',
  'afterEach',
  'beforeAll',
  'afterAll',
  'before',
  'after',
  'context',
  'specify',
  'xit',
  'xdescribe',
  'fit',
  'fdescribe',
  'xtest',
  'spyOn',
  'pending',
  'fail',
  'assert',
  'chai',
  'sinon',
]);
/** Globals runners and coverage tools plant under a hidden name. */
export const HIDDEN_GLOBAL = /^__(?:vitest|VITEST|jest|JEST|coverage|TEST|test|mocha)\w*__?$/;

const GLOBAL_ALIASES = new Set(['globalThis', 'global', 'window', 'self', 'frames']);

/** `global.process` is `process`, `globalThis.window` is the global object; a descriptor's value is the member. */
function normalize(given: string[]): RuntimePath {
  let path = given;
  const d = path.indexOf('#descriptor');
  if (d >= 0 && (path[d + 1] === 'value' || path[d + 1] === 'get')) path.splice(d, 2);
  while (path[0] === 'global' && path.length >= 2) {
    const next = path[1] as string;
    if (GLOBAL_ALIASES.has(next)) path.splice(1, 1);
    else if (next !== COMPUTED && Object.hasOwn(ROOTS, next))
      path = [...(ROOTS[next] as string[]), ...path.slice(2)];
    else break;
  }
  return path;
}

/** Paths whose values derive to the same data through a method call (`process.argv.slice(2)`). */
function isDataPath(p: RuntimePath): boolean {
  const [a, b] = p;
  if (a === 'process')
    return ['argv', 'execArgv', 'argv0', 'title', 'env', 'versions', 'version'].includes(b ?? '');
  if (a === 'import.meta') return b === 'env';
  return false;
}

/** Free names that are tools, not sources: called, they give data (`Object.keys(x)`); only aliased do they matter. */
const HELPERS = new Set([
  'Object',
  'JSON',
  'String',
  'Number',
  'parseInt',
  'parseFloat',
  'Boolean',
  'Buffer',
  'atob',
  'decodeURIComponent',
  'unescape',
  'structuredClone',
  'Array',
  'Error',
  'TypeError',
  'RangeError',
  'SyntaxError',
  'ReferenceError',
  'EvalError',
  'URIError',
  'AggregateError',
]);

/** `Object` of `Object.keys`, `Error` of `Error`. */
function headName(ts: typeof TS, n: TS.Node): string | undefined {
  if (ts.isIdentifier(n)) return n.text;
  if (ts.isPropertyAccessExpression(n)) return headName(ts, n.expression);
  return undefined;
}

const CONVERSIONS = new Set(['String', 'Number', 'parseInt', 'parseFloat', 'Boolean', 'structuredClone']);

const MAX_DEPTH = 40;

export class JsResolver {
  private typeChecker: TS.TypeChecker | undefined;
  /** Every `x = …` (and `({ x } = …)`) by the symbol it writes: `let p; p = process` is an alias too. */
  private readonly writes = new Map<TS.Symbol, TS.Expression[]>();

  private readonly folder: JsFolder;

  constructor(
    private readonly ts: typeof TS,
    readonly source: TS.SourceFile,
  ) {
    this.folder = new JsFolder(ts, this);
    this.candidates = this.collectCandidates(source);
    this.collectWrites(source);
  }

  /** Names the file declares somewhere; any other name is free wherever it is read, no checker needed. */
  private readonly declared = new Set<string>();
  /** How many declarations bind each name, and the top-level variable ones. */
  private readonly declarations = new Map<string, number>();
  private readonly topLevel = new Map<string, TS.VariableDeclaration>();
  /** Names a plain `const x = …` / `let x = …` binds somewhere: the only names that can hold a constant. */
  private readonly variables = new Set<string>();
  /** Names some assignment, `++` or `for (x of …)` writes (by name: any scope). */
  private readonly assigned = new Set<string>();

  /**
   * The initializer of a name bound once in the file, at its top level, and never written: every read of
   * it in the file is that binding, so no checker is needed to fold it (`const W = 'vitest'`).
   */
  topLevelConstant(name: string): TS.Expression | undefined {
    if (this.declarations.get(name) !== 1 || this.assigned.has(name)) return undefined;
    return this.topLevel.get(name)?.initializer;
  }

  /** Whether the name could hold a constant: a variable of the file no assignment writes. */
  mayBeConstant(name: string): boolean {
    return this.variables.has(name) && !this.assigned.has(name);
  }

  /** The checker, made on first need: most files never declare a name that could be an alias. */
  private get checker(): TS.TypeChecker {
    if (this.typeChecker) return this.typeChecker;
    const ts = this.ts;
    const source = this.source;
    const name = source.fileName;
    const host: TS.CompilerHost = {
      getSourceFile: (f) => (f === name ? source : undefined),
      getDefaultLibFileName: () => '/lib.d.ts',
      writeFile: () => {},
      getCurrentDirectory: () => '/',
      getCanonicalFileName: (f) => f,
      useCaseSensitiveFileNames: () => true,
      getNewLine: () => '\n',
      fileExists: (f) => f === name,
      readFile: () => undefined,
    };
    // No lib and no resolution: every global is unbound, so a bound name is the file's own.
    const program = ts.createProgram({
      rootNames: [name],
      options: { noLib: true, noResolve: true, allowJs: true, types: [], noEmit: true },
      host,
    });
    this.typeChecker = program.getTypeChecker();
    return this.typeChecker;
  }

  /**
   * Every name that could stand for a runtime path: the runtime's own free names, names imported from
   * the runtime's modules, and (to a fixpoint) names bound to an expression that mentions one. Any other
   * identifier resolves to nothing without asking the checker, which is where the time goes.
   */
  private readonly candidates: Set<string>;

  private collectCandidates(source: TS.SourceFile): Set<string> {
    const ts = this.ts;
    const out = new Set<string>([...Object.keys(ROOTS), ...TEST_GLOBALS]);
    const sites: { names: string[]; mentions: Set<string>; meta: boolean }[] = [];
    const namesOf = (n: TS.Node, acc: string[] = []): string[] => {
      if (ts.isIdentifier(n)) acc.push(n.text);
      else if (ts.isShorthandPropertyAssignment(n)) acc.push(n.name.text);
      else if (ts.isPropertyAssignment(n)) namesOf(n.initializer, acc);
      else if (ts.isBindingElement(n)) namesOf(n.name, acc);
      else ts.forEachChild(n, (c) => void namesOf(c, acc));
      return acc;
    };
    const site = (target: TS.Node, value: TS.Node) => {
      const mentions = new Set<string>();
      let meta = false;
      const walk = (n: TS.Node): void => {
        if (ts.isIdentifier(n)) mentions.add(n.text);
        else if (ts.isMetaProperty(n)) meta = true;
        else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) meta = true;
        else if (
          (ts.isCallExpression(n) || ts.isNewExpression(n)) &&
          HELPERS.has(headName(ts, n.expression) ?? '')
        ) {
          // `Object.keys(x)`, `new Error()`: a helper's result is data, not the helper; only its arguments count.
          for (const a of n.arguments ?? []) walk(a);
          return;
        } else if (ts.isFunctionLike(n) || ts.isClassLike(n)) {
          // A function's or class's value is never a runtime path (what it returns or holds is handed on,
          // and judged as that where it is written).
          return;
        }
        ts.forEachChild(n, walk);
      };
      walk(value);
      sites.push({ names: namesOf(target), mentions, meta });
    };
    const visit = (n: TS.Node): void => {
      if (ts.isIdentifier(n) && HIDDEN_GLOBAL.test(n.text)) out.add(n.text);
      if (ts.isIdentifier(n) && n.parent && this.isDeclarationName(n)) {
        this.declared.add(n.text);
        this.declarations.set(n.text, (this.declarations.get(n.text) ?? 0) + 1);
        const d = n.parent;
        if (ts.isVariableDeclaration(d) && d.name === n) {
          this.variables.add(n.text);
          if (d.parent.parent?.parent === source) this.topLevel.set(n.text, d);
        }
      }
      if (
        ts.isBinaryExpression(n) &&
        n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
        n.operatorToken.kind <= ts.SyntaxKind.LastAssignment
      )
        for (const x of namesOf(n.left)) this.assigned.add(x);
      if (
        (ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) &&
        (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken) &&
        ts.isIdentifier(n.operand)
      )
        this.assigned.add(n.operand.text);
      if ((ts.isForInStatement(n) || ts.isForOfStatement(n)) && !ts.isVariableDeclarationList(n.initializer))
        for (const x of namesOf(n.initializer)) this.assigned.add(x);
      if ((ts.isVariableDeclaration(n) || ts.isParameter(n) || ts.isBindingElement(n)) && n.initializer)
        site(n.name, n.initializer);
      else if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken)
        site(n.left, n.right);
      else if (
        ts.isCallExpression(n) &&
        ts.isPropertyAccessExpression(n.expression) &&
        n.expression.name.text === 'then' &&
        n.arguments[0] &&
        (ts.isArrowFunction(n.arguments[0]) || ts.isFunctionExpression(n.arguments[0])) &&
        n.arguments[0].parameters[0]
      )
        site(n.arguments[0].parameters[0].name, n.expression.expression);
      else if (ts.isImportDeclaration(n) && ts.isStringLiteralLike(n.moduleSpecifier)) {
        if (moduleRoot(n.moduleSpecifier.text) && n.importClause)
          for (const x of namesOf(n.importClause)) out.add(x);
      } else if (ts.isImportEqualsDeclaration(n)) out.add(n.name.text);
      ts.forEachChild(n, visit);
    };
    visit(source);
    // A destructured element's own default does not make its siblings aliases, but its pattern's source does.
    for (let grew = true; grew; ) {
      grew = false;
      for (const s of sites) {
        if (s.names.every((x) => out.has(x))) continue;
        if (!s.meta && ![...s.mentions].some((m) => out.has(m))) continue;
        for (const x of s.names) {
          if (out.has(x)) continue;
          out.add(x);
          grew = true;
        }
      }
    }
    return out;
  }

  private collectWrites(node: TS.Node): void {
    const ts = this.ts;
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      if (ts.isIdentifier(node.left)) this.addWrite(node.left, node.right);
      else if (ts.isObjectLiteralExpression(node.left)) {
        // `({ argv } = process)`, `({ argv: a } = process)`
        for (const p of node.left.properties) {
          if (ts.isShorthandPropertyAssignment(p))
            this.addWrite(p.name, ts.factory.createPropertyAccessExpression(node.right, p.name.text));
          else if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.initializer)) {
            const key = this.propertyKey(p.name);
            if (key !== undefined) this.addWriteKey(p.initializer, node.right, key);
          }
        }
      }
    }
    ts.forEachChild(node, (c) => this.collectWrites(c));
  }

  private readonly keyedWrites = new Map<TS.Symbol, { from: TS.Expression; key: string }[]>();

  /** `n` is the name a declaration binds (a variable, parameter, function, class, import, enum or namespace). */
  private isDeclarationName(n: TS.Identifier): boolean {
    const ts = this.ts;
    const p = n.parent;
    if (ts.isBindingElement(p) || ts.isVariableDeclaration(p) || ts.isParameter(p)) return p.name === n;
    if (
      ts.isFunctionDeclaration(p) ||
      ts.isFunctionExpression(p) ||
      ts.isClassDeclaration(p) ||
      ts.isClassExpression(p) ||
      ts.isEnumDeclaration(p) ||
      ts.isModuleDeclaration(p) ||
      ts.isImportEqualsDeclaration(p) ||
      ts.isImportClause(p) ||
      ts.isNamespaceImport(p) ||
      ts.isImportSpecifier(p)
    )
      return p.name === n;
    return false;
  }

  private addWrite(target: TS.Identifier, value: TS.Expression): void {
    if (!this.candidates.has(target.text) || !this.declared.has(target.text)) return;
    const sym = this.checker.getSymbolAtLocation(target);
    if (!sym) return;
    const list = this.writes.get(sym) ?? [];
    list.push(value);
    this.writes.set(sym, list);
  }

  private addWriteKey(target: TS.Identifier, from: TS.Expression, key: string): void {
    if (!this.candidates.has(target.text) || !this.declared.has(target.text)) return;
    const sym = this.checker.getSymbolAtLocation(target);
    if (!sym) return;
    const list = this.keyedWrites.get(sym) ?? [];
    list.push({ from, key });
    this.keyedWrites.set(sym, list);
  }

  /** The file's own declaration of the name, or undefined for a free (global) name, `declare`d ones included. */
  symbolOf(id: TS.Identifier): TS.Symbol | undefined {
    const ts = this.ts;
    if (!this.declared.has(id.text)) return undefined;
    // `{ p }` names the variable p, not the property the literal declares.
    const sym =
      id.parent && ts.isShorthandPropertyAssignment(id.parent) && id.parent.name === id
        ? this.checker.getShorthandAssignmentValueSymbol(id.parent)
        : this.checker.getSymbolAtLocation(id);
    if (!sym) return undefined;
    const real = (sym.declarations ?? []).filter((d) => this.isRealDeclaration(d));
    return real.length > 0 ? sym : undefined;
  }

  private isRealDeclaration(d: TS.Declaration): boolean {
    const ts = this.ts;
    // `declare const describe: any` binds nothing at run time: the name is still the global one.
    if (ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Ambient) return false;
    for (let n: TS.Node | undefined = d; n; n = n.parent)
      if (ts.isModuleDeclaration(n) && ts.getCombinedModifierFlags(n) & ts.ModifierFlags.Ambient)
        return false;
    return (
      ts.isVariableDeclaration(d) ||
      ts.isParameter(d) ||
      ts.isBindingElement(d) ||
      ts.isFunctionDeclaration(d) ||
      ts.isFunctionExpression(d) ||
      ts.isClassDeclaration(d) ||
      ts.isClassExpression(d) ||
      ts.isImportSpecifier(d) ||
      ts.isImportClause(d) ||
      ts.isNamespaceImport(d) ||
      ts.isImportEqualsDeclaration(d) ||
      ts.isEnumDeclaration(d) ||
      ts.isModuleDeclaration(d)
    );
  }

  /** The runtime path `node` evaluates to, if the check can tell. */
  resolve(node: TS.Node, depth = 0): RuntimePath | undefined {
    if (depth > MAX_DEPTH) return undefined;
    // Calls are memoised (each resolves its callee's receiver more than once), so `a.replace(…).replace(…)…`
    // costs its length, not a power of it. A result computed deeper (where the depth bound may have cut
    // it short) is not reused higher up. Other nodes resolve each child once: no memo needed.
    if (!this.ts.isCallExpression(node)) return this.resolveAt(node, depth);
    const known = this.resolved.get(node);
    if (known && known.depth <= depth) return known.path;
    const path = this.resolveAt(node, depth);
    this.resolved.set(node, { path, depth });
    return path;
  }

  private readonly resolved = new Map<TS.Node, { path: RuntimePath | undefined; depth: number }>();

  private resolveAt(node: TS.Node, depth: number): RuntimePath | undefined {
    const ts = this.ts;
    const next = depth + 1;
    if (ts.isIdentifier(node)) return this.resolveName(node, next);
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      const key = ts.isPropertyAccessExpression(node)
        ? node.name.text
        : (this.fold(node.argumentExpression, next) ?? COMPUTED);
      const left = this.resolve(node.expression, next);
      if (left) return normalize([...left, key]);
      // `({}).constructor.constructor`, `(() => {}).constructor`: the Function constructor, an eval.
      if (key === 'constructor' && this.reachesFunction(node.expression)) return ['Function'];
      // `const o = { e: process.env }; o.e[k]`: a member of a constant object literal.
      const member = this.folder.memberOf(node.expression, key, next);
      return member ? this.resolve(member, next) : undefined;
    }
    if (ts.isMetaProperty(node))
      return node.keywordToken === ts.SyntaxKind.ImportKeyword ? ['import.meta'] : undefined;
    if (
      ts.isParenthesizedExpression(node) ||
      ts.isAsExpression(node) ||
      ts.isNonNullExpression(node) ||
      ts.isTypeAssertionExpression(node) ||
      ts.isSatisfiesExpression(node) ||
      ts.isAwaitExpression(node)
    )
      return this.resolve(node.expression, next);
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (op === ts.SyntaxKind.CommaToken) return this.resolve(node.right, next);
      if (
        op === ts.SyntaxKind.BarBarToken ||
        op === ts.SyntaxKind.QuestionQuestionToken ||
        op === ts.SyntaxKind.AmpersandAmpersandToken
      )
        return this.resolve(node.left, next) ?? this.resolve(node.right, next);
      if (op === ts.SyntaxKind.EqualsToken) return this.resolve(node.right, next);
      return undefined;
    }
    if (ts.isConditionalExpression(node))
      return this.resolve(node.whenTrue, next) ?? this.resolve(node.whenFalse, next);
    if (ts.isObjectLiteralExpression(node)) {
      // `{ ...process.env, X: '1' }` is a copy of the environment.
      for (const p of node.properties) {
        if (!ts.isSpreadAssignment(p)) continue;
        const r = this.resolve(p.expression, next);
        if (r) return r;
      }
      return undefined;
    }
    if (ts.isCallExpression(node)) return this.resolveCall(node, next);
    return undefined;
  }

  private resolveName(id: TS.Identifier, _depth: number): RuntimePath | undefined {
    if (!this.candidates.has(id.text)) return undefined;
    const sym = this.symbolOf(id);
    if (!sym) {
      const root = Object.hasOwn(ROOTS, id.text) ? ROOTS[id.text] : undefined;
      if (root) return root;
      if (TEST_GLOBALS.has(id.text) || HIDDEN_GLOBAL.test(id.text)) return ['global', id.text];
      return undefined;
    }
    // A name means the same wherever it is read; a cycle (`a = b; b = a`) means nothing.
    if (this.names.has(sym)) return this.names.get(sym) ?? undefined;
    this.names.set(sym, null);
    const r = this.resolveSymbol(sym, 0);
    this.names.set(sym, r ?? null);
    return r;
  }

  private readonly names = new Map<TS.Symbol, RuntimePath | null>();

  private resolveSymbol(sym: TS.Symbol, depth: number): RuntimePath | undefined {
    for (const d of sym.declarations ?? []) {
      const r = this.resolveDeclaration(d, depth);
      if (r) return r;
    }
    for (const w of this.writes.get(sym) ?? []) {
      const r = this.resolve(w, depth);
      if (r) return r;
    }
    for (const w of this.keyedWrites.get(sym) ?? []) {
      const r = this.resolve(w.from, depth);
      if (r) return normalize([...r, w.key]);
    }
    return undefined;
  }

  private resolveDeclaration(d: TS.Declaration, depth: number): RuntimePath | undefined {
    const ts = this.ts;
    if (ts.isVariableDeclaration(d)) return d.initializer ? this.resolve(d.initializer, depth) : undefined;
    if (ts.isParameter(d))
      return d.initializer ? this.resolve(d.initializer, depth) : this.thenValue(d, depth);
    if (ts.isBindingElement(d)) return this.resolveBinding(d, depth);
    if (ts.isImportSpecifier(d)) {
      const root = this.importRoot(d.parent.parent.parent.moduleSpecifier);
      return root ? normalize([...root, (d.propertyName ?? d.name).text]) : undefined;
    }
    if (ts.isImportClause(d)) return this.importRoot(d.parent.moduleSpecifier);
    if (ts.isNamespaceImport(d)) return this.importRoot(d.parent.parent.moduleSpecifier);
    if (ts.isImportEqualsDeclaration(d) && ts.isExternalModuleReference(d.moduleReference))
      return this.importRoot(d.moduleReference.expression);
    return undefined;
  }

  /** `import('node:process').then((p) => p.argv)`: the callback's first parameter is what the promise holds. */
  private thenValue(d: TS.ParameterDeclaration, depth: number): RuntimePath | undefined {
    const ts = this.ts;
    const fn = d.parent;
    if (!(ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) || fn.parameters[0] !== d) return undefined;
    const call = fn.parent;
    if (
      !ts.isCallExpression(call) ||
      call.arguments[0] !== fn ||
      !ts.isPropertyAccessExpression(call.expression)
    )
      return undefined;
    if (call.expression.name.text !== 'then') return undefined;
    return this.resolve(call.expression.expression, depth);
  }

  /** The expression is a function, or an object whose constructor's constructor is Function. */
  private reachesFunction(node: TS.Expression): boolean {
    const ts = this.ts;
    let e: TS.Expression = node;
    while (ts.isParenthesizedExpression(e)) e = e.expression;
    if (ts.isArrowFunction(e) || ts.isFunctionExpression(e) || ts.isClassExpression(e)) return true;
    return ts.isPropertyAccessExpression(e) && e.name.text === 'constructor';
  }

  private importRoot(spec: TS.Expression): RuntimePath | undefined {
    return this.ts.isStringLiteralLike(spec) ? moduleRoot(spec.text) : undefined;
  }

  /** `const { env: { VITEST } } = process`: the initializer's path and every key on the way down. */
  private resolveBinding(d: TS.BindingElement, depth: number): RuntimePath | undefined {
    const ts = this.ts;
    const keys: string[] = [];
    let el: TS.Node = d;
    while (ts.isBindingElement(el)) {
      const pattern: TS.BindingPattern = el.parent;
      if (ts.isObjectBindingPattern(pattern)) {
        // A rest element (`...rest`) is the object itself, less some keys.
        if (!el.dotDotDotToken) {
          const name = el.propertyName ?? el.name;
          keys.unshift(ts.isIdentifier(name) ? name.text : (this.propertyKey(name) ?? COMPUTED));
        }
      } else {
        keys.unshift(el.dotDotDotToken ? COMPUTED : String(pattern.elements.indexOf(el)));
      }
      el = pattern.parent;
    }
    let init: TS.Expression | undefined;
    if (ts.isVariableDeclaration(el) || ts.isParameter(el)) init = el.initializer;
    if (!init) return undefined;
    const root = this.resolve(init, depth);
    return root ? normalize([...root, ...keys]) : undefined;
  }

  /** The string `node` always evaluates to, if the check can compute it (see JsFolder). */
  fold(node: TS.Node, depth = 0): string | undefined {
    return this.folder.fold(node, depth);
  }

  /** The list of strings `node` always evaluates to, if the check can compute it. */
  foldArray(node: TS.Node, depth = 0): string[] | undefined {
    return this.folder.foldArray(node, depth);
  }

  /** The name is written after its declaration (`p = process`), so its initializer is not all it holds. */
  isWritten(sym: TS.Symbol): boolean {
    return this.writes.has(sym) || this.keyedWrites.has(sym);
  }

  propertyKey(name: TS.PropertyName | TS.BindingName): string | undefined {
    const ts = this.ts;
    if (ts.isIdentifier(name) || ts.isStringLiteralLike(name) || ts.isNumericLiteral(name)) return name.text;
    if (ts.isComputedPropertyName(name)) return this.fold(name.expression);
    return undefined;
  }

  private resolveCall(node: TS.CallExpression, depth: number): RuntimePath | undefined {
    const ts = this.ts;
    const first = node.arguments[0];
    if (node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const spec = first ? this.fold(first, depth) : undefined;
      return spec === undefined ? undefined : moduleRoot(spec);
    }
    const callee = this.resolve(node.expression, depth);
    const name = callee?.join('.');
    if (name === 'require' || name === 'module.require') {
      const spec = first ? this.fold(first, depth) : undefined;
      return spec === undefined ? undefined : moduleRoot(spec);
    }
    if (name === 'Module.createRequire') return ['require'];
    if (
      (name === 'Object.getOwnPropertyDescriptor' || name === 'Reflect.getOwnPropertyDescriptor') &&
      first &&
      node.arguments[1]
    ) {
      // Its `.value` (or `.get()`) is the member itself.
      const target = this.resolve(first, depth);
      return target ? [...target, this.fold(node.arguments[1], depth) ?? COMPUTED, '#descriptor'] : undefined;
    }
    if (name === 'Reflect.get' && first) {
      const target = this.resolve(first, depth);
      const key = node.arguments[1];
      return target && key ? normalize([...target, this.fold(key, depth) ?? COMPUTED]) : undefined;
    }
    if (name === 'Object.assign') {
      for (const a of node.arguments) {
        const r = this.resolve(a, depth);
        if (r) return r;
      }
      return undefined;
    }
    if (name && CONVERSIONS.has(name) && first) {
      const r = this.resolve(first, depth);
      return r && isDataPath(r) ? r : undefined;
    }
    // `Function('return this')()`, `(0, eval)('this')`: the global object.
    if (this.globalThisCode(node)) return ['global'];
    // `process.argv.slice(2)`: the same data, derived.
    if (ts.isPropertyAccessExpression(node.expression) || ts.isElementAccessExpression(node.expression)) {
      const receiver = this.resolve(node.expression.expression, depth);
      if (receiver && isDataPath(receiver)) return receiver;
    }
    return undefined;
  }

  /** A call that evaluates constant code returning `this` (outside strict mode: the global object). */
  private globalThisCode(node: TS.CallExpression): boolean {
    const ts = this.ts;
    let code: string | undefined;
    const inner = node.expression;
    if (ts.isCallExpression(inner) || ts.isNewExpression(inner)) {
      const fn = this.resolve(inner.expression)?.join('.');
      const body = inner.arguments?.[inner.arguments.length - 1];
      if (fn === 'Function' && body) code = this.fold(body);
    } else if (this.resolve(inner)?.join('.') === 'eval' && node.arguments[0]) {
      code = this.fold(node.arguments[0]);
    }
    return code !== undefined && /^\s*(return\s+)?this\s*;?\s*$/.test(code);
  }
}
