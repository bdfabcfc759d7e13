/**
 * Mutants of the TypeScript and JavaScript functions a patch touched, for the
 * mutation probe (issue 22): do the base's tests still see the code they
 * used to? Parsed with the TypeScript compiler (syntax only, never
 * type-checked, never run here); a mutant is a text edit of the source.
 *
 * A mutant's identity is its function, its operator, the text of the
 * expression or statement it changes (blanks collapsed) and the ordinal of
 * that text among the function's sites of the same operator. The same edit of
 * the same code is then the same mutant on the base and on the head wherever
 * the function kept that code, however lines moved around it.
 *
 * Suppressed by construction (mutants that cannot tell tests apart, or that
 * only tell whether the code still loads):
 * - nothing inside a logging call (`console.*`, and `debug`/`info`/`warn`/
 *   `error`/`trace`/`log` called on something named like a logger), and
 *   no dropping of one: logging is not behaviour a test is asked to see;
 * - nothing in the declaration or an assignment of a variable that only
 *   logging calls read (`const shown = secret ? '***' : value` before a
 *   `log.debug(shown)`), for the same reason;
 * - nothing in a type (only value expressions and statements are visited);
 * - no dropping of a `super(…)` call: a constructor that cannot build its
 *   object fails every test that makes one, whatever the tests check;
 * - no arithmetic swap next to a string literal or template: that is text
 *   being joined, and `-` of a string is NaN, which any use shows;
 * - no mutant inside a nested named function: that function is a site of
 *   its own when the patch touched it (an anonymous callback is part of
 *   the function it is written in).
 */
import type TS from 'typescript';
import { parseScript, syntaxErrors, unwrapExpression } from '../../util/typescript.js';

import {
  type FunctionSite,
  type LineRange,
  type Mutant,
  type MutationOperator,
  type RawMutant,
  withIds,
} from './mutant.js';

const COMPARISON: Record<string, string> = {
  '<': '>=',
  '<=': '>',
  '>': '<=',
  '>=': '<',
  '===': '!==',
  '!==': '===',
  '==': '!=',
  '!=': '==',
};
const LOGICAL: Record<string, string> = { '&&': '||', '||': '&&' };
const ARITHMETIC: Record<string, string> = { '+': '-', '-': '+', '*': '/', '/': '*', '%': '*' };
const LOG_METHODS = new Set(['debug', 'info', 'warn', 'error', 'trace', 'log']);
const LOGGER_NAME = /^(console|log|logger|_?log(ger)?s?|.*Logger)$/i;
const RAISE = "throw new Error('patchgate mutant')";

interface Parsed {
  ts: typeof TS;
  sf: TS.SourceFile;
  text: string;
}

function parse(ts: typeof TS, text: string, fileName: string): Parsed {
  return { ts, sf: parseScript(ts, fileName, text), text };
}

type FunctionNode = TS.FunctionLikeDeclaration & { body: TS.Node };

function isFunctionWithBody(ts: typeof TS, n: TS.Node): n is FunctionNode {
  return (
    (ts.isFunctionDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isConstructorDeclaration(n) ||
      ts.isGetAccessorDeclaration(n) ||
      ts.isSetAccessorDeclaration(n) ||
      ts.isArrowFunction(n) ||
      ts.isFunctionExpression(n)) &&
    n.body !== undefined
  );
}

function propertyName(ts: typeof TS, name: TS.PropertyName | TS.BindingName | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

/** A name for a function node, given its parent; undefined for an anonymous one. */
function ownName(ts: typeof TS, n: FunctionNode): string | undefined {
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  if (ts.isGetAccessorDeclaration(n)) return `get ${propertyName(ts, n.name) ?? '?'}`;
  if (ts.isSetAccessorDeclaration(n)) return `set ${propertyName(ts, n.name) ?? '?'}`;
  if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isFunctionExpression(n)) {
    const own = n.name ? propertyName(ts, n.name) : undefined;
    if (own !== undefined) return own;
  }
  const p = n.parent;
  if (ts.isVariableDeclaration(p) && p.initializer === n) return propertyName(ts, p.name);
  if (ts.isPropertyAssignment(p) && p.initializer === n) return propertyName(ts, p.name);
  if (ts.isPropertyDeclaration(p) && p.initializer === n) return propertyName(ts, p.name);
  if (ts.isExportAssignment(p)) return 'default';
  if (ts.isFunctionDeclaration(n)) return 'default';
  return undefined;
}

