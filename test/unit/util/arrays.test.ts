import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { maxOf, pushAll } from '../../../src/util/arrays.js';
import { tempDir } from '../../helpers/gitdir.js';

const REPO = path.resolve(import.meta.dirname, '../../..');
const PLUGIN = path.join(REPO, 'scripts/lint/no-spread-arguments.grit');
const BIOME = path.join(REPO, 'node_modules/@biomejs/biome/bin/biome');

/** As many elements as a lock the patch deleted: far past what V8 takes as call arguments. */
const HUGE = 1_000_000;

describe('pushAll and maxOf', () => {
  it('append and compare a million elements, where spreading them into the call throws', () => {
    const items = Array.from({ length: HUGE }, (_, i) => i);
    // The class of crash these exist for, played for real: the same array spread into push.
    expect(() => [].push(...(items as never[]))).toThrow(RangeError);
    expect(() => Math.max(...items)).toThrow(RangeError);

    const out = [-1];
    expect(pushAll(out, items)).toBe(out);
    expect(out).toHaveLength(HUGE + 1);
    expect(out[HUGE]).toBe(HUGE - 1);
    expect(maxOf(items, 0)).toBe(HUGE - 1);
  });

  it('take any iterable, and answer `empty` for no values', () => {
    expect(pushAll(['a'], new Set(['b', 'c']))).toEqual(['a', 'b', 'c']);
    expect(maxOf([], -7)).toBe(-7);
    expect(maxOf([3, -2, 9, 9, 1], 0)).toBe(9);
    expect(maxOf([-5, -3], 0)).toBe(-3);
  });
});

/**
 * Each line is one case: `// flagged` ends the lines the rule must report,
 * every other line must pass. The rule runs as `npm run lint` runs it: the
 * real Biome binary loading the plugin file.
 */
const CASES = `declare const f: (...a: unknown[]) => number;
declare const a: number[];
declare const b: number[];
declare const o: { m(...a: unknown[]): number; p?: (...a: unknown[]) => number };
declare class Box { constructor(...a: unknown[]) }
a.push(...b); // flagged
Math.max(...b); // flagged
f(1, ...b, 2); // flagged
new Box(...b); // flagged
f<number>(...b); // flagged
o.p?.(...b); // flagged
o.m(...(b ?? [])); // flagged
f(f(...b)); // flagged
f(() => a.push(...b)); // flagged
f(...[1, ...b]); // flagged
f(...(b as number[])); // flagged
f.apply(null, b); // flagged
Reflect.apply(f, null, b); // flagged
f.apply(null, [...b]); // flagged
a.push(...[1, 2]);
f(...[]);
f([...b]);
f({ ...o });
new Set([...b]);
const c = [...a, ...b];
f.apply(null, [1, 2]);
f(c.length);
// biome-ignore lint/plugin: forwarding a call's own arguments is bounded by that call
f(...b);
`;

interface BiomeReport {
  diagnostics: { category: string; location: { path: { file: string }; span: [number, number] } }[];
}

/** Biome's diagnostics for `files`, linted under a config that applies only the plugin to `src/**`. */
function lint(files: Record<string, string>): { file: string; line: number }[] {
  const dir = tempDir('pg-lint-');
  writeFileSync(
    path.join(dir, 'biome.json'),
    JSON.stringify({
      linter: { enabled: true, rules: { recommended: false } },
      formatter: { enabled: false },
      overrides: [{ includes: ['src/**'], plugins: [PLUGIN] }],
    }),
  );
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  let out: string;
  try {
    out = execFileSync(process.execPath, [BIOME, 'lint', '--reporter=json', '.'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    // Biome exits 1 when it reports anything; the report is still on stdout.
    out = (err as { stdout: string }).stdout;
  }
  const report = JSON.parse(out) as BiomeReport;
  return report.diagnostics.map((d) => {
    const file = d.location.path.file;
    const text = files[file] ?? '';
    const line = Buffer.from(text).subarray(0, d.location.span[0]).toString('utf8').split('\n').length;
    expect(d.category).toBe('plugin');
    return { file, line };
  });
}

describe('the no-spread-arguments lint plugin', () => {
  it('reports every spread of a computed array into a call or apply, and nothing else', () => {
    const found = lint({ 'src/cases.ts': CASES });
    const expected = CASES.split('\n')
      .map((l, i) => ({ l, line: i + 1 }))
      .filter(({ l }) => l.endsWith('// flagged'))
      .map(({ line }) => line);
    expect(expected).toHaveLength(14);
    expect(found.map((d) => d.line).sort((x, y) => x - y)).toEqual(expected);
  });

  it('applies to src/ only, as biome.json configures it', () => {
    const found = lint({
      'src/a.ts': 'declare const a: number[];\na.push(...a);\n',
      'test/a.ts': 'declare const a: number[];\na.push(...a);\n',
    });
    expect(found).toEqual([{ file: 'src/a.ts', line: 2 }]);
    const config = JSON.parse(readFileSync(path.join(REPO, 'biome.json'), 'utf8')) as {
      plugins?: unknown;
      overrides: { includes: string[]; plugins?: string[] }[];
    };
    expect(config.overrides).toContainEqual({
      includes: ['src/**'],
      plugins: ['./scripts/lint/no-spread-arguments.grit'],
    });
  });
});
