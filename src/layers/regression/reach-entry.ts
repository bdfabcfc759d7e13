/**
 * The files the base declares as entry points: where reading the command line
 * is what the code is for. A test imports library code; it runs an entry
 * point, if at all, as a program with the arguments the test chose. Only the
 * base decides: a patch cannot make a file an entry point by declaring it.
 *
 * JavaScript: a `bin` target of the nearest package.json, or a file whose
 * base copy starts with `#!`. Python: `__main__.py`, a module the base's
 * pyproject.toml, setup.cfg or setup.py names as a console script, or a file
 * whose base copy starts with `#!`. (Code under a `__main__` or
 * `require.main === module` guard is judged by the parsers themselves.)
 *
 * What an entry point may read, library code must not receive by importing
 * it: a production file that newly imports an entry point is reported.
 */
import path from 'node:path';
import { importCandidates } from '../../util/import-candidates.js';
import type { LayerContext } from '../types.js';

/** `bin` of a package.json: a path, or names to paths. */
function binTargets(manifest: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(manifest);
  } catch {
    // An unreadable manifest declares nothing: no exemption (fail closed).
    return [];
  }
  if (data === null || typeof data !== 'object') return [];
  const bin = (data as { bin?: unknown }).bin;
  if (typeof bin === 'string') return [bin];
  if (bin !== null && typeof bin === 'object')
    return Object.values(bin).filter((v): v is string => typeof v === 'string');
  return [];
}

function isPythonScriptModule(file: string, modules: readonly string[]): boolean {
  const stem = file.replace(/\.py$/, '').replace(/\/__init__$/, '');
  return modules.some((m) => {
    const asPath = m.replace(/\./g, '/');
    return stem === asPath || stem.endsWith(`/${asPath}`);
  });
}

/** Asks, for any path of the repository, whether the base declares it an entry point. */
export class EntryPoints {
  private readonly manifests = new Map<string, Promise<string | undefined>>();
  private readonly answers = new Map<string, Promise<boolean>>();

  constructor(
    private readonly ctx: LayerContext,
    /** Dotted modules the base's Python manifests name as console scripts (`pkg.cli`). */
    private readonly scriptModules: readonly string[],
  ) {}

  has(file: string): Promise<boolean> {
    let answer = this.answers.get(file);
    if (!answer) {
      answer = this.decide(file);
      this.answers.set(file, answer);
    }
    return answer;
  }

  private async decide(file: string): Promise<boolean> {
    if ((await this.ctx.base.readCommitted(file))?.startsWith('#!')) return true;
    if (file.endsWith('.py'))
      return path.posix.basename(file) === '__main__.py' || isPythonScriptModule(file, this.scriptModules);
    const manifest = await this.nearestManifest(file);
    if (!manifest) return false;
    return binTargets(manifest.text).some(
      (bin) => path.posix.normalize(path.posix.join(manifest.dir, bin)) === file,
    );
  }

  /** The nearest package.json above `file` in the base, and the folder it sits in. */
  private async nearestManifest(file: string): Promise<{ dir: string; text: string } | undefined> {
    for (let dir = path.posix.dirname(file); ; dir = path.posix.dirname(dir)) {
      const at = dir === '.' ? 'package.json' : `${dir}/package.json`;
      let text = this.manifests.get(at);
      if (!text) {
        text = this.ctx.base.readCommitted(at);
        this.manifests.set(at, text);
      }
      const found = await text;
      if (found !== undefined) return { dir: dir === '.' ? '' : dir, text: found };
      if (dir === '.' || dir === '/' || dir === '') return undefined;
    }
  }
}

/** The repository paths a JavaScript module specifier may name (relative ones only: packages are not entry points). */
export function jsLoadTargets(file: string, spec: string): string[] {
  return spec.startsWith('.') ? importCandidates(file, spec) : [];
}

/**
 * The repository paths a Python load (`level|module|name`, from the reader) may name: the module, and
 * the submodule `name` of it (`from pkg import cli`), under the file's own package for a relative one,
 * at the root and under `src/` for an absolute one.
 */
export function pyLoadTargets(file: string, load: string): string[] {
  const [levelText = '0', module = '', name = ''] = load.split('|');
  const level = Number(levelText);
  const dotted = [module, name].filter(Boolean);
  const bases: string[] = [];
  if (level > 0) {
    let dir = path.posix.dirname(file);
    for (let i = 1; i < level; i++) dir = path.posix.dirname(dir);
    bases.push(dir === '.' ? '' : `${dir}/`);
  } else bases.push('', 'src/');
  const out: string[] = [];
  for (const base of bases)
    for (const parts of [dotted, dotted.slice(0, module ? -1 : 0)].filter((p) => p.length > 0)) {
      const stem = `${base}${parts.join('/').replace(/\./g, '/')}`;
      out.push(`${stem}.py`, `${stem}/__init__.py`);
    }
  return [...new Set(out)];
}
