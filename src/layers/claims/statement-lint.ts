/**
 * A claim sentence is reviewed by people, but two failures are mechanical:
 * a sentence that names no bound ("refunds work") forbids nothing, and one
 * that only restates a function name ("apply_refund applies the refund")
 * says nothing the code does not. Both are reported so a reviewer rewrites
 * the row; the matrix cannot judge whether a bound is the right one.
 */

/** Words and phrases that state a bound: a forbidden outcome, a limit, an invariant or a mapping. */
const BOUND_PHRASES = [
  'never',
  'always',
  'at most',
  'at least',
  'no more than',
  'no fewer than',
  'no less than',
  'not more than',
  'not less than',
  'exactly',
  'maps to',
  'map to',
  'mapped to',
  'stable',
  'idempotent',
  'deterministic',
  'unchanged',
  'invariant',
  'only',
  'unless',
  'within',
  'between',
  'exceeds',
  'exceed',
  'below',
  'above',
  'greater than',
  'less than',
  'fewer than',
  'more than',
  'equal to',
  'equals',
  'identical',
  'same',
  'rejects',
  'rejected',
  'raises',
  'throws',
  'returns',
  'must not',
  'cannot',
  'non-negative',
  'nonnegative',
  'bounded',
  'monotonic',
  'preserves',
  'round-trips',
  'round trips',
];

/** A comparison written as a symbol: `<`, `<=`, `≤`, `==`, `!=`, `≠` … */
const COMPARISON = /(?:[<>]=?|[=!]==?|[≤≥≠])/u;

/** Words that carry no content of their own in a claim sentence. */
const FILLER = new Set([
  'a',
  'an',
  'the',
  'it',
  'its',
  'is',
  'are',
  'be',
  'to',
  'of',
  'for',
  'in',
  'on',
  'and',
  'or',
  'with',
  'should',
  'does',
  'do',
  'will',
  'can',
  'works',
  'work',
  'working',
  'handles',
  'handle',
  'handled',
  'correct',
  'correctly',
  'properly',
  'right',
  'ok',
  'fine',
  'function',
  'method',
  'code',
  'logic',
  'new',
  'behaviour',
  'behavior',
  'supported',
  'supports',
  'support',
]);

export interface StatementProblem {
  kind: 'no-bound' | 'restates-name';
  message: string;
}

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The words of a code identifier: `applyRefund`, `apply_refund`, `Invoice.total()` → apply, refund / invoice, total. */
function identifierWords(identifier: string): string[] {
  return words(identifier.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2').replace(/[_.]/g, ' '));
}

/** Tokens of the sentence that are written like code: snake_case, camelCase, dotted, or called. */
const CODE_TOKEN = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?/g;
const looksLikeCode = (t: string) => /_|\(\)|\.|[a-z][A-Z]/.test(t);

/** Plural and verb forms collapse for the comparison: refunds/refund, applies/apply, capped/cap. */
function stem(w: string): string {
  return w
    .replace(/ies$/, 'y')
    .replace(/(?:es|s|ed|ing)$/, '')
    .replace(/e$/, '');
}

export function lintStatement(statement: string): StatementProblem[] {
  const out: StatementProblem[] = [];
  const lower = ` ${words(statement).join(' ')} `;
  const bound = BOUND_PHRASES.some((p) => lower.includes(` ${p} `)) || COMPARISON.test(statement);
  if (!bound) {
    out.push({
      kind: 'no-bound',
      message:
        'names no bound: say what must never happen, or what it always / at most / maps to (e.g. "refund never exceeds the captured amount")',
    });
  }
  const codeTokens = (statement.match(CODE_TOKEN) ?? []).filter(looksLikeCode);
  if (codeTokens.length > 0) {
    const nameWords = new Set(codeTokens.flatMap(identifierWords).map(stem));
    const rest = words(statement.replace(CODE_TOKEN, (t) => (looksLikeCode(t) ? ' ' : t)))
      .filter((w) => !FILLER.has(w))
      .map(stem)
      .filter((w) => !nameWords.has(w));
    if (rest.length === 0) {
      out.push({
        kind: 'restates-name',
        message: `only restates ${codeTokens.map((t) => `\`${t}\``).join(', ')}: say what the behaviour guarantees, not what the function is called`,
      });
    }
  }
  return out;
}
