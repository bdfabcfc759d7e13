/**
 * Where a repository says how it runs its tests besides its manifests: the
 * CI workflows' steps (`.github/workflows/*.yml` `run:` lines,
 * `.gitlab-ci.yml` `script:`), tox.ini `commands`, noxfile.py
 * `session.run(…)` calls and Makefile test targets. Each command line is
 * read as shell words (runner-command.ts) and followed through what it
 * stands for (`npm test` to package.json's script, `make test` to the
 * recipe, `tox -e py` to its `commands`, `nox` to the session), so every
 * runner found carries the chain of file:line that led to it, for init to
 * print.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { byCodePoint } from '../util/compare.js';
import { shellCommands } from '../util/shell-commands.js';
import { IniParseError, type IniSection, parseIni } from './ini-sections.js';
import { lineAt, literalArgs, scanPython } from './python-scan.js';
import { type Recognized, type RunnerName, recognize } from './runner-command.js';

/** One line of one file that led to a runner. */
export interface Step {
  file: string;
  line: number;
  /** The command as written on that line, trimmed. */
  command: string;
}

/** A runner a command line invokes, with how it was reached: `chain[0]` is where the search started. */
export interface RunnerUse {
  runner: RunnerName;
  /** The runner's command as shell words, from its own name on. */
  words: string[];
  chain: Step[];
  /** The CI step's name, for a use found from a CI workflow. */
  label?: string;
}

export interface RunnerHints {
  /** From CI workflow test steps: the strongest hint of how the project runs its tests. */
  ci: RunnerUse[];
  /** From tox.ini commands, noxfile.py sessions and Makefile test targets. */
  commands: RunnerUse[];
  /** Files that could not be read as their format, with why. */
  notes: string[];
}

async function readText(abs: string): Promise<string | undefined> {
  return readFile(abs, 'utf8').catch(() => undefined);
}

/** A line of text with where it is. */
interface Line {
  line: number;
  text: string;
}

/** Lines of a shell script, joining `\` continuations (numbered by their first line), blank and comment lines dropped. */
function scriptLines(text: string, firstLine: number): Line[] {
  const out: Line[] = [];
  const raw = text.split(/\r?\n/);
  for (let i = 0; i < raw.length; i++) {
    const start = i;
    let t = raw[i] as string;
    while (t.endsWith('\\') && i + 1 < raw.length)
      t = `${t.slice(0, -1).trimEnd()} ${(raw[++i] as string).trim()}`;
    const trimmed = t.trim();
    if (trimmed !== '' && !trimmed.startsWith('#')) out.push({ line: firstLine + start, text: trimmed });
  }
  return out;
}

/** GitHub's `${{ … }}` expressions are not shell; a placeholder word keeps the rest parseable. */
function withoutExpressions(text: string): string {
  return text.replace(/\$\{\{[^}]*\}\}/g, 'EXPR');
}

interface MakeTarget {
  line: number;
  prereqs: string[];
  recipe: Line[];
}

interface Makefile {
  file: string;
  targets: Map<string, MakeTarget>;
  defaultGoal: string | undefined;
}

const MAKE_DIRECTIVE =
  /^(?:ifeq|ifneq|ifdef|ifndef|else|endif|include|-include|sinclude|define|endef|export|unexport|override|vpath)\b/;

