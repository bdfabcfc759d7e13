/**
 * Where the named things of a file are, and which hunks a claim's `covers`
 * reaches.
 *
 * A span is a function, method, class (or namespace) with its qualified name
 * by nesting: `Invoice`, `Invoice.total`, `applyRefund`, `outer.inner`. For
 * TypeScript and JavaScript they come from the compiler's AST: function and
 * class declarations, class members (methods, accessors, the constructor as
 * `constructor`, properties holding a function), `const f = () => …` /
 * `function` / `class` expressions bound to a name, methods of an object
 * literal bound to a name (`api.get`), and namespaces. Python's spans come
 * from `patchgate_claims.py` (functions and classes, decorators included).
 *
 * Coverage: a `covers` entry is `GLOB` (picomatch, dot files included) and
 * covers every hunk of a matching file, or `GLOB#SYMBOL`, which covers the
 * hunks of a matching file that overlap a span named SYMBOL exactly. A hunk
 * overlaps a span when one of its added lines lies in it; a hunk that only
 * deletes lines sits at its position, the head line above the deletion
 * (`newStart`), and overlaps the spans holding that line.
 */
import picomatch from 'picomatch';
import type TS from 'typescript';
import type { Hunk } from '../../../git/hunks.js';
import { loadTypescript, parseScript, unwrapExpression } from '../../../util/typescript.js';

export interface Span {
  /** Qualified by nesting: `Class.method`, `outer.inner`, or a top-level name. */
  name: string;
  /** 1-based, inclusive. */
  start: number;
  end: number;
}

export type Language = 'js' | 'python' | 'prose' | 'other';

const JS_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/i;
const PY_FILE = /\.pyi?$/i;
/** Text for people: a return or a status in it is a sentence, not behaviour. */
const PROSE_FILE = /\.(?:md|markdown|mdx|rst|txt|adoc|asciidoc)$/i;

export function languageOf(file: string): Language {
  if (JS_FILE.test(file)) return 'js';
  if (PY_FILE.test(file)) return 'python';
  if (PROSE_FILE.test(file) || /(^|\/)(LICENSE|COPYING|CHANGELOG|AUTHORS)[^/]*$/.test(file)) return 'prose';
  return 'other';
}

function memberName(ts: typeof TS, name: TS.PropertyName | TS.BindingName | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name))
    return name.text;
  return undefined;
}

/** The spans of a parsed TypeScript/JavaScript file. */
export function spansOfSource(ts: typeof TS, source: TS.SourceFile): Span[] {
  const spans: Span[] = [];
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const isFunctionLike = (e: TS.Expression) =>
    ts.isArrowFunction(e) || ts.isFunctionExpression(e) || ts.isClassExpression(e);
  /** What a node is named, whether it is a span (bindings of object literals only name their members). */
  const named = (
    node: TS.Node,
    inNamedObject: boolean,
  ): { name: string; span: TS.Node | undefined } | undefined => {
    if (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) {
      const isDefault = node.modifiers?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
      const name = node.name?.text ?? (isDefault ? 'default' : undefined);
      return name === undefined ? undefined : { name, span: node };
    }
    if (ts.isModuleDeclaration(node)) {
      const name = memberName(ts, node.name);
      return name === undefined ? undefined : { name, span: node };
    }
    if (ts.isConstructorDeclaration(node)) return { name: 'constructor', span: node };
    if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
      if (ts.isObjectLiteralExpression(node.parent) && !inNamedObject) return undefined;
      const name = memberName(ts, node.name);
      return name === undefined ? undefined : { name, span: node };
    }
    if ((ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) && node.initializer) {
      if (ts.isPropertyAssignment(node) && !inNamedObject) return undefined;
      const init = unwrapExpression(ts, node.initializer);
      const name = memberName(ts, node.name);
      if (name === undefined) return undefined;
      if (isFunctionLike(init)) return { name, span: node };
      if (ts.isPropertyAssignment(node) && ts.isObjectLiteralExpression(init))
        return { name, span: undefined };
      return undefined;
    }
    if (ts.isVariableDeclaration(node) && node.initializer) {
      const init = unwrapExpression(ts, node.initializer);
      const name = memberName(ts, node.name);
      if (name === undefined) return undefined;
      if (ts.isObjectLiteralExpression(init)) return { name, span: undefined };
      if (!isFunctionLike(init)) return undefined;
      // `export const f = () => ...` starts at `export`.
      const list = node.parent;
      const statement = list.parent;
      const whole =
        ts.isVariableDeclarationList(list) &&
        ts.isVariableStatement(statement) &&
        list.declarations.length === 1;
      return { name, span: whole ? statement : node };
    }
    return undefined;
  };
  const visit = (node: TS.Node, prefix: string, inNamedObject: boolean): void => {
    const n = named(node, inNamedObject);
    if (n === undefined) {
      // Anonymous functions (callbacks) and plain object literals keep the name of what encloses them.
      const stillNamed = inNamedObject && (ts.isObjectLiteralExpression(node) || isWrapper(ts, node));
      ts.forEachChild(node, (c) => visit(c, prefix, stillNamed));
      return;
    }
    const full = prefix === '' ? n.name : `${prefix}.${n.name}`;
    if (n.span)
      spans.push({ name: full, start: lineOf(n.span.getStart(source)), end: lineOf(n.span.getEnd()) });
    // Members of an object literal are named under a binding that holds it, not inside a function body.
    const objectBinding = n.span === undefined;
    ts.forEachChild(node, (c) => visit(c, full, objectBinding));
  };
  visit(source, '', false);
  return spans;
}

