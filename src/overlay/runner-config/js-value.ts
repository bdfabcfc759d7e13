/**
 * A runner configuration module read as data, from the TypeScript
 * compiler's AST, never run: the base's `vitest.config.ts` or
 * `jest.config.js` is code, and what its keys hold is known only where that
 * code spells it out. Literals, arrays, objects (and their spreads), `const`
 * bindings, template strings, `path.join` / `path.resolve` / `path.dirname`
 * with known parts, `__dirname`, `import.meta.url` / `dirname`,
 * `new URL('./x', import.meta.url)`, `fileURLToPath`, `require.resolve`,
 * `defineConfig` / `mergeConfig` and config functions are followed. Both
 * branches of `a ? b : c` and `a || b` count: either may be what the runner
 * gets. Everything else is `unknown`, with the source text, so the caller can
 * say what it could not read.
 */

import path from 'node:path';
import type TS from 'typescript';
import { pushAll } from '../../util/arrays.js';

interface At {
  line: number;
}

export type JsValue =
  /** A string as written; `resolved` when it is a repository path worked out from the file's location. */
  | (At & { kind: 'string'; value: string; resolved?: true })
  | (At & { kind: 'array'; items: JsValue[] })
  /** `unknown` holds the spreads that could not be read: any key may come from them. */
  | (At & { kind: 'object'; props: Map<string, JsValue>; unknown: JsValue[] })
  | (At & { kind: 'literal' })
  /** Code written in the configuration itself: a function, a class, a regular expression. */
  | (At & { kind: 'code' })
  /** What a module the configuration imports exports under `name`. */
  | (At & { kind: 'import'; specifier: string; name: string })
  | (At & { kind: 'either'; options: JsValue[] })
  /** `file` is the module the text is in (values can come from a module the configuration imports). */
  | (At & { kind: 'unknown'; text: string; why: string; file: string });

/** A resolved repository path that leaves the repository. */
const OUTSIDE = '\u0000outside';

/** `path.posix.join` of any number of parts, without spreading them into one call. */
function joinAll(parts: readonly string[]): string {
  return parts.reduce((acc, p) => path.posix.join(acc, p), '');
}

export function joinRepo(...parts: string[]): string {
  const joined = path.posix.normalize(joinAll(parts));
  if (joined === '..' || joined.startsWith('../')) return OUTSIDE;
  return joined === '.' ? '' : joined.replace(/\/$/, '');
}

export const isOutside = (p: string) => p === OUTSIDE;

const PATH_MODULES = new Set(['path', 'node:path', 'path/posix', 'node:path/posix', 'pathe', 'upath']);
const URL_MODULES = new Set(['url', 'node:url']);
const CONFIG_HELPERS = new Set(['defineConfig', 'defineProject', 'defineWorkspace']);

export class JsConfigReader {
  private readonly sf: TS.SourceFile;
  private readonly dir: string;
  private readonly json: boolean;
  private depth = 0;

  constructor(
    private readonly ts: typeof TS,
    /** Repository path of the module. */
    readonly file: string,
    text: string,
  ) {
    const kind = /\.[cm]?tsx?$/.test(file)
      ? /x$/.test(file)
        ? ts.ScriptKind.TSX
        : ts.ScriptKind.TS
      : /\.json5?$|rc$/.test(file)
        ? ts.ScriptKind.JSON
        : ts.ScriptKind.JS;
    this.json = kind === ts.ScriptKind.JSON;
    this.sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
    this.dir = joinRepo(path.posix.dirname(file));
  }

  private lineOf(node: TS.Node): number {
    return this.sf.getLineAndCharacterOfPosition(node.getStart(this.sf)).line + 1;
  }

  private unknown(node: TS.Node, why: string): JsValue {
    const text = node.getText(this.sf).replace(/\s+/g, ' ');
    return {
      kind: 'unknown',
      line: this.lineOf(node),
      text: text.length > 120 ? `${text.slice(0, 117)}...` : text,
      why,
      file: this.file,
    };
  }