/** A Makefile's rules and recipes, with variables (`X = …`, `X := …`, `X ?= …`) expanded in recipe lines. */
export function parseMakefile(file: string, text: string): Makefile {
  const vars = new Map<string, string>([['MAKE', 'make']]);
  const targets = new Map<string, MakeTarget>();
  let defaultGoal: string | undefined;
  let current: MakeTarget[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const first = i;
    let raw = lines[i] as string;
    while (raw.endsWith('\\') && i + 1 < lines.length)
      raw = `${raw.slice(0, -1).trimEnd()} ${(lines[++i] as string).trim()}`;
    if (raw.startsWith('\t')) {
      const body = raw.slice(1).trim();
      if (body !== '' && !body.startsWith('#'))
        for (const t of current) t.recipe.push({ line: first + 1, text: body });
      continue;
    }
    const line = raw.replace(/(^|[^\\])#.*$/, '$1').trimEnd();
    if (line.trim() === '') continue;
    const assign = /^(?:override\s+|export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(?::::?=|[+?!]?=)\s*(.*)$/.exec(
      line,
    );
    if (assign) {
      const [, name, value] = assign as unknown as [string, string, string];
      // `?=` keeps an earlier value, as make does; `+=` appends.
      if (line.includes('?=') && vars.has(name)) continue;
      vars.set(name, line.includes('+=') ? `${vars.get(name) ?? ''} ${value}`.trim() : value);
      current = [];
      continue;
    }
    if (MAKE_DIRECTIVE.test(line.trim())) continue;
    const rule = /^([^:=]+?)\s*::?(?!=)\s*(.*)$/.exec(line);
    if (!rule) {
      current = [];
      continue;
    }
    const [, names, after] = rule as unknown as [string, string, string];
    const semi = after.indexOf(';');
    const prereqs = (semi < 0 ? after : after.slice(0, semi))
      .split(/\s+/)
      .filter((p) => p !== '' && !p.startsWith('|'));
    current = [];
    for (const name of names.split(/\s+/).filter((n) => n !== '')) {
      // Special targets (.PHONY…) and pattern rules are not goals.
      if (name.startsWith('.') || name.includes('%')) continue;
      defaultGoal ??= name;
      const t = targets.get(name) ?? { line: first + 1, prereqs: [], recipe: [] };
      for (const p of prereqs) t.prereqs.push(p);
      targets.set(name, t);
      current.push(t);
    }
    if (semi >= 0 && after.slice(semi + 1).trim() !== '')
      for (const t of current) t.recipe.push({ line: first + 1, text: after.slice(semi + 1).trim() });
  }
  const expand = (s: string, depth: number): string =>
    s.replace(
      /\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)|\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g,
      (m, a?: string, b?: string) => {
        if (m === '$$') return '$';
        const name = (a ?? b) as string;
        const v = vars.get(name);
        return v === undefined || depth > 5 ? `$${name}` : expand(v, depth + 1);
      },
    );
  for (const t of targets.values())
    t.recipe = t.recipe.map((r) => ({
      line: r.line,
      // Recipe prefixes: @ (silent), - (ignore errors), + (run under -n too).
      text: expand(r.text.replace(/^[@+-]+\s*/, ''), 0),
    }));
  return { file, targets, defaultGoal };
}

/** The names of Makefile targets init reads as "run the tests", in the order it tries them. */
const MAKE_TEST_TARGET = /^(?:tests?|check|unit(?:[-_]?tests?)?|tests?[-_][\w-]+|pytest|spec)$/;

function makeTestTargets(mf: Makefile): string[] {
  const rank = (n: string) => (n === 'test' ? 0 : n === 'tests' ? 1 : n === 'check' ? 2 : 3);
  return [...mf.targets.keys()]
    .filter((n) => MAKE_TEST_TARGET.test(n))
    .sort((a, b) => rank(a) - rank(b) || byCodePoint(a, b));
}

interface ToxEnv {
  name: string;
  commands: Line[];
}

/** Where each line of a key's value is in the file: the key's line, then its continuation lines, in order. */
function valueLines(section: IniSection, key: string): Line[] {
  const value = section.values.get(key);
  const keyLine = section.keyLines.get(key);
  if (value === undefined || keyLine === undefined) return [];
  const out: Line[] = [];
  const parts = value.split('\n');
  // The section's source lines start at its header.
  let at = keyLine - section.line;
  for (const part of parts) {
    if (part === '') continue;
    while (at < section.lines.length && !(section.lines[at] as string).includes(part)) at++;
    out.push({ line: at < section.lines.length ? section.line + at : keyLine, text: part });
  }
  return out;
}

/** tox's substitutions that matter for reading a command: the interpreter, bin folders, `{posargs:default}`. */
function toxSubstitute(text: string, ref: (section: string, key: string) => string | undefined): string {
  return text.replace(/\{([^{}]*)\}/g, (m, inner: string) => {
    if (inner === 'envpython') return 'python';
    if (inner === 'envbindir' || inner === 'envdir' || inner === 'toxinidir' || inner === 'tox_root')
      return '.';
    if (inner === 'posargs' || inner === 'tty') return '';
    if (inner.startsWith('posargs:')) return inner.slice('posargs:'.length);
    const r = /^\[([^\]]+)\]\s*(.+)$/.exec(inner);
    if (r) return ref(r[1] as string, (r[2] as string).trim()) ?? '';
    return m;
  });
}