interface FoundFunction extends FunctionSite {
  node: FunctionNode;
}

/**
 * Every function site, outermost first, each keyed by its place among its
 * enclosing scopes. A site is a function with a name (declared, a method, or
 * assigned to a variable or property), or an anonymous one outside every
 * other site; an anonymous function inside a site (a callback handed to
 * `map`, say) is part of that site, as its code reads.
 */
function functionsOf(p: Parsed): FoundFunction[] {
  const { ts, sf } = p;
  const out: FoundFunction[] = [];
  const used = new Map<string, number>();
  const visit = (node: TS.Node, scope: string[], anonymous: { n: number }, inSite: boolean) => {
    let inner = scope;
    let innerAnonymous = anonymous;
    let innerInSite = inSite;
    const named = isFunctionWithBody(ts, node) ? ownName(ts, node) : undefined;
    if (ts.isClassLike(node)) {
      inner = [...scope, node.name?.text ?? 'class'];
      innerAnonymous = { n: 0 };
    } else if (isFunctionWithBody(ts, node) && (named !== undefined || !inSite)) {
      const name = named ?? `<${ts.isArrowFunction(node) ? 'arrow' : 'function'} ${++anonymous.n}>`;
      let key = [...scope, name].join('.');
      const seen = (used.get(key) ?? 0) + 1;
      used.set(key, seen);
      if (seen > 1) key = `${key}#${seen}`;
      const startLine = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      const endLine = sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      out.push({ key, startLine, endLine, node });
      inner = key.split('.');
      innerAnonymous = { n: 0 };
      innerInSite = true;
    }
    ts.forEachChild(node, (c) => visit(c, inner, innerAnonymous, innerInSite));
  };
  visit(sf, [], { n: 0 }, false);
  return out;
}

/**
 * The functions of `text` that hold a changed line: for each line of
 * `changed`, the innermost function around it. Lines outside every function
 * (module code, imports) are returned apart.
 */
/**
 * The lines that hold code: some token starts, ends or runs across them. A
 * blank line or one with only a comment changes nothing a function does, so
 * an edit of it touches no function and is no module code either.
 */
