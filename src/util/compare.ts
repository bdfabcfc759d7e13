/**
 * Orders strings by Unicode code point, as Python's `sorted` does. JS's `<`
 * compares UTF-16 code units, which puts astral characters before U+E000–U+FFFF;
 * locale-aware comparisons differ between machines. Neither may decide an order
 * that ends up in a digest or a scorecard.
 */
export function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only when both are in the surrogate/high-BMP zone can UTF-16 order disagree with code point order.
    if (x >= 0xd800 && y >= 0xd800) {
      const cx = a.codePointAt(i) as number;
      const cy = b.codePointAt(i) as number;
      return cx < cy ? -1 : cx > cy ? 1 : 0;
    }
    return x - y;
  }
  return a.length - b.length;
}