export interface ToxFile {
  envs: ToxEnv[];
  sections: IniSection[];
}

/** tox.ini's test environments (`[testenv]`, `[testenv:NAME]`) and their commands, as tox reads them. */
export function readTox(text: string): ToxFile {
  const sections = parseIni(text);
  const byName = new Map(sections.map((s) => [s.name, s]));
  const ref = (section: string, key: string) => byName.get(section)?.values.get(key);
  const base = byName.get('testenv');
  const envs: ToxEnv[] = [];
  for (const s of sections) {
    if (s.name === undefined || (s.name !== 'testenv' && !s.name.startsWith('testenv:'))) continue;
    // An env without commands of its own runs [testenv]'s.
    const from = s.values.has('commands') ? s : base;
    if (from === undefined) continue;
    const commands = valueLines(from, 'commands').flatMap((l) =>
      // `- cmd` ignores the exit code; `{[testenv]commands}` stands for several lines.
      toxSubstitute(l.text.replace(/^[-!]\s*/, ''), ref)
        .split('\n')
        .map((t) => ({ line: l.line, text: t.trim() }))
        .filter((t) => t.text !== ''),
    );
    envs.push({ name: s.name === 'testenv' ? '' : s.name.slice('testenv:'.length), commands });
  }
  return { envs, sections };
}

interface NoxCall {
  session: string | undefined;
  line: number;
  args: string[];
  text: string;
}

/**
 * The `X.run("…", …)` calls of a noxfile, outside comments and strings, with
 * the literal arguments they start with and the function (session) they are in.
 */
export function readNoxfile(text: string): { runs: NoxCall[]; installs: NoxCall[] } {
  const scan = scanPython(text);
  const runs: NoxCall[] = [];
  const installs: NoxCall[] = [];
  const defs: { at: number; name: string }[] = [];
  for (const m of scan.code.matchAll(/^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)/gm))
    defs.push({ at: m.index ?? 0, name: m[1] as string });
  const sessionAt = (at: number) => {
    let name: string | undefined;
    for (const d of defs) if (d.at <= at) name = d.name;
    return name;
  };
  for (const m of scan.code.matchAll(/\b[A-Za-z_]\w*\.(run|run_always|install)\s*\(/g)) {
    const open = (m.index ?? 0) + m[0].length - 1;
    const args = literalArgs(scan, open);
    if (args.length === 0) continue;
    const line = lineAt(text, m.index ?? 0);
    const call = {
      session: sessionAt(m.index ?? 0),
      line,
      args,
      text: (text.split(/\r?\n/)[line - 1] ?? '').trim(),
    };
    (m[1] === 'install' ? installs : runs).push(call);
  }
  return { runs, installs };
}

/** Reads what a command line stands for, in the repository's files, loading each file once. */
class Resolver {
  private cache = new Map<string, Promise<unknown>>();
  readonly notes: string[] = [];
  constructor(readonly repoRoot: string) {}

