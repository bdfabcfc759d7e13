/**
 * The test toolchain is test side: the runner, assertion and property
 * libraries a suite loads must be the base's. A patch that changes their
 * version or source (a manifest entry, a lockfile entry, requirements, a
 * committed or vendored copy, an install hook) is reported for a human to
 * accept, since a changed `vitest` or `pytest` can make any test say yes.
 */

import { pushAll } from '../../util/arrays.js';
import type { Finding, LayerContext } from '../types.js';

/** npm packages a JavaScript suite's verdict rests on. */
const JS_TOOLS = [
  /^vitest$/,
  /^@vitest\//,
  /^vite$/,
  /^jest$/,
  /^jest-/,
  /^@jest\//,
  /^ts-jest$/,
  /^babel-jest$/,
  /^mocha$/,
  /^chai$/,
  /^chai-/,
  /^jasmine/,
  /^ava$/,
  /^tap$/,
  /^uvu$/,
  /^expect$/,
  /^fast-check$/,
  /^@fast-check\//,
  /^sinon$/,
  /^jest-junit$/,
  /^patchgate$/,
];
/** Python distributions (normalized: lower case, `-`). */
const PY_TOOLS = [
  /^pytest$/,
  /^pytest-/,
  /^hypothesis$/,
  /^hypothesis-/,
  /^pluggy$/,
  /^nose2?$/,
  /^mock$/,
  /^_pytest$/,
];

const isJsTool = (name: string) => JS_TOOLS.some((r) => r.test(name));
const isPyTool = (name: string) => PY_TOOLS.some((r) => r.test(name.toLowerCase().replace(/[._]+/g, '-')));

const MANIFEST_KEYS = [
  'dependencies',
  'devDependencies',
  'optionalDependencies',
  'peerDependencies',
  'overrides',
  'resolutions',
  'bundleDependencies',
  'bundledDependencies',
];

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Tool name → its spec in each dependency section of a package.json (and pnpm's overrides). */
function manifestEntries(json: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!isObject(json)) return out;
  const sections: [string, unknown][] = MANIFEST_KEYS.map((k) => [k, json[k]]);
  if (isObject(json.pnpm)) sections.push(['pnpm.overrides', json.pnpm.overrides]);
  for (const [key, section] of sections) {
    if (Array.isArray(section)) {
      for (const name of section)
        if (typeof name === 'string' && isJsTool(name)) out.set(`${key}.${name}`, 'bundled');
    } else if (isObject(section)) {
      for (const [name, spec] of Object.entries(section))
        if (isJsTool(name.replace(/@[^@/]*$/, '') || name)) out.set(`${key}.${name}`, JSON.stringify(spec));
    }
  }
  return out;
}

/** package-lock.json v2/v3: `packages["…node_modules/<tool>"]` version, source and integrity. */
function lockEntries(json: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!isObject(json)) return out;
  const packages = isObject(json.packages)
    ? json.packages
    : isObject(json.dependencies)
      ? json.dependencies
      : {};
  for (const [key, entry] of Object.entries(packages)) {
    const name = key.slice(key.lastIndexOf('node_modules/') + (key.includes('node_modules/') ? 13 : 0));
    if (!isJsTool(name) || !isObject(entry)) continue;
    out.set(key, JSON.stringify([entry.version, entry.resolved, entry.integrity, entry.link]));
  }
  return out;
}

/** yarn.lock, pnpm-lock.yaml, bun.lock: every line that names a tool, as a multiset of lines. */
function lockLines(text: string | undefined, tools: (name: string) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  if (text === undefined) return out;
  const lines = text.split(/\r?\n/);
  let block = '';
  lines.forEach((line) => {
    // A stanza starts at column 0 (yarn, pnpm keys); its body lines belong to it.
    if (/^\S/.test(line)) block = line;
    const names = [...`${block} ${line}`.matchAll(/(@?[a-z0-9][\w.-]*(?:\/[\w.-]+)?)@/gi)].map(
      (m) => m[1] ?? '',
    );
    if (names.some(tools))
      out.set(block === line ? line.trim() : `${block.trim()} > ${line.trim()}`, line.trim());
  });
  return out;
}

/** requirements files and pyproject/setup.cfg dependency lines that name a Python tool. */
function requirementLines(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (text === undefined) return out;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const m = /^["']?([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(line.replace(/^-e\s+/, ''));
    if (m?.[1] && isPyTool(m[1])) out.set(line, line);
    // `--index-url`, `--find-links`, `-r`/`-c`: where every package (tools included) comes from.
    else if (/^(--?[a-z-]+)/.test(line) && !/^-e\b/.test(line)) out.set(line, line);
  }
  return out;
}

function diffMaps(base: Map<string, string>, head: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of head) if (base.get(k) !== v) out.push(base.has(k) ? `changed ${k}` : `added ${k}`);
  for (const k of base.keys()) if (!head.has(k)) out.push(`removed ${k}`);
  return out;
}