function codeLines(p: Parsed): Set<number> {
  const lines = new Set<number>();
  const lineOf = (pos: number) => p.sf.getLineAndCharacterOfPosition(pos).line + 1;
  const { ts } = p;
  const visit = (n: TS.Node): void => {
    // A JSDoc comment is a child node too, and still only a comment.
    if (n.kind >= ts.SyntaxKind.FirstJSDocNode && n.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = n.getChildren(p.sf);
    if (children.length === 0) {
      if (n.kind === ts.SyntaxKind.EndOfFileToken) return;
      for (let l = lineOf(n.getStart(p.sf)), end = lineOf(n.getEnd()); l <= end; l++) lines.add(l);
      return;
    }
    for (const c of children) visit(c);
  };
  visit(p.sf);
  return lines;
}

export function touchedFunctions(
  ts: typeof TS,
  text: string,
  fileName: string,
  changed: readonly LineRange[],
): { functions: FunctionSite[]; outside: number[] } {
  const p = parse(ts, text, fileName);
  const all = functionsOf(p);
  const code = codeLines(p);
  const hit = new Map<string, FunctionSite>();
  const outside: number[] = [];
  for (const r of changed)
    for (let line = r.start; line <= r.end; line++) {
      if (!code.has(line)) continue;
      let innermost: FoundFunction | undefined;
      for (const f of all)
        if (f.startLine <= line && line <= f.endLine) {
          if (!innermost || f.startLine >= innermost.startLine) innermost = f;
        }
      if (innermost)
        hit.set(innermost.key, {
          key: innermost.key,
          startLine: innermost.startLine,
          endLine: innermost.endLine,
        });
      else outside.push(line);
    }
  return { functions: [...hit.values()].sort((a, b) => a.startLine - b.startLine), outside };
}

/** The keys of every function site of `text`. */
export function functionKeys(ts: typeof TS, text: string, fileName: string): string[] {
  return functionsOf(parse(ts, text, fileName)).map((f) => f.key);
}

function isLoggingCall(ts: typeof TS, n: TS.Node): boolean {
  if (!ts.isCallExpression(n) || !ts.isPropertyAccessExpression(n.expression)) return false;
  const target = n.expression.expression;
  const method = n.expression.name.text;
  const owner = ts.isIdentifier(target)
    ? target.text
    : ts.isPropertyAccessExpression(target)
      ? target.name.text
      : target.kind === ts.SyntaxKind.ThisKeyword
        ? 'this'
        : '';
  if (owner === 'console') return true;
  return LOG_METHODS.has(method) && LOGGER_NAME.test(owner);
}

/** Whether an identifier is one that reads a variable (not a declared name, a property name or a label). */
function readsVariable(ts: typeof TS, id: TS.Identifier): boolean {
  const parent = id.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === id) return false;
  if (ts.isQualifiedName(parent) && parent.right === id) return false;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isParameter(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isBindingElement(parent)) &&
    parent.name === id
  )
    return false;
  if (
    ts.isBinaryExpression(parent) &&
    parent.left === id &&
    parent.operatorToken.kind === ts.SyntaxKind.EqualsToken
  )
    return false;
  return !ts.isLabeledStatement(parent) && !ts.isBreakOrContinueStatement(parent);
}

/** What a value only logging reads may call and still be left out of the probe: text conversions, no effects. */
const TEXT_CALLS = new Set(['String', 'JSON.stringify']);

/**
 * The variable a declaration or an assignment statement stores to, when it
 * stores to one by name a value that calls nothing but a text conversion (a
 * call with effects is behaviour, whoever reads its result).
 */
function storedName(ts: typeof TS, n: TS.Node): string | undefined {
  let name: string | undefined;
  let value: TS.Node | undefined;
  if (ts.isVariableDeclaration(n)) {
    name = ts.isIdentifier(n.name) ? n.name.text : undefined;
    value = n.initializer;
  } else if (ts.isExpressionStatement(n)) {
    const e = unwrapExpression(ts, n.expression);
    if (
      ts.isBinaryExpression(e) &&
      ts.isIdentifier(e.left) &&
      e.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      e.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    ) {
      name = e.left.text;
      value = e.right;
    }
  }
  if (name === undefined) return undefined;
  let effects = false;
  const look = (c: TS.Node): void => {
    if (ts.isCallExpression(c) || ts.isNewExpression(c) || ts.isAwaitExpression(c) || ts.isYieldExpression(c))
      effects ||= !(ts.isCallExpression(c) && TEXT_CALLS.has(c.expression.getText()));
    // `++`, `--`, and an assignment inside the value change something else.
    const increments =
      ts.isPostfixUnaryExpression(c) ||
      (ts.isPrefixUnaryExpression(c) &&
        (c.operator === ts.SyntaxKind.PlusPlusToken || c.operator === ts.SyntaxKind.MinusMinusToken));
    const assigns =
      ts.isBinaryExpression(c) &&
      c.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      c.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
    effects ||= increments || assigns;
    ts.forEachChild(c, look);
  };
  if (value) look(value);
  return effects ? undefined : name;
}

/**
 * The function's variables that only logging calls read (a message's
 * redacted value, say), directly or through other such variables
 * (`shown = shown + '!'` feeds only the log when `shown` does).
 */
