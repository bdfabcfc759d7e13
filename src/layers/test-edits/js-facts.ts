/**
 * What a JavaScript or TypeScript test file checks, from the TypeScript
 * compiler's AST (never run): vitest / jest / mocha tests (`it`, `test`,
 * `describe` and their `.skip`, `.only`, `.todo`, `.fails`, `.skipIf`,
 * `.each`, `xit`, `fit`…), patchgate's `defineSeedProperty` and
 * `defineProperty`, their assertions (`expect(...).matcher(...)`, chai
 * chains, `node:assert`), fast-check properties (`fc.assert`,
 * `fc.property`, `test.prop`: the arbitraries, `numRuns`, `examples`,
 * `fc.pre`), and what runs outside any test (`beforeEach`…, `vi.mock`,
 * `vi.stubGlobal`, writes to the globals, `fc.configureGlobal`).
 */
import type TS from 'typescript';
import { parseScript, syntaxErrors } from '../../util/typescript.js';
import type {
  Assertion,
  ExampleCount,
  FileFacts,
  FileReading,
  Generator,
  Hook,
  Mark,
  MarkKind,
  Unit,
  UnitKind,
} from './model.js';

const MAX_TEXT = 200;
const TEST_ROOTS = new Set(['it', 'test', 'xit', 'xtest', 'fit', 'specify']);
const SUITE_ROOTS = new Set(['describe', 'suite', 'context', 'xdescribe', 'fdescribe']);
const HOOKS = new Set([
  'beforeAll',
  'beforeEach',
  'afterAll',
  'afterEach',
  'before',
  'after',
  'setup',
  'teardown',
]);
const MOCKS = new Set([
  'vi.mock',
  'vi.doMock',
  'vi.spyOn',
  'vi.stubGlobal',
  'vi.stubEnv',
  'vi.useFakeTimers',
  'jest.mock',
  'jest.doMock',
  'jest.spyOn',
  'jest.replaceProperty',
  'jest.useFakeTimers',
  'sinon.stub',
  'sinon.replace',
  'sinon.fake',
  'expect.extend',
]);
const GLOBAL_OBJECTS = new Set(['globalThis', 'global', 'window', 'self']);
const MOD_MARKS: Record<string, MarkKind> = {
  skip: 'skip',
  skipIf: 'skipif',
  runIf: 'skipif',
  only: 'only',
  todo: 'todo',
  fails: 'xfail',
  failing: 'xfail',
};
const ROOT_MARKS: Record<string, MarkKind> = {
  xit: 'skip',
  xtest: 'skip',
  xdescribe: 'skip',
  fit: 'only',
  fdescribe: 'only',
};
const BOUND_KEYS: Record<string, string> = {
  min: 'min',
  max: 'max',
  minLength: 'minSize',
  maxLength: 'maxSize',
};
const RESTRICT_KEYS = new Set(['noNaN', 'noDefaultInfinity', 'noInteger', 'unit', 'noNullPrototype']);
const CONSTANT_FNS = new Set(['constant', 'constantFrom']);
const WRAPPERS = new Set(['filter', 'map', 'chain', 'noShrink', 'noBias']);
const NO_ARG_SKIP = new Set(['skip']);

/** Reads one file's facts; a file the compiler cannot parse is `ok: false` with its first error. */
export function jsFacts(ts: typeof TS, file: string, text: string): FileReading {
  const sf = parseScript(ts, file, text);
  const diag = syntaxErrors(sf)[0];
  if (diag) {
    const line = diag.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(diag.start).line + 1;
    return { ok: false, error: ts.flattenDiagnosticMessageText(diag.messageText, ' '), line };
  }
  return { ok: true, facts: /\.snap$/.test(file) ? snapshotFacts(ts, sf) : new JsReader(ts, sf).read() };
}

/**
 * A jest / vitest snapshot file (`exports[`name 1`] = `…`;`): each snapshot
 * is one expected value of the test it is named after (the name without its
 * counter), so rewriting it to agree with new output is a changed expected
 * value, and deleting it a removed assertion.
 */
