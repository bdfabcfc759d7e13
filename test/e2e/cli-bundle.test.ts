/**
 * The CLI as `npm run build` leaves it (scripts/bundle-cli.mjs): one entry
 * and a chunk per command, every file in dist/cli/. What the source-level
 * start-up test (test/unit/cli/help.test.ts) pins of src/ must hold of the
 * bundle too, since the bundler decides what each chunk holds: `--help` loads
 * no command, and the chunks sit where util/package-root.ts expects them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCliProcess } from '../helpers/gitdir.js';

const DIST_CLI = path.dirname(CLI);
const chunkText = (name: string) => readFileSync(path.join(DIST_CLI, name), 'utf8');

/** Relative specifiers a built file imports statically (`import … from "./x.js"`, `import "./x.js"`). */
function staticImports(text: string): string[] {
  return [...text.matchAll(/^\s*(?:import|export)\s*(?:[^'";()]*?\s*from\s*)?["'](\.[^"']+)["'];/gm)].map(
    (m) => m[1] as string,
  );
}

/** The entry and every chunk it loads before any command does. */
function startupChunks(): string[] {
  const seen = new Set<string>();
  const todo = [path.basename(CLI)];
  for (let f = todo.pop(); f !== undefined; f = todo.pop()) {
    if (seen.has(f)) continue;
    seen.add(f);
    for (const spec of staticImports(chunkText(f))) todo.push(path.posix.normalize(spec));
  }
  return [...seen];
}

/** The source modules esbuild names at each module boundary of a chunk (`// dist/pipeline.js`). */
const modulesIn = (text: string) =>
  [...text.matchAll(/^\/\/ ((?:dist|node_modules)\/\S+)$/gm)].map((m) => m[1]);

describe('the bundled CLI', () => {
  it('loads no command, no pipeline and none of zod, yaml, picomatch or saxes before a command runs', () => {
    const chunks = startupChunks();
    expect(chunks).toContain('bin.js');
    const modules = chunks.flatMap((c) => modulesIn(chunkText(c)));
    expect(modules).toContain('dist/cli/specs.js');
    const heavy = modules.filter(
      (m) =>
        /^node_modules\/(zod|yaml|picomatch|saxes|smol-toml|fast-check)\//.test(m ?? '') ||
        /^dist\/(pipeline|layers\/|cli\/commands\/)/.test(m ?? ''),
    );
    expect(heavy).toEqual([]);
  });

  it('keeps every chunk beside the entry, two folders below the package as util/package-root.ts counts on', () => {
    const files = readdirSync(DIST_CLI).filter((f) => f.startsWith('bundle-') && f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(1);
    for (const f of ['bin.js', ...files])
      for (const spec of staticImports(chunkText(f)))
        expect(spec, `${f} imports ${spec}`).toMatch(/^\.\/bundle-[^/]+\.js$/);
    // The check command is a chunk of its own, imported only when `check` runs.
    expect(files.some((f) => /^bundle-check-[A-Z0-9]+\.js$/.test(f))).toBe(true);
    expect(chunkText('bin.js')).toMatch(/import\("\.\/bundle-check-[A-Z0-9]+\.js"\)/);
  });

  it('finds the package it runs from: --version is the version package.json carries', async () => {
    const pkg = JSON.parse(readFileSync(path.resolve(DIST_CLI, '../../package.json'), 'utf8')) as {
      version: string;
    };
    const r = await runCliProcess(['--version'], { cwd: DIST_CLI });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });
});