function logOnlyNames(ts: typeof TS, fn: TS.Node): Set<string> {
  const declared = new Set<string>();
  // Each read: the variable, and where it goes: a logging call, a store to a variable, or anything else.
  const reads: { name: string; into: 'log' | 'other' | { store: string } }[] = [];
  const scan = (n: TS.Node, into: 'log' | 'other' | { store: string }): void => {
    let here = into;
    if (into !== 'log' && isLoggingCall(ts, n)) here = 'log';
    else if (into === 'other') {
      const stored = storedName(ts, n);
      if (stored !== undefined) here = { store: stored };
    }
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) declared.add(n.name.text);
    if (ts.isIdentifier(n) && readsVariable(ts, n)) reads.push({ name: n.text, into: here });
    ts.forEachChild(n, (c) => scan(c, here));
  };
  scan(fn, 'other');
  const names = new Set(reads.filter((r) => r.into === 'log' && declared.has(r.name)).map((r) => r.name));
  for (let changed = true; changed; ) {
    changed = false;
    for (const r of reads) {
      const feedsLog = r.into === 'log' || (typeof r.into === 'object' && names.has(r.into.store));
      if (!feedsLog && names.delete(r.name)) changed = true;
    }
  }
  return names;
}

/** A declaration or assignment of a variable only logging reads: its value is no behaviour a test sees. */
function isLogOnlyStore(ts: typeof TS, n: TS.Node, names: ReadonlySet<string>): boolean {
  const stored = names.size > 0 ? storedName(ts, n) : undefined;
  return stored !== undefined && names.has(stored);
}

function isStringy(ts: typeof TS, n: TS.Expression): boolean {
  const e = unwrapExpression(ts, n);
  return ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isTemplateExpression(e);
}

/** A return value that reads as a truth value: negating it is the meaningful mutant, not a constant. */
function isBooleanish(ts: typeof TS, n: TS.Expression): boolean {
  const e = unwrapExpression(ts, n);
  if (e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword) return true;
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.ExclamationToken) return true;
  if (ts.isBinaryExpression(e)) {
    const op = e.operatorToken.getText();
    return op in COMPARISON || op in LOGICAL || op === 'instanceof' || op === 'in';
  }
  return false;
}

/** A constant of the literal's own kind when the value is one; otherwise `undefined`. */
function constantFor(ts: typeof TS, n: TS.Expression): string {
  const e = unwrapExpression(ts, n);
  if (ts.isNumericLiteral(e)) return e.text === '0' ? '1' : '0';
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e))
    return e.text === '' ? "'patchgate'" : "''";
  if (e.kind === ts.SyntaxKind.NullKeyword) return 'undefined';
  if (ts.isArrayLiteralExpression(e)) return e.elements.length === 0 ? 'undefined' : '[]';
  return 'undefined';
}

/**
 * Whether the file still parses with the mutant in. Only a new `<` or `>` can
 * break it: `a < (b > (c))` reads to TypeScript as a call with type
 * arguments, so such a flip is made only where the result parses (a mutant
 * that does not compile is killed on both sides and tells nothing).
 */
function stillParses(p: Parsed, fileName: string, m: RawMutant): boolean {
  if (!/[<>]/.test(m.replacement)) return true;
  const out = p.text.slice(0, m.start) + m.replacement + p.text.slice(m.end);
  return syntaxErrors(parseScript(p.ts, fileName, out)).length <= syntaxErrors(p.sf).length;
}

/**
 * The mutants of the function `key` of `text` (see {@link touchedFunctions}
 * for the keys), in source order. Empty when the function is not there.
 */
