/**
 * The strings a JavaScript or TypeScript expression always evaluates to, so
 * that a name cannot be hidden by building it: literals, templates, `+`,
 * constants bound once (`const W = 'vitest'`), object and array constants,
 * `String.fromCharCode`, `atob`, `Buffer.from(…, 'base64' | 'hex')`,
 * `decodeURIComponent`, and the string and array methods that keep a value
 * constant (`join`, `split`, `reverse`, `slice`, `replace`, `toUpperCase`…).
 * Bounded in depth and length, and memoised, so a crafted expression costs
 * what its text costs.
 */
import type TS from 'typescript';
import { pushAll } from '../../util/arrays.js';
import type { JsResolver } from './reach-js-resolve.js';

const MAX_DEPTH = 40;
const MAX_STRING = 4096;
const MAX_LIST = 4096;

export class JsFolder {
  constructor(
    private readonly ts: typeof TS,
    private readonly r: JsResolver,
  ) {}

  private readonly foldedNodes = new Map<TS.Node, { value: string | undefined; depth: number }>();
  private readonly foldedLists = new Map<TS.Node, { value: string[] | undefined; depth: number }>();

  /** The string `node` always evaluates to, if the check can compute it. */
  fold(node: TS.Node, depth = 0): string | undefined {
    if (depth > MAX_DEPTH) return undefined;
    if (this.ts.isStringLiteralLike(node)) return node.text.length <= MAX_STRING ? node.text : undefined;
    // Memoised per node; a result computed deeper (maybe cut short by the bound) is not reused higher up.
    const known = this.foldedNodes.get(node);
    if (known && known.depth <= depth) return known.value;
    const value = this.foldAt(node, depth);
    this.foldedNodes.set(node, { value, depth });
    return value;
  }

