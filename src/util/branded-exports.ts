/**
 * Every export of a loaded module that `is` accepts, in export order, each
 * once; an export may also be a list of them (the default export included).
 */
export function brandedExports<T>(mod: Record<string, unknown>, is: (v: unknown) => v is T): T[] {
  const out: T[] = [];
  const seen = new Set<unknown>();
  const add = (v: unknown) => {
    if (is(v) && !seen.has(v)) {
      seen.add(v);
      out.push(v);
    }
  };
  const def = mod.default;
  if (Array.isArray(def)) def.forEach(add);
  else add(def);
  for (const [key, v] of Object.entries(mod)) {
    if (key === 'default') continue;
    if (Array.isArray(v)) v.forEach(add);
    else add(v);
  }
  return out;
}
