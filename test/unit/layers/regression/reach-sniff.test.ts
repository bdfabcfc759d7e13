/**
 * Production code that sniffs the test run: the shapes, not a list of names.
 * Each case is a patch (base text → head text) run through the gate's real
 * reach check: the TypeScript compiler's parser and checker for JavaScript,
 * Python's own ast in the real sandbox for Python.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PatchgateConfigInput } from '../../../../src/config/schema.js';
import { reachFindings } from '../../../../src/layers/regression/reach.js';
import type { Finding } from '../../../../src/layers/types.js';
import { Sandbox } from '../../../../src/sandbox/sandbox.js';
import { tempDir } from '../../../helpers/gitdir.js';
import { reachContext, type Texts } from '../../../helpers/reach-context.js';

const PYTEST: PatchgateConfigInput = { tests: { preset: 'pytest' } };

const reach = async (base: Texts, head: Texts, config?: PatchgateConfigInput) =>
  reachFindings(await reachContext(base, head, config), 'regression');

/** `[shape, line]` of each finding, in order. */
const shapes = (fs: Finding[]) => fs.map((f) => [f.evidence.shape, f.evidence.line]);

/** The findings a patch adding `code` to an existing production file gets. */
async function added(file: string, code: string, extra: Texts = {}, config?: PatchgateConfigInput) {
  const before = file.endsWith('.py') ? 'def add(a, b):\n    return a + b\n' : 'export const one = 1;\n';
  return reach({ [file]: before, ...extra }, { [file]: `${before}${code}\n`, ...extra }, config);
}
const js = (code: string, extra?: Texts) => added('src/lib.ts', code, extra);
const py = (code: string, extra?: Texts) => added('src/calc.py', code, extra, PYTEST);

