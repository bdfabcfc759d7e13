/**
 * How a JavaScript or TypeScript expression that names a runtime path is
 * used, and the statement it is used in: read, called, enumerated, looked up
 * by a key, compared, handed on; whether a test runner's name sits next to
 * it; whether it decides a branch; and the "am I the script?" idioms
 * (`require.main === module`, `import.meta.url === pathToFileURL(argv[1])`),
 * which get the same answer under test as for a user who imports the file.
 */
import type TS from 'typescript';
import type { JsResolver } from './reach-js-resolve.js';
import { runnerWord } from './reach-rules.js';

const ENUMERATE = new Set([
  'Object.keys',
  'Object.values',
  'Object.entries',
  'Object.getOwnPropertyNames',
  'Object.getOwnPropertySymbols',
  'Object.getOwnPropertyDescriptors',
  'Reflect.ownKeys',
  'JSON.stringify',
  'Array.from',
]);
const LOOKUP = new Set([
  'Object.getOwnPropertyDescriptor',
  'Reflect.getOwnPropertyDescriptor',
  'Reflect.get',
]);
const HAS = new Set(['Reflect.has', 'Object.hasOwn', 'Object.prototype.hasOwnProperty.call']);
const COPY = new Set([
  'Object.assign',
  'structuredClone',
  'String',
  'Number',
  'parseInt',
  'parseFloat',
  'Boolean',
]);
const DECIDING_METHODS = new Set([
  'startsWith',
  'endsWith',
  'includes',
  'match',
  'test',
  'indexOf',
  'lastIndexOf',
  'localeCompare',
  'some',
  'every',
  'find',
  'findIndex',
]);

/** How an expression that names a runtime path is used. */
export type Use =
  | { kind: 'member' | 'call' | 'new' | 'typeof' | 'compare' | 'alias' | 'copy' | 'value' | 'write' }
  | { kind: 'enumerate' | 'spread' }
  | { kind: 'has' | 'get'; key: TS.Expression | undefined };

/** Methods whose result is the same value for a comparison's purpose. */
const NORMALIZERS = new Set([
  'toLowerCase',
  'toUpperCase',
  'toLocaleLowerCase',
  'toLocaleUpperCase',
  'trim',
  'toString',
  'valueOf',
]);

/** Calls that start a process or a worker: `env: process.env` in their options gives the child its environment. */
const SPAWNERS = new Set([
  'spawn',
  'spawnSync',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
  'fork',
  'execa',
  'execaSync',
  'Worker',
]);

export class JsContext {
  constructor(
    private readonly ts: typeof TS,
    private readonly r: JsResolver,
  ) {}

  private exported(d: TS.VariableDeclaration): boolean {
    const ts = this.ts;
    const statement = d.parent.parent;
    return (
      ts.isVariableStatement(statement) &&
      !!statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    );
  }

  /** The outermost `+` concatenation `node` is a part of, or `node` itself. */
  concatOf(node: TS.Node): TS.Node {
    const ts = this.ts;
    let top = node;
    while (ts.isBinaryExpression(top.parent) && top.parent.operatorToken.kind === ts.SyntaxKind.PlusToken)
      top = top.parent;
    return top;
  }

  /** The outermost `+` of a concatenation (only it is folded: its parts are not strings of their own). */
  isTopConcat(node: TS.Node): boolean {
    const ts = this.ts;
    return (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.PlusToken &&
      !(ts.isBinaryExpression(node.parent) && node.parent.operatorToken.kind === ts.SyntaxKind.PlusToken)
    );
  }

