/** One-line rendering of an evidence object for tables: `key=value` pairs, long values cut. */
export function evidenceLine(evidence: Record<string, unknown>, max = 160): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(evidence)) {
    if (v === undefined) continue;
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    parts.push(`${k}=${s.length > 72 ? `${s.slice(0, 69)}...` : s}`);
  }
  const line = parts.join(' ');
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}