function isWrapper(ts: typeof TS, node: TS.Node): boolean {
  return (
    ts.isParenthesizedExpression(node) ||
    ts.isAsExpression(node) ||
    ts.isSatisfiesExpression(node) ||
    ts.isTypeAssertionExpression(node)
  );
}

/** The spans of a TypeScript/JavaScript file with the compiler already loaded. */
export function symbolSpansWith(ts: typeof TS, file: string, text: string): Span[] {
  return spansOfSource(ts, parseScript(ts, file, text));
}

/**
 * The spans of `file`'s `text` for TypeScript/JavaScript (the compiler is
 * loaded on first use); [] for any other language (Python's come from the
 * sandboxed adapter).
 */
export async function symbolSpans(file: string, text: string): Promise<Span[]> {
  if (languageOf(file) !== 'js') return [];
  return symbolSpansWith(await loadTypescript(), file, text);
}

/** The innermost span holding `line`: the one starting last (the shortest on a tie). */
export function enclosingSymbol(spans: readonly Span[], line: number): string | undefined {
  let best: Span | undefined;
  for (const s of spans) {
    if (s.start > line || s.end < line) continue;
    if (!best || s.start > best.start || (s.start === best.start && s.end < best.end)) best = s;
  }
  return best?.name;
}

/** The head lines a hunk sits on: its added lines, or for a deletion its position `newStart`. */
export function hunkLines(h: Hunk): [first: number, last: number] {
  return h.newLines > 0 ? [h.newStart, h.newStart + h.newLines - 1] : [h.newStart, h.newStart];
}

export function hunkOverlaps(h: Hunk, span: Span): boolean {
  const [first, last] = hunkLines(h);
  return first <= span.end && last >= span.start;
}

interface CoverRule {
  match: (file: string) => boolean;
  symbol?: string;
}

/** `GLOB` or `GLOB#SYMBOL` (split at the last `#`); an entry with an empty glob matches nothing. */
export function parseCover(entry: string): CoverRule {
  const text = entry.trim();
  const hash = text.lastIndexOf('#');
  const glob = hash >= 0 ? text.slice(0, hash) : text;
  const symbol = hash >= 0 ? text.slice(hash + 1).trim() : undefined;
  if (glob === '' || symbol === '') return { match: () => false };
  const match = picomatch(glob, { dot: true });
  return symbol === undefined ? { match } : { match, symbol };
}

/**
 * The production hunks no `covers` entry reaches, in their given order.
 * `spansOf(file)` gives the head's spans of a file ([] when it has none, as
 * for a deleted file: only a plain GLOB covers those).
 */
export function uncoveredHunks(
  hunks: readonly Hunk[],
  spansOf: (file: string) => readonly Span[],
  covers: readonly string[],
): Hunk[] {
  const rules = covers.map(parseCover);
  return hunks.filter(
    (h) =>
      !rules.some((r) => {
        if (!r.match(h.file)) return false;
        if (r.symbol === undefined) return true;
        return spansOf(h.file).some((s) => s.name === r.symbol && hunkOverlaps(h, s));
      }),
  );
}