  /**
   * The environment (or a copy of it) is handed to a child process: the value of an `env` option, or an
   * argument of `spawn`, `fork`, `new Worker`… Anywhere else, the code it goes to could read it by any key.
   */
  childEnv(node: TS.Node): boolean {
    const ts = this.ts;
    let top = this.up(node);
    for (let guard = 0; guard < 16; guard++) {
      const p = top.parent;
      if (!p) return false;
      if (ts.isSpreadAssignment(p) && ts.isObjectLiteralExpression(p.parent)) {
        top = this.up(p.parent);
        continue;
      }
      if (ts.isCallExpression(p) && p.expression !== top) {
        const callee = this.r.resolve(p.expression)?.join('.');
        if (callee === 'Object.assign' || callee === 'structuredClone') {
          top = this.up(p);
          continue;
        }
        const name = ts.isPropertyAccessExpression(p.expression)
          ? p.expression.name.text
          : ts.isIdentifier(p.expression)
            ? p.expression.text
            : '';
        return SPAWNERS.has(name);
      }
      if (ts.isNewExpression(p)) return ts.isIdentifier(p.expression) && SPAWNERS.has(p.expression.text);
      if (ts.isPropertyAssignment(p) && p.initializer === top)
        return ts.isIdentifier(p.name) && (p.name.text === 'env' || p.name.text === 'processEnv');
      if (ts.isShorthandPropertyAssignment(p)) return p.name.text === 'env';
      // A variable holding it is an alias the resolver follows, unless the module exports it.
      return ts.isVariableDeclaration(p) && p.initializer === top && !this.exported(p);
    }
    return false;
  }