function snapshotFacts(ts: typeof TS, sf: TS.SourceFile): FileFacts {
  const units = new Map<string, Unit>();
  for (const st of sf.statements) {
    if (!ts.isExpressionStatement(st) || !ts.isBinaryExpression(st.expression)) continue;
    const { left, right } = st.expression;
    if (!ts.isElementAccessExpression(left) || !ts.isStringLiteralLike(left.argumentExpression)) continue;
    const key = left.argumentExpression.text;
    const name = key.replace(/ \d+$/, '');
    const line = sf.getLineAndCharacterOfPosition(st.getStart(sf)).line + 1;
    const value = ts.isStringLiteralLike(right) ? right.text : right.getText(sf);
    let unit = units.get(name);
    if (!unit) {
      unit = {
        name,
        kind: 'test',
        line,
        end: line,
        marks: [],
        asserts: [],
        explicit: [],
        generators: [],
        assumes: [],
        property: false,
        body: [],
      };
      units.set(name, unit);
    }
    unit.end = sf.getLineAndCharacterOfPosition(st.getEnd()).line + 1;
    unit.asserts.push({
      line,
      matcher: 'toMatchSnapshot',
      subject: key,
      expected: value,
      text: `snapshot ${key}`,
    });
    unit.body.push(key);
  }
  return { units: [...units.values()], hooks: [], mocks: [], excludes: [], marks: [] };
}

interface Shape {
  root: string;
  mods: string[];
  modArgs: Map<string, readonly TS.Expression[]>;
}

class JsReader {
  private readonly facts: FileFacts = { units: [], hooks: [], mocks: [], excludes: [], marks: [] };

  constructor(
    readonly ts: typeof TS,
    private readonly sf: TS.SourceFile,
  ) {}

  read(): FileFacts {
    this.scope(this.sf.statements, [], []);
    return this.facts;
  }

  line(node: TS.Node): number {
    return this.sf.getLineAndCharacterOfPosition(node.getStart(this.sf)).line + 1;
  }

  endLine(node: TS.Node): number {
    return this.sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
  }

  text(node: TS.Node): string {
    const s = node.getText(this.sf).replace(/\s+/g, ' ').trim();
    return s.length <= MAX_TEXT ? s : `${s.slice(0, MAX_TEXT - 1)}…`;
  }

  dotted(node: TS.Node): string | undefined {
    const ts = this.ts;
    if (ts.isIdentifier(node)) return node.text;
    if (node.kind === ts.SyntaxKind.ThisKeyword) return 'this';
    if (ts.isPropertyAccessExpression(node)) {
      const left = this.dotted(node.expression);
      return left === undefined ? undefined : `${left}.${node.name.text}`;
    }
    if (ts.isParenthesizedExpression(node)) return this.dotted(node.expression);
    return undefined;
  }