describe('reach: JavaScript code that sniffs the command line', () => {
  it('rejects process.argv compared with a test runner name, with file, line, shape, word and next step', async () => {
    const [f, ...rest] = await js(
      "export const sniff = () => process.argv.some((a) => a.includes('vitest'));",
    );
    expect(rest).toEqual([]);
    expect(f).toMatchObject({
      code: 'PRODUCTION_REACHES_TESTS',
      severity: 'reject',
      evidence: {
        path: 'src/lib.ts',
        line: 2,
        shape: 'command-line',
        detail: 'process.argv',
        word: 'vitest',
      },
    });
    expect(f?.message).toContain('src/lib.ts:2: production code reads the command line');
    expect(f?.message).toContain("compared with 'vitest'");
    expect(String(f?.evidence.next)).toContain('entry point');
    expect(String(f?.evidence.next)).toContain('PATCHGATE_TESTS_OVERRIDE');
  });

  it.each([
    ['const p = process; export const a = p.argv;', 'a local alias'],
    ['const { argv } = process; export const a = argv.length;', 'destructuring'],
    ["import { argv } from 'node:process'; export const a = argv[2];", 'a node:process import'],
    ["import proc from 'process'; export const a = proc.execArgv;", 'a default import'],
    ['let p; p = globalThis.process; export const a = p.argv0;', 'a later assignment through globalThis'],
    ["export const a = require('node:process')['ar' + 'gv'];", 'require and a built key'],
    ['export const a = Reflect.get(process, "argv");', 'Reflect.get'],
  ])('rejects the command line read in library code through %s (%s)', async (code) => {
    const found = await js(code);
    expect(shapes(found)).toEqual([['command-line', 2]]);
    expect(found[0]?.message).toContain('outside an entry point the base declares');
  });

  const cli = {
    'package.json': '{"name": "tool", "bin": {"tool": "./bin/tool.js"}}\n',
    'bin/tool.js': "#!/usr/bin/env node\nimport { run } from '../src/lib.js';\nrun([]);\n",
  };

  it('accepts argv read in a bin the base package.json declares', async () => {
    const found = await reach(cli, {
      ...cli,
      'bin/tool.js':
        "#!/usr/bin/env node\nimport { run } from '../src/lib.js';\nrun(process.argv.slice(2));\n",
    });
    expect(found).toEqual([]);
  });

  it('rejects argv compared with a runner name even in a declared bin', async () => {
    const found = await reach(cli, {
      ...cli,
      'bin/tool.js':
        "#!/usr/bin/env node\nif (process.argv.join(' ').includes('vitest')) process.exitCode = 0;\n",
    });
    expect(shapes(found)).toEqual([['command-line', 2]]);
    expect(found[0]?.evidence.word).toBe('vitest');
  });

  it('rejects library code that newly imports the declared bin: what the bin reads must not reach it', async () => {
    const found = await reach(cli, {
      ...cli,
      'bin/tool.js': '#!/usr/bin/env node\nexport const flag = process.argv.length > 2;\n',
      'src/lib.ts': "import { flag } from '../bin/tool.js';\nexport const fast = () => flag;\n",
    });
    expect(found.map((f) => f.evidence)).toEqual([
      expect.objectContaining({ path: 'src/lib.ts', line: 1, shape: 'command-line', detail: 'bin/tool.js' }),
    ]);
  });

  it('takes no entry point from a package.json the base cannot parse (fail closed)', async () => {
    const base = {
      'package.json': '{"name": "tool", "bin": "./bin/tool.js",\n',
      'bin/tool.js': 'export {};\n',
    };
    const found = await reach(base, {
      ...base,
      'bin/tool.js': 'export const args = process.argv.slice(2);\n',
    });
    expect(shapes(found)).toEqual([['command-line', 1]]);
  });

  it('reads a 40-link method chain at the cost of its length (resolution is memoised per node)', async () => {
    // Without the memo, each link resolves its receiver three times over: 3^40 steps, a run that never ends.
    const chain = Array.from({ length: 40 }, (_, i) => `.replace('${i}', '')`).join('');
    expect(
      shapes(
        await js(
          `export const v = (s: string) => s${chain};\nexport const w = process.env[String(1)${chain}];`,
        ),
      ),
    ).toEqual([['environment', 3]]);
  });

  it('does not take an entry point from the head: a bin the patch declares is still library code', async () => {
    const base = { 'package.json': '{"name": "lib"}\n', 'src/lib.js': 'export const one = 1;\n' };
    const found = await reach(base, {
      'package.json': '{"name": "lib", "bin": "./src/lib.js"}\n',
      'src/lib.js': 'export const one = process.argv.length;\n',
    });
    expect(shapes(found)).toEqual([['command-line', 1]]);
  });

  it('accepts argv under a require.main === module guard and in the function it calls', async () => {
    const found = await js(
      [
        'function main() {',
        '  return process.argv.slice(2);',
        '}',
        'if (require.main === module) {',
        '  main();',
        '}',
        'if (import.meta.url === pathToFileURL(process.argv[1]).href) main();',
      ].join('\n'),
    );
    expect(found).toEqual([]);
  });

  it('rejects argv in an exported function the guard calls: a test can call it directly', async () => {
    const code =
      'export function main() {\n  return process.argv.length > 2;\n}\nif (require.main === module) main();';
    expect(shapes(await js(code))).toEqual([['command-line', 3]]);
  });

  it('rejects a guard that is not the idiom (`|| true`)', async () => {
    const found = await js('if (require.main === module || true) {\n  console.log(process.argv);\n}');
    expect(shapes(found)).toEqual([['command-line', 3]]);
  });

  it('accepts util.parseArgs given its args, rejects it reading the command line itself', async () => {
    const imp = "import { parseArgs } from 'node:util';\n";
    expect(await js(`${imp}export const o = (args: string[]) => parseArgs({ args, options: {} });`)).toEqual(
      [],
    );
    expect(shapes(await js(`${imp}export const o = parseArgs({ options: {} });`))).toEqual([
      ['command-line', 3],
    ]);
  });

  it('rejects process.versions deciding a branch, accepts the version in a string', async () => {
    expect(shapes(await js("export const fast = process.versions.node === '20.20.2' ? 1 : 0;"))).toEqual([
      ['runtime-version', 2],
    ]);
    expect(await js("export const ua = 'node/' + process.version;")).toEqual([]);
  });
});

