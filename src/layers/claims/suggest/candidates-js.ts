/**
 * TypeScript and JavaScript candidates, from the compiler's AST of the head's
 * text (the base's text is parsed too, for what "new" and "changed" mean). A
 * node counts when it starts on an added line of a hunk:
 *
 * - `return` statements → `return`;
 * - `throw` statements → `throw`, with the class as detail when it throws
 *   `new X(...)` or `X(...)`;
 * - `new X(...)` where X ends in Error/Exception/Failure/Fault and is not
 *   thrown right there (returned, rejected, passed on) → `error-type`;
 * - a number from 100 to 599 held under a status name (`status`,
 *   `statusCode`, `status_code`, `code`, `httpStatus`: a property, a
 *   variable, an assignment target), passed to `.status()`, `.sendStatus()`,
 *   `.code()` or `.writeHead()`, or returned from a function whose name
 *   mentions status or code → `status`, detail `status 504`;
 * - `field`: a property (`key: v`, shorthand `key`) of an object literal
 *   that is returned (a `return`, an arrow function's body), passed to a call
 *   or `new` (sent, saved, logged), or assigned (to a variable or property),
 *   nested literals and arrays included; a `this.x = …` assignment; a class
 *   property declaration. Only names the base's text of the file never used
 *   as any of those count ("new field refunded_cents"); a property that is
 *   already a `status` candidate is not repeated as a field;
 * - a return, throw, `new X(...)` or status number that the hunk's removed
 *   lines held with the same text (the line was rewritten around it, as
 *   when only its comparison changed) is not new, and no candidate;
 * - `comparison`: `<` `<=` `>` `>=` `==` `!=` `===` `!==` whose operator is on
 *   an added line. A comparison on the hunk's removed lines (in the base's
 *   AST) with the same operands and another operator makes it `a <= b became
 *   a < b`; the same operands and operator (or mirrored: `b > a` for `a < b`)
 *   make it no candidate (the line changed for something else); otherwise it
 *   is a `new comparison`.
 */
import type TS from 'typescript';
import type { Hunk } from '../../../git/hunks.js';
import { parseScript, unwrapExpression } from '../../../util/typescript.js';
import {
  type Candidate,
  type CandidateKind,
  type Comparison,
  clip,
  comparisonDetail,
  isStatusCode,
  lineAt,
  STATUS_NAME,
  splitLines,
  squash,
} from './candidates.js';
import { enclosingSymbol, type Span, spansOfSource } from './symbols.js';

const ERROR_CLASS = /(?:Error|Exception|Failure|Fault)$/;
const STATUS_CALL = /^(?:status|sendStatus|code|writeHead)$/;
const STATUS_FUNCTION = /status|code/i;

function comparisonOps(ts: typeof TS): ReadonlySet<TS.SyntaxKind> {
  const k = ts.SyntaxKind;
  return new Set([
    k.LessThanToken,
    k.LessThanEqualsToken,
    k.GreaterThanToken,
    k.GreaterThanEqualsToken,
    k.EqualsEqualsToken,
    k.ExclamationEqualsToken,
    k.EqualsEqualsEqualsToken,
    k.ExclamationEqualsEqualsToken,
  ]);
}

/** `a.b.c` for an identifier / property-access chain, else undefined. */
function dotted(ts: typeof TS, node: TS.Node): string | undefined {
  if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) return node.text;
  if (node.kind === ts.SyntaxKind.ThisKeyword) return 'this';
  if (ts.isPropertyAccessExpression(node)) {
    const left = dotted(ts, node.expression);
    return left === undefined ? undefined : `${left}.${node.name.text}`;
  }
  if (ts.isParenthesizedExpression(node)) return dotted(ts, node.expression);
  return undefined;
}

function lastName(name: string | undefined): string | undefined {
  return name?.slice(name.lastIndexOf('.') + 1);
}

function propertyName(ts: typeof TS, name: TS.PropertyName | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name) || ts.isNumericLiteral(name))
    return name.text;
  return undefined;
}

/** The node a value sits in, past parentheses, `as`, `satisfies`, `!` and `<T>` casts. */
function outerParent(ts: typeof TS, node: TS.Node): { parent: TS.Node; child: TS.Node } {
  let child = node;
  let parent = node.parent;
  while (
    ts.isParenthesizedExpression(parent) ||
    ts.isAsExpression(parent) ||
    ts.isSatisfiesExpression(parent) ||
    ts.isTypeAssertionExpression(parent) ||
    ts.isNonNullExpression(parent)
  ) {
    child = parent;
    parent = parent.parent;
  }
  return { parent, child };
}