  /** `it.skip.each(t)` → root `it`, mods `skip`, `each` (with its arguments). */
  shape(callee: TS.Expression): Shape | undefined {
    const ts = this.ts;
    const mods: string[] = [];
    const modArgs = new Map<string, readonly TS.Expression[]>();
    let e: TS.Expression = callee;
    for (let i = 0; i < 12; i++) {
      if (ts.isIdentifier(e)) return { root: e.text, mods, modArgs };
      if (ts.isPropertyAccessExpression(e)) {
        mods.unshift(e.name.text);
        e = e.expression;
      } else if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression)) {
        modArgs.set(e.expression.name.text, e.arguments);
        e = e.expression;
      } else return undefined;
    }
    return undefined;
  }

  marksOf(shape: Shape, node: TS.Node): Mark[] {
    const out: Mark[] = [];
    const root = ROOT_MARKS[shape.root];
    if (root) out.push({ kind: root, line: this.line(node), text: shape.root });
    for (const m of shape.mods) {
      const kind = Object.hasOwn(MOD_MARKS, m) ? MOD_MARKS[m] : undefined;
      if (kind) {
        const args = shape.modArgs.get(m);
        out.push({
          kind,
          line: this.line(node),
          text: `${shape.root}.${m}${args ? `(${args.map((a) => this.text(a)).join(', ')})` : ''}`,
        });
      }
    }
    return out;
  }

  title(arg: TS.Expression | undefined): string {
    const ts = this.ts;
    if (!arg) return '';
    if (ts.isStringLiteralLike(arg)) return arg.text;
    return this.text(arg);
  }

  lastFunction(args: readonly TS.Expression[]): TS.FunctionLikeDeclaration | undefined {
    for (let i = args.length - 1; i >= 0; i--) {
      const a = args[i]!;
      if (this.ts.isArrowFunction(a) || this.ts.isFunctionExpression(a)) return a;
    }
    return undefined;
  }

  /** Statements outside any test: suites, tests, hooks, mocks, seed and hits properties. */
  scope(statements: readonly TS.Statement[] | readonly TS.Node[], chain: string[], inherited: Mark[]): void {
    for (const s of statements) this.outside(s, chain, inherited);
  }

  outside(node: TS.Node, chain: string[], inherited: Mark[]): void {
    const ts = this.ts;
    if (ts.isCallExpression(node)) {
      const shape = this.shape(node.expression);
      const fn = this.lastFunction(node.arguments);
      if (shape && SUITE_ROOTS.has(shape.root) && fn) {
        const marks = [...inherited, ...this.marksOf(shape, node)];
        const title = this.title(node.arguments[0]);
        if (fn.body)
          this.scope(ts.isBlock(fn.body) ? fn.body.statements : [fn.body], [...chain, title], marks);
        return;
      }
      if (shape && TEST_ROOTS.has(shape.root)) {
        this.testUnit(node, shape, chain, inherited);
        return;
      }
      const name = this.dotted(node.expression);
      const last = name?.split('.').pop();
      if (last === 'defineSeedProperty' || last === 'defineProperty') {
        const def = node.arguments[0];
        if (def && ts.isObjectLiteralExpression(def)) {
          this.propertyUnit(def, last === 'defineSeedProperty' ? 'seed' : 'hits', node);
          return;
        }
      }
      if (name !== undefined && HOOKS.has(name) && fn) {
        this.facts.hooks.push(this.hook(name, node));
        // A hook's body runs around every test: its mocks are the file's.
        ts.forEachChild(node, (c) => this.outside(c, chain, inherited));
        return;
      }
      if (name !== undefined && this.isMock(name, node))
        this.facts.mocks.push({ line: this.line(node), text: this.text(node) });
      if (name === 'fc.configureGlobal' || name === 'configureGlobal') {
        const count = this.numRuns(node.arguments[0], node);
        if (count) this.facts.examples = count;
      }
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const target = this.dotted(node.left);
      if (target !== undefined && GLOBAL_OBJECTS.has(target.split('.')[0]!) && target.includes('.'))
        this.facts.mocks.push({ line: this.line(node), text: this.text(node) });
    }
    if (ts.isFunctionLike(node) && !ts.isArrowFunction(node) && !ts.isFunctionExpression(node)) return;
    ts.forEachChild(node, (c) => this.outside(c, chain, inherited));
  }

  isMock(name: string, call: TS.CallExpression): boolean {
    if (MOCKS.has(name)) return true;
    if (name === 'Object.defineProperty' || name === 'Object.assign' || name === 'Reflect.set') {
      const target = call.arguments[0] && this.dotted(call.arguments[0]);
      return target !== undefined && GLOBAL_OBJECTS.has(target);
    }
    return false;
  }

  hook(name: string, node: TS.CallExpression): Hook {
    return { name, line: this.line(node), digest: node.getText(this.sf).replace(/\s+/g, '') };
  }

  blank(name: string, kind: UnitKind, node: TS.Node): Unit {
    return {
      name,
      kind,
      line: this.line(node),
      end: this.endLine(node),
      marks: [],
      asserts: [],
      explicit: [],
      generators: [],
      assumes: [],
      property: false,
      body: [],
    };
  }

  testUnit(node: TS.CallExpression, shape: Shape, chain: string[], inherited: Mark[]): void {
    const ts = this.ts;
    const title = this.title(node.arguments[0]);
    const unit = this.blank([...chain, title].join(' > '), 'test', node);
    unit.marks = [...inherited, ...this.marksOf(shape, node)];
    const table = shape.modArgs.get('each') ?? shape.modArgs.get('for');
    if (table?.[0] && ts.isArrayLiteralExpression(table[0]))
      unit.cases = { count: table[0].elements.length, line: this.line(node) };
    const prop = shape.modArgs.get('prop');
    if (prop) {
      unit.property = true;
      const arbs = prop[0];
      if (arbs && ts.isArrayLiteralExpression(arbs))
        for (const [i, a] of arbs.elements.entries()) unit.generators.push(this.generatorAt(a, `#${i + 1}`));
      else if (arbs && ts.isObjectLiteralExpression(arbs))
        for (const p of arbs.properties)
          if (ts.isPropertyAssignment(p))
            unit.generators.push(this.generatorAt(p.initializer, this.text(p.name)));
      this.params(prop[1], unit);
    }
    const fn = this.lastFunction(node.arguments);
    if (fn) new BodyReader(this, unit, fn, false).read();
    this.facts.units.push(unit);
  }

  propertyUnit(def: TS.ObjectLiteralExpression, kind: UnitKind, node: TS.Node): void {
    const ts = this.ts;
    let name = '';
    const props = new Map<string, TS.Node>();
    for (const p of def.properties) {
      const key =
        p.name && (ts.isIdentifier(p.name) || ts.isStringLiteralLike(p.name)) ? p.name.text : undefined;
      if (key === undefined) continue;
      props.set(key, p);
      if (
        (key === 'id' || key === 'name') &&
        ts.isPropertyAssignment(p) &&
        ts.isStringLiteralLike(p.initializer)
      )
        name = p.initializer.text;
    }
    const unit = this.blank(name, kind, node);
    const check = props.get(kind === 'seed' ? 'property' : 'check');
    if (check && ts.isMethodDeclaration(check)) new BodyReader(this, unit, check, true).read();
    else if (check && ts.isPropertyAssignment(check)) {
      const value = check.initializer;
      if (ts.isArrowFunction(value) || ts.isFunctionExpression(value))
        new BodyReader(this, unit, value, true).read();
      else if (ts.isCallExpression(value)) this.property(value, unit);
    }
    const params = props.get('params');
    if (params && ts.isPropertyAssignment(params)) this.params(params.initializer, unit);
    this.facts.units.push(unit);
  }

  /** `fc.property(arb…, predicate)`: its arbitraries and, read as assertions, its predicate. */
  property(call: TS.CallExpression, unit: Unit): boolean {
    const ts = this.ts;
    const name = this.dotted(call.expression)?.split('.').pop();
    if (name !== 'property' && name !== 'asyncProperty') return false;
    unit.property = true;
    const args = call.arguments;
    const predicate = args[args.length - 1];
    for (const [i, a] of args.slice(0, -1).entries()) unit.generators.push(this.generatorAt(a, `#${i + 1}`));
    if (predicate && (ts.isArrowFunction(predicate) || ts.isFunctionExpression(predicate)))
      new BodyReader(this, unit, predicate, true).read();
    return true;
  }

  /** fast-check's run parameters: `numRuns`, `examples`. */
  params(node: TS.Expression | undefined, unit: Unit): void {
    const ts = this.ts;
    if (!node || !ts.isObjectLiteralExpression(node)) return;
    const count = this.numRuns(node, node);
    if (count) unit.examples = count;
    for (const p of node.properties) {
      if (!ts.isPropertyAssignment(p) || this.text(p.name) !== 'examples') continue;
      if (ts.isArrayLiteralExpression(p.initializer))
        for (const e of p.initializer.elements)
          unit.explicit.push({ line: this.line(e), text: this.text(e) });
    }
  }

  numRuns(node: TS.Expression | undefined, at: TS.Node): ExampleCount | undefined {
    const ts = this.ts;
    if (!node || !ts.isObjectLiteralExpression(node)) return undefined;
    for (const p of node.properties) {
      if (!ts.isPropertyAssignment(p) || this.text(p.name) !== 'numRuns') continue;
      const n = this.number(p.initializer);
      if (n !== undefined) return { value: n, line: this.line(at), key: 'numRuns' };
    }
    return undefined;
  }

  number(node: TS.Expression): number | undefined {
    const ts = this.ts;
    if (ts.isNumericLiteral(node)) return Number(node.text);
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) {
      const n = this.number(node.operand);
      return n === undefined ? undefined : -n;
    }
    if (ts.isParenthesizedExpression(node)) return this.number(node.expression);
    return undefined;
  }

  generatorAt(node: TS.Expression, slot: string): Generator {
    return { slot, line: this.line(node), ...this.generator(node) };
  }

  generator(node: TS.Expression): Generator {
    const ts = this.ts;
    const text = this.text(node);
    let filters = 0;
    let maps = 0;
    let e: TS.Expression = node;
    while (
      ts.isCallExpression(e) &&
      ts.isPropertyAccessExpression(e.expression) &&
      WRAPPERS.has(e.expression.name.text)
    ) {
      if (e.expression.name.text === 'filter') filters++;
      else if (e.expression.name.text === 'map' || e.expression.name.text === 'chain') maps++;
      e = e.expression.expression;
    }
    const out: Generator = { fn: '', text, bounds: {}, filters, maps, constant: false, restricts: [] };
    if (!ts.isCallExpression(e)) {
      out.fn = this.dotted(e)?.split('.').pop() ?? this.text(e);
      return out;
    }
    const fn = this.dotted(e.expression)?.split('.').pop() ?? '';
    out.fn = fn;
    out.constant = CONSTANT_FNS.has(fn);
    const args = e.arguments;
    for (const [i, a] of args.entries()) {
      if (ts.isObjectLiteralExpression(a)) {
        for (const p of a.properties) {
          if (!ts.isPropertyAssignment(p)) continue;
          const key = this.text(p.name);
          const n = this.number(p.initializer);
          const bound = Object.hasOwn(BOUND_KEYS, key) ? BOUND_KEYS[key] : undefined;
          if (bound && n !== undefined) out.bounds[bound] = n;
          else if (RESTRICT_KEYS.has(key) && p.initializer.kind !== ts.SyntaxKind.FalseKeyword)
            out.restricts.push(key);
        }
        continue;
      }
      const n = this.number(a);
      if (n !== undefined) {
        // fc.nat(max), and the positional (min, max) of older fast-check versions.
        if (fn === 'nat') out.bounds.max = n;
        else if (args.length >= 2 && i < 2) out.bounds[i === 0 ? 'min' : 'max'] = n;
      } else if (i === 0 && out.of === undefined && ts.isCallExpression(a) && !out.constant)
        out.of = this.generator(a);
    }
    out.restricts.sort();
    return out;
  }

  isLiteral(node: TS.Node): boolean {
    const ts = this.ts;
    if (
      ts.isStringLiteralLike(node) ||
      ts.isNumericLiteral(node) ||
      ts.isBigIntLiteral(node) ||
      ts.isRegularExpressionLiteral(node) ||
      node.kind === ts.SyntaxKind.TrueKeyword ||
      node.kind === ts.SyntaxKind.FalseKeyword ||
      node.kind === ts.SyntaxKind.NullKeyword ||
      (ts.isIdentifier(node) &&
        (node.text === 'undefined' || node.text === 'NaN' || node.text === 'Infinity'))
    )
      return true;
    if (ts.isPrefixUnaryExpression(node)) return this.isLiteral(node.operand);
    if (ts.isParenthesizedExpression(node)) return this.isLiteral(node.expression);
    if (ts.isArrayLiteralExpression(node)) return node.elements.every((e) => this.isLiteral(e));
    if (ts.isObjectLiteralExpression(node))
      return node.properties.every((p) => ts.isPropertyAssignment(p) && this.isLiteral(p.initializer));
    return false;
  }
}

