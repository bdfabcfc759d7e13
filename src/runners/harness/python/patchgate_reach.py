"""Where Python production code reaches into the test machinery, or sniffs the test run.

Parses (never imports or runs) each file named in the request with the
standard library's ast module and reports every construct the gate asks
about. Steering: imports (module names, for the gate to match against test
tools and the test side), writes to sys.modules or builtins, os._exit, exit
and audit hooks. Sniffing, the one way to pass every test and still ship
broken code: reads of the command line and interpreter flags, the module
registry, the call stack and the tracer, the environment by a computed or
enumerated name or by a variable pytest sets, the builtins and module
namespaces by a computed or hidden name, imports and code whose name or text
is computed, and the runtime modules handed on where this reader cannot
follow them.

Names are resolved through Python's scopes, so no alias hides a read
(`import sys as s; s.argv`, `from os import environ as e`, `m = sys.modules`,
`getattr(sys, 'mod' + 'ules')`); strings are folded from literals, f-strings,
`+`, constants and the common decoders. Runs in the sandbox under
`python3 -I -S`, so nothing from the checkout is on sys.path.

Request (argv[1]): {"files": {"<key>": "<absolute path>"},
                    "settings": {"words": "<regex>", "manifests": {"pyproject.toml": "<text>", ...}}}
Answer (argv[2]): {"<key>": {"hits": [[line, kind, detail, entry_ok, word, via], ...], "unread"?: "<why>"}
                   | {"error": "..."},
                   "entry\u241fmodules": ["pkg.cli", ...]}
"""

import ast
import builtins as _builtins
import configparser
import json
import os as _os
import re
import sys

# The reader's own folder (the gate's, never the checkout's): -I leaves it off sys.path.
sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from patchgate_reach_names import (  # noqa: E402
    COMPUTED,
    DATA_PATHS,
    IMPORTERS,
    ITEM,
    MAPPING_GET,
    REGISTRY_WRITES,
    Reader,
    const_str,
    norm,
)

del sys.path[0]

PYTEST_VAR = re.compile(r"^(?:PYTEST_\w+|_PYTEST_\w+|PATCHGATE_\w+|COV_CORE_\w+)$")
TEST_MODE = re.compile(r"^\s*test(?:ing)?\s*$", re.IGNORECASE)
WORDS = None
TEST_FLAG = None

# The attributes a pristine interpreter has: any other private one was set at run time, by a conftest say.
PRISTINE = {"sys": set(dir(sys)), "os": set(dir(_os)), "builtins": set(dir(_builtins))}
# Documented attributes only some interpreters, platforms or freezers define.
OPTIONAL = {
    "_MEIPASS", "_base_executable", "_enablelegacywindowsfsencoding", "_git", "_framework",
    "_is_gil_enabled", "_jit", "_is_interned", "_stdlib_dir", "_emscripten_info", "_wasi",
}

ENUMERATING_METHODS = {"keys", "values", "items", "__iter__", "copy"}
ENUMERATE_FUNCS = {
    "list", "tuple", "set", "frozenset", "sorted", "len", "any", "all", "iter", "enumerate", "map",
    "filter", "zip", "reversed", "max", "min", "sum", "str", "repr", "next", "dict", "print",
}
ESCAPE_ROOTS = {"sys", "builtins", "inspect", "traceback", "gc", "importlib", "__main__", "os", "posix", "nt"}
INTROSPECTION = {"__module__", "__file__", "__qualname__", "__spec__", "__loader__", "__class__", "__name__"}
ENV_WRITES = {"setdefault", "update", "pop", "popitem", "clear", "__setitem__", "__delitem__", "copy", "putenv"}
SPAWNERS = {"Popen", "run", "call", "check_call", "check_output", "execve", "execvpe", "spawnve", "spawnvpe",
            "posix_spawn", "posix_spawnp", "create_subprocess_exec", "create_subprocess_shell"}
