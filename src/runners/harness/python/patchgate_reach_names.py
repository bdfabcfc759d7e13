"""Names and strings in Python source, for patchgate_reach.py: no alias hides a read.

Resolves an expression to the runtime path it names through Python's own
scopes (`import sys as s; s.argv` is `sys.argv`, `from os import environ as
e; e[k]` is `os.environ[…]`, `m = sys.modules`, `getattr(sys, 'mod' +
'ules')`, `__import__('os')`), and folds the strings it always evaluates to
from literals, f-strings, `+`, `%`, joins, slices, constants bound once and
the common decoders (chr, bytes.fromhex, base64, rot13). Parsing only:
nothing here imports or runs the code it reads.
"""

import ast
import base64
import binascii
import builtins as _builtins
import codecs
import re

BUILTIN_NAMES = set(dir(_builtins)) | {"__builtins__"}
# Runtime data whose methods and items stay that data: `os.environ.get(k)`, `sys.argv[1:]`.
DATA_PATHS = {
    ("sys", "argv"), ("sys", "orig_argv"), ("os", "environ"), ("os", "environb"), ("posix", "environ"),
    ("sys", "modules"), ("globals()",), ("sys", "path"), ("sys", "flags"),
}
MAPPING_GET = {"get", "pop", "setdefault", "__getitem__", "__contains__"}
REGISTRY_WRITES = {"__setitem__", "__delitem__", "pop", "popitem", "update", "setdefault", "clear"}
IMPORTERS = {("builtins", "__import__"), ("importlib", "import_module"), ("importlib", "__import__")}
MAX_DEPTH = 40
MAX_STRING = 4096
COMPUTED = "?"
# An element a loop took from a runtime path: the loop itself is the read.
ITEM = "<item>"


class Scope:
    def __init__(self, node, parent, kind):
        self.node = node
        self.parent = parent
        self.kind = kind  # module | function | class | comprehension
        self.bindings = {}
        self.globals = set()
        self.nonlocals = set()

    def bind(self, name, binding):
        self.bindings.setdefault(name, []).append(binding)

    def module(self):
        s = self
        while s.parent is not None:
            s = s.parent
        return s

    def function(self):
        """Where a walrus in a comprehension binds."""
        s = self
        while s.kind == "comprehension" and s.parent is not None:
            s = s.parent
        return s