/** Assertions, skips, fast-check runs and `fc.pre` in one test's (or property's) body. */
class BodyReader {
  private swallow = 0;
  private readonly param: string | undefined;

  constructor(
    private readonly r: JsReader,
    private readonly unit: Unit,
    private readonly fn: TS.FunctionLikeDeclaration,
    /** A property's predicate or check: what it returns or throws is its verdict. */
    private readonly predicate: boolean,
  ) {
    const first = fn.parameters[0];
    this.param = first && r.ts.isIdentifier(first.name) ? first.name.text : undefined;
  }

  read(): void {
    const ts = this.r.ts;
    const body = this.fn.body;
    if (!body) return;
    if (ts.isBlock(body)) {
      for (const s of body.statements) this.unit.body.push(this.r.text(s));
      this.statements(body.statements);
    } else {
      this.unit.body.push(this.r.text(body));
      if (this.predicate) this.verdict(body, body);
      this.visit(body);
    }
  }

  statements(list: readonly TS.Statement[]): void {
    const ts = this.r.ts;
    for (const s of list) {
      this.visit(s);
      // What follows an unconditional return (or throw) never runs.
      if (ts.isReturnStatement(s) || ts.isThrowStatement(s)) break;
    }
  }

  add(node: TS.Node, a: Omit<Assertion, 'line' | 'text'>): void {
    this.unit.asserts.push({
      line: this.r.line(node),
      text: this.r.text(node),
      ...a,
      ...(this.swallow > 0 ? { swallowed: true } : {}),
    });
  }