STREAMS = {"stdout", "stderr", "stdin", "__stdout__", "__stderr__", "__stdin__"}
FRAME_ATTRS = {"f_back", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame", "cr_frame", "ag_frame"}
STACK_CALLS = {
    ("sys", "_getframe"), ("sys", "_getframemodulename"), ("sys", "_current_frames"),
    ("sys", "_current_exceptions"), ("sys", "gettrace"), ("sys", "getprofile"), ("sys", "settrace"),
    ("sys", "setprofile"), ("sys", "monitoring"), ("sys", "call_tracing"),
    ("inspect", "stack"), ("inspect", "currentframe"), ("inspect", "getouterframes"), ("inspect", "trace"),
    ("traceback", "extract_stack"), ("traceback", "format_stack"), ("traceback", "print_stack"),
    ("traceback", "walk_stack"), ("gc", "get_objects"), ("gc", "get_referrers"), ("gc", "get_referents"),
    ("logging", "currentframe"),
}
FLAGS = {("sys", "argv"), ("sys", "orig_argv"), ("sys", "flags"), ("sys", "warnoptions"), ("sys", "_xoptions"),
         ("faulthandler", "is_enabled")}
REGISTRY = {("sys", "meta_path"), ("sys", "path_hooks"), ("sys", "path_importer_cache")}
PATH_EDITS = {"insert", "append", "extend", "remove"}
FINDERS = {("importlib", "util", "find_spec"), ("pkgutil", "find_loader"), ("pkgutil", "get_loader"),
           ("importlib", "metadata", "version"), ("importlib", "metadata", "distribution"),
           ("importlib", "metadata", "metadata"), ("importlib", "metadata", "files"),
           ("importlib", "metadata", "requires")}
CODE_CALLS = {("builtins", "eval"), ("builtins", "exec"), ("builtins", "compile")}
OWN_NAMES = {"__name__", "__package__", "__spec__", "__module__"}
MAX_NESTED_CODE = 3


def runner_word(text, env=False):
    m = WORDS.search(text) if WORDS else None
    if m:
        return m.group(0)
    if env and TEST_MODE.match(text):
        return text.strip()
    return None


class Reach:
    """Walks one file and collects [line, kind, detail, entry_ok, word, via] rows (via: the eval that ran it)."""

    def __init__(self, tree, nesting=0):
        self.tree = tree
        self.nesting = nesting
        self.r = Reader(tree)
        self.hits = []
        self.main_blocks = self.find_main_blocks(tree)
        self.main_functions = self.find_main_functions(tree)
        # `class A: __module__ = 'pytest'` makes `sys.modules[A.__module__]` the runner's module.
        self.forges_module = any(
            (isinstance(n, ast.Name) and n.id == "__module__" and isinstance(n.ctx, ast.Store))
            or (isinstance(n, ast.Attribute) and n.attr == "__module__" and isinstance(n.ctx, ast.Store))
            or (isinstance(n, ast.Constant) and n.value == "__module__")
            for n in ast.walk(tree)
        )

    # -------------------------------------------------------------- guards

    def find_main_blocks(self, tree):
        """Top-level `if __name__ == "__main__":` bodies: code that never runs when a test imports the file."""
        if "__name__" in self.r.scopes.root.bindings:
            return []
        out = []
        for stmt in tree.body:
            if not isinstance(stmt, ast.If):
                continue
            t = stmt.test
            if (
                isinstance(t, ast.Compare)
                and len(t.ops) == 1
                and isinstance(t.ops[0], ast.Eq)
                and {self.name_of(t.left), self.name_of(t.comparators[0])} == {"__name__", "'__main__'"}
            ):
                out.append(stmt)
        return out

    def find_main_functions(self, tree):
        """Top-level functions the `__main__` block calls by name: `def main(): ... sys.argv ...`."""
        called = set()
        for block in self.main_blocks:
            for n in ast.walk(block):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                    called.add(n.func.id)
        defs = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
        # A name bound twice at the top level could be a different function from the one the block calls.
        return [d for d in defs if d.name in called and len(self.r.scopes.root.bindings.get(d.name, [])) == 1]

    @staticmethod
    def name_of(node):
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Constant) and node.value == "__main__":
            return "'__main__'"
        return None

    def in_main(self, node):
        n = node
        while n is not None:
            p = self.r.parent(n)
            if p in self.main_blocks and n in p.body:
                return True
            if n in self.main_functions:
                return True
            n = p
        return False

    # -------------------------------------------------------------- output

    def hit(self, node, kind, detail, entry_ok=False, word=None, via=None):
        if entry_ok and self.in_main(node):
            return
        self.hits.append([getattr(node, "lineno", 0), kind, detail, bool(entry_ok), word, via])

    def load(self, node, level, module, name):
        """A module loaded by name, as `level|module|name`, for the gate's entry-point check."""
        if self.nesting == 0:
            self.hits.append([getattr(node, "lineno", 0), "load", f"{level}|{module}|{name}", False, None, None])

    def entry(self, node, kind, detail):
        word = self.word_near(node)
        self.hit(node, kind, detail, entry_ok=word is None, word=word)

    # -------------------------------------------------------------- context

    def context_of(self, node):
        n = node
        while True:
            p = self.r.parent(n)
            if p is None:
                return n
            if isinstance(p, (ast.If, ast.While)) and p.test is n:
                return n
            if isinstance(p, ast.IfExp) and p.test is n:
                return n
            if isinstance(n, ast.stmt):
                return n
            n = p

    def word_near(self, node, env=False):
        """The first test runner's name among the strings of the statement `node` is read in."""
        return self.word_in(self.context_of(node), env)

    def compared_word(self, node):
        """The runner's name (or `test`) a value is compared with: `x == 'test'`, `x in ('test', 'ci')`,
        `x.startswith('py')`, `re.match('test', x)`, `match x: case 'test'`, through `x.lower()` and the like.
        Only the comparison counts, not the rest of its statement."""
        n = node
        for _ in range(8):
            p = self.r.parent(n)
            # The chain ends in a method of the value (`os.environ.get('X').lower`): judge the call it makes.
            if isinstance(n, ast.Attribute) and isinstance(p, ast.Call) and p.func is n:
                if n.attr in ("startswith", "endswith", "find", "index", "count", "__eq__", "__contains__"):
                    return self.words_of(p.args)
                if n.attr not in ("lower", "upper", "strip", "casefold", "lstrip", "rstrip"):
                    return None
                n = p
                continue
            if isinstance(p, ast.Compare):
                others = [p.left] + p.comparators
                return self.words_of([o for o in others if o is not n])
            if isinstance(p, ast.Attribute) and p.value is n:
                call = self.r.parent(p)
                if isinstance(call, ast.Call) and call.func is p:
                    if p.attr in ("startswith", "endswith", "find", "index", "count", "__eq__", "__contains__"):
                        return self.words_of(call.args)
                    if p.attr in ("lower", "upper", "strip", "casefold", "lstrip", "rstrip"):
                        n = call
                        continue
                return None
            if isinstance(p, ast.Call) and n in p.args:
                f = self.r.resolve(p.func)
                if f and f[0] == "re" and len(f) == 2 and p.args and p.args[0] is not n:
                    return self.words_of([p.args[0]])
                if isinstance(p.func, ast.Attribute) and p.func.attr in ("__contains__", "__eq__", "startswith"):
                    return self.words_of([p.func.value])
                return None
            if isinstance(p, ast.Match) and p.subject is n:
                return self.words_of([c.pattern for c in p.cases])
            if isinstance(p, ast.BoolOp):
                n = p
                continue
            return None
        return None

    def words_of(self, nodes):
        for n in nodes:
            w = self.word_in(n, True)
            if w:
                return w
        return None

    def word_in(self, root, env=False):
        for n in ast.walk(root):
            if isinstance(n, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Name, ast.Call, ast.Subscript)):
                v = self.r.fold_any(n, 1)
                texts = v if isinstance(v, list) else [v]
                for t in texts:
                    if isinstance(t, bytes):
                        t = t.decode("latin-1")
                    if isinstance(t, str):
                        w = runner_word(t, env)
                        if w:
                            return w
        return None

    # -------------------------------------------------------------- uses

    def up(self, node):
        top = node
        while True:
            p = self.r.parent(top)
            if isinstance(p, ast.BoolOp) or (isinstance(p, ast.IfExp) and p.test is not top):
                top = p
                continue
            return top, p

    def use_of(self, node):
        """How a runtime path is used: ("member"|"call"|"write"|"enumerate"|"spread"|"alias"|"value"|"compare"|"has", key)."""
        if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            return ("write", None)
        top, p = self.up(node)
        if p is None:
            return ("value", None)
        if isinstance(p, (ast.Attribute, ast.Subscript)) and p.value is top:
            return ("member", None)
        if isinstance(p, ast.Call):
            if p.func is top:
                return ("call", None)
            f = self.r.resolve(p.func)
            if f and f[0] == "builtins" and len(f) == 2:
                if f[1] in ("getattr", "hasattr", "setattr", "delattr", "isinstance", "type", "id", "callable", "vars", "dir"):
                    return ("compare", None) if f[1] != "setattr" and f[1] != "delattr" else ("write", None)
                if f[1] == "dict":
                    return ("copy", None)
                if f[1] in ENUMERATE_FUNCS:
                    return ("enumerate", None)
            if f in (("json", "dumps"), ("json", "dump"), ("pprint", "pformat"), ("pprint", "pprint")):
                return ("enumerate", None)
            if f == ("copy", "copy") or f == ("copy", "deepcopy"):
                return ("copy", None)
            return ("value", None)
        if isinstance(p, ast.keyword):
            return ("value", None)
        if isinstance(p, ast.Compare):
            if top in p.comparators:
                i = p.comparators.index(top)
                if isinstance(p.ops[i], (ast.In, ast.NotIn)):
                    left = p.left if i == 0 else p.comparators[i - 1]
                    return ("has", left)
            return ("compare", None)
        if isinstance(p, (ast.For, ast.AsyncFor, ast.comprehension)) and p.iter is top:
            return ("enumerate", None)
        if isinstance(p, ast.Starred):
            return ("enumerate", None)
        if isinstance(p, ast.Dict) and top in p.values and p.keys[p.values.index(top)] is None:
            return ("spread", None)
        if isinstance(p, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and p.value is top:
            targets = p.targets if isinstance(p, ast.Assign) else [p.target]
            plain = all(isinstance(t, (ast.Name, ast.Tuple, ast.List)) for t in targets)
            # A module's or a class's names are attributes any importer reads: handed on, not a local alias.
            shared = self.r.scope(p).kind in ("module", "class") and not isinstance(p, ast.NamedExpr)
            return ("alias", None) if plain and not shared else ("value", None)
        if isinstance(p, (ast.UnaryOp, ast.If, ast.While, ast.IfExp, ast.Assert, ast.Expr)):
            return ("compare", None)
        return ("value", None)

    def maximal(self, node):
        top, p = self.up(node)
        if isinstance(p, (ast.Attribute, ast.Subscript)) and p.value is top:
            return False
        # `os.environ.get('X')`: the call is the read, not its `os.environ.get` part.
        if isinstance(p, ast.Call) and p.func is top and self.r.resolve(p):
            return False
        return True

    # -------------------------------------------------------------- walk

    def run(self):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.hit(node, "import", alias.name)
                    self.load(node, 0, alias.name, "")
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    self.load(node, node.level, node.module or "", alias.name)
                if node.level == 0 and node.module:
                    self.hit(node, "import", node.module)
                    if any(a.name == "*" for a in node.names) and node.module.split(".")[0] in ESCAPE_ROOTS | {"faulthandler"}:
                        self.hit(node, "global-scope", f"from {node.module} import *")
            elif isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp)) and self.whole_string(node):
                self.proc_file(node)
            elif isinstance(node, ast.Attribute) and node.attr in FRAME_ATTRS:
                self.hit(node, "call-stack", f".{node.attr}")
            elif isinstance(node, ast.Attribute) and node.attr in INTROSPECTION and isinstance(node.ctx, ast.Load):
                # '_pytest' in type(sys.stdout).__module__: where an object comes from, compared with a runner's name.
                word = self.word_near(node)
                if word is not None:
                    self.hit(node, "module-registry", f".{node.attr}", word=word)
            if isinstance(node, ast.Call):
                self.call(node)
            if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and not (
                isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
            ):
                if self.maximal(node):
                    path = self.r.resolve(node)
                    if path:
                        self.classify(path, node, self.use_of(node))
        return self

    def whole_string(self, node):
        """A string constant or the outermost `+` / f-string it is part of (its pieces are judged with it)."""
        p = self.r.parent(node)
        if isinstance(p, ast.BinOp) and isinstance(p.op, ast.Add) and self.r.fold(p) is not None:
            return False
        if isinstance(p, ast.JoinedStr) or isinstance(p, ast.FormattedValue):
            return False
        return isinstance(node, ast.Constant) and isinstance(node.value, str) or not isinstance(node, ast.Constant)

    def proc_file(self, node):
        """'/proc/self/cmdline' and the like: the process's own command line, environment and state, as a file."""
        text = self.r.fold(node)
        if text is None:
            # f'/proc/{pid}/status', '/proc/' + pid: the constant parts say which file.
            parts = node.values if isinstance(node, ast.JoinedStr) else [node.left, node.right] if isinstance(node, ast.BinOp) else []
            text = "{}".join(self.r.fold(p) or "" for p in parts) or None
        if text is None or not re.match(r"^/proc(?:/|$)", text):
            return
        kind = "command-line" if "cmdline" in text else "environment" if "environ" in text else "process-context"
        self.hit(node, kind, f"the file {text}")

    def call(self, node):
        """Calls judged by their callee (through any alias) or, for argparse, by their shape."""
        f = self.r.resolve(node.func)
        if f in IMPORTERS:
            self.importer(node)
        elif f is not None and f[:3] in FINDERS:
            self.finder(node, ".".join(f[:3]))
        elif f in CODE_CALLS:
            self.code(node, f[1])
        elif f in (("atexit", "register"), ("sys", "addaudithook")):
            self.hit(node, "exit-handler", ".".join(f) + "()")
        if isinstance(node.func, ast.Attribute) and node.func.attr in (
            "parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args",
        ):
            if not node.args and not any(k.arg == "args" for k in node.keywords):
                self.entry(node, "command-line", f"{node.func.attr}() without args")

    # -------------------------------------------------------------- rules

    def classify(self, path, node, use):
        kind, key = use
        root = path[0]
        a = path[1] if len(path) > 1 else None
        if path == ("__builtins__",) or root == "__builtins__":
            if kind == "write" or (kind == "call" and a in ("__setitem__", "update")):
                self.hit(node, "builtins", "__builtins__[...] is written")
            else:
                self.hit(node, "global-scope", "__builtins__")
            return
        if root in ("globals()",) and a is None and kind == "has":
            k = self.r.fold(key)
            if k == "__builtins__":
                self.hit(node, "global-scope", "__builtins__")
            return
        if path[:2] in STACK_CALLS or path[:3] in STACK_CALLS:
            self.hit(node, "call-stack", ".".join(path[:2]) + "()")
            return
        if path[:2] in FLAGS:
            if kind != "write":
                self.entry(node, "command-line", ".".join(path[:2]))
            return
        if path[:2] in REGISTRY:
            self.hit(node, "module-registry", ".".join(path[:2]))
            return
        if root == "__main__":
            self.hit(node, "module-registry", "__main__ (the runner's own script)")
            return
        if path in IMPORTERS or path[:3] in FINDERS or path in CODE_CALLS:
            return
        if root == "sys":
            self.sys_rule(path, node, use)
        elif root in ("os", "posix", "nt"):
            self.os_rule(path, node, use)
        elif root == "builtins":
            self.builtins_rule(path, node, use)
        elif root in ESCAPE_ROOTS and a is None:
            self.escape(path, node, use)

    def escape(self, path, node, use):
        if use[0] in ("value", "enumerate", "spread"):
            self.entry(node, "escape", ".".join(path))

    def private_unknown(self, module, attr):
        return attr.startswith("_") and not attr.startswith("__") and attr not in PRISTINE[module] and attr not in OPTIONAL

    def sys_rule(self, path, node, use):
        kind, key = use
        a = path[1] if len(path) > 1 else None
        if a is None:
            self.escape(path, node, use)
        elif a == "modules":
            self.modules_rule(path[2:], node, use)
        elif a == "path":
            rest = path[2:]
            edit = rest and (rest[0] in PATH_EDITS or rest[0][:-2] in PATH_EDITS)
            if not edit and kind != "write" and not (kind == "alias" and not rest) and ITEM not in rest:
                self.hit(node, "module-registry", "sys.path")
        elif a in STREAMS and self.stream_type(path, node, use):
            self.hit(node, "process-context", f"type(sys.{a}) (the runner captures the standard streams)")
        elif a in (COMPUTED, "__dict__"):
            self.hit(node, "global-scope", "getattr(sys, …)" if a == COMPUTED else "vars(sys)")
        elif self.private_unknown("sys", a) and kind != "write":
            self.hit(node, "global-scope", f"sys.{a}, which Python does not define (a conftest can set it)")

    def stream_type(self, path, node, use):
        """`type(sys.stdout)`, `sys.stdout.__class__`, `isinstance(sys.stdout, …)`: under pytest, its capture."""
        if len(path) > 2 and path[2] in ("__class__", "__module__"):
            return True
        parent = self.r.parent(self.up(node)[0])
        if isinstance(parent, ast.Call) and parent.args and parent.args[0] is self.up(node)[0]:
            return self.r.resolve(parent.func) in (("builtins", "type"), ("builtins", "isinstance"))
        return False

    def modules_rule(self, rest, node, use):
        kind, key = use
        if ITEM in rest:
            return
        if not rest:
            if kind in ("enumerate", "spread", "copy"):
                self.hit(node, "module-registry", "sys.modules enumerated")
            elif kind == "has":
                self.module_key(node, key)
            elif kind == "value":
                self.hit(node, "module-registry", "sys.modules handed on")
            elif kind == "write":
                self.hit(node, "sys-modules", "sys.modules is replaced")
            return
        k = rest[0]
        if kind == "write" and len(rest) == 1:
            self.hit(node, "sys-modules", "sys.modules[...] is written")
            return
        if k.endswith("()"):
            # Any other method reads it whole (`__len__()`, `__repr__()`): the registry enumerated.
            if k[:-2] in REGISTRY_WRITES:
                self.hit(node, "sys-modules", f"sys.modules.{k}")
            else:
                self.hit(node, "module-registry", "sys.modules enumerated")
            return
        if k in REGISTRY_WRITES | ENUMERATING_METHODS | MAPPING_GET and kind == "call":
            # sys.modules.pop as a callee its call did not resolve (a computed key): a write or a read anyway.
            self.hit(node, "sys-modules" if k in REGISTRY_WRITES else "module-registry", f"sys.modules.{k}()")
            return
        if k == COMPUTED:
            # sys.modules[__name__], sys.modules[cls.__module__]: this module's own entry.
            if not self.own_module(self.registry_key(node)):
                self.hit(node, "module-registry", "sys.modules[…]")
            return
        if k == "__main__":
            self.hit(node, "module-registry", "sys.modules['__main__'] (the runner's own script)")
            return
        self.hit(node, "modules-key", k)

    def registry_key(self, node):
        """The key expression of the sys.modules lookup inside the chain `node`."""
        n = node
        while isinstance(n, (ast.Attribute, ast.Subscript, ast.Call)):
            inner = n.func if isinstance(n, ast.Call) else n.value
            if self.r.resolve(inner) == ("sys", "modules"):
                return n.slice if isinstance(n, ast.Subscript) else None
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
                if self.r.resolve(n.func.value) == ("sys", "modules"):
                    return n.args[0] if n.args else None
            n = inner
        return None

    def own_module(self, node):
        """`__name__`, `__spec__.name`, `cls.__module__`: this module's own name (unless the file forges one)."""
        if node is None:
            return False
        if isinstance(node, ast.Name):
            return node.id in OWN_NAMES and self.r.lookup(self.r.scope(node), node.id) is None
        if isinstance(node, ast.Attribute):
            if node.attr == "__module__":
                return not self.forges_module
            return isinstance(node.value, ast.Name) and node.value.id == "__spec__" and node.attr in ("name", "parent")
        return False

    def module_key(self, node, key):
        k = self.r.fold(key) if key is not None else None
        if k is None:
            if not self.own_module(key):
                self.hit(node, "module-registry", "sys.modules[…] looked up")
        elif k == "__main__":
            self.hit(node, "module-registry", "sys.modules['__main__'] (the runner's own script)")
        else:
            self.hit(node, "modules-key", k)

    def os_rule(self, path, node, use):
        kind, key = use
        a = path[1] if len(path) > 1 else None
        if a is None:
            if path[0] == "os":
                self.escape(path, node, use)
            return
        if a in ("environ", "environb"):
            self.env_rule(f"{path[0]}.{a}", path[2:], node, use)
        elif a in ("getenv", "getenvb") and kind == "call":
            arg = node.args[0] if isinstance(node, ast.Call) and node.args else None
            parent = self.r.parent(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                arg = parent.args[0] if parent.args else None
                node = parent
            self.env_key(node, f"{path[0]}.{a}", self.r.fold(arg) if arg is not None else None)
        elif a == "_exit" and kind == "call":
            self.hit(node, "exit", f"{path[0]}._exit()")
        elif a in (COMPUTED, "__dict__"):
            self.hit(node, "global-scope", f"getattr({path[0]}, …)" if a == COMPUTED else f"vars({path[0]})")
        elif path[0] == "os" and self.private_unknown("os", a) and kind != "write":
            self.hit(node, "global-scope", f"os.{a}, which Python does not define (a conftest can set it)")

    def env_rule(self, base, rest, node, use):
        kind, key = use
        if ITEM in rest:
            return
        if not rest:
            if kind == "enumerate":
                self.hit(node, "environment", f"{base} enumerated")
            elif kind == "has":
                k = self.r.fold(key)
                self.env_key(node, base, k)
            elif kind in ("value", "spread", "copy") and not self.child_env(node):
                self.hit(node, "environment", f"{base} handed on")
            return
        k = rest[0]
        if kind == "write":
            return
        private = next((r for r in rest if r.startswith("_") and not r.endswith("()")), None)
        if private is not None:
            # os.environ._data, os.environ.get.__self__: the raw mapping, readable by any key.
            self.hit(node, "environment", f"{base}.{private}")
            return
        if k.endswith("()"):
            # Writes and copies give nothing away; any other method reads it whole (`__len__()`, `keys()`).
            if k[:-2] not in ENV_WRITES:
                self.hit(node, "environment", f"{base} enumerated")
            return
        if k in ENUMERATING_METHODS | MAPPING_GET and kind == "call":
            self.hit(node, "environment", f"{base}.{k}(…)" if k in MAPPING_GET else f"{base} enumerated")
            return
        self.env_key(node, base, None if k == COMPUTED else k)

    def child_env(self, node):
        """The environment (or a copy) goes to a child process: `env=` of a call, or an argument of a spawner."""
        top, p = self.up(node)
        for _ in range(16):
            if isinstance(p, ast.Dict) and top in p.values and p.keys[p.values.index(top)] is None:
                top, p = self.up(p)
                continue
            if isinstance(p, ast.Call) and top is not p.func:
                f = self.r.resolve(p.func)
                if f in (("builtins", "dict"), ("copy", "copy")) and top in p.args:
                    top, p = self.up(p)
                    continue
                name = f[-1] if f else (p.func.attr if isinstance(p.func, ast.Attribute) else getattr(p.func, "id", ""))
                return name in SPAWNERS
            if isinstance(p, ast.keyword):
                return p.arg == "env"
            if isinstance(p, (ast.Assign, ast.AnnAssign)) and p.value is top:
                return self.use_of(top)[0] == "alias"
            return False
        return False

    def env_key(self, node, base, k):
        if k is None:
            self.hit(node, "environment", f"{base}[…]")
        elif PYTEST_VAR.match(k):
            self.hit(node, "pytest-env", k)
        elif TEST_FLAG and TEST_FLAG.match(k):
            self.hit(node, "runner-variable", k)
        else:
            word = self.compared_word(node)
            if word is not None:
                self.hit(node, "runner-variable", f"{base}['{k}']", word=word)

    def builtins_rule(self, path, node, use):
        kind, key = use
        a = path[1] if len(path) > 1 else None
        if a is None:
            if kind in ("enumerate", "spread"):
                self.hit(node, "global-scope", "builtins enumerated")
            elif kind == "write":
                pass
            else:
                self.escape(path, node, use)
            return
        if len(path) == 2 and kind == "write":
            self.hit(node, "builtins", f"builtins.{a} is replaced")
        elif a == "setattr" and kind == "call":
            self.builtins_setattr(node)
        elif a in ("vars", "dir") and kind == "call":
            call = self.r.parent(node) if not isinstance(node, ast.Call) else node
            target = call.args[0] if isinstance(call, ast.Call) and call.args else None
            r = self.r.resolve(target) if target is not None else None
            if r and len(r) == 1 and r[0] in ESCAPE_ROOTS:
                self.hit(node, "global-scope", f"{a}({r[0]})")
        elif a == "hasattr" and kind == "call":
            call = self.r.parent(node)
            if isinstance(call, ast.Call) and len(call.args) >= 2:
                r = self.r.resolve(call.args[0])
                k = self.r.fold(call.args[1])
                if r:
                    self.classify(norm(r + (k if k is not None else COMPUTED,)), call, ("compare", None))
        elif a in (COMPUTED, "__dict__"):
            self.hit(node, "global-scope", "getattr(builtins, …)" if a == COMPUTED else "vars(builtins)")
        elif len(path) == 2 and a not in PRISTINE["builtins"] and a != "__builtins__":
            self.hit(node, "global-scope", f"builtins.{a}, which Python does not define (a conftest can set it)")

    def builtins_setattr(self, node):
        call = self.r.parent(node)
        if isinstance(call, ast.Call) and call.args:
            r = self.r.resolve(call.args[0])
            if r in (("builtins",), ("__builtins__",)):
                self.hit(call, "builtins", f"setattr({'.'.join(r)}, ...)")
            elif r and r[:2] == ("sys", "modules"):
                self.hit(call, "sys-modules", "setattr(sys.modules[...], ...)")

    def importer(self, call):
        if not call.args:
            return
        name = self.r.fold(call.args[0])
        if name is not None:
            if not name.startswith("."):
                self.hit(call, "import", name)
                self.load(call, 0, name, "")
            return
        if not self.relative_or_own(call.args[0]):
            self.hit(call, "computed-import", f"{ast.unparse(call.func)}(…)")

    def relative_or_own(self, node):
        """A computed name inside this package: `'.' + name`, f'{__name__}.{x}'."""
        first = node
        while isinstance(first, ast.BinOp) and isinstance(first.op, ast.Add):
            first = first.left
        if isinstance(first, ast.JoinedStr) and first.values:
            first = first.values[0]
            if isinstance(first, ast.FormattedValue):
                first = first.value
        prefix = self.r.fold(first)
        if prefix is not None and prefix.startswith("."):
            return True
        return self.own_module(first) or (isinstance(first, ast.Name) and first.id in ("__name__", "__package__"))

    def finder(self, call, name):
        if not call.args:
            return
        k = self.r.fold(call.args[0])
        if k is None:
            if not self.relative_or_own(call.args[0]):
                self.hit(call, "computed-import", f"{name}(…)")
        else:
            self.hit(call, "modules-key", k)

    def code(self, call, name):
        if not call.args:
            return
        text = self.r.fold(call.args[0])
        if text is None:
            self.hit(call, "computed-code", f"{name}(…)")
            return
        if self.nesting >= MAX_NESTED_CODE:
            self.hit(call, "computed-code", f"{name}(…) nested too deep")
            return
        try:
            inner = Reach(ast.parse(text, mode="exec"), self.nesting + 1).run()
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self.hit(call, "computed-code", f"{name}(…) that does not parse")
            return
        for _line, kind, detail, entry_ok, word, via in inner.hits:
            self.hit(call, kind, detail, entry_ok, word, via or name)


# Deeper than CPython compiles a module at its default limit, so whatever a test can import, this reads.
RECURSION_LIMIT = 50000


def scan(path):
    with open(path, "rb") as f:
        source = f.read()
    # A file Python cannot parse cannot be imported either: the test run reports it, not this reader.
    tree = ast.parse(source, filename=path)
    try:
        reach = Reach(tree).run()
    except (RecursionError, MemoryError) as e:
        # Parsed, but too deep or too big to walk: what it does is unknown, which is never a pass.
        return {"hits": [], "unread": type(e).__name__}
    return {"hits": reach.hits}


# ------------------------------------------------------------------ entry points

def script_modules(manifests):
    """The modules console scripts name: `[project.scripts]`, setup.cfg, setup.py, poetry."""
    out = set()

    def add(spec):
        if isinstance(spec, str) and ":" in spec:
            out.add(spec.split("=", 1)[-1].split(":", 1)[0].strip())
        elif isinstance(spec, str) and spec.strip():
            out.add(spec.split("=", 1)[-1].strip())

    text = manifests.get("pyproject.toml")
    if text:
        try:
            import tomllib

            data = tomllib.loads(text)
        except Exception:  # noqa: BLE001 - an unreadable manifest declares nothing: no exemption
            data = {}
        project = data.get("project", {}) if isinstance(data, dict) else {}
        for table in (project.get("scripts", {}), project.get("gui-scripts", {})):
            if isinstance(table, dict):
                for v in table.values():
                    add(v)
        eps = project.get("entry-points", {})
        for group in ("console_scripts", "gui_scripts"):
            table = eps.get(group, {}) if isinstance(eps, dict) else {}
            if isinstance(table, dict):
                for v in table.values():
                    add(v)
        poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool", {}), dict) else {}
        scripts = poetry.get("scripts", {}) if isinstance(poetry, dict) else {}
        if isinstance(scripts, dict):
            for v in scripts.values():
                add(v if isinstance(v, str) else v.get("reference") if isinstance(v, dict) else None)
    text = manifests.get("setup.cfg")
    if text:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
            for group in ("console_scripts", "gui_scripts"):
                if parser.has_option("options.entry_points", group):
                    for line in parser.get("options.entry_points", group).splitlines():
                        add(line)
        except configparser.Error:
            pass
    text = manifests.get("setup.py")
    if text:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            tree = None
        for node in ast.walk(tree) if tree else []:
            if isinstance(node, ast.keyword) and node.arg == "entry_points" and isinstance(node.value, ast.Dict):
                for k, v in zip(node.value.keys, node.value.values):
                    if const_str(k) in ("console_scripts", "gui_scripts") and isinstance(v, (ast.List, ast.Tuple)):
                        for e in v.elts:
                            add(const_str(e))
    return sorted(out)


def main():
    global WORDS, TEST_FLAG
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    settings = request.get("settings") or {}
    WORDS = re.compile(settings["words"], re.IGNORECASE) if settings.get("words") else None
    TEST_FLAG = re.compile(settings["testFlag"], re.IGNORECASE) if settings.get("testFlag") else None
    sys.setrecursionlimit(RECURSION_LIMIT)
    answer = {}
    for key, path in request["files"].items():
        try:
            answer[key] = scan(path)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
            answer[key] = {"error": f"{type(e).__name__}: {e}"}
    answer["entry\u241fmodules"] = script_modules(settings.get("manifests") or {})
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()