  private once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let p = this.cache.get(key) as Promise<T> | undefined;
    if (!p) {
      p = load();
      this.cache.set(key, p);
    }
    return p;
  }

  packageJson(): Promise<{ text: string; scripts: Record<string, string> } | undefined> {
    return this.once('package.json', async () => {
      const text = await readText(path.join(this.repoRoot, 'package.json'));
      if (text === undefined) return undefined;
      try {
        const pkg = JSON.parse(text) as { scripts?: unknown };
        const scripts: Record<string, string> = {};
        if (pkg.scripts && typeof pkg.scripts === 'object')
          for (const [k, v] of Object.entries(pkg.scripts)) if (typeof v === 'string') scripts[k] = v;
        return { text, scripts };
      } catch {
        return undefined;
      }
    });
  }

  makefile(): Promise<Makefile | undefined> {
    return this.once('Makefile', async () => {
      for (const f of ['GNUmakefile', 'makefile', 'Makefile']) {
        const text = await readText(path.join(this.repoRoot, f));
        if (text !== undefined) return parseMakefile(f, text);
      }
      return undefined;
    });
  }

  tox(): Promise<ToxFile | undefined> {
    return this.once('tox.ini', async () => {
      const text = await readText(path.join(this.repoRoot, 'tox.ini'));
      if (text === undefined) return undefined;
      try {
        return readTox(text);
      } catch (err) {
        if (!(err instanceof IniParseError)) throw err;
        this.notes.push(`tox.ini could not be read (${err.message}), so its commands were not looked at`);
        return undefined;
      }
    });
  }

  nox(): Promise<ReturnType<typeof readNoxfile> | undefined> {
    return this.once('noxfile.py', async () => {
      const text = await readText(path.join(this.repoRoot, 'noxfile.py'));
      return text === undefined ? undefined : readNoxfile(text);
    });
  }

  /** The runners a command line at `at` invokes, followed through scripts, make, tox and nox. */
  async line(at: Step, depth = 0): Promise<RunnerUse[]> {
    const out: RunnerUse[] = [];
    for (const words of shellCommands(at.command)) {
      const r = recognize(words);
      if (r) for (const u of await this.follow(r, at, depth)) out.push(u);
    }
    return out;
  }

  private async follow(r: Recognized, at: Step, depth: number): Promise<RunnerUse[]> {
    if (depth > 5) return [];
    const deeper = async (steps: Step[]): Promise<RunnerUse[]> => {
      const out: RunnerUse[] = [];
      for (const s of steps)
        for (const u of await this.line(s, depth + 1)) out.push({ ...u, chain: [at, ...u.chain] });
      return out;
    };
    switch (r.kind) {
      case 'runner':
        return [{ runner: r.runner, words: r.words, chain: [at] }];
      case 'script': {
        const pkg = await this.packageJson();
        const text = pkg?.scripts[r.name];
        if (pkg === undefined || text === undefined) return [];
        const line = lineAt(pkg.text, Math.max(0, pkg.text.indexOf(JSON.stringify(r.name))));
        return deeper([{ file: 'package.json', line, command: text }]);
      }
      case 'make': {
        const mf = await this.makefile();
        if (!mf) return [];
        const steps: Step[] = [];
        const seen = new Set<string>();
        const visit = (name: string, d: number) => {
          const t = mf.targets.get(name);
          if (!t || seen.has(name) || d > 4) return;
          seen.add(name);
          for (const p of t.prereqs) visit(p, d + 1);
          for (const l of t.recipe) steps.push({ file: mf.file, line: l.line, command: l.text });
        };
        const goals = r.targets.length > 0 ? r.targets : mf.defaultGoal ? [mf.defaultGoal] : [];
        for (const g of goals) visit(g, 0);
        return deeper(steps);
      }
      case 'tox': {
        const tox = await this.tox();
        if (!tox) return [];
        // An env named on the command line without a section of its own (`-e py312`) runs [testenv].
        const named = tox.envs.filter((e) => e.name !== '' && r.envs.includes(e.name));
        const bare = r.envs.length === 0 || r.envs.some((n) => !tox.envs.some((e) => e.name === n));
        const chosen =
          r.envs.length === 0 ? tox.envs : [...named, ...(bare ? tox.envs.filter((e) => e.name === '') : [])];
        return deeper(
          chosen.flatMap((e) => e.commands.map((c) => ({ file: 'tox.ini', line: c.line, command: c.text }))),
        );
      }
      case 'nox': {
        const nox = await this.nox();
        if (!nox) return [];
        const named = nox.runs.filter((c) => c.session !== undefined && r.sessions.includes(c.session));
        const calls = r.sessions.length > 0 && named.length > 0 ? named : nox.runs;
        return deeper(calls.map((c) => ({ file: 'noxfile.py', line: c.line, command: noxCommand(c.args) })));
      }
    }
  }
}

