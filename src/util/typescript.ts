/**
 * The TypeScript compiler, loaded on first use: it is large, and most runs
 * never parse a module with it.
 *
 * Loaded with `require`, not `import()`: the compiler is one 9 MB CommonJS
 * file, and importing CommonJS from an ES module makes Node scan all of it
 * with its export lexer first. That scan took about three times as long as
 * the load itself (0.75–1.2 s against 0.23–0.39 s on the 2-core VM), in the
 * part of every check that runs before any test can start.
 */
import { createRequire } from 'node:module';
import type TS from 'typescript';

const require = createRequire(import.meta.url);
let loading: Promise<typeof TS> | undefined;
let loaded: typeof TS | undefined;

export function loadTypescript(): Promise<typeof TS> {
  loading ??= Promise.resolve().then(requireTypescript);
  return loading;
}

/**
 * The compiler, loaded now if it is not yet: for code that needs it only for
 * some of its inputs (JavaScript files in a tree that may have none) and
 * takes it as a getter, so a Python-only check never pays for it.
 */
export function requireTypescript(): typeof TS {
  loaded ??= require('typescript') as typeof TS;
  return loaded;
}

/** The script kind of a file by its extension: TSX and JSX where they may hold markup, JS for anything else. */
export function scriptKind(ts: typeof TS, file: string): TS.ScriptKind {
  if (/\.[cm]?tsx$/i.test(file)) return ts.ScriptKind.TSX;
  if (/\.[cm]?ts$/i.test(file)) return ts.ScriptKind.TS;
  if (/\.jsx$/i.test(file)) return ts.ScriptKind.JSX;
  return ts.ScriptKind.JS;
}

/** A file's syntax tree, with parent pointers (nothing is type-checked). */
export function parseScript(ts: typeof TS, file: string, text: string): TS.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(ts, file));
}

/**
 * The parser's own syntax errors of a tree. `parseDiagnostics` is not in the
 * public typings, but every release of the compiler has it.
 */
export function syntaxErrors(sf: TS.SourceFile): readonly TS.Diagnostic[] {
  return (sf as unknown as { parseDiagnostics?: readonly TS.Diagnostic[] }).parseDiagnostics ?? [];
}

/** An expression past parentheses, `as`, `satisfies`, `<T>` casts and `!`. */
export function unwrapExpression(ts: typeof TS, e: TS.Expression): TS.Expression {
  let x = e;
  while (
    ts.isParenthesizedExpression(x) ||
    ts.isAsExpression(x) ||
    ts.isSatisfiesExpression(x) ||
    ts.isTypeAssertionExpression(x) ||
    ts.isNonNullExpression(x)
  )
    x = x.expression;
  return x;
}