  /** An identifier, member access or `import.meta` in value position (not a declaration's or a property's name). */
  isChain(node: TS.Node): node is TS.Expression {
    const ts = this.ts;
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) || ts.isMetaProperty(node))
      return true;
    if (!ts.isIdentifier(node)) return false;
    const p = node.parent;
    if (!p) return false;
    if (ts.isPropertyAccessExpression(p)) return p.expression === node;
    if (ts.isQualifiedName(p) || ts.isMetaProperty(p) || ts.isTypeNode(p)) return false;
    if (
      (ts.isVariableDeclaration(p) ||
        ts.isParameter(p) ||
        ts.isFunctionDeclaration(p) ||
        ts.isFunctionExpression(p) ||
        ts.isClassDeclaration(p) ||
        ts.isClassExpression(p) ||
        ts.isMethodDeclaration(p) ||
        ts.isPropertyDeclaration(p) ||
        ts.isPropertyAssignment(p) ||
        ts.isGetAccessorDeclaration(p) ||
        ts.isSetAccessorDeclaration(p) ||
        ts.isEnumMember(p) ||
        ts.isEnumDeclaration(p) ||
        ts.isModuleDeclaration(p) ||
        ts.isImportEqualsDeclaration(p) ||
        ts.isPropertySignature(p) ||
        ts.isMethodSignature(p) ||
        ts.isTypeParameterDeclaration(p) ||
        ts.isJsxAttribute(p)) &&
      p.name === node
    )
      return false;
    if (ts.isBindingElement(p)) return false;
    if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p))
      return false;
    if (ts.isNamespaceExport(p) || ts.isNamespaceExportDeclaration(p)) return false;
    if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
    if (
      (ts.isJsxOpeningElement(p) || ts.isJsxSelfClosingElement(p) || ts.isJsxClosingElement(p)) &&
      /^[a-z]/.test(node.text)
    )
      return false;
    return true;
  }

  /** The expression `node` is a part of once parentheses, casts, `a || b` and `c ? a : b` are looked through. */
  up(node: TS.Node): TS.Node {
    const ts = this.ts;
    let top = node;
    for (;;) {
      const p = top.parent;
      if (!p) return top;
      if (
        ((ts.isParenthesizedExpression(p) ||
          ts.isAsExpression(p) ||
          ts.isNonNullExpression(p) ||
          ts.isTypeAssertionExpression(p) ||
          ts.isSatisfiesExpression(p) ||
          ts.isAwaitExpression(p)) &&
          p.expression === top) ||
        (ts.isConditionalExpression(p) && p.condition !== top) ||
        (ts.isBinaryExpression(p) &&
          (p.operatorToken.kind === ts.SyntaxKind.BarBarToken ||
            p.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken ||
            (p.operatorToken.kind === ts.SyntaxKind.CommaToken && p.right === top)))
      ) {
        top = p;
        continue;
      }
      return top;
    }
  }

  useOf(node: TS.Node): Use {
    const ts = this.ts;
    const top = this.up(node);
    const p = top.parent;
    if (!p) return { kind: 'value' };
    if ((ts.isPropertyAccessExpression(p) || ts.isElementAccessExpression(p)) && p.expression === top)
      return { kind: 'member' };
    if (ts.isCallExpression(p)) {
      if (p.expression === top) return { kind: 'call' };
      const callee = this.r.resolve(p.expression)?.join('.');
      const at = p.arguments.indexOf(top as TS.Expression);
      if (callee !== undefined && at === 0) {
        if (ENUMERATE.has(callee)) return { kind: 'enumerate' };
        if (LOOKUP.has(callee)) return { kind: 'get', key: p.arguments[1] };
        if (HAS.has(callee)) return { kind: 'has', key: p.arguments[1] };
        if (callee === 'Object.defineProperty' || callee === 'Object.defineProperties')
          return { kind: 'write' };
      }
      if (callee === 'Object.prototype.hasOwnProperty.call' && at === 0)
        return { kind: 'has', key: p.arguments[1] };
      if (callee !== undefined && COPY.has(callee)) return { kind: 'copy' };
      return { kind: 'value' };
    }
    if (ts.isNewExpression(p)) return p.expression === top ? { kind: 'new' } : { kind: 'value' };
    if (ts.isBinaryExpression(p)) {
      const op = p.operatorToken.kind;
      if (op === ts.SyntaxKind.InKeyword && p.right === top) return { kind: 'has', key: p.left };
      if (
        op === ts.SyntaxKind.EqualsEqualsEqualsToken ||
        op === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
        op === ts.SyntaxKind.EqualsEqualsToken ||
        op === ts.SyntaxKind.ExclamationEqualsToken ||
        op === ts.SyntaxKind.InstanceOfKeyword ||
        op === ts.SyntaxKind.AmpersandAmpersandToken
      )
        return { kind: 'compare' };
      if (op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment) {
        if (p.left === top) return { kind: 'write' };
        return ts.isIdentifier(p.left) || ts.isObjectLiteralExpression(p.left)
          ? { kind: 'alias' }
          : { kind: 'value' };
      }
      return { kind: 'compare' };
    }
    if (ts.isPrefixUnaryExpression(p) || ts.isPostfixUnaryExpression(p))
      return p.operator === ts.SyntaxKind.ExclamationToken ? { kind: 'compare' } : { kind: 'write' };
    if (ts.isDeleteExpression(p)) return { kind: 'write' };
    if (ts.isTypeOfExpression(p)) return { kind: 'typeof' };
    if (ts.isVariableDeclaration(p) && p.initializer === top) return { kind: 'alias' };
    if (ts.isParameter(p) && p.initializer === top) return { kind: 'alias' };
    if (ts.isForInStatement(p) && p.expression === top) return { kind: 'enumerate' };
    if (ts.isSpreadAssignment(p) || ts.isSpreadElement(p)) return { kind: 'spread' };
    if (ts.isShorthandPropertyAssignment(p)) return { kind: 'value' };
    if (
      (ts.isIfStatement(p) ||
        ts.isWhileStatement(p) ||
        ts.isDoStatement(p) ||
        ts.isConditionalExpression(p)) &&
      ('expression' in p ? p.expression : p.condition) === top
    )
      return { kind: 'compare' };
    if (ts.isExpressionStatement(p)) return { kind: 'compare' };
    return { kind: 'value' };
  }

  /** An access chain's outermost node: `process.env.VITEST`, never its `process.env` part. */
  isMaximal(node: TS.Node): boolean {
    const ts = this.ts;
    const top = this.up(node);
    const p = top.parent;
    if (!p) return true;
    return !((ts.isPropertyAccessExpression(p) || ts.isElementAccessExpression(p)) && p.expression === top);
  }

  /**
   * `require.main === module`, `process.argv[1] === fileURLToPath(import.meta.url)`: asking "am I the
   * script?" gets the same answer under test as when a user imports the file, so it sniffs nothing.
   */
  mainIdentity(node: TS.Node): boolean {
    const ts = this.ts;
    for (let n: TS.Node = node; n.parent && !ts.isStatement(n); n = n.parent) {
      const p = n.parent;
      if (!ts.isBinaryExpression(p)) continue;
      const op = p.operatorToken.kind;
      if (
        op !== ts.SyntaxKind.EqualsEqualsEqualsToken &&
        op !== ts.SyntaxKind.ExclamationEqualsEqualsToken &&
        op !== ts.SyntaxKind.EqualsEqualsToken &&
        op !== ts.SyntaxKind.ExclamationEqualsToken
      )
        continue;
      const other = p.left === n ? p.right : p.left;
      return this.namesSelf(other);
    }
    return false;
  }

  /** The expression names this very module: `module`, `import.meta.url`, `__filename`. */
  namesSelf(node: TS.Node): boolean {
    const ts = this.ts;
    let found = false;
    const walk = (n: TS.Node): void => {
      if (found) return;
      if (ts.isMetaProperty(n)) found = true;
      else if (ts.isIdentifier(n) && (n.text === '__filename' || n.text === 'module') && !this.r.symbolOf(n))
        found = true;
      else ts.forEachChild(n, walk);
    };
    walk(node);
    return found;
  }

  isMainGuard(cond: TS.Expression): boolean {
    const ts = this.ts;
    let c: TS.Expression = cond;
    while (ts.isParenthesizedExpression(c)) c = c.expression;
    if (ts.isPrefixUnaryExpression(c) && c.operator === ts.SyntaxKind.ExclamationToken)
      return this.r.resolve(c.operand)?.join('.') === 'module.parent';
    if (ts.isPropertyAccessExpression(c)) return this.r.resolve(c)?.join('.') === 'import.meta.main';
    if (!ts.isBinaryExpression(c)) return false;
    const op = c.operatorToken.kind;
    if (op !== ts.SyntaxKind.EqualsEqualsEqualsToken && op !== ts.SyntaxKind.EqualsEqualsToken) return false;
    const sides = [c.left, c.right];
    const isMain = (e: TS.Expression) => {
      const p = this.r.resolve(e)?.join('.');
      return p === 'require.main' || p === 'process.mainModule';
    };
    const isModule = (e: TS.Expression) => this.r.resolve(e)?.join('.') === 'module';
    if (sides.some(isMain) && sides.some(isModule)) return true;
    const argv1 = (e: TS.Node): boolean => {
      let hit = false;
      const walk = (n: TS.Node): void => {
        if (hit) return;
        if (this.isChain(n) && this.r.resolve(n)?.join('.') === 'process.argv.1') hit = true;
        else ts.forEachChild(n, walk);
      };
      walk(e);
      return hit;
    };
    return (argv1(c.left) && this.namesSelf(c.right)) || (argv1(c.right) && this.namesSelf(c.left));
  }

  /** The statement (or the condition of the `if`, loop or `?:`) `node` is read in. */
  contextOf(node: TS.Node): TS.Node {
    const ts = this.ts;
    let cur = node;
    while (cur.parent) {
      const p = cur.parent;
      if (
        (ts.isIfStatement(p) || ts.isWhileStatement(p) || ts.isDoStatement(p) || ts.isSwitchStatement(p)) &&
        p.expression === cur
      )
        return cur;
      if ((ts.isForStatement(p) || ts.isConditionalExpression(p)) && p.condition === cur) return cur;
      if (ts.isStatement(cur) || ts.isPropertyDeclaration(cur)) return cur;
      cur = p;
    }
    return cur;
  }

  /** The first test runner's name among the strings of the statement `node` is read in. */
  wordNear(node: TS.Node, env = false): string | undefined {
    return this.wordIn(this.contextOf(node), env);
  }

  /**
   * The runner's name (or `test`) a value is compared with: `x === 'test'`, `x.includes('vitest')`,
   * `['test', 'ci'].includes(x)`, `/jest/.test(x)`, `switch (x) { case 'test': }`, through
   * `x.toLowerCase()` and the like. Only the comparison counts, not the rest of its statement: an
   * environment value read in a config object full of test globs compares with none of them.
   */
  comparedWord(node: TS.Node): string | undefined {
    const ts = this.ts;
    let n = this.up(node);
    for (let i = 0; i < 8; i++) {
      // The chain ends in a method of the value (`mode?.toLowerCase`): judge the call it makes.
      if (ts.isPropertyAccessExpression(n) && ts.isCallExpression(n.parent) && n.parent.expression === n) {
        if (DECIDING_METHODS.has(n.name.text)) return this.wordsOf(n.parent.arguments);
        if (!NORMALIZERS.has(n.name.text)) return undefined;
        n = this.up(n.parent);
        continue;
      }
      const p = n.parent;
      if (!p) return undefined;
      if (ts.isBinaryExpression(p) && this.isEquality(p.operatorToken.kind))
        return this.wordIn(p.left === n ? p.right : p.left, true);
      if (ts.isPropertyAccessExpression(p) && p.expression === n && ts.isCallExpression(p.parent)) {
        if (DECIDING_METHODS.has(p.name.text)) return this.wordsOf(p.parent.arguments);
        if (NORMALIZERS.has(p.name.text)) {
          n = this.up(p.parent);
          continue;
        }
      }
      if (
        ts.isCallExpression(p) &&
        p.arguments.includes(n as TS.Expression) &&
        ts.isPropertyAccessExpression(p.expression)
      )
        return DECIDING_METHODS.has(p.expression.name.text)
          ? this.wordIn(p.expression.expression, true)
          : undefined;
      if (ts.isSwitchStatement(p) && p.expression === n)
        return this.wordsOf(p.caseBlock.clauses.flatMap((c) => (ts.isCaseClause(c) ? [c.expression] : [])));
      return undefined;
    }
    return undefined;
  }

  private isEquality(op: TS.SyntaxKind): boolean {
    const k = this.ts.SyntaxKind;
    return (
      op === k.EqualsEqualsEqualsToken ||
      op === k.ExclamationEqualsEqualsToken ||
      op === k.EqualsEqualsToken ||
      op === k.ExclamationEqualsToken
    );
  }

  private wordsOf(nodes: readonly TS.Node[]): string | undefined {
    for (const a of nodes) {
      const w = this.wordIn(a, true);
      if (w !== undefined) return w;
    }
    return undefined;
  }

  /** The first test runner's name among the strings under `root` (a regular expression's source counts). */
  private wordIn(root: TS.Node, env = false): string | undefined {
    const ts = this.ts;
    let word: string | undefined;
    const walk = (n: TS.Node): void => {
      if (word !== undefined) return;
      if (ts.isRegularExpressionLiteral(n)) word = runnerWord(n.text.slice(1, n.text.lastIndexOf('/')), env);
      if (word !== undefined) return;
      if (
        ts.isStringLiteralLike(n) ||
        ts.isTemplateExpression(n) ||
        ts.isIdentifier(n) ||
        ts.isCallExpression(n) ||
        (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken)
      ) {
        const text = this.r.fold(n);
        if (text !== undefined) {
          word = runnerWord(text, env);
          if (word !== undefined) return;
        }
        if (ts.isCallExpression(n)) {
          const list = this.r.foldArray(n);
          for (const s of list ?? []) word ??= runnerWord(s, env);
        }
      }
      ts.forEachChild(n, walk);
    };
    walk(root);
    return word;
  }

  /** The value decides a branch: it is compared, tested or negated before its statement ends. */
  decides(node: TS.Node): boolean {
    const ts = this.ts;
    const stop = this.contextOf(node);
    for (let n: TS.Node = node; n !== stop && n.parent; n = n.parent) {
      const p = n.parent;
      if (ts.isBinaryExpression(p)) {
        const op = p.operatorToken.kind;
        if (op < ts.SyntaxKind.FirstAssignment || op > ts.SyntaxKind.LastAssignment) {
          if (op !== ts.SyntaxKind.PlusToken && op !== ts.SyntaxKind.CommaToken) return true;
        }
      }
      if (ts.isPrefixUnaryExpression(p) && p.operator === ts.SyntaxKind.ExclamationToken) return true;
      if (ts.isConditionalExpression(p) && p.condition === n) return true;
      if (ts.isPropertyAccessExpression(p) && p.expression === n && DECIDING_METHODS.has(p.name.text))
        return true;
    }
    const p = stop.parent;
    return (
      !!p &&
      (ts.isIfStatement(p) ||
        ts.isWhileStatement(p) ||
        ts.isDoStatement(p) ||
        ts.isSwitchStatement(p) ||
        ts.isForStatement(p) ||
        ts.isConditionalExpression(p)) &&
      !ts.isStatement(stop)
    );
  }
}
