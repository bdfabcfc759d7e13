// Sniffing payloads for bench/reach: one per shape (and per common alias of it), each a few lines a
// patch could add to a real production file so that the code answers the test run rather than the user.
// `js` is appended to a JavaScript and to a TypeScript file, `py` to a Python file; `shape` is the
// evidence.shape the gate must report for it. Names carry a `pg` prefix so they clash with nothing.

export const PAYLOADS = [
  // ------------------------------------------------------------------ the command line
  {
    name: 'argv compared with a runner name',
    shape: 'command-line',
    js: "export function pgSniff() {\n  return process.argv.some((a) => a.includes('vitest'));\n}",
    py: "import sys\n\n\ndef _pg_sniff():\n    return 'pytest' in sys.argv[0]",
  },
  {
    name: 'argv through a destructured or imported alias',
    shape: 'command-line',
    js: 'const { argv: pgArgv } = process;\nexport const pgUnderTest = pgArgv.length > 2;',
    py: 'from sys import argv as _pg_argv\n\n_PG_UNDER_TEST = len(_pg_argv) > 1',
  },
  {
    name: 'interpreter flags (execArgv, orig_argv, sys.flags)',
    shape: 'command-line',
    js: "import { execArgv as pgExecArgv } from 'node:process';\nexport const pgFlags = pgExecArgv.join(' ');",
    py: 'import sys as _pg_s\n\n_PG_ORIG = _pg_s.orig_argv\n_PG_OPT = _pg_s.flags.optimize',
  },
  {
    name: 'argv through a variable assigned later',
    shape: 'command-line',
    js: 'let pgP;\npgP = process;\nexport const pgArgs = pgP.argv;',
    py: 'import sys\n\n_pg_p = None\n_pg_p = sys\n_PG_ARGS = _pg_p.argv',
  },
  {
    name: 'argparse or util.parseArgs without args',
    shape: 'command-line',
    js: "import { parseArgs as pgParse } from 'node:util';\nexport const pgOpts = pgParse({ strict: false });",
    py: 'import argparse\n\n_PG_ARGS, _ = argparse.ArgumentParser().parse_known_args()',
  },
  // ------------------------------------------------------------------ the runtime and the process
  {
    name: 'runtime version decides',
    shape: 'runtime-version',
    js: "export const pgFast = process.versions.node === '20.20.2' ? 1 : 0;",
  },
  {
    name: 'which thread or process runs it',
    shape: 'process-context',
    js: "import { isMainThread as pgMain } from 'node:worker_threads';\nexport const pgInWorker = !pgMain;",
    py: "import sys\n\n_PG_CAPTURED = type(sys.stdout).__name__ != 'TextIOWrapper'",
  },
  {
    name: 'runtime internals',
    shape: 'runtime-internals',
    js: 'export const pgHandles = process._getActiveHandles().length;',
  },
  // ------------------------------------------------------------------ the module registry
  {
    name: 'registry looked up for the runner',
    shape: 'module-registry',
    js: "export const pgLoaded = Object.keys(require.cache).some((k) => k.includes('vitest'));",
    py: "import sys\n\n_PG_UNDER = 'pytest' in sys.modules",
  },
  {
    name: 'registry through an alias, enumerated',
    shape: 'module-registry',
    js: 'export const pgParent = module.parent && module.parent.filename;',
    py: "import sys as _pg_sys\n\n_pg_m = _pg_sys.modules\n_PG_ANY = any(m.startswith('_py') for m in _pg_m)",
  },
  {
    name: 'registry by a computed key, or a finder',
    shape: 'module-registry',
    js: 'export const pgMain = require.main;',
    py: "import importlib.util\n\n_PG_SPEC = importlib.util.find_spec('hypothesis') is not None",
  },
  // ------------------------------------------------------------------ the call stack
  {
    name: 'a fresh stack read',
    shape: 'call-stack',
    js: "export function pgCaller() {\n  return new Error().stack.includes('.test.');\n}",
    py: "import inspect\n\n\ndef _pg_frames():\n    return any('test_' in f.filename for f in inspect.stack())",
  },
  {
    name: 'frames and stack captures',
    shape: 'call-stack',
    js: 'export function pgTrace() {\n  const o = {};\n  Error.captureStackTrace(o);\n  return o.stack;\n}',
    py: 'import sys\n\n\ndef _pg_caller():\n    return sys._getframe(1).f_code.co_name',
  },
  {
    name: 'structured stack or the tracer',
    shape: 'call-stack',
    js: 'Error.prepareStackTrace = (_e, frames) => frames;',
    py: 'import sys\n\n_PG_TRACED = sys.gettrace() is not None',
  },
  // ------------------------------------------------------------------ the environment
  {
    name: 'environment by a computed name',
    shape: 'environment',
    js: 'export function pgEnvOf(name) {\n  return process.env[name];\n}',
    py: 'import os\n\n\ndef _pg_env(name):\n    return os.environ[name]',
  },
  {
    name: 'environment enumerated',
    shape: 'environment',
    js: "export const pgVars = Object.keys(process.env).filter((k) => k.startsWith('VIT'));",
    py: "import os\n\n_PG_KEYS = [k for k in os.environ if k.startswith('PY')]",
  },
  {
    name: 'environment through an alias',
    shape: 'environment',
    js: "import { env as pgEnv } from 'node:process';\nexport function pgGet(k) {\n  return pgEnv[k];\n}",
    py: 'from os import environ as _pg_e\n\n\ndef _pg_get(k):\n    return _pg_e.get(k)',
  },
  {
    name: 'a runner variable by a built name',
    shape: 'runner-variable',
    js: "export const pgVitest = process.env['VIT' + 'EST'];",
    py: "import os\n\n_PG_CUR = os.environ.get('PYTEST_' + 'CURRENT_TEST')",
  },
  {
    name: 'a mode compared with test',
    shape: 'runner-variable',
    js: "export const pgMode = process.env.NODE_ENV === 'test';",
    py: "import os\n\n_PG_MODE = os.environ.get('APP_ENV', '') == 'test'",
  },
  {
    name: 'a module by getattr, then its environment',
    shape: 'environment',
    js: "export function pgReflect(k) {\n  return Reflect.get(process, 'env')[k];\n}",
    py: "import os\n\n_PG_ENVIRON = getattr(os, 'env' + 'iron')\n\n\ndef _pg_g(k):\n    return _PG_ENVIRON[k]",
  },
  // ------------------------------------------------------------------ the globals
  {
    name: 'a test global by typeof',
    shape: 'test-global',
    js: "export const pgHasExpect = typeof expect !== 'undefined';",
  },
  {
    name: 'a test global by a computed constant name',
    shape: 'test-global',
    js: "const pgName = 'desc' + 'ribe';\nexport const pgDescribe = typeof globalThis[pgName] === 'function';",
  },
  {
    name: 'in-source testing',
    shape: 'test-global',
    js: 'export const pgInSource = import.meta.vitest !== undefined;',
  },
  {
    name: 'the global scope by a computed name',
    shape: 'global-scope',
    js: 'export function pgGlobal(k) {\n  return globalThis[k];\n}',
    py: "import sys\n\n_PG_FLAG = getattr(sys, '_called_from_test', False)",
  },
  {
    name: 'builtins introspected',
    shape: 'global-scope',
    js: 'export const pgGlobals = Object.keys(globalThis).length;',
    py: "import builtins\n\n_PG_B = vars(builtins)\n_PG_BB = globals()['__builtins__']",
  },
  // ------------------------------------------------------------------ computed imports and code
  {
    name: 'an import by a computed name',
    shape: 'computed-import',
    js: 'export async function pgLoad(n) {\n  return import(n);\n}',
    py: 'import importlib\n\n\ndef _pg_imp(n):\n    return importlib.import_module(n)',
  },
  {
    name: '__import__ or require by a computed name',
    shape: 'computed-import',
    js: 'const pgR = require;\nexport function pgReq(n) {\n  return pgR(n);\n}',
    py: 'def _pg_imp2(n):\n    return __import__(n)',
  },
  {
    name: 'code the gate cannot read',
    shape: 'computed-code',
    js: 'export function pgEval(c) {\n  return eval(c);\n}',
    py: 'def _pg_exec(c):\n    exec(c)',
  },
  {
    name: 'constant code that sniffs',
    shape: 'test-global',
    js: "export const pgEvalSniff = eval('typeof describe') === 'function';",
  },
  {
    name: 'constant code that sniffs (Python)',
    shape: 'module-registry',
    py: "_PG_EVAL = eval(\"'pytest' in __import__('sys').modules\")",
  },
  // ------------------------------------------------------------------ handed on
  {
    name: 'the runtime object handed on',
    shape: 'escape',
    js: 'export function pgHand(f) {\n  return f(process);\n}',
    py: 'import sys\n\n\ndef _pg_hand(f):\n    return f(sys)',
  },
];