/** A nox call's literal arguments as one shell line, each word quoted where it needs to be. */
function noxCommand(args: string[]): string {
  return args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function yamlLine(lc: LineCounter, node: Node | null | undefined): number {
  const at = node?.range?.[0];
  return at === undefined ? 1 : lc.linePos(at).line;
}

/** The lines of a scalar's script, each at its own line of the file where it can be found there. */
function scalarScript(text: string, lc: LineCounter, node: Node): Line[] {
  if (!isScalar(node) || typeof node.value !== 'string') return [];
  const start = node.range?.[0] ?? 0;
  const first = yamlLine(lc, node);
  const out: Line[] = [];
  let cursor = start;
  for (const l of scriptLines(node.value, first)) {
    const firstWord = l.text.split(/\s+/)[0] ?? l.text;
    const found = text.indexOf(firstWord, cursor);
    if (found >= 0 && found < (node.range?.[2] ?? text.length)) {
      cursor = found + firstWord.length;
      out.push({ line: lc.linePos(found).line, text: l.text });
    } else out.push({ line: first, text: l.text });
  }
  return out;
}

function yamlProblem(
  file: string,
  doc: ReturnType<typeof parseDocument>,
  lc: LineCounter,
): string | undefined {
  const err = doc.errors[0];
  if (!err) return undefined;
  const line = lc.linePos(err.pos[0]).line;
  return `${file} could not be read as YAML (line ${line}: ${err.message.split('\n')[0]}), so its steps were not looked at`;
}

/** `jobs.*.steps[*].run` of every workflow of .github/workflows, with each step's name. */
async function githubSteps(
  repoRoot: string,
  notes: string[],
): Promise<{ step: Step; label: string | undefined; named: boolean }[]> {
  const dir = path.join(repoRoot, '.github', 'workflows');
  const files = (await readdir(dir).catch(() => [] as string[]))
    .filter((f) => /\.ya?ml$/.test(f))
    .sort(byCodePoint);
  const out: { step: Step; label: string | undefined; named: boolean }[] = [];
  for (const f of files) {
    const file = `.github/workflows/${f}`;
    const text = await readText(path.join(dir, f));
    if (text === undefined) continue;
    const lc = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lc });
    const problem = yamlProblem(file, doc, lc);
    if (problem) {
      notes.push(problem);
      continue;
    }
    const jobs = doc.get('jobs', true);
    if (!isMap(jobs)) continue;
    for (const job of jobs.items) {
      const steps = isMap(job.value) ? job.value.get('steps', true) : undefined;
      if (!isSeq(steps)) continue;
      for (const s of steps.items) {
        if (!isMap(s)) continue;
        const run = s.get('run', true) as Node | undefined;
        if (!run) continue;
        const dirNode = s.get('working-directory');
        if (typeof dirNode === 'string' && dirNode !== '.' && dirNode !== './') {
          notes.push(
            `${file}:${yamlLine(lc, run)}: the step runs in ${dirNode}, not at the repository's root, so init did not read it; if that is where the tests are, set tests.command to what it runs there`,
          );
          continue;
        }
        const name = s.get('name');
        const id = s.get('id');
        const label = typeof name === 'string' ? name : typeof id === 'string' ? id : undefined;
        for (const l of scalarScript(text, lc, run))
          out.push({
            step: { file, line: l.line, command: withoutExpressions(l.text) },
            label,
            named: /test/i.test(label ?? ''),
          });
      }
    }
  }
  return out;
}