  /** Every relative or package module the file imports statically, requires or imports with a literal. */
  imports(): { specifier: string; line: number }[] {
    const ts = this.ts;
    const out: { specifier: string; line: number }[] = [];
    const visit = (node: TS.Node) => {
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
        node.moduleSpecifier &&
        ts.isStringLiteralLike(node.moduleSpecifier) &&
        !(ts.isImportDeclaration(node) && node.importClause?.isTypeOnly)
      )
        out.push({ specifier: node.moduleSpecifier.text, line: this.lineOf(node) });
      else if (
        ts.isCallExpression(node) &&
        (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
          (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
        node.arguments[0] &&
        ts.isStringLiteralLike(node.arguments[0])
      )
        out.push({ specifier: node.arguments[0].text, line: this.lineOf(node) });
      ts.forEachChild(node, visit);
    };
    visit(this.sf);
    return out;
  }

  /**
   * The module's configuration: its default export (`export default`,
   * `module.exports =`, `export =`), or for a JSON-like file its one value.
   */
  exported(): JsValue {
    const ts = this.ts;
    if (this.json) {
      const first = this.sf.statements[0];
      if (first && ts.isExpressionStatement(first)) return this.value(first.expression);
      return { kind: 'unknown', line: 1, text: this.file, why: 'the file holds no value', file: this.file };
    }
    for (const st of this.sf.statements) {
      // A configuration function (jest and vite accept one): what it returns.
      if (ts.isExportAssignment(st)) return this.returned(this.value(st.expression), st.expression);
      if (
        ts.isExpressionStatement(st) &&
        ts.isBinaryExpression(st.expression) &&
        st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken
      ) {
        const target = st.expression.left.getText(this.sf);
        if (target === 'module.exports' || target === 'exports.default')
          return this.returned(this.value(st.expression.right), st.expression.right);
      }
    }
    return {
      kind: 'unknown',
      line: 1,
      text: this.file,
      why: 'no default export or module.exports was found',
      file: this.file,
    };
  }

  /** What a named export of this module holds (`export const x = …`), for a configuration that imports it. */
  named(name: string): JsValue {
    const decl = this.declaration(name, this.sf);
    if (decl) return decl;
    return {
      kind: 'unknown',
      line: 1,
      text: `${this.file}#${name}`,
      why: `no const export '${name}' was found`,
      file: this.file,
    };
  }

  /** The value a name is bound to where `at` is, looking outward through enclosing blocks. */
  private lookup(name: string, at: TS.Node): JsValue | undefined {
    for (let scope: TS.Node | undefined = at; scope; scope = scope.parent) {
      const found = this.declaration(name, scope);
      if (found) return found;
      if (this.ts.isFunctionLike(scope) && scope.parameters.some((p) => p.name.getText(this.sf) === name))
        return {
          kind: 'unknown',
          line: this.lineOf(scope),
          text: name,
          why: 'a parameter, known only when the configuration runs',
          file: this.file,
        };
    }
    return undefined;
  }

  private declaration(name: string, scope: TS.Node): JsValue | undefined {
    const ts = this.ts;
    const statements =
      ts.isSourceFile(scope) || ts.isBlock(scope) || ts.isModuleBlock(scope) ? scope.statements : undefined;
    if (!statements) return undefined;
    for (const st of statements) {
      if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) {
          if (!ts.isIdentifier(d.name) || d.name.text !== name) {
            // `const { a } = require('./x')`: the named export of that module.
            if (ts.isObjectBindingPattern(d.name) && d.initializer)
              for (const el of d.name.elements)
                if (ts.isIdentifier(el.name) && el.name.text === name) {
                  const source = this.value(d.initializer);
                  const key = el.propertyName?.getText(this.sf) ?? name;
                  return source.kind === 'import' && source.name === '*'
                    ? { ...source, name: key }
                    : this.member(source, key, el);
                }
            continue;
          }
          // Only a const says what the name holds everywhere; a let or var may be reassigned.
          if (!(st.declarationList.flags & ts.NodeFlags.Const))
            return this.unknown(d, 'a let or var binding, which may be reassigned');
          return d.initializer ? this.value(d.initializer) : { kind: 'literal', line: this.lineOf(d) };
        }
      } else if (
        ts.isImportDeclaration(st) &&
        ts.isStringLiteralLike(st.moduleSpecifier) &&
        st.importClause
      ) {
        const specifier = st.moduleSpecifier.text;
        const clause = st.importClause;
        const line = this.lineOf(st);
        if (clause.name?.text === name) return { kind: 'import', specifier, name: 'default', line };
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings) && bindings.name.text === name)
          return { kind: 'import', specifier, name: '*', line };
        if (bindings && ts.isNamedImports(bindings))
          for (const el of bindings.elements)
            if (el.name.text === name)
              return { kind: 'import', specifier, name: el.propertyName?.text ?? name, line };
      } else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name?.text === name) {
        return { kind: 'code', line: this.lineOf(st) };
      }
    }
    return undefined;
  }

  private member(obj: JsValue, key: string, node: TS.Node): JsValue {
    if (obj.kind === 'object') {
      const v = obj.props.get(key);
      if (v && obj.unknown.length === 0) return v;
      if (v) return { kind: 'either', line: v.line, options: [v, ...obj.unknown] };
      if (obj.unknown.length > 0) return obj.unknown[0] as JsValue;
      return { kind: 'literal', line: this.lineOf(node) };
    }
    // A property of what a module exports: the caller reads that module.
    if (obj.kind === 'import')
      return { ...obj, name: obj.name === '*' ? key : `${obj.name}.${key}`, line: this.lineOf(node) };
    if (obj.kind === 'unknown') return obj;
    return this.unknown(node, 'a property of a value that is not an object');
  }

  /** Follows a value through the shapes a configuration is written in. */
  value(node: TS.Expression): JsValue {
    if (this.depth > 200) return this.unknown(node, 'nested too deep to follow');
    this.depth++;
    try {
      return this.read(node);
    } finally {
      this.depth--;
    }
  }

  private read(node: TS.Expression): JsValue {
    const ts = this.ts;
    const line = this.lineOf(node);
    if (
      ts.isParenthesizedExpression(node) ||
      ts.isAsExpression(node) ||
      ts.isSatisfiesExpression(node) ||
      ts.isNonNullExpression(node) ||
      ts.isTypeAssertionExpression(node) ||
      ts.isAwaitExpression(node)
    )
      return this.value(node.expression);
    if (ts.isStringLiteralLike(node)) return { kind: 'string', value: node.text, line };
    if (
      ts.isNumericLiteral(node) ||
      node.kind === ts.SyntaxKind.TrueKeyword ||
      node.kind === ts.SyntaxKind.FalseKeyword ||
      node.kind === ts.SyntaxKind.NullKeyword ||
      ts.isPrefixUnaryExpression(node)
    )
      return { kind: 'literal', line };
    if (ts.isRegularExpressionLiteral(node) || ts.isFunctionLike(node) || ts.isClassExpression(node))
      return { kind: 'code', line };
    if (ts.isTemplateExpression(node)) {
      let out: JsValue = { kind: 'string', value: node.head.text, line };
      for (const span of node.templateSpans) {
        out = this.concat(out, this.value(span.expression), span.expression);
        out = this.concat(out, { kind: 'string', value: span.literal.text, line }, span);
      }
      return out;
    }
    if (ts.isArrayLiteralExpression(node)) {
      const items: JsValue[] = [];
      for (const el of node.elements) {
        if (ts.isSpreadElement(el)) {
          const v = this.value(el.expression);
          if (v.kind === 'array') pushAll(items, v.items);
          else items.push(v);
        } else if (!ts.isOmittedExpression(el)) items.push(this.value(el));
      }
      return { kind: 'array', items, line };
    }
    if (ts.isObjectLiteralExpression(node)) return this.object(node);
    if (ts.isIdentifier(node)) return this.identifier(node);
    if (ts.isMetaProperty(node)) return this.unknown(node, 'import.meta itself');
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) return this.access(node);
    if (ts.isConditionalExpression(node))
      return { kind: 'either', line, options: [this.value(node.whenTrue), this.value(node.whenFalse)] };
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken)
        return { kind: 'either', line, options: [this.value(node.left), this.value(node.right)] };
      // `cond && value`: the value, or a falsy nothing.
      if (op === ts.SyntaxKind.AmpersandAmpersandToken)
        return { kind: 'either', line, options: [{ kind: 'literal', line }, this.value(node.right)] };
      if (op === ts.SyntaxKind.PlusToken)
        return this.concat(this.value(node.left), this.value(node.right), node);
      if (
        op >= ts.SyntaxKind.FirstBinaryOperator &&
        op <= ts.SyntaxKind.LastBinaryOperator &&
        op !== ts.SyntaxKind.CommaToken
      )
        return { kind: 'literal', line };
      return this.unknown(node, 'an expression the gate does not evaluate');
    }
    if (ts.isNewExpression(node)) return this.newExpression(node);
    if (ts.isCallExpression(node)) return this.call(node);
    if (ts.isVoidExpression(node) || ts.isTypeOfExpression(node)) return { kind: 'literal', line };
    return this.unknown(node, 'an expression the gate does not evaluate');
  }

  private concat(a: JsValue, b: JsValue, node: TS.Node): JsValue {
    if (a.kind === 'string' && b.kind === 'string')
      return {
        kind: 'string',
        value: a.resolved ? joinRepo(a.value + b.value) : a.value + b.value,
        line: a.line,
        ...(a.resolved ? { resolved: true as const } : {}),
      };
    if (a.kind === 'either') return { ...a, options: a.options.map((o) => this.concat(o, b, node)) };
    if (b.kind === 'either') return { ...b, options: b.options.map((o) => this.concat(a, o, node)) };
    return a.kind === 'unknown'
      ? a
      : b.kind === 'unknown'
        ? b
        : this.unknown(node, 'a string built from values the gate does not know');
  }

  private object(node: TS.ObjectLiteralExpression): JsValue {
    const ts = this.ts;
    const props = new Map<string, JsValue>();
    const unknown: JsValue[] = [];
    for (const p of node.properties) {
      if (ts.isSpreadAssignment(p)) {
        const v = this.value(p.expression);
        if (v.kind === 'object') {
          for (const [k, x] of v.props) props.set(k, x);
          pushAll(unknown, v.unknown);
        } else if (v.kind !== 'literal') unknown.push(v);
        continue;
      }
      const name = p.name && this.keyName(p.name);
      if (name === undefined) {
        unknown.push(this.unknown(p, 'a computed key'));
        continue;
      }
      if (ts.isPropertyAssignment(p)) props.set(name, this.value(p.initializer));
      else if (ts.isShorthandPropertyAssignment(p)) props.set(name, this.identifier(p.name));
      else props.set(name, { kind: 'code', line: this.lineOf(p) });
    }
    return { kind: 'object', props, unknown, line: this.lineOf(node) };
  }

  private keyName(name: TS.PropertyName): string | undefined {
    const ts = this.ts;
    if (ts.isIdentifier(name) || ts.isStringLiteralLike(name) || ts.isNumericLiteral(name)) return name.text;
    if (ts.isPrivateIdentifier(name)) return undefined;
    if (ts.isComputedPropertyName(name) && ts.isStringLiteralLike(name.expression))
      return name.expression.text;
    return undefined;
  }

  private identifier(node: TS.Identifier): JsValue {
    const line = this.lineOf(node);
    const name = node.text;
    const bound = this.lookup(name, node);
    if (bound) return bound;
    if (name === '__dirname') return { kind: 'string', value: this.dir, resolved: true, line };
    if (name === '__filename') return { kind: 'string', value: this.file, resolved: true, line };
    if (name === 'undefined') return { kind: 'literal', line };
    return this.unknown(node, `'${name}' is not bound in this file`);
  }

  private access(node: TS.PropertyAccessExpression | TS.ElementAccessExpression): JsValue {
    const ts = this.ts;
    const line = this.lineOf(node);
    const key = ts.isPropertyAccessExpression(node)
      ? node.name.text
      : ts.isStringLiteralLike(node.argumentExpression)
        ? node.argumentExpression.text
        : undefined;
    if (ts.isMetaProperty(node.expression)) {
      if (key === 'dirname') return { kind: 'string', value: this.dir, resolved: true, line };
      if (key === 'filename' || key === 'url')
        return { kind: 'string', value: this.file, resolved: true, line };
      return this.unknown(node, `import.meta.${key}`);
    }
    const target = node.expression;
    if (ts.isIdentifier(target) && target.text === 'process' && !this.lookup('process', node))
      return this.unknown(node, 'a value of the environment the tests run in');
    // `new URL('./x', import.meta.url).pathname`, `.href`: the path itself.
    if (key === 'pathname' || key === 'href') {
      const inner = this.value(target);
      if (inner.kind === 'string' && inner.resolved) return inner;
    }
    if (key === undefined) return this.unknown(node, 'a computed property');
    return this.member(this.value(target), key, node);
  }

  private newExpression(node: TS.NewExpression): JsValue {
    const ts = this.ts;
    const args = node.arguments ?? [];
    if (ts.isIdentifier(node.expression) && node.expression.text === 'URL' && args[0]) {
      const rel = this.value(args[0]);
      const base = args[1] ? this.value(args[1]) : undefined;
      if (rel.kind === 'string' && base?.kind === 'string' && base.resolved)
        return {
          kind: 'string',
          value: joinRepo(path.posix.dirname(base.value), rel.value),
          resolved: true,
          line: rel.line,
        };
    }
    // An instance of a class the configuration imports or defines: code, whose file the imports cover.
    if (ts.isIdentifier(node.expression)) {
      const bound = this.lookup(node.expression.text, node.expression);
      if (bound?.kind === 'import' || bound?.kind === 'code')
        return { kind: 'code', line: this.lineOf(node) };
    }
    return this.unknown(node, 'an object the gate does not construct');
  }

  /** The module a callee comes from (`path` for `path.join` and for `join` imported from it), and its name. */
  private callee(expr: TS.Expression): { module: string | undefined; name: string } | undefined {
    const ts = this.ts;
    if (ts.isIdentifier(expr)) {
      const bound = this.lookup(expr.text, expr);
      if (bound?.kind === 'import')
        return { module: bound.specifier, name: bound.name === 'default' ? expr.text : bound.name };
      return { module: undefined, name: expr.text };
    }
    if (ts.isPropertyAccessExpression(expr)) {
      const obj = expr.expression;
      if (ts.isIdentifier(obj)) {
        const bound = this.lookup(obj.text, obj);
        if (bound?.kind === 'import') return { module: bound.specifier, name: expr.name.text };
        if (!bound && obj.text === 'require') return { module: 'require', name: expr.name.text };
        if (!bound && obj.text === 'path') return { module: 'path', name: expr.name.text };
      }
      if (ts.isMetaProperty(obj)) return { module: 'import.meta', name: expr.name.text };
      return { module: '?', name: expr.name.text };
    }
    return undefined;
  }

  private call(node: TS.CallExpression): JsValue {
    const ts = this.ts;
    const line = this.lineOf(node);
    const args = node.arguments.map((a) => a);
    const c = this.callee(node.expression);
    if (c?.module === undefined && c?.name === 'require' && args[0] && ts.isStringLiteralLike(args[0]))
      return { kind: 'import', specifier: args[0].text, name: '*', line };
    if (c && CONFIG_HELPERS.has(c.name) && args[0]) return this.returned(this.value(args[0]), args[0]);
    if (c?.name === 'mergeConfig' || c?.name === 'mergeProject')
      return this.merge(args.map((a) => this.returned(this.value(a), a)));
    if (
      c &&
      (PATH_MODULES.has(c.module ?? '') || c.module === 'path') &&
      ['join', 'resolve', 'dirname'].includes(c.name)
    )
      return this.pathCall(c.name, args, node);
    if (
      c &&
      (URL_MODULES.has(c.module ?? '') || c.module === undefined) &&
      c.name === 'fileURLToPath' &&
      args[0]
    ) {
      const v = this.value(args[0]);
      return v.kind === 'string' && v.resolved ? v : this.unknown(node, 'a URL the gate cannot work out');
    }
    if ((c?.module === 'require' || c?.module === 'import.meta') && c.name === 'resolve' && args[0]) {
      const v = this.value(args[0]);
      if (v.kind === 'string' && !v.resolved && v.value.startsWith('.'))
        return { kind: 'string', value: joinRepo(this.dir, v.value), resolved: true, line };
      return v;
    }
    if (ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      if (
        ts.isIdentifier(node.expression.expression) &&
        node.expression.expression.text === 'process' &&
        method === 'cwd'
      )
        return { kind: 'string', value: '', resolved: true, line };
      const target = this.value(node.expression.expression);
      // `[…].filter(Boolean)` keeps some of the items; every one of them may be what the runner gets.
      if (target.kind === 'array' && (method === 'filter' || method === 'flat')) return target;
      if (target.kind === 'array' && method === 'concat') {
        const items = [...target.items];
        for (const a of args) {
          const v = this.value(a);
          if (v.kind === 'array') pushAll(items, v.items);
          else items.push(v);
        }
        return { kind: 'array', items, line };
      }
    }
    return this.unknown(node, 'a call the gate does not evaluate');
  }

  private pathCall(name: string, args: TS.Expression[], node: TS.Node): JsValue {
    const line = this.lineOf(node);
    const parts = args.map((a) => this.value(a));
    if (parts.some((p) => p.kind !== 'string'))
      return this.unknown(node, 'a path built from values the gate does not know');
    const strs = parts as (JsValue & { kind: 'string' })[];
    if (name === 'dirname') {
      const p = strs[0];
      if (!p) return this.unknown(node, 'path.dirname()');
      return { ...p, value: joinRepo(path.posix.dirname(p.value)) };
    }
    // An absolute part outside the repository (a literal '/x') leaves it; a resolved part restarts at that path.
    let start = 0;
    strs.forEach((s, i) => {
      if (s.resolved || (name === 'resolve' && s.value.startsWith('/'))) start = i;
    });
    const used = strs.slice(start);
    const first = used[0];
    if (first && !first.resolved && first.value.startsWith('/'))
      return { kind: 'string', value: OUTSIDE, resolved: true, line };
    if (name === 'join' && !first?.resolved)
      return {
        kind: 'string',
        value: path.posix.normalize(joinAll(used.map((s) => s.value))),
        line,
      };
    // resolve() without a resolved part starts at the tests' working directory, the checkout's root.
    return { kind: 'string', value: joinRepo(joinAll(used.map((s) => s.value))), resolved: true, line };
  }

  /** A configuration function's result: what it returns, on every path. */
  private returned(v: JsValue, node: TS.Node): JsValue {
    if (v.kind !== 'code') return v;
    const ts = this.ts;
    const fn = ts.isIdentifier(node) ? this.functionNamed(node.text, node) : node;
    if (!fn || !ts.isFunctionLike(fn) || !('body' in fn) || !fn.body)
      return this.unknown(node, 'a function the gate cannot read');
    const body = fn.body as TS.Node;
    if (!ts.isBlock(body)) return this.value(body as TS.Expression);
    const options: JsValue[] = [];
    const visit = (n: TS.Node) => {
      if (ts.isReturnStatement(n) && n.expression) options.push(this.value(n.expression));
      if (!ts.isFunctionLike(n)) ts.forEachChild(n, visit);
    };
    ts.forEachChild(body, visit);
    if (options.length === 0)
      return this.unknown(node, 'a configuration function that returns nothing the gate can read');
    return options.length === 1
      ? (options[0] as JsValue)
      : { kind: 'either', line: this.lineOf(node), options };
  }

  private functionNamed(name: string, at: TS.Node): TS.Node | undefined {
    const ts = this.ts;
    for (let scope: TS.Node | undefined = at; scope; scope = scope.parent) {
      if (!(ts.isSourceFile(scope) || ts.isBlock(scope))) continue;
      for (const st of scope.statements) {
        if (ts.isFunctionDeclaration(st) && st.name?.text === name) return st;
        if (ts.isVariableStatement(st))
          for (const d of st.declarationList.declarations)
            if (
              ts.isIdentifier(d.name) &&
              d.name.text === name &&
              d.initializer &&
              ts.isFunctionLike(d.initializer)
            )
              return d.initializer;
      }
    }
    return undefined;
  }

  /** `mergeConfig(a, b)`: objects merged key by key, arrays and other values kept from every side. */
  private merge(values: JsValue[]): JsValue {
    return values.reduce((a, b) => mergeValues(a, b));
  }
}

/**
 * Two values a runner combines (vite's `mergeConfig`, a spread over keys
 * already written): objects key by key, anything else either one.
 */
export function mergeValues(a: JsValue, b: JsValue): JsValue {
  if (a.kind === 'literal') return b;
  if (b.kind === 'literal') return a;
  if (a.kind !== 'object' || b.kind !== 'object') {
    if (a.kind === 'object' && b.kind !== 'object') return { ...a, unknown: [...a.unknown, b] };
    if (b.kind === 'object') return { ...b, unknown: [...b.unknown, a] };
    return { kind: 'either', line: a.line, options: [a, b] };
  }
  const props = new Map(a.props);
  for (const [k, v] of b.props) {
    const had = props.get(k);
    props.set(k, had ? mergeValues(had, v) : v);
  }
  return { kind: 'object', props, unknown: [...a.unknown, ...b.unknown], line: a.line };
}