/** A path that is a copy of a test tool or a hook into installs or interpreter start-up. */
function vendoredTool(path: string): string | undefined {
  const segs = path.split('/');
  const nm = segs.indexOf('node_modules');
  if (nm >= 0) return 'a committed node_modules (the gate never runs it, but it is a copy of dependencies)';
  const file = segs[segs.length - 1] ?? '';
  if (
    segs.slice(0, -1).some((s) => ['_pytest', 'pytest', 'hypothesis', 'pluggy', 'site-packages'].includes(s))
  )
    return 'a vendored copy of a Python test tool';
  if (['pytest.py', 'hypothesis.py', 'pluggy.py'].includes(file))
    return 'a module shadowing a Python test tool';
  if (['sitecustomize.py', 'usercustomize.py'].includes(file) || file.endsWith('.pth'))
    return 'a module the Python interpreter runs at start-up, before any test';
  if (
    ['.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', 'pnpmfile.cjs', 'bunfig.toml', 'pip.conf'].includes(
      file,
    )
  )
    return 'a file that says where and how dependencies are installed';
  return undefined;
}

export async function toolchainFindings(ctx: LayerContext, layer: string): Promise<Finding[]> {
  const findings: Finding[] = [];
  const push = (path: string, what: string, details: string[]) =>
    findings.push({
      code: 'TOOLCHAIN_CHANGED',
      layer,
      severity: 'reject',
      message: `${path}: the patch changes the test toolchain (${what}): ${details.slice(0, 5).join('; ')}${details.length > 5 ? `; and ${details.length - 5} more` : ''}`,
      evidence: {
        path,
        what,
        changes: details,
        next: 'a human reviews the test tool change and lands it in its own commit (or accepts this run with the override variable)',
      },
    });
  for (const change of ctx.changes) {
    const paths = change.from ? [change.from, change.path] : [change.path];
    for (const p of paths) {
      const file = p.slice(p.lastIndexOf('/') + 1);
      const base = await ctx.base.readCommitted(p);
      const head =
        change.kind === 'deleted' || p === change.from ? undefined : await ctx.head.readCommitted(p);
      let details: string[] = [];
      let what = '';
      const vendored = vendoredTool(p);
      if (vendored && p.split('/').includes('node_modules')) {
        // Every file of a committed node_modules is a copy of dependencies, its package.json and lockfiles too.
        if (p === change.path && change.kind !== 'deleted') {
          what = vendored;
          details = [`${change.kind} ${p}`];
        }
      } else if (file === 'package.json') {
        what = 'test tool entries of package.json';
        details = diffMaps(manifestEntries(parseJson(base)), manifestEntries(parseJson(head)));
      } else if (file === 'package-lock.json' || file === 'npm-shrinkwrap.json') {
        what = `test tool entries of ${file}`;
        details = diffMaps(lockEntries(parseJson(base)), lockEntries(parseJson(head)));
      } else if (['yarn.lock', 'pnpm-lock.yaml', 'bun.lock'].includes(file)) {
        what = `test tool entries of ${file}`;
        details = diffMaps(lockLines(base, isJsTool), lockLines(head, isJsTool));
      } else if (
        /^(requirements.*\.(txt|in)|constraints.*\.txt|pyproject\.toml|setup\.cfg|setup\.py|Pipfile|Pipfile\.lock|poetry\.lock|uv\.lock|pdm\.lock)$/.test(
          file,
        )
      ) {
        what = `Python test tool requirements in ${file}`;
        details = diffMaps(requirementLines(base), requirementLines(head));
        if (/\.lock$/.test(file)) details = diffMaps(lockLines(base, isPyTool), lockLines(head, isPyTool));
      } else {
        if (vendored && p === change.path && change.kind !== 'deleted') {
          what = vendored;
          details = [`${change.kind} ${p}`];
        }
      }
      if (details.length > 0) push(p, what, details);
    }
  }
  // One finding per committed node_modules folder, not one per file in it: it names the folder and counts them.
  const folders = new Map<string, Finding>();
  return findings.filter((f) => {
    const m = /^(.*?node_modules)\//.exec(String(f.evidence.path));
    if (!m) return true;
    const folder = m[1] ?? '';
    const first = folders.get(folder);
    if (first) {
      pushAll(first.evidence.changes as string[], f.evidence.changes as string[]);
      const n = (first.evidence.changes as string[]).length;
      first.message = `${folder}: the patch changes the test toolchain (${first.evidence.what}): ${n} files`;
      return false;
    }
    folders.set(folder, f);
    f.evidence.path = folder;
    f.message = `${folder}: the patch changes the test toolchain (${f.evidence.what}): ${(f.evidence.changes as string[]).join('; ')}`;
    return true;
  });
}
