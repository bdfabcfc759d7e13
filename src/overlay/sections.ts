import { pushAll } from '../util/arrays.js';
/**
 * Config files that hold both sides: `pyproject.toml` and `setup.cfg`
 * configure the package and pytest, `package.json` the package and its test
 * runner. The overlay takes such a file from the head with its test sections
 * replaced by the base's, so a patch can change its dependencies' metadata
 * but not how the base's tests are run.
 */

/** One mixed file and what in it belongs to the tests. */
export interface SectionRule {
  file: string;
  kind: 'ini' | 'json';
  /** ini/TOML: section names (`tool.pytest.ini_options`; a trailing `*` matches subsections). json: dotted keys. */
  sections: readonly string[];
}

export const SECTION_RULES: readonly SectionRule[] = [
  {
    file: 'pyproject.toml',
    kind: 'ini',
    sections: ['tool.pytest.ini_options', 'tool.pytest', 'tool.pytest.*', 'tool.hypothesis*'],
  },
  { file: 'setup.cfg', kind: 'ini', sections: ['tool:pytest'] },
  { file: 'tox.ini', kind: 'ini', sections: ['pytest'] },
  {
    file: 'package.json',
    kind: 'json',
    sections: [
      'jest',
      'vitest',
      'mocha',
      'ava',
      'c8',
      'nyc',
      'scripts.test',
      'scripts.pretest',
      'scripts.posttest',
    ],
  },
];

const HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:[#;].*)?$/;

function matches(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

interface Block {
  name: string | undefined;
  lines: string[];
}

/** The file as blocks: the preamble (no header), then one block per section header. */
function blocks(text: string): Block[] {
  const out: Block[] = [{ name: undefined, lines: [] }];
  for (const line of text.split('\n')) {
    const m = HEADER.exec(line);
    // TOML reads `[tool."pytest".ini_options]` as `[tool.pytest.ini_options]`: quotes do not hide a section.
    if (m) out.push({ name: (m[1] as string).replace(/[\s"']+/g, ''), lines: [line] });
    else (out[out.length - 1] as Block).lines.push(line);
  }
  return out;
}

function mergeIni(rule: SectionRule, base: string | undefined, head: string | undefined): string | undefined {
  const testBlocks =
    base === undefined ? [] : blocks(base).filter((b) => b.name && matches(b.name, rule.sections));
  const headTests =
    head === undefined ? [] : blocks(head).filter((b) => b.name && matches(b.name, rule.sections));
  const text = (bs: Block[]) => bs.map((b) => b.lines.join('\n').trimEnd()).join('\n');
  // Same test sections (none, when the head deleted a file without any): the head's bytes, or no file.
  if (text(testBlocks) === text(headTests)) return head;
  const kept: string[] = [];
  let inserted = false;
  for (const b of head === undefined ? [] : blocks(head)) {
    if (b.name && matches(b.name, rule.sections)) {
      // The base's test sections take the place of the head's first one.
      if (!inserted) for (const t of testBlocks) pushAll(kept, t.lines);
      inserted = true;
      continue;
    }
    pushAll(kept, b.lines);
  }
  if (!inserted && testBlocks.length > 0) {
    if (kept.length > 0 && kept[kept.length - 1] !== '') kept.push('');
    for (const t of testBlocks) pushAll(kept, t.lines);
  }
  return kept.join('\n');
}

type Json = Record<string, unknown>;

function getPath(obj: Json, dotted: string): { found: boolean; value?: unknown } {
  let node: unknown = obj;
  for (const part of dotted.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, part))
      return { found: false };
    node = (node as Json)[part];
  }
  return { found: true, value: node };
}

function setPath(obj: Json, dotted: string, value: unknown, present: boolean): void {
  const parts = dotted.split('.');
  let node = obj;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      if (!present) return;
      node[part] = {};
    }
    node = node[part] as Json;
  }
  const last = parts[parts.length - 1] as string;
  if (present) node[last] = value;
  else delete node[last];
}

function parseObject(text: string | undefined): Json | undefined {
  if (text === undefined) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

function mergeJson(
  rule: SectionRule,
  base: string | undefined,
  head: string | undefined,
): string | undefined {
  const b = parseObject(base);
  const h = parseObject(head);
  // A head file that is not a JSON object cannot be merged into; the runner will refuse it as it is.
  if (h === undefined || b === undefined) return head;
  // Same test sections: the head's own bytes, so an unrelated edit does not make an overlay of its own.
  const same = rule.sections.every((key) => {
    const x = getPath(b, key);
    const y = getPath(h, key);
    return x.found === y.found && JSON.stringify(x.value) === JSON.stringify(y.value);
  });
  if (same) return head;
  for (const key of rule.sections) {
    const fromBase = getPath(b, key);
    setPath(h, key, fromBase.value, fromBase.found);
  }
  return `${JSON.stringify(h, null, 2)}\n`;
}

/**
 * The overlay's copy of a mixed file: the head's, with the test sections the
 * base has (and none of the head's own). Undefined when neither side has the file.
 */
export function mergeSections(
  rule: SectionRule,
  base: string | undefined,
  head: string | undefined,
): string | undefined {
  if (base === undefined && head === undefined) return undefined;
  return rule.kind === 'ini' ? mergeIni(rule, base, head) : mergeJson(rule, base, head);
}