/** GitLab's keywords that are not jobs. */
const GITLAB_KEYWORDS = new Set([
  'stages',
  'variables',
  'default',
  'include',
  'workflow',
  'image',
  'services',
  'before_script',
  'after_script',
  'cache',
  'spec',
]);

/** Each job's `script` lines of .gitlab-ci.yml. */
async function gitlabSteps(
  repoRoot: string,
  notes: string[],
): Promise<{ step: Step; label: string | undefined; named: boolean }[]> {
  const file = '.gitlab-ci.yml';
  const text = await readText(path.join(repoRoot, file));
  if (text === undefined) return [];
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  const problem = yamlProblem(file, doc, lc);
  if (problem) {
    notes.push(problem);
    return [];
  }
  const root = doc.contents;
  if (!isMap(root)) return [];
  const out: { step: Step; label: string | undefined; named: boolean }[] = [];
  for (const job of root.items) {
    const name = isScalar(job.key) ? String(job.key.value) : undefined;
    if (name === undefined || GITLAB_KEYWORDS.has(name) || !isMap(job.value)) continue;
    const script = job.value.get('script', true) as Node | undefined;
    const items = isSeq(script)
      ? script.items.flatMap((i) => (isSeq(i) ? i.items : [i]))
      : script
        ? [script]
        : [];
    for (const item of items)
      for (const l of scalarScript(text, lc, item as Node))
        out.push({
          step: { file, line: l.line, command: l.text },
          label: name,
          named: /test/i.test(name),
        });
  }
  return out;
}

/**
 * The runners the repository's CI and task files invoke. CI steps first:
 * those named like a test step before the others, then by file and line.
 */
export async function readRunnerHints(repoRoot: string): Promise<RunnerHints> {
  const r = new Resolver(repoRoot);
  const notes: string[] = [];
  const steps = [...(await githubSteps(repoRoot, notes)), ...(await gitlabSteps(repoRoot, notes))];
  const named: RunnerUse[] = [];
  const other: RunnerUse[] = [];
  for (const s of steps)
    for (const u of await r.line(s.step))
      (s.named ? named : other).push(s.label !== undefined ? { ...u, label: s.label } : u);
  const commands: RunnerUse[] = [];
  const tox = await r.tox();
  for (const env of tox?.envs ?? [])
    for (const c of env.commands)
      for (const u of await r.line({ file: 'tox.ini', line: c.line, command: c.text })) commands.push(u);
  const nox = await r.nox();
  for (const c of nox?.runs ?? [])
    for (const u of await r.line({ file: 'noxfile.py', line: c.line, command: noxCommand(c.args) }))
      commands.push(u);
  const mf = await r.makefile();
  if (mf)
    // The rule line itself is no command: the chain starts at the recipe line.
    for (const t of makeTestTargets(mf))
      for (const u of await r.line({
        file: mf.file,
        line: mf.targets.get(t)?.line ?? 1,
        command: `make ${t}`,
      }))
        commands.push({ ...u, chain: u.chain.slice(1) });
  for (const n of r.notes) notes.push(n);
  return { ci: [...named, ...other], commands, notes };
}

/** `-r file` / `--requirement file` includes of a requirements text, relative to it. */
export function requirementIncludes(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:-r|--requirement)(?:\s*=\s*|\s+|(?=\S))(\S+)/gm))
    out.push(m[1] as string);
  return out;
}

/** The 1-based line of a requirement naming pytest itself (not a plugin), if any. */
export function pytestRequirementLine(text: string): number | undefined {
  const lines = text.split(/\r?\n/);
  const i = lines.findIndex((l) =>
    /^\s*pytest\s*(?:\[[^\]]*\])?\s*(?:[<>=~!;@]|$)/i.test(l.replace(/\s+#.*$/, '')),
  );
  return i < 0 ? undefined : i + 1;
}