describe('reach: JavaScript code that sniffs the test machinery', () => {
  it.each([
    ["export const a = typeof describe !== 'undefined';", 'test-global', 'typeof describe'],
    ["export const a = typeof globalThis['exp' + 'ect'];", 'test-global', 'a built global name'],
    ["const n = 'desc' + 'ribe';\nexport const a = globalThis[n];", 'test-global', 'a constant name'],
    ["export const a = 'vi' in globalThis;", 'test-global', 'membership'],
    ['export const a = import.meta.vitest;', 'test-global', 'in-source testing'],
    ['export const a = globalThis.__vitest_worker__;', 'test-global', 'a hidden global'],
    ['export const a = (k: string) => globalThis[k];', 'global-scope', 'a computed global'],
    ['export const a = Object.keys(globalThis);', 'global-scope', 'an enumerated global scope'],
    ['export const a = (k: string) => process.env[k];', 'environment', 'a computed variable'],
    ['export const a = Object.keys(process.env);', 'environment', 'an enumerated environment'],
    ['export function f() { for (const k in process.env) return k; }', 'environment', 'for…in'],
    [
      "import { env } from 'node:process';\nexport const a = (k: string) => env[k];",
      'environment',
      'an imported env',
    ],
    ["export const a = process.env['VIT' + 'EST'];", 'runner-variable', 'a built runner variable'],
    [
      'export const a = process.env[String.fromCharCode(86, 73, 84, 69, 83, 84)];',
      'runner-variable',
      'char codes',
    ],
    ["export const a = process.env[atob('VklURVNU')];", 'runner-variable', 'base64'],
    ["export const a = process.env.NODE_ENV === 'test';", 'runner-variable', "NODE_ENV compared with 'test'"],
    ['export const a = Boolean(process.env.IS_TEST);', 'runner-variable', 'a variable named as a test flag'],
    ["export const a = process.env['TEST' + 'ING'] ? 1 : 2;", 'runner-variable', 'TESTING, built'],
    ["export const a = import.meta.env.MODE === 'test';", 'runner-variable', 'import.meta.env.MODE'],
    ['export const s = () => new Error().stack;', 'call-stack', 'a fresh stack'],
    [
      'export const s = () => { const o = {}; Error.captureStackTrace(o); return o; };',
      'call-stack',
      'a capture',
    ],
    ['Error.prepareStackTrace = (_e, s) => s;', 'call-stack', 'structured frames'],
    [
      "export const s = (e: Error) => e.stack?.includes('.test.');",
      'call-stack',
      'a stack compared with a test file',
    ],
    [
      "export const c = Object.keys(require.cache).some((k) => k.includes('x'));",
      'module-registry',
      'require.cache',
    ],
    ['export const p = module.parent.filename;', 'module-registry', 'module.parent'],
    ['export const m = require.main;', 'module-registry', 'require.main'],
    ['export const load = (n: string) => import(n);', 'computed-import', 'a computed import'],
    ['const r = require;\nexport const load = (n: string) => r(n);', 'computed-import', 'an aliased require'],
    ['export const run = (c: string) => eval(c);', 'computed-code', 'computed code'],
    ["export const a = eval('typeof expect');", 'test-global', 'constant code that sniffs'],
    [
      "export const a = new Function('return this')()['exp' + 'ect'];",
      'test-global',
      'Function("return this")',
    ],
    [
      "import { isMainThread } from 'node:worker_threads';\nexport const a = !isMainThread;",
      'process-context',
      'a worker',
    ],
    ['export const h = process._getActiveHandles();', 'runtime-internals', 'process internals'],
    ['export const hand = (f: (p: unknown) => void) => f(process);', 'escape', 'process handed on'],
    [
      "export const a = globalThis.hasOwnProperty('describe');",
      'test-global',
      'hasOwnProperty on globalThis',
    ],
    [
      "export const a = (k: string) => ({}).constructor.constructor('return this')()[k];",
      'global-scope',
      'Function reached through constructors',
    ],
    [
      "export const a = (() => 0).constructor('return typeof expect')();",
      'test-global',
      'a function literal constructor',
    ],
    [
      "export const a = import('node:process').then((p) => p.argv.length);",
      'command-line',
      'a dynamic import awaited with then',
    ],
    ['export const a = process.env[String.raw`VITEST`];', 'runner-variable', 'String.raw'],
    ['export const env = () => process.env;', 'environment', 'the environment handed on'],
    ["export const copy = { ...process.env, X: '1' };", 'environment', 'an exported copy of the environment'],
    [
      'const o = { e: process.env };\nexport const get = (k: string) => o.e[k];',
      'environment',
      'an object holding it',
    ],
    [
      "export const v = Object.getOwnPropertyDescriptor(process, 'env')?.value;",
      'environment',
      'a property descriptor',
    ],
    [
      "export const c = readFileSync('/proc/self/cmdline', 'utf8');",
      'command-line',
      'the command line as a file',
    ],
    [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the code under test holds a template literal
      'export const s = (pid: number) => readFileSync(`/proc/${pid}/status`);',
      'process-context',
      '/proc by pid',
    ],
    ['with (process) {\n  console.log(argv);\n}', 'global-scope', 'with (process)'],
    [
      "import Module from 'node:module';\nModule.prototype.require = () => ({});",
      'patches-runtime',
      'the loader',
    ],
  ])('rejects %s as %s (%s)', async (code, shape) => {
    const found = await js(code);
    expect(found.map((f) => f.evidence.shape)).toContain(shape);
    for (const f of found) expect(f.evidence).toMatchObject({ path: 'src/lib.ts' });
  });

  it.each([
    ['export const a = process.env.HOME;', 'a literal variable'],
    ['export const a = process.env.TEST_DATABASE_URL;', 'configuration that starts with TEST'],
    ["spawn('node', [], { env: { ...process.env, X: '1' } });", 'a copy for a child process'],
    [
      "const env = { ...process.env, X: '1' };\nfork('w.js', [], { env });",
      'a local copy for a child process',
    ],
    ["new Worker('w.js', { env: process.env });", 'the environment of a worker'],
    ["export const a = process.env.NODE_ENV === 'production';", 'NODE_ENV compared with production'],
    ["export const a = typeof process !== 'undefined' && process.env?.LOG_LEVEL;", 'optional chaining'],
    ['export function f(expect: number) { return expect + 1; }', 'a parameter named like a test global'],
    [
      'export class P { stack: number[] = []; top() { return this.stack[this.stack.length - 1]; } }',
      'a field named stack',
    ],
    [
      'export class E extends Error { constructor() { super(); Error.captureStackTrace(this, E); } }',
      'an error class',
    ],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the code under test holds a template literal
    ['export const load = (lang: string) => import(`./locales/${lang}.js`);', 'a relative template import'],
    ['export const isMain = require.main === module;', 'the main-module idiom'],
    ['export const t = (x: unknown): x is Error => x instanceof Error;', 'instanceof Error'],
    ['process.title = "tool";', 'setting the title'],
  ])('accepts %s (%s)', async (code) => {
    expect(await js(code)).toEqual([]);
  });

  it.each([
    [
      "export const m = () => {\n  switch (process.env.NODE_ENV) {\n    case 'test':\n      return 1;\n  }\n};",
      'switch',
    ],
    ["export const m = ['test', 'ci'].includes(process.env.MODE ?? '');", 'a list of modes'],
    ['export const m = /jest/.test(process.env.npm_lifecycle_script ?? "");', 'a regular expression'],
    [
      "const mode = process.env.APP_MODE;\nexport const m = mode?.toLowerCase() === 'test';",
      'an alias, lower-cased',
    ],
  ])('rejects an environment value compared with a test mode through %s (%s)', async (code) => {
    const found = await js(code);
    expect(found.map((f) => f.evidence.shape)).toEqual(['runner-variable']);
    expect(found[0]?.evidence.word).toBeDefined();
  });

  it('accepts an environment value read in a config object that also lists test globs', async () => {
    const code =
      "export default {\n  include: ['tests/**/*.test.ts', 'test_*.js'],\n  name: process.env.BUILD_NAME,\n};";
    expect(await js(code)).toEqual([]);
  });

  it('gives up folding a list that doubles 60 times, and reports the read as computed', async () => {
    // Without a cap on every step the folder would build 2^60 strings.
    const lines = ["const l0 = ['x', 'y'];"];
    for (let i = 1; i <= 60; i++) lines.push(`const l${i} = [...l${i - 1}, ...l${i - 1}];`);
    lines.push('export const v = process.env[l60.join("")];');
    expect(shapes(await js(lines.join('\n')))).toEqual([['environment', 63]]);
  });

  it('rejects a file nested too deeply to walk: what it does is unknown', async () => {
    const deep = `export const x = ${Array.from({ length: 60_000 }, () => 'a').join(' + ')};\n`;
    const found = await js(deep);
    expect(found.map((f) => f.evidence)).toEqual([
      expect.objectContaining({
        path: 'src/lib.ts',
        line: 1,
        shape: 'computed-code',
        detail: 'unread (too deep)',
      }),
    ]);
  });

  it('does not let `declare const expect` hide the global', async () => {
    expect(shapes(await js('declare const expect: unknown;\nexport const a = typeof expect;'))).toEqual([
      ['test-global', 3],
    ]);
  });

  it("folds every split of 'VITEST' into literal pieces joined by +, a template or join", async () => {
    // One patch with many files: a property over how the name is built, with one parser pass per file.
    const splits = fc.sample(
      fc
        .array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 })
        .map((cuts) => {
          const parts: string[] = [];
          let rest = 'VITEST';
          for (const c of cuts) {
            if (rest.length === 0) break;
            parts.push(rest.slice(0, c));
            rest = rest.slice(c);
          }
          if (rest) parts.push(rest);
          return parts;
        })
        .chain((parts) =>
          fc.constantFrom(
            parts.map((p) => `'${p}'`).join(' + '),
            `\`${parts.map((p, i) => (i % 2 ? `\${'${p}'}` : p)).join('')}\``,
            `[${parts.map((p) => `'${p}'`).join(', ')}].join('')`,
          ),
        ),
      { numRuns: 40, seed: 17 },
    );
    const head: Texts = {};
    splits.forEach((expr, i) => {
      head[`src/m${i}.ts`] = `export const on = process.env[${expr}];\n`;
    });
    const found = await reach({}, head);
    expect(found.map((f) => f.evidence.path).sort()).toEqual(Object.keys(head).sort());
    for (const f of found) expect(f.evidence).toMatchObject({ shape: 'runner-variable', detail: 'VITEST' });
  });

  it('counts only what the patch added: a sniff the base had is not reported again', async () => {
    const before = "export const a = typeof describe !== 'undefined';\n";
    expect(await reach({ 'src/lib.ts': before }, { 'src/lib.ts': `${before}export const b = 2;\n` })).toEqual(
      [],
    );
  });
});

