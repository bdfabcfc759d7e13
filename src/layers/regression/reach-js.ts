/**
 * JavaScript and TypeScript reach, from the TypeScript compiler's AST. Every
 * expression that names a piece of the runtime (through any alias the
 * resolver can follow) is judged by what it names and how it is used: read,
 * called, enumerated, looked up by a computed key, compared, or handed on.
 * Parsing only: nothing here evaluates the head's code.
 */
import type TS from 'typescript';
import { JsContext, type Use } from './reach-js-context.js';
import { COMPUTED, HIDDEN_GLOBAL, JsResolver, type RuntimePath, TEST_GLOBALS } from './reach-js-resolve.js';
import {
  classifyJsImport,
  isTestFlag,
  type Load,
  type Reach,
  type ReachShape,
  reachText,
} from './reach-rules.js';

const EXIT_CALLS = new Set(['exit', 'reallyExit', 'abort', 'kill']);
const EXIT_EVENTS = new Set(['exit', 'beforeExit', 'uncaughtException', 'unhandledRejection']);
const LISTEN = new Set(['on', 'once', 'addListener', 'prependListener', 'prependOnceListener']);
const COMMAND_LINE = new Set(['argv', 'execArgv', 'argv0']);
const VERSIONS = new Set(['versions', 'version', 'release', 'features', 'config']);
const IPC = new Set(['channel', 'connected', 'send', 'disconnect']);
const INTERNALS = new Set([
  'binding',
  'report',
  'moduleLoadList',
  'getActiveResourcesInfo',
  'dlopen',
  'allowedNodeEnvironmentFlags',
]);
const WORKER = new Set(['isMainThread', 'workerData', 'threadId', 'parentPort', 'getEnvironmentData']);
const CLUSTER = new Set(['isPrimary', 'isMaster', 'isWorker', 'worker']);
const VM_CODE = new Set([
  'runInThisContext',
  'runInNewContext',
  'runInContext',
  'compileFunction',
  'Script',
  'SourceTextModule',
  'createScript',
]);
/** Variables test runners and coverage tools set in the process they run tests in. */
const RUNNER_VAR =
  /^(?:VITEST\w*|__VITEST\w*|JEST_\w+|MOCHA_\w+|AVA_\w+|NODE_TEST_CONTEXT|NODE_V8_COVERAGE|PATCHGATE_\w+)$/;
/** How many levels of constant code (`eval('…')` inside `eval('…')`) are read. */
const MAX_NESTED_CODE = 3;

type Found = Omit<Reach, 'line'>;

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
  return jsScan(ts, file, text, isTestPath).reaches;
}

/** The reaches of one file, and every module it loads by a constant name (aliases of `require` included). */
export function jsScan(
  ts: typeof TS,
  file: string,
  text: string,
  isTestPath: (p: string) => boolean,
): { reaches: Reach[]; loads: Load[] } {
  try {
    const scan = new Scan(ts, file, text, isTestPath, 0);
    return { reaches: scan.run(), loads: scan.loads };
  } catch (err) {
    // Nested deeper than the walk's stack (a crafted `a+a+…` of tens of thousands): unknown, never a pass.
    if (!(err instanceof RangeError)) throw err;
    const what =
      "cannot be read to the end by the gate's parser (nested too deeply): what it does is unknown";
    return { reaches: [{ line: 1, shape: 'computed-code', what, detail: 'unread (too deep)' }], loads: [] };
  }
}

class Scan {
  private readonly source: TS.SourceFile;
  private readonly r: JsResolver;
  private readonly c: JsContext;
  private readonly out: Reach[] = [];