  /** A property's return value or throw: `return false` and `throw` fail it; `return true` checks nothing. */
  verdict(value: TS.Expression | undefined, node: TS.Node): void {
    const ts = this.r.ts;
    const cond = this.condition(node);
    if (!value) return;
    if (value.kind === ts.SyntaxKind.FalseKeyword) {
      this.add(node, { matcher: 'throw', subject: cond ?? this.r.text(value) });
      return;
    }
    this.add(node, {
      matcher: 'return',
      subject: this.r.text(value),
      ...(this.alwaysTrue(value) || (this.r.isLiteral(value) && !ts.isRegularExpressionLiteral(value))
        ? { expected: 'true' }
        : {}),
    });
  }

  /** `true`, or an `||` with an always-true side (`check(x) || true`): a verdict that can never fail. */
  alwaysTrue(e: TS.Expression): boolean {
    const ts = this.r.ts;
    if (e.kind === ts.SyntaxKind.TrueKeyword) return true;
    if (ts.isParenthesizedExpression(e)) return this.alwaysTrue(e.expression);
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.BarBarToken)
      return this.alwaysTrue(e.left) || this.alwaysTrue(e.right);
    return false;
  }

  /** The condition of the nearest `if` around a node inside this body. */
  condition(node: TS.Node): string | undefined {
    const ts = this.r.ts;
    for (let p = node.parent; p && p !== this.fn; p = p.parent)
      if (ts.isIfStatement(p)) return this.r.text(p.expression);
    return undefined;
  }

  visit(node: TS.Node): void {
    const ts = this.r.ts;
    if (ts.isFunctionDeclaration(node)) return;
    if (ts.isTryStatement(node)) {
      const catches = node.catchClause;
      const swallows = catches !== undefined && !this.throwsIn(catches.block);
      if (swallows) this.swallow++;
      this.statements(node.tryBlock.statements);
      if (swallows) this.swallow--;
      if (catches) this.statements(catches.block.statements);
      if (node.finallyBlock) this.statements(node.finallyBlock.statements);
      return;
    }
    if (ts.isIfStatement(node) && node.expression.kind === ts.SyntaxKind.FalseKeyword) {
      if (node.elseStatement) this.visit(node.elseStatement);
      return;
    }
    if (ts.isBlock(node)) {
      this.statements(node.statements);
      return;
    }
    if (this.predicate && ts.isReturnStatement(node) && this.ownBody(node))
      this.verdict(node.expression, node);
    if (this.predicate && ts.isThrowStatement(node) && this.ownBody(node))
      this.add(node, { matcher: 'throw', subject: this.condition(node) ?? this.r.text(node.expression) });
    if (ts.isExpressionStatement(node) && ts.isPropertyAccessExpression(node.expression)) {
      // chai's property matchers: `expect(x).to.be.true`.
      const found = this.expectChain(node.expression);
      if (found)
        this.add(node, { matcher: node.expression.name.text, subject: found.subject, ...found.flags });
    }
    if (ts.isCallExpression(node) && this.call(node)) return;
    ts.forEachChild(node, (c) => this.visit(c));
  }

  /** Whether a return or throw belongs to this function, not to a callback inside it. */
  ownBody(node: TS.Node): boolean {
    const ts = this.r.ts;
    for (let p = node.parent; p; p = p.parent) {
      if (p === this.fn) return true;
      if (ts.isFunctionLike(p)) return false;
    }
    return false;
  }

  throwsIn(block: TS.Block): boolean {
    const ts = this.r.ts;
    let found = false;
    const walk = (n: TS.Node) => {
      if (found) return;
      if (ts.isThrowStatement(n)) found = true;
      else if (!ts.isFunctionLike(n)) ts.forEachChild(n, walk);
    };
    walk(block);
    return found;
  }

  /** The `expect(x)` at the root of a matcher chain, and the chain's flags. */
  expectChain(
    chain: TS.PropertyAccessExpression,
  ): { subject: string; flags: { negated?: true }; subjectNode: TS.Expression | undefined } | undefined {
    const ts = this.r.ts;
    let negated = false;
    let e: TS.Expression = chain.expression;
    for (let i = 0; i < 12; i++) {
      if (ts.isPropertyAccessExpression(e)) {
        if (e.name.text === 'not') negated = !negated;
        e = e.expression;
        continue;
      }
      if (ts.isCallExpression(e)) {
        const callee = this.r.dotted(e.expression);
        if (callee === 'expect' || callee === 'expect.soft' || callee === 'chai.expect') {
          const arg = e.arguments[0];
          return {
            subject: arg ? this.r.text(arg) : '',
            flags: negated ? { negated: true } : {},
            subjectNode: arg,
          };
        }
      }
      return undefined;
    }
    return undefined;
  }

  /** Reads an assertion or a fast-check run; true when its arguments need no further reading. */
  call(node: TS.CallExpression): boolean {
    const ts = this.r.ts;
    const callee = node.expression;
    const name = this.r.dotted(callee);
    if (ts.isPropertyAccessExpression(callee)) {
      const found = this.expectChain(callee);
      if (found) {
        const matcher = callee.name.text;
        const arg = node.arguments[0];
        const vacuous =
          found.subjectNode !== undefined &&
          this.r.isLiteral(found.subjectNode) &&
          (!arg || this.r.isLiteral(arg));
        this.add(node, {
          matcher: vacuous ? 'const' : matcher,
          subject: found.subject,
          ...found.flags,
          ...(arg && this.r.isLiteral(arg) ? { expected: this.r.text(arg) } : {}),
          ...(/^toThrow|^rejects/.test(matcher) ? { arg: this.throwArg(arg) } : {}),
        });
        // The subject may hold a callback with assertions of its own (`expect(() => ...)`): read on.
        return false;
      }
    }
    if (name === 'expect' || name === 'expect.soft') {
      const parent = node.parent;
      const chained = ts.isPropertyAccessExpression(parent) && parent.expression === node;
      if (!chained)
        this.add(node, { matcher: '', subject: node.arguments[0] ? this.r.text(node.arguments[0]) : '' });
      return false;
    }
    if (name === 'assert' || name?.startsWith('assert.')) {
      const method = name === 'assert' ? 'assert' : name.slice('assert.'.length);
      const [a, b] = node.arguments;
      if (method === 'throws' || method === 'rejects' || method === 'doesNotThrow') {
        if (method !== 'doesNotThrow')
          this.add(node, { matcher: method, subject: a ? this.r.text(a) : '', arg: this.throwArg(b) });
      } else if (method === 'fail') {
        this.add(node, { matcher: 'throw', subject: this.r.text(node) });
      } else {
        this.add(node, {
          matcher: a && this.r.isLiteral(a) && (!b || this.r.isLiteral(b)) ? 'const' : method,
          subject: a ? this.r.text(a) : '',
          ...(method.startsWith('not') || method.startsWith('notDeep') ? { negated: true } : {}),
          ...(b && this.r.isLiteral(b) ? { expected: this.r.text(b) } : {}),
        });
      }
      return false;
    }
    if (name === 'fc.assert' || name === 'fc.check') {
      const prop = node.arguments[0];
      if (prop && ts.isCallExpression(prop) && this.r.property(prop, this.unit)) {
        this.r.params(node.arguments[1], this.unit);
        return true;
      }
      return false;
    }
    if (name !== undefined && /(^|\.)(property|asyncProperty)$/.test(name) && name.startsWith('fc.')) {
      return this.r.property(node, this.unit);
    }
    if (name === 'fc.pre' || name === 'pre') {
      this.unit.assumes.push({ line: this.r.line(node), text: this.r.text(node) });
      return false;
    }
    if (name !== undefined && NO_ARG_SKIP.has(name.split('.').pop() ?? '')) {
      const owner = name.split('.').slice(0, -1).join('.');
      if (
        owner === 'this' ||
        (owner !== '' && owner === this.param) ||
        owner === 'ctx' ||
        owner === 'context'
      )
        this.unit.marks.push({ kind: 'skip', line: this.r.line(node), text: this.r.text(node) });
    }
    return false;
  }

  throwArg(arg: TS.Expression | undefined): Assertion['arg'] {
    const ts = this.r.ts;
    if (!arg) return 'none';
    if (
      ts.isStringLiteralLike(arg) ||
      ts.isRegularExpressionLiteral(arg) ||
      ts.isNewExpression(arg) ||
      ts.isObjectLiteralExpression(arg)
    )
      return 'literal';
    if (ts.isIdentifier(arg)) return arg.text === 'Error' ? 'broad' : 'name';
    return 'name';
  }
}