export function mutantsOf(ts: typeof TS, text: string, fileName: string, key: string): Mutant[] {
  const p = parse(ts, text, fileName);
  const sites = functionsOf(p);
  const fn = sites.find((f) => f.key === key);
  if (!fn) return [];
  const otherSites = new Set<TS.Node>(sites.filter((f) => f !== fn).map((f) => f.node));
  const { sf } = p;
  const raw: RawMutant[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const add = (
    operator: MutationOperator,
    whole: TS.Node,
    start: number,
    end: number,
    replacement: string,
  ) => {
    const before = text.slice(start, end);
    if (before === replacement) return;
    const wholeStart = whole.getStart(sf);
    const original = text.slice(wholeStart, whole.getEnd());
    const mutated = text.slice(wholeStart, start) + replacement + text.slice(end, whole.getEnd());
    raw.push({ operator, line: lineOf(start), start, end, replacement, original, mutated });
  };
  const logOnly = logOnlyNames(p.ts, fn.node);
  const visit = (n: TS.Node): void => {
    if (otherSites.has(n)) return;
    if (isLoggingCall(p.ts, n) || isLogOnlyStore(p.ts, n, logOnly)) return;
    const ts = p.ts;
    if (ts.isBinaryExpression(n)) {
      const tok = n.operatorToken;
      const op = tok.getText(sf);
      const flipped = COMPARISON[op];
      if (flipped) add('flip-comparison', n, tok.getStart(sf), tok.getEnd(), flipped);
      const other = LOGICAL[op];
      if (other) add('flip-boolean', n, tok.getStart(sf), tok.getEnd(), other);
      const swapped = ARITHMETIC[op];
      if (swapped && !isStringy(ts, n.left) && !isStringy(ts, n.right))
        add('swap-arithmetic', n, tok.getStart(sf), tok.getEnd(), swapped);
    } else if (ts.isPrefixUnaryExpression(n) && n.operator === ts.SyntaxKind.ExclamationToken) {
      add('flip-boolean', n, n.getStart(sf), n.operand.getStart(sf), '');
    } else if (
      (n.kind === ts.SyntaxKind.TrueKeyword || n.kind === ts.SyntaxKind.FalseKeyword) &&
      // `return true` is negated by negate-return already: the same edit twice is one mutant.
      !(ts.isReturnStatement(n.parent) || (n.parent === fn.node && ts.isArrowFunction(fn.node)))
    ) {
      add(
        'flip-boolean',
        n,
        n.getStart(sf),
        n.getEnd(),
        n.kind === ts.SyntaxKind.TrueKeyword ? 'false' : 'true',
      );
    } else if (ts.isReturnStatement(n) && n.expression) {
      const e = n.expression;
      if (isBooleanish(ts, e)) add('negate-return', n, e.getStart(sf), e.getEnd(), `!(${e.getText(sf)})`);
      else add('constant-return', n, e.getStart(sf), e.getEnd(), constantFor(ts, e));
      add('raise', n, n.getStart(sf), n.getEnd(), `${RAISE};`);
    } else if (ts.isExpressionStatement(n)) {
      const e = unwrapExpression(ts, n.expression);
      const superCall = ts.isCallExpression(e) && e.expression.kind === ts.SyntaxKind.SuperKeyword;
      const directive = ts.isStringLiteral(e);
      if (!superCall && !directive && !isLoggingCall(ts, e))
        add('drop-statement', n, n.getStart(sf), n.getEnd(), ';');
    }
    // An arrow function's expression body is its return value.
    if (n === fn.node && ts.isArrowFunction(n) && !ts.isBlock(n.body)) {
      const e = n.body as TS.Expression;
      if (isBooleanish(ts, e)) add('negate-return', e, e.getStart(sf), e.getEnd(), `!(${e.getText(sf)})`);
      else add('constant-return', e, e.getStart(sf), e.getEnd(), `(${constantFor(ts, e)})`);
      add('raise', e, e.getStart(sf), e.getEnd(), `(() => { ${RAISE}; })()`);
    }
    ts.forEachChild(n, visit);
  };
  visit(fn.node);
  return withIds(
    key,
    raw.filter((m) => stillParses(p, fileName, m)),
    text,
  );
}