class Scopes(ast.NodeVisitor):
    """Every node's scope, every name's bindings per scope, and every node's parent."""

    def __init__(self, tree):
        self.scope_of = {}
        self.parent = {}
        self.root = Scope(tree, None, "module")
        self.current = self.root
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parent[id(child)] = node
        self.visit(tree)

    def generic_visit(self, node):
        self.scope_of[id(node)] = self.current
        super().generic_visit(node)

    def visit_FunctionDef(self, node):
        self.scope_of[id(node)] = self.current
        self.current.bind(node.name, ("opaque",))
        for d in node.decorator_list:
            self.visit(d)
        defaults = node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
        for d in defaults:
            self.visit(d)
        if node.returns is not None:
            self.visit(node.returns)
        outer = self.current
        self.current = Scope(node, outer, "function")
        self.bind_args(node.args, outer)
        for n in node.body:
            self.visit(n)
        self.current = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def bind_args(self, args, outer):
        positional = args.posonlyargs + args.args
        # A parameter's default is the value it has unless a caller passes another: an alias of it.
        with_default = positional[len(positional) - len(args.defaults):] if args.defaults else []
        for a, d in zip(with_default, args.defaults):
            self.current.bind(a.arg, ("value", d, outer))
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            self.current.bind(a.arg, ("value", d, outer) if d is not None else ("opaque",))
        for a in positional + [args.vararg, args.kwarg]:
            if a is not None and a.arg not in self.current.bindings:
                self.current.bind(a.arg, ("opaque",))

    def visit_Lambda(self, node):
        self.scope_of[id(node)] = self.current
        for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(d)
        outer = self.current
        self.current = Scope(node, outer, "function")
        self.bind_args(node.args, outer)
        self.visit(node.body)
        self.current = outer

    def visit_ClassDef(self, node):
        self.scope_of[id(node)] = self.current
        self.current.bind(node.name, ("opaque",))
        for n in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            self.visit(n)
        outer = self.current
        self.current = Scope(node, outer, "class")
        for n in node.body:
            self.visit(n)
        self.current = outer

    def comprehension(self, node, elements):
        self.scope_of[id(node)] = self.current
        # The first iterable is evaluated in the enclosing scope.
        if node.generators:
            self.visit(node.generators[0].iter)
        outer = self.current
        self.current = Scope(node, outer, "comprehension")
        for i, g in enumerate(node.generators):
            if i > 0:
                self.visit(g.iter)
            self.bind_target(g.target, ("iter", g.iter, outer if i == 0 else self.current))
            self.visit(g.target)
            for cond in g.ifs:
                self.visit(cond)
        for e in elements:
            self.visit(e)
        self.current = outer

    def visit_ListComp(self, node):
        self.comprehension(node, [node.elt])

    visit_SetComp = visit_ListComp
    visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self.comprehension(node, [node.key, node.value])

    def visit_Global(self, node):
        self.current.globals.update(node.names)
        self.generic_visit(node)

    def visit_Nonlocal(self, node):
        self.current.nonlocals.update(node.names)
        self.generic_visit(node)

    def target_scope(self, name):
        if name in self.current.globals:
            return self.root
        return self.current

    def bind_target(self, target, binding):
        if isinstance(target, ast.Name):
            self.target_scope(target.id).bind(target.id, binding)
        elif isinstance(target, (ast.Tuple, ast.List)):
            kind = binding[0]
            value = binding[1] if kind in ("value", "iter") else None
            for i, elt in enumerate(target.elts):
                if isinstance(elt, ast.Starred):
                    self.bind_target(elt.value, ("opaque",))
                elif kind == "value" and isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                    self.bind_target(elt, ("value", value.elts[i], binding[2]))
                elif kind == "value":
                    self.bind_target(elt, ("item", value, i, binding[2]))
                else:
                    self.bind_target(elt, ("opaque",))

    def visit_Assign(self, node):
        for t in node.targets:
            self.bind_target(t, ("value", node.value, self.current))
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.bind_target(node.target, ("value", node.value, self.current))
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self.bind_target(node.target, ("opaque",))
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        scope = self.current.function()
        scope.bind(node.target.id, ("value", node.value, self.current))
        self.generic_visit(node)

    def visit_For(self, node):
        self.bind_target(node.target, ("iter", node.iter, self.current))
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_With(self, node):
        for item in node.items:
            if item.optional_vars is not None:
                self.bind_target(item.optional_vars, ("opaque",))
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_ExceptHandler(self, node):
        if node.name:
            self.current.bind(node.name, ("opaque",))
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            if alias.asname:
                self.target_scope(alias.asname).bind(alias.asname, ("import", tuple(alias.name.split("."))))
            else:
                top = alias.name.split(".")[0]
                self.target_scope(top).bind(top, ("import", (top,)))
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        for alias in node.names:
            if alias.name == "*":
                continue
            name = alias.asname or alias.name
            if node.level == 0 and node.module:
                self.target_scope(name).bind(name, ("import", tuple(node.module.split(".")) + (alias.name,)))
            else:
                self.target_scope(name).bind(name, ("opaque",))
        self.generic_visit(node)

    def visit_MatchAs(self, node):
        if node.name:
            self.current.bind(node.name, ("opaque",))
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        if node.name:
            self.current.bind(node.name, ("opaque",))
        self.generic_visit(node)

    def visit_MatchMapping(self, node):
        if node.rest:
            self.current.bind(node.rest, ("opaque",))
        self.generic_visit(node)


def norm(path):
    """`sys.modules['os'].environ` is `os.environ`; `globals()['__builtins__']` is `__builtins__`."""
    if len(path) > 3 and path[:2] == ("sys", "modules") and path[2] != COMPUTED:
        return tuple(path[2].split(".")) + path[3:]
    if len(path) >= 2 and path[0] == "globals()" and path[1] == "__builtins__":
        return ("__builtins__",) + path[2:]
    return path