describe('reach: Python code that sniffs the test run', () => {
  it("rejects 'pytest' in sys.modules through an alias, with file, line, shape and next step", async () => {
    const [f, ...rest] = await py("import sys as s\n\n\ndef fast():\n    return 'pytest' in s.modules");
    expect(rest).toEqual([]);
    expect(f?.evidence).toMatchObject({ path: 'src/calc.py', line: 7, shape: 'module-registry' });
    expect(f?.message).toContain("looks for the test module 'pytest' in the module registry");
    expect(String(f?.evidence.next)).toContain('PATCHGATE_TESTS_OVERRIDE');
  });

  it.each([
    [
      "from sys import modules as m\nok = m.get('_pytest') is not None",
      'module-registry',
      'from sys import … as',
    ],
    ["import sys\nok = any(k.startswith('hyp') for k in sys.modules)", 'module-registry', 'iteration'],
    ['import sys\nok = lambda n: sys.modules[n]', 'module-registry', 'a computed key'],
    [
      "import sys\nok = getattr(sys, 'mod' + 'ules').get('pytest')",
      'module-registry',
      'getattr with a built name',
    ],
    ["import importlib.util\nok = importlib.util.find_spec('hypothesis')", 'module-registry', 'find_spec'],
    [
      "import sys\nclass A:\n    __module__ = 'pytest'\nok = sys.modules[A.__module__]",
      'module-registry',
      'a forged __module__',
    ],
    ["import sys\nok = 'pytest' in sys.argv[0]", 'command-line', 'sys.argv'],
    ['from sys import argv as a\nok = len(a) > 1', 'command-line', 'from sys import argv as'],
    ['import sys\nok = sys.orig_argv', 'command-line', 'sys.orig_argv'],
    ['import sys\nok = sys.flags.optimize', 'command-line', 'sys.flags'],
    ['import argparse\nok = argparse.ArgumentParser().parse_args()', 'command-line', 'parse_args()'],
    ['import inspect\nok = lambda: inspect.stack()', 'call-stack', 'inspect.stack'],
    ['import sys\nok = lambda: sys._getframe(1).f_code', 'call-stack', 'sys._getframe'],
    ['import traceback\nok = lambda: traceback.extract_stack()', 'call-stack', 'traceback.extract_stack'],
    ['import sys\nok = sys.gettrace() is not None', 'call-stack', 'the tracer'],
    ['import gc\nok = len(gc.get_objects())', 'call-stack', 'the heap'],
    ['import os\nok = lambda n: os.environ[n]', 'environment', 'a computed variable'],
    ['from os import environ as e\nok = lambda k: e.get(k)', 'environment', 'from os import environ as'],
    ['import os\nok = [k for k in os.environ]', 'environment', 'iteration'],
    [
      "import os\nok = lambda k: getattr(os, 'env' + 'iron')[k]",
      'environment',
      "getattr(os, 'env' + 'iron')",
    ],
    ["ok = lambda k: __import__('os').environ[k]", 'environment', "__import__('os')"],
    [
      "import os\nok = os.environ.get('PYTEST_' + 'CURRENT_TEST')",
      'runner-variable',
      'a built pytest variable',
    ],
    ["import os\nok = os.environ.get('APP_ENV') == 'test'", 'runner-variable', "a mode compared with 'test'"],
    ["import os\nok = 'TESTING' in os.environ", 'runner-variable', 'a variable named as a test flag'],
    [
      "import sys\nok = getattr(sys, '_called_from_test', False)",
      'global-scope',
      'a name a pristine sys lacks',
    ],
    ['import builtins\nok = vars(builtins)', 'global-scope', 'vars(builtins)'],
    ['ok = __builtins__', 'global-scope', '__builtins__'],
    ["ok = globals()['__builtins__']", 'global-scope', "globals()['__builtins__']"],
    ['ok = lambda n: __import__(n)', 'computed-import', '__import__'],
    ['import importlib\nok = lambda n: importlib.import_module(n)', 'computed-import', 'import_module'],
    ['ok = lambda c: exec(c)', 'computed-code', 'exec'],
    ["ok = eval(\"'pytest' in __import__('sys').modules\")", 'module-registry', 'constant code that sniffs'],
    [
      "import sys\nok = type(sys.stdout).__name__ != 'TextIOWrapper'",
      'process-context',
      'the captured stream',
    ],
    ['import sys\nok = lambda f: f(sys)', 'escape', 'sys handed on'],
    ['import logging\nok = lambda: logging.currentframe()', 'call-stack', 'logging.currentframe'],
    ['import sys\nok = sys.modules.__len__()', 'module-registry', 'a dunder of the registry'],
    ['import os\nok = os.environ.__len__()', 'environment', 'a dunder of the environment'],
    ['import os\nok = os.environ.get.__self__', 'environment', 'the mapping behind a bound method'],
    ['import os\n\n\ndef env():\n    return os.environ', 'environment', 'the environment handed on'],
    ['import os\nENV = os.environ', 'environment', 'a module attribute importers read'],
    ['import os\nclass C:\n    e = os.environ', 'environment', 'a class attribute'],
    ['import os\nok = os.environ._data', 'environment', 'the raw mapping'],
    ['import sys\nREGISTRY = sys.modules', 'module-registry', 'the registry as a module attribute'],
    ["ok = open('/proc/self/' + 'cmdline').read()", 'command-line', 'the command line as a file'],
    ["ok = lambda pid: open(f'/proc/{pid}/environ').read()", 'environment', 'the environment as a file'],
  ])('rejects %s as %s (%s)', async (code, shape) => {
    const found = await py(code);
    expect(found.map((f) => f.evidence.shape)).toContain(shape);
    for (const f of found) expect(f.evidence).toMatchObject({ path: 'src/calc.py' });
  });

  it.each([
    ['import sys\nok = sys.modules[__name__]', "this module's own entry"],
    ['import sys\nok = sys.modules[cls.__module__].__dict__', "a class's own module"],
    ["import sys\nok = 'numpy' in sys.modules", 'an optional dependency'],
    ["import os\nok = os.environ.get('HOME')", 'a literal variable'],
    ["import os\nok = os.environ['TEST_DATABASE_URL']", 'configuration that starts with TEST'],
    [
      "import os, subprocess\n\n\ndef run():\n    env = os.environ.copy()\n    env['X'] = '1'\n    subprocess.run(['x'], env=env)",
      'a copy for a child process',
    ],
    [
      "import os, subprocess\nsubprocess.run(['x'], env={**os.environ, 'X': '1'})",
      'a spread copy for a child',
    ],
    ["import importlib\nok = lambda n: importlib.import_module('.' + n, __package__)", 'a relative import'],
    ['import traceback\n\ndef log():\n    traceback.print_exc()', 'printing the current exception'],
    ['import builtins\nok = builtins.open', 'a builtin by name'],
    ['import sys\nok = sys.version_info >= (3, 11)', 'a version check'],
    ["import sys\nsys.path.insert(0, 'x')", 'editing sys.path'],
    ['import sys\nprint("x", file=sys.stderr)', 'writing to stderr'],
  ])('accepts %s (%s)', async (code) => {
    expect(await py(code)).toEqual([]);
  });

  it.each([
    ["import os\n\nmatch os.environ.get('APP'):\n    case 'test':\n        FAST = True", 'match'],
    ["import os\nFAST = os.environ.get('APP', '').lower() in ('test', 'ci')", 'a tuple, lower-cased'],
    ["import os, re\nFAST = re.match('pytest', os.environ.get('RUNNER', ''))", 're.match'],
  ])('rejects an environment value compared with a test mode through %s (%s)', async (code) => {
    const found = await py(code);
    expect(found.map((f) => f.evidence.shape)).toEqual(['runner-variable']);
  });

  it('accepts an environment value read in a config dict that also lists test paths', async () => {
    const code = "import os\nCONFIG = {'paths': ['tests/', 'test_x.py'], 'name': os.environ.get('NAME')}";
    expect(await py(code)).toEqual([]);
  });

  it('accepts sys.argv under the __main__ guard and in the function the guard calls', async () => {
    const code = [
      'import sys',
      '',
      '',
      'def main():',
      '    return sys.argv[1:]',
      '',
      '',
      'if __name__ == "__main__":',
      '    print(sys.argv)',
      '    main()',
    ].join('\n');
    expect(await py(code)).toEqual([]);
  });

  it('rejects the guard when the file rebinds __name__', async () => {
    const code = "import sys\n__name__ = '__main__'\nif __name__ == '__main__':\n    x = sys.argv";
    expect(shapes(await py(code))).toEqual([['command-line', 6]]);
  });

  it('accepts sys.argv in __main__.py and in a console script the base pyproject.toml names', async () => {
    const pyproject = '[project]\nname = "calc"\n\n[project.scripts]\ncalc = "calc.cli:main"\n';
    const base = {
      'pyproject.toml': pyproject,
      'src/calc/cli.py': 'X = 1\n',
      'src/calc/__main__.py': 'X = 1\n',
    };
    const head = {
      'pyproject.toml': pyproject,
      'src/calc/cli.py': 'import sys\n\n\ndef main():\n    return sys.argv\n',
      'src/calc/__main__.py': 'import sys\nprint(sys.argv)\n',
    };
    expect(await reach(base, head, PYTEST)).toEqual([]);
  });

  it.each([
    ['from calc.__main__ import FLAG', 'an absolute import'],
    ['from .__main__ import FLAG', 'a relative import'],
    ['from calc import __main__', 'the submodule by name'],
  ])('rejects library code that newly imports __main__.py through %s (%s)', async (load) => {
    const base = { 'src/calc/__init__.py': '', 'src/calc/core.py': 'X = 1\n' };
    const head = {
      ...base,
      'src/calc/__main__.py': 'import sys\nFLAG = len(sys.argv) > 1\n',
      'src/calc/core.py': `${load}\nX = 1\n`,
    };
    const found = await reach(base, head, PYTEST);
    expect(found.map((f) => f.evidence)).toEqual([
      expect.objectContaining({
        path: 'src/calc/core.py',
        line: 1,
        shape: 'command-line',
        detail: 'src/calc/__main__.py',
      }),
    ]);
  });

  it('takes no console script from a pyproject.toml the base cannot parse (fail closed)', async () => {
    const pyproject = '[project\nname = "calc"\n\n[project.scripts]\ncalc = "calc.cli:main"\n';
    const base = { 'pyproject.toml': pyproject, 'src/calc/cli.py': 'X = 1\n' };
    const head = {
      'pyproject.toml': pyproject,
      'src/calc/cli.py': 'import sys\n\n\ndef main():\n    return sys.argv\n',
    };
    expect(shapes(await reach(base, head, PYTEST))).toEqual([['command-line', 5]]);
  });

  it('does not take a console script from the head: a script the patch declares is still library code', async () => {
    const base = { 'pyproject.toml': '[project]\nname = "calc"\n', 'src/calc/core.py': 'X = 1\n' };
    const head = {
      'pyproject.toml': '[project]\nname = "calc"\n\n[project.scripts]\ncalc = "calc.core:main"\n',
      'src/calc/core.py': 'import sys\n\n\ndef main():\n    return sys.argv\n',
    };
    expect(shapes(await reach(base, head, PYTEST))).toEqual([['command-line', 5]]);
  });

  it('gives up folding a string that doubles 60 times (or a width), and reports the read as computed', async () => {
    const lines = ['import os', "s0 = 'x'"];
    for (let i = 1; i <= 60; i++) lines.push(`s${i} = s${i - 1} + s${i - 1}`);
    lines.push(
      'v = os.environ[s60]',
      "w = os.environ['{:999999999}'.format('x')]",
      "z = os.environ['%999999999s' % 'x']",
    );
    expect(shapes(await py(lines.join('\n')))).toEqual([
      ['environment', 65],
      ['environment', 66],
      ['environment', 67],
    ]);
  });

  it('rejects a file that parses but is too deep to walk: what it does is unknown', async () => {
    // 30,000 nested additions: ast.parse takes them at the reader's recursion limit, a visitor does not.
    const deep = `x = ${Array.from({ length: 30_000 }, () => 'a').join('+')}\n`;
    const found = await reach({ 'src/calc.py': 'x = 1\n' }, { 'src/calc.py': deep }, PYTEST);
    expect(found.map((f) => f.evidence)).toEqual([
      expect.objectContaining({
        path: 'src/calc.py',
        line: 1,
        shape: 'computed-code',
        detail: 'unread (RecursionError)',
      }),
    ]);
  });

  it('is an error, never a pass, when the sandboxed Python reader gives no answer (no interpreter on PATH)', async () => {
    const ctx = await reachContext({}, { 'src/calc.py': 'import sys\nX = sys.argv\n' }, PYTEST);
    // The sandbox gives head processes their PATH: one opened where the host's PATH has no interpreter.
    const sandbox = new Sandbox(ctx.sandbox.isolation, {
      hostEnv: { ...process.env, PATH: tempDir('pg-no-python-') },
    });
    const broken = { ...ctx, sandbox };
    await expect(reachFindings(broken, 'regression')).rejects.toThrow(/python3 -I -S \S*patchgate_reach\.py/);
  });

  it("folds every split of 'pytest' joined by +, an f-string, join or slicing", async () => {
    const splits = fc.sample(
      fc
        .array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 })
        .map((cuts) => {
          const parts: string[] = [];
          let rest = 'pytest';
          for (const c of cuts) {
            if (rest.length === 0) break;
            parts.push(rest.slice(0, c));
            rest = rest.slice(c);
          }
          if (rest) parts.push(rest);
          return parts;
        })
        .chain((parts) =>
          fc.constantFrom(
            parts.map((p) => `'${p}'`).join(' + '),
            `f"${parts.map((p, i) => (i % 2 ? `{'${p}'}` : p)).join('')}"`,
            `''.join([${parts.map((p) => `'${p}'`).join(', ')}])`,
            `'${[...parts.join('')].reverse().join('')}'[::-1]`,
          ),
        ),
      { numRuns: 40, seed: 17 },
    );
    const head: Texts = {};
    splits.forEach((expr, i) => {
      head[`src/m${i}.py`] = `import sys\nON = ${expr} in sys.modules\n`;
    });
    const found = await reach({}, head, PYTEST);
    expect(found.map((f) => f.evidence.path).sort()).toEqual(Object.keys(head).sort());
    for (const f of found) expect(f.evidence).toMatchObject({ shape: 'module-registry', detail: 'pytest' });
  });
});