  constructor(
    private readonly ts: typeof TS,
    private readonly file: string,
    text: string,
    private readonly isTestPath: (p: string) => boolean,
    private readonly nesting: number,
  ) {
    this.source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kindFor(ts, file));
    this.r = new JsResolver(ts, this.source);
    this.c = new JsContext(ts, this.r);
  }

  /** Functions a top-level main guard calls by name: `if (require.main === module) main()`. */
  private readonly mainFunctions = new Set<TS.Node>();

  run(): Reach[] {
    this.findMainFunctions();
    this.visit(this.source, false);
    const seen = new Set<string>();
    return this.out.filter((x) => {
      const key = `${x.line}\u241f${x.shape}\u241f${x.what}\u241f${x.detail}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  private findMainFunctions(): void {
    const ts = this.ts;
    for (const st of this.source.statements) {
      if (!ts.isIfStatement(st) || !this.c.isMainGuard(st.expression)) continue;
      const walk = (n: TS.Node): void => {
        if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
          const decls = this.r.symbolOf(n.expression)?.declarations ?? [];
          const [d] = decls;
          // Bound once, at the top level, and not exported (a test would call an export directly).
          const exported = (n: TS.Node) =>
            !!ts.canHaveModifiers(n) &&
            !!ts.getModifiers(n)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
          if (
            d &&
            decls.length === 1 &&
            ts.isFunctionDeclaration(d) &&
            d.parent === this.source &&
            !exported(d)
          )
            this.mainFunctions.add(d);
          else if (
            d &&
            decls.length === 1 &&
            ts.isVariableDeclaration(d) &&
            d.parent.flags & ts.NodeFlags.Const &&
            d.parent.parent.parent === this.source &&
            !exported(d.parent.parent) &&
            d.initializer &&
            (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))
          )
            this.mainFunctions.add(d.initializer);
        }
        ts.forEachChild(n, walk);
      };
      walk(st.thenStatement);
    }
  }

  private line(node: TS.Node): number {
    return this.source.getLineAndCharacterOfPosition(node.getStart(this.source)).line + 1;
  }

  /** `main`: inside a `require.main === module` (or like) block, which never runs when a test imports the file. */
  private push(node: TS.Node, found: Found | undefined, main: boolean): void {
    if (!found || (main && found.entryOk)) return;
    this.out.push({ line: this.line(node), ...found });
  }

  private visit(node: TS.Node, inMain: boolean): void {
    const ts = this.ts;
    const main = inMain || this.mainFunctions.has(node);
    // Types and ambient declarations have no run-time meaning.
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    if (ts.isExpressionWithTypeArguments(node)) {
      const clause = node.parent;
      if (
        ts.isHeritageClause(clause) &&
        clause.token === ts.SyntaxKind.ExtendsKeyword &&
        ts.isClassLike(clause.parent)
      )
        this.visit(node.expression, main);
      return;
    }
    if (ts.isTypeNode(node)) return;
    if (
      (ts.isVariableStatement(node) || ts.isModuleDeclaration(node) || ts.isFunctionDeclaration(node)) &&
      ts.getCombinedModifierFlags(node as TS.Declaration) & ts.ModifierFlags.Ambient
    )
      return;

    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteralLike(node.moduleSpecifier)) this.spec(node, node.moduleSpecifier.text, main);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteralLike(e)) this.spec(node, e.text, main);
    } else if (ts.isIfStatement(node) && this.c.isMainGuard(node.expression)) {
      this.visit(node.expression, main);
      this.visit(node.thenStatement, true);
      if (node.elseStatement) this.visit(node.elseStatement, main);
      return;
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      this.importCall(node, main);
    } else if (ts.isWithStatement(node)) {
      // with (process) { argv }: every name inside may be the object's.
      const path = this.r.resolve(node.expression);
      if (path) this.push(node, this.found('global-scope', `with (${path.join('.')})`), main);
    } else if (ts.isStringLiteralLike(node) || ts.isTemplateExpression(node) || this.c.isTopConcat(node)) {
      // A piece of a concatenation counts on its own only when the whole does not fold.
      const whole = this.c.concatOf(node);
      if (whole === node || this.r.fold(whole) === undefined) this.push(node, this.procFile(node), main);
    } else if (this.c.isChain(node)) {
      this.chain(node, main);
    }
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'stack')
      this.stack(node, node.expression, main);
    const bound = ts.isBindingElement(node) ? (node.propertyName ?? node.name) : undefined;
    if (
      bound &&
      (ts.isIdentifier(bound) || ts.isStringLiteral(bound)) &&
      bound.text === 'stack' &&
      ts.isBindingElement(node)
    ) {
      const decl = node.parent.parent;
      if (ts.isVariableDeclaration(decl) && decl.initializer) this.stack(node, decl.initializer, main);
    }
    ts.forEachChild(node, (c) => this.visit(c, main));
  }

  /** '/proc/self/cmdline' and the like: the process's own command line, environment and state, as a file. */
  private procFile(node: TS.Node): Found | undefined {
    // `/proc/${pid}/status`: the constant start says which file.
    const ts = this.ts;
    const text =
      this.r.fold(node) ??
      (ts.isTemplateExpression(node)
        ? node.head.text + node.templateSpans.map((span) => `{}${span.literal.text}`).join('')
        : undefined);
    if (text === undefined || !/^\/proc(?:\/|$)/.test(text)) return undefined;
    const shape: ReachShape = /cmdline/.test(text)
      ? 'command-line'
      : /environ/.test(text)
        ? 'environment'
        : 'process-context';
    return this.found(shape, `the file ${text}`);
  }

  /** Every module loaded by a constant name, for the entry-point check (`reach-entry.ts`). */
  readonly loads: Load[] = [];

  private spec(node: TS.Node, s: string, main: boolean): void {
    if (this.nesting === 0) this.loads.push({ line: this.line(node), spec: s });
    const what = classifyJsImport(this.file, s, this.isTestPath);
    if (what) this.push(node, { shape: 'test-import', what, detail: s }, main);
  }

  // ------------------------------------------------------------------ chains

  private chain(node: TS.Expression, main: boolean): void {
    if (!this.c.isMaximal(node)) return;
    const path = this.r.resolve(node);
    if (!path) return;
    this.push(node, this.classify(path, node, this.c.useOf(node)), main);
  }

  // ------------------------------------------------------------------ rules

  private classify(path: RuntimePath, node: TS.Expression, use: Use): Found | undefined {
    const [root, a] = path;
    // Reflect.get(process, 'argv'), Object.getOwnPropertyDescriptor(process, 'env'): a member read by another name.
    if (
      use.kind === 'get' &&
      root !== 'global' &&
      !(root === 'process' && a === 'env') &&
      !(root === 'import.meta' && a === 'env')
    ) {
      const key = use.key ? this.r.fold(use.key) : undefined;
      if (key === undefined) return root === 'process' ? this.found('global-scope', 'process[…]') : undefined;
      return this.classify([...path, key], node, { kind: 'value' });
    }
    switch (root) {
      case 'process':
        return this.processRule(path, node, use);
      case 'global':
        return this.globalRule(path, node, use);
      case 'require':
        if (a === undefined)
          return use.kind === 'call' ? this.requireCall(node) : this.escape('require', node, use);
        if (a === 'cache')
          return {
            shape: 'module-registry',
            what: reachText('module-registry', 'require.cache'),
            detail: 'require.cache',
          };
        if (a === 'main') return this.c.mainIdentity(node) ? undefined : this.registry('require.main');
        return undefined;
      case 'module':
        if (a === undefined) return this.escape('module', node, use);
        if (a === 'require' && use.kind === 'call') return this.requireCall(node);
        if (a === 'parent' && (path.length > 2 || !['compare', 'typeof'].includes(use.kind)))
          return this.registry('module.parent');
        if (a === 'children') return this.registry('module.children');
        return undefined;
      case 'import.meta':
        return this.importMetaRule(path, node, use);
      case 'Error':
        if (a === 'captureStackTrace' && use.kind === 'call') {
          const target = this.callOf(node).arguments[0];
          if (target && target.kind === this.ts.SyntaxKind.ThisKeyword) return undefined;
          return this.found('call-stack', 'Error.captureStackTrace()');
        }
        if (a === 'prepareStackTrace') return this.found('call-stack', 'Error.prepareStackTrace');
        return undefined;
      case 'util':
        if (a === 'getCallSites') return this.found('call-stack', 'util.getCallSites()');
        if (a === 'parseArgs' && use.kind === 'call' && !this.hasArgsOption(this.callOf(node)))
          return this.entry('command-line', 'util.parseArgs() without args', node);
        return undefined;
      case 'worker_threads':
        return a && WORKER.has(a) ? this.entry('process-context', `worker_threads.${a}`, node) : undefined;
      case 'cluster':
        return a && CLUSTER.has(a) ? this.entry('process-context', `cluster.${a}`, node) : undefined;
      case 'Module':
        if (use.kind === 'write') return this.found('patches-runtime', `${path.join('.')} is replaced`);
        return a?.startsWith('_') ? this.registry(`Module.${a}`) : undefined;
      case 'eval':
        if (a !== undefined) return undefined;
        if (use.kind === 'call') return this.code(this.callOf(node), 'eval', false);
        // [eval][0](code): an eval the check cannot see called.
        return use.kind === 'value' ? this.found('computed-code', 'eval handed on') : undefined;
      case 'Function':
        if (a === undefined && (use.kind === 'call' || use.kind === 'new'))
          return this.code(this.callOf(node), 'Function', true);
        return undefined;
      case 'vm':
        if (a && VM_CODE.has(a) && (use.kind === 'call' || use.kind === 'new'))
          return this.code(this.callOf(node), `vm.${a}`, a === 'compileFunction');
        return undefined;
      default:
        return undefined;
    }
  }

  /** The call `node` is the callee of (through parentheses and `(0, f)`). */
  private callOf(node: TS.Node): TS.CallExpression {
    // A `new` expression has the same callee and arguments as far as the rules read them.
    return this.c.up(node).parent as TS.CallExpression;
  }

  private found(shape: ReachShape, detail: string, word?: string): Found {
    const what =
      word === undefined ? reachText(shape, detail) : `${reachText(shape, detail)}, compared with '${word}'`;
    return word === undefined ? { shape, what, detail } : { shape, what, detail, word };
  }

  private registry(detail: string): Found {
    return this.found('module-registry', detail);
  }

  /** A read an entry point may make, unless a test runner's name sits in the same statement. */
  private entry(shape: ReachShape, detail: string, node: TS.Node): Found {
    const word = this.c.wordNear(node);
    return word === undefined
      ? { ...this.found(shape, detail), entryOk: true }
      : this.found(shape, detail, word);
  }

  private escape(detail: string, node: TS.Node, use: Use): Found | undefined {
    if (use.kind !== 'value' && use.kind !== 'enumerate' && use.kind !== 'spread') return undefined;
    return this.entry('escape', detail, node);
  }

  private processRule(path: RuntimePath, node: TS.Expression, use: Use): Found | undefined {
    const a = path[1];
    if (a === undefined) return this.escape('process', node, use);
    if (a === COMPUTED) return this.found('global-scope', 'process[…]');
    if (COMMAND_LINE.has(a)) {
      if (a === 'argv' && path[2] === '1' && this.c.mainIdentity(node)) return undefined;
      return use.kind === 'write' ? undefined : this.entry('command-line', `process.${a}`, node);
    }
    if (a === 'title')
      return use.kind === 'write' ? undefined : this.entry('command-line', 'process.title', node);
    if (VERSIONS.has(a))
      return this.c.decides(node) ? this.entry('runtime-version', `process.${a}`, node) : undefined;
    if (a === 'env') return this.envRule('process.env', path.slice(2), node, use);
    if (a === 'mainModule')
      return this.c.mainIdentity(node) ? undefined : this.registry('process.mainModule');
    if (EXIT_CALLS.has(a) && use.kind === 'call') return this.found('exit', `process.${a}()`);
    if (LISTEN.has(a) && use.kind === 'call') {
      const first = this.callOf(node).arguments[0];
      const event = first ? this.r.fold(first) : undefined;
      if (event !== undefined && EXIT_EVENTS.has(event))
        return {
          shape: 'exit-hook',
          what: `registers a process '${event}' handler`,
          detail: `process.${a}('${event}')`,
        };
      return undefined;
    }
    if (IPC.has(a)) return this.entry('process-context', `process.${a}`, node);
    if (INTERNALS.has(a) || a.startsWith('_')) return this.found('runtime-internals', `process.${a}`);
    return undefined;
  }

  private envRule(base: string, rest: RuntimePath, node: TS.Expression, use: Use): Found | undefined {
    const [key] = rest;
    if (key === undefined) {
      if (use.kind === 'enumerate') return this.found('environment', `${base} enumerated`);
      if (use.kind === 'has' || use.kind === 'get') {
        const k = use.key ? this.r.fold(use.key) : undefined;
        return k === undefined
          ? this.found('environment', `${base}[…] looked up`)
          : this.envKey(base, k, node);
      }
      if (use.kind === 'value' || use.kind === 'spread' || use.kind === 'copy')
        return this.c.childEnv(node) ? undefined : this.found('environment', `${base} handed on`);
      return undefined;
    }
    if (key.startsWith('#')) return undefined;
    if (key === COMPUTED) return this.found('environment', `${base}[…]`);
    if ((key === 'hasOwnProperty' || key === 'propertyIsEnumerable') && use.kind === 'call') {
      const arg = this.callOf(node).arguments[0];
      const k = arg ? this.r.fold(arg) : undefined;
      return k === undefined ? this.found('environment', `${base}[…] looked up`) : this.envKey(base, k, node);
    }
    if (use.kind === 'write') return undefined;
    return this.envKey(base, key, node);
  }

  private envKey(base: string, key: string, node: TS.Node): Found | undefined {
    if (RUNNER_VAR.test(key) || isTestFlag(key))
      return { shape: 'runner-variable', what: `reads the test runner variable ${key}`, detail: key };
    const word = this.c.comparedWord(node);
    if (word === undefined) return undefined;
    return {
      shape: 'runner-variable',
      what: `compares ${base}.${key} with '${word}' (asks whether it runs under test)`,
      detail: `${key}='${word}'`,
      word,
    };
  }

  private importMetaRule(path: RuntimePath, node: TS.Expression, use: Use): Found | undefined {
    const [, a, b] = path;
    if (a === undefined) return this.escape('import.meta', node, use);
    if (a === 'vitest') return this.found('test-global', 'import.meta.vitest');
    if (a !== 'env') return undefined;
    if (b === 'MODE' || b === 'TEST' || b === 'VITEST')
      return {
        shape: 'runner-variable',
        what: `reads the test runner variable import.meta.env.${b}`,
        detail: `import.meta.env.${b}`,
      };
    return this.envRule('import.meta.env', path.slice(2), node, use);
  }

  private globalRule(path: RuntimePath, node: TS.Expression, use: Use): Found | undefined {
    const a = path[1];
    if (a === undefined) {
      if (use.kind === 'enumerate' || use.kind === 'spread')
        return this.found('global-scope', 'globalThis enumerated');
      if (use.kind === 'has' || use.kind === 'get') {
        const k = use.key ? this.r.fold(use.key) : undefined;
        if (k === undefined) return this.found('global-scope', 'globalThis[…] looked up');
        return TEST_GLOBALS.has(k) || HIDDEN_GLOBAL.test(k) ? this.found('test-global', k) : undefined;
      }
      if (use.kind === 'write' && this.ts.isCallExpression(this.c.up(node).parent ?? node)) {
        // Object.defineProperty(globalThis, 'expect', …)
        const call = this.c.up(node).parent as TS.CallExpression;
        const k = call.arguments[1] ? this.r.fold(call.arguments[1]) : undefined;
        if (k !== undefined && (TEST_GLOBALS.has(k) || HIDDEN_GLOBAL.test(k)))
          return { shape: 'test-global', what: `replaces the test global '${k}'`, detail: k };
        return undefined;
      }
      return this.escape('globalThis', node, use);
    }
    if (a === COMPUTED) return this.found('global-scope', 'globalThis[…]');
    if (
      (a === 'hasOwnProperty' || a === 'propertyIsEnumerable') &&
      use.kind === 'call' &&
      path.length === 2
    ) {
      const arg = this.callOf(node).arguments[0];
      const k = arg ? this.r.fold(arg) : undefined;
      if (k === undefined) return this.found('global-scope', 'globalThis[…] looked up');
      return TEST_GLOBALS.has(k) || HIDDEN_GLOBAL.test(k) ? this.found('test-global', k) : undefined;
    }
    if (TEST_GLOBALS.has(a) || HIDDEN_GLOBAL.test(a)) {
      if (use.kind === 'write')
        return { shape: 'test-global', what: `replaces the test global '${a}'`, detail: a };
      return this.found('test-global', a);
    }
    return undefined;
  }

  /** `require(x)`: a test module, test-side code, or a name the gate cannot compute. */
  private requireCall(node: TS.Node): Found | undefined {
    const call = this.c.up(node).parent as TS.CallExpression;
    return this.loadSpec(call.arguments[0], 'require');
  }

  private importCall(node: TS.CallExpression, main: boolean): void {
    this.push(node, this.loadSpec(node.arguments[0], 'import'), main);
  }

  private loadSpec(arg: TS.Expression | undefined, how: string): Found | undefined {
    if (!arg) return undefined;
    const spec = this.r.fold(arg);
    if (spec !== undefined) {
      if (this.nesting === 0) this.loads.push({ line: this.line(arg), spec });
      const what = classifyJsImport(this.file, spec, this.isTestPath);
      return what ? { shape: 'test-import', what, detail: spec } : undefined;
    }
    // `import(`./locales/${lang}.js`)`: only the package's own files, unless the folder is test side.
    const prefix = this.constantPrefix(arg);
    if (prefix !== undefined && /^\.\.?\//.test(prefix)) {
      const probe = `${prefix}${prefix.endsWith('/') ? '' : '/'}x`;
      if (!classifyJsImport(this.file, probe, this.isTestPath)) return undefined;
    }
    return this.found('computed-import', `${how}(…)`);
  }

  /** The constant start of a template or `+` chain: `./locales/` of `` `./locales/${x}.js` ``. */
  private constantPrefix(node: TS.Expression): string | undefined {
    const ts = this.ts;
    if (ts.isTemplateExpression(node)) return node.head.text;
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken)
      return this.r.fold(node.left) ?? this.constantPrefix(node.left);
    if (ts.isParenthesizedExpression(node)) return this.constantPrefix(node.expression);
    return undefined;
  }

  /** `eval(code)`, `new Function(…, body)`, `vm.runInThisContext(code)`: constant code is read like the file. */
  private code(call: TS.CallExpression | TS.NewExpression, name: string, last: boolean): Found | undefined {
    const args = call.arguments ?? [];
    const arg = last ? args[args.length - 1] : args[0];
    if (!arg) return undefined;
    const text = this.r.fold(arg);
    if (text === undefined) return this.found('computed-code', `${name}(…)`);
    if (this.nesting >= MAX_NESTED_CODE) return this.found('computed-code', `${name}(…) nested too deep`);
    const body = last ? `(function () {\n${text}\n})` : text;
    const inner = new Scan(this.ts, this.file, body, this.isTestPath, this.nesting + 1).run();
    // Reported at the call: the evaluated code's own lines are not the file's.
    const [first, ...more] = inner.map(({ line: _, ...r }) => ({
      ...r,
      what: `${r.what} (in code ${name} evaluates)`,
    }));
    if (!first) return undefined;
    for (const r of more) this.push(call, r, false);
    return first;
  }

  private hasArgsOption(call: TS.CallExpression): boolean {
    const ts = this.ts;
    const opts = call.arguments[0];
    if (!opts) return false;
    if (!ts.isObjectLiteralExpression(opts)) return true;
    return opts.properties.some(
      (p) => !p.name || (ts.isIdentifier(p.name) && p.name.text === 'args') || ts.isSpreadAssignment(p),
    );
  }

  // ------------------------------------------------------------------ stack

  /** `.stack` of an error made right here is the call stack; any `.stack` compared with a runner's name is too. */
  private stack(node: TS.Node, receiver: TS.Expression, main: boolean): void {
    if (this.isFreshError(receiver)) {
      this.push(node, this.found('call-stack', 'new Error().stack'), main);
      return;
    }
    const word = this.c.wordNear(node);
    if (word !== undefined) this.push(node, this.found('call-stack', 'error.stack', word), main);
  }

  private isFreshError(node: TS.Expression, depth = 0): boolean {
    const ts = this.ts;
    if (depth > 8) return false;
    if (ts.isParenthesizedExpression(node)) return this.isFreshError(node.expression, depth + 1);
    if (ts.isNewExpression(node) || ts.isCallExpression(node))
      return this.r.resolve(node.expression)?.join('.') === 'Error';
    if (ts.isIdentifier(node)) {
      const sym = this.r.symbolOf(node);
      const d = sym?.declarations?.[0];
      return (
        !!d && ts.isVariableDeclaration(d) && !!d.initializer && this.isFreshError(d.initializer, depth + 1)
      );
    }
    return false;
  }
}