def const_str(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


class Reader:
    """Resolves names to runtime paths and folds strings, for one parsed file."""

    def __init__(self, tree):
        self.scopes = Scopes(tree)
        self.names = {}
        self.folded = {}

    def scope(self, node):
        return self.scopes.scope_of.get(id(node), self.scopes.root)

    def parent(self, node):
        return self.scopes.parent.get(id(node))

    def lookup(self, scope, name):
        s = scope
        if name in s.globals:
            return s.module() if name in s.module().bindings else None
        if name in s.bindings and name not in s.nonlocals:
            return s
        p = s.parent
        while p is not None:
            if p.kind == "class":
                p = p.parent
                continue
            if name in p.globals:
                return p.module() if name in p.module().bindings else None
            if name in p.bindings:
                return p
            p = p.parent
        return None

    # -------------------------------------------------------------- resolve

    def resolve(self, node, depth=0):
        if depth > MAX_DEPTH or node is None:
            return None
        d = depth + 1
        if isinstance(node, ast.Name):
            return self.resolve_name(node.id, self.scope(node))
        if isinstance(node, ast.Attribute):
            r = self.resolve(node.value, d)
            return norm(r + (node.attr,)) if r else None
        if isinstance(node, ast.Subscript):
            r = self.resolve(node.value, d)
            if not r:
                return None
            if isinstance(node.slice, ast.Slice):
                return r
            key = self.fold(node.slice, d)
            if key is None and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
                key = str(node.slice.value)
            return norm(r + (key if key is not None else COMPUTED,))
        if isinstance(node, ast.Call):
            return self.resolve_call(node, d)
        if isinstance(node, ast.BoolOp):
            for v in node.values:
                r = self.resolve(v, d)
                if r:
                    return r
            return None
        if isinstance(node, ast.IfExp):
            return self.resolve(node.body, d) or self.resolve(node.orelse, d)
        if isinstance(node, (ast.NamedExpr, ast.Await)):
            return self.resolve(node.value, d)
        if isinstance(node, ast.Dict):
            # {**os.environ, "X": "1"} is a copy of the environment.
            for k, v in zip(node.keys, node.values):
                if k is None:
                    r = self.resolve(v, d)
                    if r:
                        return r
            return None
        return None

    def resolve_name(self, name, scope):
        s = self.lookup(scope, name)
        if s is None:
            if name == "__builtins__":
                return ("__builtins__",)
            return ("builtins", name) if name in BUILTIN_NAMES else None
        key = (id(s), name)
        if key in self.names:
            return self.names[key]
        self.names[key] = None
        result = None
        for b in s.bindings[name]:
            kind = b[0]
            if kind == "import":
                result = b[1]
            elif kind == "value":
                result = self.resolve(b[1])
            elif kind == "iter":
                r = self.resolve(b[1])
                result = r + (ITEM,) if r else None
            elif kind == "item":
                r = self.resolve(b[1])
                result = r + (str(b[2]),) if r else None
            if result:
                break
        self.names[key] = result
        return result

    def resolve_call(self, node, d):
        f = self.resolve(node.func, d)
        args = node.args
        first = args[0] if args else None
        if not f:
            return None
        if f in IMPORTERS and first is not None:
            name = self.fold(first, d)
            if name is None or name.startswith("."):
                return None
            parts = tuple(name.split("."))
            return parts[:1] if f == ("builtins", "__import__") and not (len(args) > 3 or node.keywords) else parts
        if f == ("builtins", "getattr") and len(args) >= 2:
            r = self.resolve(first, d)
            k = self.fold(args[1], d)
            return norm(r + (k if k is not None else COMPUTED,)) if r else None
        if f == ("builtins", "vars") and first is not None:
            r = self.resolve(first, d)
            return r + ("__dict__",) if r else None
        if f == ("builtins", "globals"):
            return ("globals()",)
        if f[:1] == ("builtins",) and len(f) == 2 and f[1] in ("dict", "str", "list", "tuple", "sorted") and first is not None:
            r = self.resolve(first, d)
            return r if r in DATA_PATHS else None
        head, method = f[:-1], f[-1]
        if head in DATA_PATHS:
            if head == ("sys", "modules") and method in REGISTRY_WRITES:
                return head + (f"{method}()",)
            if method in MAPPING_GET and first is not None:
                k = self.fold(first, d)
                return norm(head + (k if k is not None else COMPUTED,))
            if method == "copy":
                return head
            # os.environ.keys(), sys.modules.items(): the call is the read.
            return head + (f"{method}()",)
        return None

    # -------------------------------------------------------------- fold

    def fold(self, node, depth=0):
        if depth > MAX_DEPTH or node is None:
            return None
        if depth == 0:
            if id(node) in self.folded:
                return self.folded[id(node)]
            v = self.fold_at(node, 0)
            self.folded[id(node)] = v
            return v
        return self.fold_at(node, depth)

    def fold_at(self, node, depth):
        d = depth + 1
        v = self.fold_any(node, d)
        if isinstance(v, bytes):
            try:
                v = v.decode("utf-8")
            except UnicodeDecodeError:
                v = v.decode("latin-1")
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            v = str(v)
        return v if isinstance(v, str) and len(v) <= MAX_STRING else None

    def fold_any(self, node, d):
        """A str, bytes, number or list of str the expression always evaluates to, else None."""
        if d > MAX_DEPTH:
            return None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, (str, bytes, int, float)) else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.fold_any(node.operand, d + 1)
            return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
        if isinstance(node, ast.JoinedStr):
            out = ""
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out += str(part.value)
                elif isinstance(part, ast.FormattedValue) and part.format_spec is None:
                    v = self.fold(part.value, d)
                    if v is None:
                        return None
                    out += v
                else:
                    return None
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.fold_any(node.left, d + 1)
            right = self.fold_any(node.right, d + 1) if left is not None else None
            if isinstance(left, str) and isinstance(right, str) or isinstance(left, list) and isinstance(right, list):
                # Capped at every step: `b = a + a; c = b + b; …` must not double its way out of memory.
                return left + right if len(left) + len(right) <= MAX_STRING else None
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            template = self.fold(node.left, d)
            values = self.fold_any(node.right, d + 1)
            # No widths or `*`: '%999999999s' would build the string it pads.
            if template is None or values is None or re.search(r"%[-#0 +]*(?:\d{3,}|\*)", template):
                return None
            try:
                return template % (tuple(values) if isinstance(values, list) else values)
            except (TypeError, ValueError):
                return None
        if isinstance(node, (ast.List, ast.Tuple)):
            out = []
            for e in node.elts:
                v = self.fold(e, d)
                if v is None:
                    return None
                out.append(v)
            return out
        if isinstance(node, ast.Name):
            return self.fold_name(node)
        if isinstance(node, ast.Subscript):
            value = self.fold_any(node.value, d + 1)
            if value is None:
                return None
            s = node.slice
            try:
                if isinstance(s, ast.Slice):
                    nodes = (s.lower, s.upper, s.step)
                    parts = [None if p is None else self.fold_any(p, d + 1) for p in nodes]
                    if any(n is not None and not isinstance(p, int) for n, p in zip(nodes, parts)):
                        return None
                    return value[slice(*parts)]
                k = self.fold_any(s, d + 1)
                return value[k] if isinstance(k, int) else None
            except (IndexError, TypeError, ValueError):
                return None
        if isinstance(node, ast.Call):
            return self.fold_call(node, d)
        return None

    def fold_name(self, node):
        s = self.lookup(self.scope(node), node.id)
        if s is None:
            return None
        bindings = s.bindings.get(node.id, [])
        if len(bindings) != 1 or bindings[0][0] != "value":
            return None
        key = ("fold", id(s), node.id)
        if key in self.names:
            return self.names[key]
        self.names[key] = None
        v = self.fold_any(bindings[0][1], 1)
        self.names[key] = v
        return v

    def fold_call(self, node, d):
        args = node.args
        f = self.resolve(node.func, d) if not isinstance(node.func, ast.Attribute) else None
        if f == ("builtins", "chr") and len(args) == 1:
            n = self.fold_any(args[0], d + 1)
            return chr(n) if isinstance(n, int) and 0 <= n <= 0x10FFFF else None
        if f == ("builtins", "str") and len(args) == 1:
            return self.fold(args[0], d)
        if f in (("builtins", "list"), ("builtins", "reversed"), ("builtins", "tuple")) and len(args) == 1:
            v = self.fold_any(args[0], d + 1)
            if isinstance(v, (str, list)):
                return list(reversed(v)) if f[1] == "reversed" else list(v)
            return None
        if not isinstance(node.func, ast.Attribute):
            return None
        method = node.func.attr
        owner = self.resolve(node.func.value, d)
        if owner in (("bytes",), ("builtins", "bytes")) and method == "fromhex" and len(args) == 1:
            text = self.fold(args[0], d)
            try:
                return bytes.fromhex(text) if text is not None else None
            except ValueError:
                return None
        if owner == ("base64",) and method in ("b64decode", "b32decode", "b16decode", "urlsafe_b64decode") and args:
            text = self.fold_any(args[0], d + 1)
            try:
                return getattr(base64, method)(text) if isinstance(text, (str, bytes)) else None
            except (binascii.Error, ValueError):
                return None
        if owner == ("codecs",) and method == "decode" and len(args) == 2:
            text, enc = self.fold(args[0], d), self.fold(args[1], d)
            try:
                return codecs.decode(text, enc) if text is not None and enc in ("rot13", "rot_13") else None
            except (LookupError, ValueError):
                return None
        target = self.fold_any(node.func.value, d + 1)
        if target is None:
            return None
        values = []
        for a in args:
            v = self.fold_any(a, d + 1)
            if v is None:
                return None
            values.append(v)
        try:
            if method == "join" and isinstance(target, str) and len(values) == 1 and isinstance(values[0], list):
                return target.join(values[0])
            if method == "decode" and isinstance(target, bytes):
                return target.decode(*[v for v in values if isinstance(v, str)][:1] or ["utf-8"])
            if any(isinstance(v, int) and v > MAX_STRING for v in values):
                return None
            if isinstance(target, str) and method in (
                "lower", "upper", "strip", "lstrip", "rstrip", "replace", "split", "capitalize", "title",
                "casefold", "swapcase", "removeprefix", "removesuffix", "zfill", "center", "ljust", "rjust",
            ):
                out = getattr(target, method)(*values)
                return out if len(out) <= MAX_STRING else None
            # Plain `{}` / `{0}` fields only: no attribute, index, conversion or format spec (a width builds it).
            if isinstance(target, str) and method == "format" and not re.search(r"\{[^}]*[.\[:!]", target):
                out = target.format(*values)
                return out if len(out) <= MAX_STRING else None
        except (TypeError, ValueError, IndexError, KeyError, UnicodeDecodeError):
            return None
        return None