/** Whether an object literal is returned, passed on or assigned (see the module comment). */
function objectIsKept(ts: typeof TS, literal: TS.ObjectLiteralExpression): boolean {
  let node: TS.Node = literal;
  for (;;) {
    const { parent, child } = outerParent(ts, node);
    if (ts.isReturnStatement(parent)) return true;
    if (ts.isArrowFunction(parent)) return parent.body === child;
    if (ts.isCallExpression(parent) || ts.isNewExpression(parent))
      return parent.arguments?.includes(child as TS.Expression) ?? false;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent))
      return parent.initializer === child;
    if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken)
      return parent.right === child;
    if (
      ts.isPropertyAssignment(parent) ||
      ts.isArrayLiteralExpression(parent) ||
      ts.isSpreadElement(parent) ||
      ts.isSpreadAssignment(parent) ||
      ts.isObjectLiteralExpression(parent) ||
      (ts.isConditionalExpression(parent) && parent.condition !== child) ||
      ts.isAwaitExpression(parent)
    ) {
      node = parent;
      continue;
    }
    return false;
  }
}

interface Parsed {
  source: TS.SourceFile;
  lineOf(node: TS.Node): number;
}

function parsed(ts: typeof TS, file: string, text: string): Parsed {
  const source = parseScript(ts, file, text);
  return {
    source,
    lineOf: (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
  };
}

function walk(ts: typeof TS, root: TS.Node, visit: (node: TS.Node) => void): void {
  const go = (node: TS.Node): void => {
    visit(node);
    ts.forEachChild(node, go);
  };
  go(root);
}

/** Every name the file uses as a field (object-literal property, class property, `this.x =`). */
function fieldNames(ts: typeof TS, source: TS.SourceFile): Set<string> {
  const names = new Set<string>();
  walk(ts, source, (node) => {
    if (ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node)) {
      const n = propertyName(ts, node.name);
      if (n !== undefined) names.add(n);
    } else if (ts.isShorthandPropertyAssignment(node)) names.add(node.name.text);
    else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) &&
      node.left.expression.kind === ts.SyntaxKind.ThisKeyword
    )
      names.add(node.left.name.text);
  });
  return names;
}

function comparisonOf(source: TS.SourceFile, node: TS.BinaryExpression): Comparison {
  return {
    left: node.left.getText(source),
    op: node.operatorToken.getText(source),
    right: node.right.getText(source),
  };
}

/**
 * What makes a return, throw, error construction or number the same on both
 * sides of a rewritten line: its kind and its text, whitespace squashed.
 */
function statementKey(ts: typeof TS, source: TS.SourceFile, node: TS.Node): string | undefined {
  if (ts.isReturnStatement(node)) return `return ${squash(node.getText(source))}`;
  if (ts.isThrowStatement(node)) return `throw ${squash(node.getText(source))}`;
  if (ts.isNewExpression(node)) return `new ${squash(node.getText(source))}`;
  if (ts.isNumericLiteral(node)) return `number ${Number(node.text)}`;
  return undefined;
}