  private foldAt(node: TS.Node, depth: number): string | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const ts = this.ts;
    const next = depth + 1;
    const cap = (s: string | undefined) => (s !== undefined && s.length <= MAX_STRING ? s : undefined);
    if (ts.isStringLiteralLike(node) || ts.isNumericLiteral(node)) return node.text;
    if (ts.isTemplateExpression(node)) {
      let out = node.head.text;
      for (const span of node.templateSpans) {
        const v = this.fold(span.expression, next);
        if (v === undefined) return undefined;
        out += v + span.literal.text;
      }
      return cap(out);
    }
    if (
      ts.isParenthesizedExpression(node) ||
      ts.isAsExpression(node) ||
      ts.isNonNullExpression(node) ||
      ts.isTypeAssertionExpression(node) ||
      ts.isSatisfiesExpression(node)
    )
      return this.fold(node.expression, next);
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const l = this.fold(node.left, next);
      const r = l === undefined ? undefined : this.fold(node.right, next);
      return r === undefined ? undefined : cap(l + r);
    }
    if (ts.isIdentifier(node)) return this.foldName(node);
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      const key = ts.isPropertyAccessExpression(node)
        ? node.name.text
        : this.fold(node.argumentExpression, next);
      if (key === undefined) return undefined;
      const obj = this.literalOf(node.expression, next);
      if (obj && ts.isObjectLiteralExpression(obj)) {
        for (const p of obj.properties)
          if (ts.isPropertyAssignment(p) && this.r.propertyKey(p.name) === key)
            return this.fold(p.initializer, next);
        return undefined;
      }
      const list = this.foldArray(node.expression, next);
      if (list && /^\d+$/.test(key)) return list[Number(key)];
      const text = this.fold(node.expression, next);
      if (text !== undefined && /^\d+$/.test(key)) return text[Number(key)];
      return undefined;
    }
    if (ts.isCallExpression(node)) return cap(this.foldCall(node, next));
    // String.raw`VITEST`
    if (ts.isTaggedTemplateExpression(node) && this.r.resolve(node.tag, next)?.join('.') === 'String.raw') {
      const t = node.template;
      if (ts.isNoSubstitutionTemplateLiteral(t)) return t.rawText ?? t.text;
      let out = t.head.rawText ?? t.head.text;
      for (const span of t.templateSpans) {
        const v = this.fold(span.expression, next);
        if (v === undefined) return undefined;
        out += v + (span.literal.rawText ?? span.literal.text);
      }
      return cap(out);
    }
    return undefined;
  }

  private foldCall(node: TS.CallExpression, depth: number): string | undefined {
    const ts = this.ts;
    const args = node.arguments;
    const strings = () => {
      const out: string[] = [];
      for (const a of args) {
        const v = this.fold(a, depth);
        if (v === undefined) return undefined;
        out.push(v);
      }
      return out;
    };
    const callee = this.r.resolve(node.expression, depth)?.join('.');
    if (callee === 'String.fromCharCode' || callee === 'String.fromCodePoint') {
      const codes = strings()?.map(Number);
      if (!codes || codes.some((c) => !Number.isInteger(c) || c < 0 || c > 0x10ffff)) return undefined;
      return codes.map((c) => String.fromCodePoint(c)).join('');
    }
    if (callee === 'String' && args[0]) return this.fold(args[0], depth);
    if (callee === 'atob' && args[0]) {
      const v = this.fold(args[0], depth);
      return v === undefined ? undefined : Buffer.from(v, 'base64').toString('latin1');
    }
    if ((callee === 'decodeURIComponent' || callee === 'unescape') && args[0]) {
      const v = this.fold(args[0], depth);
      try {
        return v === undefined ? undefined : decodeURIComponent(v);
      } catch {
        return undefined;
      }
    }
    if (!ts.isPropertyAccessExpression(node.expression)) return undefined;
    const method = node.expression.name.text;
    const target = node.expression.expression;
    if (method === 'toString' && ts.isCallExpression(target)) {
      // Buffer.from('dml0ZXN0', 'base64').toString()
      const from = this.r.resolve(target.expression, depth)?.join('.');
      const [data, enc] = target.arguments;
      const text = data ? this.fold(data, depth) : undefined;
      const encoding = enc ? this.fold(enc, depth) : 'utf8';
      if (from === 'Buffer.from' && text !== undefined && (encoding === 'base64' || encoding === 'hex'))
        return Buffer.from(text, encoding).toString('latin1');
      if (from === 'Buffer.from' && text !== undefined) return text;
    }
    if (method === 'join') {
      const list = this.foldArray(target, depth);
      const sep = args[0] ? this.fold(args[0], depth) : ',';
      return list && sep !== undefined ? list.join(sep) : undefined;
    }
    const self = this.fold(target, depth);
    if (self === undefined) return undefined;
    const s = strings();
    if (!s) return undefined;
    const n = s.map(Number);
    switch (method) {
      case 'concat':
        return self + s.join('');
      case 'toUpperCase':
      case 'toLocaleUpperCase':
        return self.toUpperCase();
      case 'toLowerCase':
      case 'toLocaleLowerCase':
        return self.toLowerCase();
      case 'trim':
      case 'trimStart':
      case 'trimEnd':
        return self[method]();
      case 'slice':
      case 'substring':
        return self[method](n[0] ?? 0, n[1]);
      case 'substr':
        return self.slice(n[0] ?? 0, n[1] === undefined ? undefined : (n[0] ?? 0) + n[1]);
      case 'replace':
      case 'replaceAll':
        return s[0] !== undefined && s[1] !== undefined ? self[method](s[0], s[1]) : undefined;
      case 'repeat':
        return Number.isInteger(n[0]) && (n[0] ?? 0) >= 0 && (n[0] ?? 0) <= 64
          ? self.repeat(n[0] ?? 0)
          : undefined;
      case 'at':
      case 'charAt':
        return self.at(n[0] ?? 0);
      default:
        return undefined;
    }
  }

  /** A list of strings `node` always evaluates to: `['VI', 'TEST']`, `'tsetiv'.split('').reverse()`, `[...'abc']`. */
  foldArray(node: TS.Node, depth = 0): string[] | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const known = this.foldedLists.get(node);
    if (known && known.depth <= depth) return known.value?.slice();
    const folded = this.foldArrayAt(node, depth);
    // Capped at every step: `const b = [...a, ...a]` nested must not double its way out of memory.
    const value = folded && folded.length <= MAX_LIST ? folded : undefined;
    this.foldedLists.set(node, { value, depth });
    return value?.slice();
  }

  private foldArrayAt(node: TS.Node, depth: number): string[] | undefined {
    const ts = this.ts;
    const next = depth + 1;
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node))
      return this.foldArray(node.expression, next);
    if (ts.isIdentifier(node)) {
      const key = this.nameKey(node);
      if (key === undefined) return undefined;
      if (this.foldedArrays.has(key)) return this.foldedArrays.get(key)?.slice() ?? undefined;
      this.foldedArrays.set(key, null);
      const init = this.constantInitializer(node);
      const v = init ? this.foldArray(init, next) : undefined;
      this.foldedArrays.set(key, v ?? null);
      return v?.slice();
    }
    if (ts.isArrayLiteralExpression(node)) {
      const out: string[] = [];
      for (const e of node.elements) {
        if (ts.isSpreadElement(e)) {
          const inner = this.foldArray(e.expression, next) ?? this.fold(e.expression, next)?.split('');
          if (!inner || out.length + inner.length > MAX_LIST) return undefined;
          pushAll(out, inner);
          continue;
        }
        const v = this.fold(e, next);
        if (v === undefined) return undefined;
        out.push(v);
      }
      return out;
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const target = node.expression.expression;
      if (method === 'split') {
        const text = this.fold(target, next);
        const sep = node.arguments[0] ? this.fold(node.arguments[0], next) : undefined;
        return text !== undefined && sep !== undefined ? text.split(sep) : undefined;
      }
      if (method === 'reverse' || method === 'toReversed') return this.foldArray(target, next)?.reverse();
      if (method === 'concat') {
        const head = this.foldArray(target, next);
        if (!head) return undefined;
        const out = head;
        for (const a of node.arguments) {
          const part = this.foldArray(a, next) ?? [this.fold(a, next)];
          if (part.some((x) => x === undefined) || out.length + part.length > MAX_LIST) return undefined;
          pushAll(out, part as string[]);
        }
        return out;
      }
      if (method === 'from' && this.r.resolve(target, next)?.join('.') === 'Array' && node.arguments[0])
        return this.fold(node.arguments[0], next)?.split('');
    }
    return undefined;
  }

  private readonly folded = new Map<unknown, string | null>();
  private readonly foldedArrays = new Map<unknown, string[] | null>();

  private foldName(id: TS.Identifier): string | undefined {
    const key = this.nameKey(id);
    if (key === undefined) return undefined;
    if (this.folded.has(key)) return this.folded.get(key) ?? undefined;
    this.folded.set(key, null);
    const init = this.constantInitializer(id);
    const v = init ? this.fold(init) : undefined;
    this.folded.set(key, v ?? null);
    return v;
  }

  /** What a name's fold is remembered by: its top-level spelling, or its symbol. */
  private nameKey(id: TS.Identifier): unknown {
    if (!this.r.mayBeConstant(id.text)) return undefined;
    return this.r.topLevelConstant(id.text) ? `top\u241f${id.text}` : this.r.symbolOf(id);
  }

  /** The initializer of a name bound once and never written again (`const W = 'vitest'`). */
  private constantInitializer(id: TS.Identifier): TS.Expression | undefined {
    const top = this.r.topLevelConstant(id.text);
    if (top) return top;
    if (!this.r.mayBeConstant(id.text)) return undefined;
    const sym = this.r.symbolOf(id);
    if (!sym || this.r.isWritten(sym)) return undefined;
    const [d, ...more] = sym.declarations ?? [];
    if (!d || more.length > 0 || !this.ts.isVariableDeclaration(d)) return undefined;
    return d.initializer;
  }

  /** The initializer of member `key` of a constant object or array literal `node`, if it has one. */
  memberOf(node: TS.Node, key: string, depth: number): TS.Expression | undefined {
    const ts = this.ts;
    const obj = this.literalOf(node, depth);
    if (obj) {
      for (const p of obj.properties) {
        if (ts.isPropertyAssignment(p) && this.r.propertyKey(p.name) === key) return p.initializer;
        if (ts.isShorthandPropertyAssignment(p) && p.name.text === key) return p.name;
      }
      return undefined;
    }
    let list: TS.Node | undefined = node;
    while (list && ts.isParenthesizedExpression(list)) list = list.expression;
    if (list && ts.isIdentifier(list)) list = this.constantInitializer(list);
    if (list && ts.isArrayLiteralExpression(list) && /^\d+$/.test(key)) {
      const e = list.elements[Number(key)];
      return e && !ts.isSpreadElement(e) ? e : undefined;
    }
    return undefined;
  }

  private literalOf(node: TS.Node, depth: number): TS.ObjectLiteralExpression | undefined {
    const ts = this.ts;
    if (depth > MAX_DEPTH) return undefined;
    if (ts.isObjectLiteralExpression(node)) return node;
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node))
      return this.literalOf(node.expression, depth + 1);
    if (ts.isIdentifier(node)) {
      const init = this.constantInitializer(node);
      return init ? this.literalOf(init, depth + 1) : undefined;
    }
    return undefined;
  }
}