/** The candidates of one TypeScript/JavaScript file, and its head spans. */
export function jsCandidates(
  ts: typeof TS,
  file: string,
  hunks: readonly Hunk[],
  head: string,
  base: string | undefined,
): { candidates: Candidate[]; spans: Span[] } {
  const addedIn = new Map<number, number>();
  const removedIn = new Map<number, number>();
  hunks.forEach((h, i) => {
    for (const a of h.added) addedIn.set(a.line, i);
    for (const r of h.removed) removedIn.set(r.line, i);
  });
  const h = parsed(ts, file, head);
  const spans = spansOfSource(ts, h.source);
  const headLines = splitLines(head);
  const ops = comparisonOps(ts);

  // The base: its field names (for "new"), and what each hunk's removed lines held: comparisons, and the
  // returns, throws, error types and numbers a rewritten line may only have carried over.
  const baseFields = new Set<string>();
  const removedComparisons = new Map<number, Comparison[]>();
  const removedKeys = new Map<number, Set<string>>();
  if (base !== undefined) {
    const b = parsed(ts, file, base);
    for (const n of fieldNames(ts, b.source)) baseFields.add(n);
    walk(ts, b.source, (node) => {
      if (ts.isBinaryExpression(node) && ops.has(node.operatorToken.kind)) {
        const hunk = removedIn.get(b.lineOf(node.operatorToken));
        if (hunk === undefined) return;
        const list = removedComparisons.get(hunk) ?? [];
        list.push(comparisonOf(b.source, node));
        removedComparisons.set(hunk, list);
        return;
      }
      const key = statementKey(ts, b.source, node);
      const hunk = key === undefined ? undefined : removedIn.get(b.lineOf(node));
      if (key === undefined || hunk === undefined) return;
      const keys = removedKeys.get(hunk) ?? new Set<string>();
      keys.add(key);
      removedKeys.set(hunk, keys);
    });
  }
  /** A statement the hunk's removed lines already held (the line changed around it) is not new. */
  const carried = (node: TS.Node, line: number) => {
    const key = statementKey(ts, h.source, node);
    return key !== undefined && (removedKeys.get(addedIn.get(line) ?? -1)?.has(key) ?? false);
  };

  const out: Candidate[] = [];
  const statusHolders = new Set<TS.Node>();
  const add = (line: number, kind: CandidateKind, detail?: string) => {
    const symbol = enclosingSymbol(spans, line);
    out.push({
      file,
      line,
      kind,
      text: clip(lineAt(headLines, line)),
      ...(symbol !== undefined ? { symbol } : {}),
      ...(detail !== undefined ? { detail } : {}),
    });
  };
  const isAdded = (line: number) => addedIn.has(line);

  /** Whether a number is held as a status; the property, binding or assignment holding it is remembered. */
  const statusContext = (literal: TS.Node): boolean => {
    const { parent, child } = outerParent(ts, literal);
    let holds = false;
    if (ts.isPropertyAssignment(parent))
      holds = parent.initializer === child && STATUS_NAME.test(propertyName(ts, parent.name) ?? '');
    else if (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent))
      holds =
        parent.initializer === child &&
        (ts.isIdentifier(parent.name) || ts.isPrivateIdentifier(parent.name)) &&
        STATUS_NAME.test(parent.name.text);
    else if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken)
      holds = parent.right === child && STATUS_NAME.test(lastName(dotted(ts, parent.left)) ?? '');
    else if (ts.isCallExpression(parent))
      return parent.arguments[0] === child && STATUS_CALL.test(lastName(dotted(ts, parent.expression)) ?? '');
    else if (ts.isReturnStatement(parent) || (ts.isArrowFunction(parent) && parent.body === child))
      return STATUS_FUNCTION.test(lastName(enclosingSymbol(spans, h.lineOf(literal))) ?? '');
    if (holds) statusHolders.add(parent);
    return holds;
  };

  // Status first: a property that holds a status is not also reported as a new field.
  walk(ts, h.source, (node) => {
    if (ts.isNumericLiteral(node) && isAdded(h.lineOf(node))) {
      const value = Number(node.text);
      if (isStatusCode(value) && statusContext(node) && !carried(node, h.lineOf(node)))
        add(h.lineOf(node), 'status', `status ${value}`);
    }
  });

  walk(ts, h.source, (node) => {
    if (ts.isReturnStatement(node)) {
      if (isAdded(h.lineOf(node)) && !carried(node, h.lineOf(node))) add(h.lineOf(node), 'return');
    } else if (ts.isThrowStatement(node)) {
      if (!isAdded(h.lineOf(node)) || carried(node, h.lineOf(node))) return;
      const e = unwrapExpression(ts, node.expression);
      const cls = ts.isNewExpression(e) || ts.isCallExpression(e) ? dotted(ts, e.expression) : undefined;
      add(h.lineOf(node), 'throw', cls);
    } else if (ts.isNewExpression(node)) {
      const cls = dotted(ts, node.expression);
      if (!cls || !ERROR_CLASS.test(lastName(cls) ?? '') || !isAdded(h.lineOf(node))) return;
      if (ts.isThrowStatement(outerParent(ts, node).parent) || carried(node, h.lineOf(node))) return;
      add(h.lineOf(node), 'error-type', cls);
    } else if (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) {
      if (!isAdded(h.lineOf(node)) || statusHolders.has(node)) return;
      const name = ts.isShorthandPropertyAssignment(node) ? node.name.text : propertyName(ts, node.name);
      if (name === undefined || baseFields.has(name)) return;
      if (!ts.isObjectLiteralExpression(node.parent) || !objectIsKept(ts, node.parent)) return;
      add(h.lineOf(node), 'field', `new field ${name}`);
    } else if (ts.isPropertyDeclaration(node)) {
      const name = propertyName(ts, node.name);
      if (!isAdded(h.lineOf(node.name)) || name === undefined || baseFields.has(name)) return;
      if (statusHolders.has(node)) return;
      const init = node.initializer && unwrapExpression(ts, node.initializer);
      if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) return; // a method
      add(h.lineOf(node.name), 'field', `new field ${name}`);
    } else if (ts.isBinaryExpression(node)) {
      const kind = node.operatorToken.kind;
      const line = h.lineOf(node.operatorToken);
      if (!isAdded(line)) return;
      if (
        kind === ts.SyntaxKind.EqualsToken &&
        ts.isPropertyAccessExpression(node.left) &&
        node.left.expression.kind === ts.SyntaxKind.ThisKeyword
      ) {
        const name = node.left.name.text;
        if (!baseFields.has(name) && !statusHolders.has(node)) add(line, 'field', `new field ${name}`);
      } else if (ops.has(kind)) {
        const detail = comparisonDetail(
          comparisonOf(h.source, node),
          removedComparisons.get(addedIn.get(line) ?? -1) ?? [],
        );
        if (detail !== undefined) add(line, 'comparison', detail);
      }
    }
  });
  return { candidates: out, spans };
}
