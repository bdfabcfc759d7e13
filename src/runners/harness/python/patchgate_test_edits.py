"""What a Python test file checks, for the gate's test-edit analysis.

Parses (never imports or runs) each file named in the request with the
standard library's ast module and reports, per file, the facts the gate
compares between the base's and the head's copy of a test file:

- "units": every test pytest would collect by default (`test*` functions at
  module level and in `Test*` classes or `unittest.TestCase` subclasses),
  named `Class::function` as in a node id, each with
  - "marks": skip, skipif, xfail, importorskip (decorators, inherited class
    marks, `pytestmark`, and `pytest.skip()` / `pytest.xfail()` /
    `self.skipTest()` calls in the body);
  - "asserts": every assertion with its matcher (`==`, `in`, `truthy`,
    `const`, `assertEqual`, `raises`…), the checked expression ("subject"),
    the expected value when it is a literal, whether it is negated, and
    whether a `try` that does not re-raise, `contextlib.suppress` or
    `pytest.raises(AssertionError)` swallows its failure; statements after an
    unconditional `return` are dead and not read;
  - "examples": `@settings(max_examples=N)`; "noGeneration" when `phases`
    leaves out `Phase.generate`; "explicit": the `@example(...)` decorators;
  - "generators": the `@given` strategies by argument, with the strategy's
    function, numeric bounds, `.filter`/`.map` counts, restrictions
    (`alphabet`, `allow_nan=False`…) and its elements' strategy;
  - "assumes": `assume()` calls; "cases": the product of literal
    `parametrize` lists; "body": each top-level statement's code.
- "hooks": `pytest_*` functions, autouse fixtures and `pytest_plugins`, each
  with a digest of its tree (positions left out, so moving it is no change);
- "excludes": `collect_ignore` / `collect_ignore_glob` entries;
- "marks": module-level marks (`pytestmark`, `pytest.importorskip`);
- "examples": the `max_examples` of a settings profile the module loads.

Runs in the sandbox under `python3 -I -S`, so nothing from the checkout is
on sys.path.

Request (argv[1]): {"files": {"<key>": "<absolute path>"}}
Answer (argv[2]): {"<key>": {facts} | {"error": "SyntaxError: ...", "line": n}}
"""

import ast
import hashlib
import json
import sys

MAX_TEXT = 200
OPS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
# Positional parameters of Hypothesis strategies whose numbers bound what they generate.
POSITIONAL = {
    "integers": ["min_value", "max_value"],
    "floats": ["min_value", "max_value"],
    "decimals": ["min_value", "max_value"],
    "fractions": ["min_value", "max_value"],
    "text": ["alphabet", "min_size", "max_size"],
    "binary": ["min_size", "max_size"],
    "lists": ["elements", "min_size", "max_size"],
    "sets": ["elements", "min_size", "max_size"],
    "frozensets": ["elements", "min_size", "max_size"],
    "iterables": ["elements", "min_size", "max_size"],
}
BOUNDS = {"min_value": "min", "max_value": "max", "min_size": "minSize", "max_size": "maxSize"}
# Keyword arguments that only ever take inputs away.
RESTRICTING = {"alphabet", "blacklist_categories", "exclude_categories", "unique", "unique_by"}
NOT_FALSE = {"allow_nan", "allow_infinity", "allow_subnormal"}
CONSTANT = {"just", "none", "nothing", "sampled_from"}
SKIP_MARKS = {"skip": "skip", "skipif": "skipif", "xfail": "xfail", "skipIf": "skipif", "skipUnless": "skipif",
              "expectedFailure": "xfail"}


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def simple(node, depth=0):
    """The code of a plain value (names, attributes, literals, calls and subscripts of those) without
    ast.unparse, which costs most of a big file's reading: a function of the tree alone, as unparse is,
    so reformatting is still no change. None for anything else."""
    if depth > 8:
        return None
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant):
        v = node.value
        return repr(v) if v is not Ellipsis and not isinstance(v, (bytes, complex)) else None
    if isinstance(node, ast.Attribute):
        base = simple(node.value, depth + 1)
        return f"{base}.{node.attr}" if base is not None and not isinstance(node.value, ast.Constant) else None
    if isinstance(node, ast.Call):
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return None
        parts = [simple(node.func, depth + 1)]
        parts += [simple(a, depth + 1) for a in node.args]
        parts += [(lambda v: None if v is None else f"{k.arg}={v}")(simple(k.value, depth + 1)) for k in node.keywords]
        if any(p is None for p in parts) or isinstance(node.func, ast.Constant):
            return None
        return f"{parts[0]}({', '.join(parts[1:])})"
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
            and type(node.operand.value) in (int, float)):
        return f"-{node.operand.value!r}"
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, (ast.Slice, ast.Tuple)):
        base = simple(node.value, depth + 1)
        index = simple(node.slice, depth + 1)
        return f"{base}[{index}]" if base is not None and index is not None else None
    return None


def text(node):
    try:
        s = simple(node)
        if s is None:
            s = ast.unparse(node)
    except Exception:  # noqa: BLE001 - an odd node is shown as its type, never a crash
        s = type(node).__name__
    return s if len(s) <= MAX_TEXT else s[: MAX_TEXT - 1] + "\u2026"


class Source:
    """The file's own text of a node, by its positions: far cheaper than ast.unparse on a file of
    thousands of assertions. Only for what is shown or paired by exact text (an assertion's whole
    statement, a statement's key); what a change is judged by (subjects, expected values, marks,
    strategies) stays unparsed, so reformatting is still no edit."""

    def __init__(self, data):
        self.data = data
        self.starts = [0]
        # Positions count UTF-8 bytes of lines split at \n; other encodings, a BOM or a bare \r would shift
        # them, and then every text is unparsed instead.
        self.exact = b"\r" not in data and not data.startswith(b"\xef\xbb\xbf")
        if self.exact:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                self.exact = False
        i = data.find(b"\n")
        while i >= 0:
            self.starts.append(i + 1)
            i = data.find(b"\n", i + 1)

    def of(self, node):
        if self.exact:
            try:
                a = self.starts[node.lineno - 1] + node.col_offset
                b = self.starts[node.end_lineno - 1] + node.end_col_offset
                return self.data[a:b].decode("utf-8", "replace")
            except (AttributeError, IndexError, TypeError):
                pass
        try:
            return ast.unparse(node)
        except Exception:  # noqa: BLE001 - an odd node is shown as its type, never a crash
            return type(node).__name__


SOURCE = Source(b"")


def written(node):
    """The node as the file writes it, capped."""
    s = SOURCE.of(node)
    return s if len(s) <= MAX_TEXT else s[: MAX_TEXT - 1] + "\u2026"


def key(node):
    """A short key of a statement for telling a renamed test by its code (whitespace left out)."""
    return hashlib.blake2b("".join(SOURCE.of(node).split()).encode("utf-8"), digest_size=8).hexdigest()


def digest(node):
    """What a hook does, without where it sits: its tree without positions."""
    return hashlib.sha256(ast.dump(node).encode("utf-8")).hexdigest()[:16]


def literal(node):
    """Whether the node is a literal value (what an expected value written out looks like)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Call):
        if (dotted(node.func) or "").endswith("approx") and node.args:
            return literal(node.args[0])
        # literal_eval takes one call, `set()`; any other is no literal (and raising to say so is slow).
        if not (isinstance(node.func, ast.Name) and node.func.id == "set" and not node.args):
            return False
    elif isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Compare, ast.BoolOp, ast.Lambda,
                           ast.JoinedStr, ast.Await, ast.NamedExpr, ast.ListComp, ast.GeneratorExp)):
        return False
    try:
        ast.literal_eval(node)
        return True
    except Exception:  # noqa: BLE001
        return False


def number(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        n = number(node.operand)
        return -n if n is not None else None
    return None


def last_name(node):
    d = dotted(node.func if isinstance(node, ast.Call) else node)
    return d.rsplit(".", 1)[-1] if d else None


def mark_of(dec):
    """The skip-like mark a decorator (or a `pytestmark` value) puts on a test, if any."""
    d = dotted(dec.func if isinstance(dec, ast.Call) else dec) or ""
    name = d.rsplit(".", 1)[-1]
    if name in SKIP_MARKS and (d.startswith("pytest.mark.") or d.startswith("mark.") or d.startswith("unittest.")
                               or d == name):
        return {"kind": SKIP_MARKS[name], "line": dec.lineno, "text": text(dec)}
    return None


def marks_of(value):
    items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
    return [m for m in (mark_of(x) for x in items) if m]


def generator(node):
    whole = text(node)
    filters = maps = 0
    while (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
           and node.func.attr in ("filter", "map", "flatmap")):
        if node.func.attr == "filter":
            filters += 1
        else:
            maps += 1
        node = node.func.value
    fn = last_name(node) if isinstance(node, ast.Call) else (dotted(node) or type(node).__name__)
    bounds = {}
    restricts = []
    inner = None
    if isinstance(node, ast.Call):
        names = POSITIONAL.get(fn or "", [])
        args = list(zip(names, node.args)) + [(k.arg, k.value) for k in node.keywords if k.arg]
        for key, value in args:
            if key in BOUNDS and number(value) is not None:
                bounds[BOUNDS[key]] = number(value)
            elif key in RESTRICTING:
                restricts.append(key)
            elif key in NOT_FALSE and isinstance(value, ast.Constant) and value.value is False:
                restricts.append(f"{key}=False")
            elif key == "elements" and inner is None:
                inner = generator(value)
    return {
        "fn": fn or "",
        "text": whole,
        "bounds": bounds,
        "filters": filters,
        "maps": maps,
        "constant": fn in CONSTANT,
        "restricts": sorted(restricts),
        **({"of": inner} if inner else {}),
    }


class Body(ast.NodeVisitor):
    """Assertions, skips and assumes in one test function's body."""

    def __init__(self):
        self.asserts = []
        self.marks = []
        self.assumes = []
        self.swallow = 0

    def add(self, node, matcher, subject, expected=None, negated=False, arg=None):
        a = {"line": node.lineno, "matcher": matcher, "subject": subject, "text": written(node)}
        if expected is not None:
            a["expected"] = expected
        if negated:
            a["negated"] = True
        if arg is not None:
            a["arg"] = arg
        if self.swallow > 0:
            a["swallowed"] = True
        self.asserts.append(a)

    def statements(self, body):
        for stmt in body:
            self.visit(stmt)
            # What follows an unconditional return never runs.
            if isinstance(stmt, (ast.Return, ast.Raise)):
                break

    def visit_FunctionDef(self, node):
        pass  # a nested helper is not run by being defined

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef

    def visit_If(self, node):
        if isinstance(node.test, ast.Constant) and not node.test.value:
            self.statements(node.orelse)
            return
        self.visit(node.test)
        self.statements(node.body)
        self.statements(node.orelse)

    def visit_Try(self, node):
        swallows = any(not any(isinstance(n, ast.Raise) for s in h.body for n in ast.walk(s)) for h in node.handlers)
        self.swallow += 1 if swallows else 0
        self.statements(node.body)
        self.swallow -= 1 if swallows else 0
        for h in node.handlers:
            self.statements(h.body)
        self.statements(node.orelse)
        self.statements(node.finalbody)

    visit_TryStar = visit_Try

    def visit_With(self, node):
        swallowing = 0
        for item in node.items:
            call = item.context_expr
            name = last_name(call) if isinstance(call, ast.Call) else None
            if name == "suppress":
                swallowing = 1
            elif name in ("raises", "assertRaises", "assertRaisesRegex") and isinstance(call, ast.Call):
                types = call.args[0] if call.args else None
                if types is not None and (dotted(types) or "").endswith("AssertionError"):
                    swallowing = 1
                self.raises(call, name, node.body[0] if node.body else node)
            else:
                self.visit(call)
        self.swallow += swallowing
        self.statements(node.body)
        self.swallow -= swallowing

    visit_AsyncWith = visit_With

    def raises(self, call, name, first):
        types = call.args[0] if call.args else None
        match = any(k.arg == "match" for k in call.keywords) or name == "assertRaisesRegex"
        broad = types is None or (dotted(types) or "") in ("Exception", "BaseException", "builtins.Exception")
        if isinstance(types, ast.Tuple):
            broad = broad or any((dotted(t) or "") in ("Exception", "BaseException") for t in types.elts)
        arg = "literal" if match else ("broad" if broad else "name")
        expected = text(types) if types is not None else ""
        for k in call.keywords:
            if k.arg == "match":
                expected += f", match={text(k.value)}"
        self.add(call, "raises", text(first), expected=expected, arg=arg)

    def visit_Assert(self, node):
        self.assertion(node, node.test, False)

    def assertion(self, node, test, negated):
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            for v in test.values:
                self.assertion(node, v, negated)
            return
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            self.add(node, "falsy", text(test.operand))
            return
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op = OPS.get(type(test.ops[0]), "?")
            left, right = test.left, test.comparators[0]
            if literal(left) and literal(right):
                self.add(node, "const", text(test))
                return
            if literal(left):
                left, right = right, left
            if op in ("is", "is not") and isinstance(right, ast.Constant) and right.value is None:
                self.add(node, "is None" if op == "is" else "is not None", text(left))
                return
            if op == "==" and isinstance(right, ast.Call) and (dotted(right.func) or "").endswith("approx"):
                op = "approx"
            self.add(node, op, text(left), expected=text(right) if literal(right) else None)
            return
        if isinstance(test, ast.Compare):
            self.add(node, OPS.get(type(test.ops[0]), "?"), text(test.left))
            return
        if isinstance(test, ast.Call) and last_name(test) == "isinstance":
            self.add(node, "isinstance", text(test.args[0]) if test.args else "")
            return
        if literal(test) or isinstance(test, (ast.Tuple, ast.JoinedStr)):
            self.add(node, "const", text(test))
            return
        self.add(node, "truthy", text(test))

    def visit_Call(self, node):
        d = dotted(node.func) or ""
        name = d.rsplit(".", 1)[-1]
        if d.startswith("self.assert") or d.startswith("cls.assert"):
            if name in ("assertRaises", "assertRaisesRegex") and len(node.args) >= 2:
                self.raises(node, name, node)
            elif name not in ("assertRaises", "assertRaisesRegex", "assertWarns", "assertLogs"):
                subject = text(node.args[0]) if node.args else ""
                expected = text(node.args[1]) if len(node.args) > 1 and literal(node.args[1]) else None
                self.add(node, name, subject, expected=expected)
        elif d in ("pytest.raises", "raises") and len(node.args) >= 2:
            self.raises(node, "raises", node)
        elif d in ("pytest.skip", "self.skipTest", "skip", "pytest.skip.Exception"):
            self.marks.append({"kind": "skip", "line": node.lineno, "text": text(node)})
        elif d in ("pytest.xfail", "xfail"):
            self.marks.append({"kind": "xfail", "line": node.lineno, "text": text(node)})
        elif d in ("pytest.importorskip", "importorskip"):
            self.marks.append({"kind": "importorskip", "line": node.lineno, "text": text(node)})
        elif name == "assume" and d in ("assume", "hypothesis.assume"):
            self.assumes.append({"line": node.lineno, "text": text(node)})
        self.generic_visit(node)


def settings_of(dec, out):
    for k in dec.keywords:
        if k.arg == "max_examples" and number(k.value) is not None:
            out["examples"] = {"value": number(k.value), "line": dec.lineno, "key": "max_examples"}
        elif k.arg == "phases":
            if "generate" not in text(k.value):
                out["noGeneration"] = {"line": dec.lineno, "text": text(k.value)}


def unit(fn, prefix, inherited):
    u = {
        "name": f"{prefix}::{fn.name}" if prefix else fn.name,
        "kind": "test",
        "line": min([d.lineno for d in fn.decorator_list] + [fn.lineno]),
        "def": fn.lineno,
        "end": fn.end_lineno or fn.lineno,
        "marks": list(inherited),
        "explicit": [],
        "generators": [],
        "property": False,
    }
    cases = None
    for dec in fn.decorator_list:
        m = mark_of(dec)
        name = last_name(dec)
        root = dec
        while isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute) and isinstance(root.func.value, ast.Call):
            root = root.func.value  # @example(...).via(...)
        if m:
            u["marks"].append(m)
        elif isinstance(dec, ast.Call) and name == "settings":
            settings_of(dec, u)
        elif isinstance(dec, ast.Call) and name == "given":
            u["property"] = True
            for i, a in enumerate(dec.args):
                u["generators"].append({"slot": f"#{i + 1}", "line": a.lineno, **generator(a)})
            for k in dec.keywords:
                if k.arg:
                    u["generators"].append({"slot": k.arg, "line": k.value.lineno, **generator(k.value)})
        elif isinstance(root, ast.Call) and last_name(root) == "example":
            u["explicit"].append({"line": dec.lineno, "text": text(dec)})
        elif isinstance(dec, ast.Call) and name == "parametrize" and len(dec.args) >= 2:
            values = dec.args[1]
            if isinstance(values, (ast.List, ast.Tuple)):
                cases = (cases or 1) * len(values.elts)
    if cases is not None:
        u["cases"] = {"count": cases, "line": u["line"]}
    body = Body()
    body.statements(fn.body)
    u["asserts"] = body.asserts
    u["marks"] += body.marks
    u["assumes"] = body.assumes
    u["body"] = [key(s) for s in fn.body[:200]]
    return u


def is_test_class(cls):
    if cls.name.startswith("Test"):
        return True
    return any((dotted(b) or "").endswith("TestCase") for b in cls.bases)


class File:
    def __init__(self):
        self.units = []
        self.hooks = []
        self.excludes = []
        self.marks = []
        self.mocks = []
        self.profiles = {}
        self.examples = None

    def statements(self, body, prefix="", inherited=()):
        for stmt in body:
            self.statement(stmt, prefix, inherited)

    def statement(self, stmt, prefix, inherited):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not prefix and stmt.name.startswith("pytest_"):
                self.hooks.append({"name": stmt.name, "line": stmt.lineno, "digest": digest(stmt)})
            elif self.autouse(stmt):
                self.hooks.append({"name": f"autouse fixture {stmt.name}", "line": stmt.lineno, "digest": digest(stmt)})
            elif stmt.name.startswith("test"):
                self.units.append(unit(stmt, prefix, inherited))
        elif isinstance(stmt, ast.ClassDef) and is_test_class(stmt):
            marks = list(inherited)
            for dec in stmt.decorator_list:
                m = mark_of(dec)
                if m:
                    marks.append(m)
            for s in stmt.body:
                if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in s.targets):
                    marks += marks_of(s.value)
            name = f"{prefix}::{stmt.name}" if prefix else stmt.name
            for s in stmt.body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    self.statement(s, name, marks)
        elif prefix:
            return
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            value = stmt.value
            if value is None:
                return
            if "pytestmark" in names:
                self.marks += marks_of(value)
            for key in ("collect_ignore", "collect_ignore_glob"):
                if key in names:
                    self.exclude(key, value)
            if "pytest_plugins" in names:
                self.hooks.append({"name": "pytest_plugins", "line": stmt.lineno, "digest": digest(value)})
            self.calls(value)
        elif isinstance(stmt, ast.Expr):
            self.calls(stmt.value)
        elif isinstance(stmt, (ast.If, ast.Try, ast.With)):
            for part in ("body", "orelse", "finalbody", "handlers"):
                for s in getattr(stmt, part, []) or []:
                    self.statements(s.body if isinstance(s, ast.ExceptHandler) else [s])

    def autouse(self, fn):
        for dec in fn.decorator_list:
            if isinstance(dec, ast.Call) and last_name(dec) == "fixture":
                if any(k.arg == "autouse" and isinstance(k.value, ast.Constant) and k.value.value for k in dec.keywords):
                    return True
        return False

    def exclude(self, key, value):
        for e in value.elts if isinstance(value, (ast.List, ast.Tuple, ast.Set)) else [value]:
            v = e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else text(e)
            self.excludes.append({"key": key, "value": v, "line": e.lineno, "sense": "exclude"})

    def calls(self, node):
        if not isinstance(node, ast.Call):
            return
        d = dotted(node.func) or ""
        if d in ("collect_ignore.append", "collect_ignore.extend", "collect_ignore_glob.append",
                 "collect_ignore_glob.extend"):
            key = d.split(".")[0]
            for a in node.args:
                self.exclude(key, a)
        elif d.endswith("register_profile") and node.args:
            name = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
            for k in node.keywords:
                if k.arg == "max_examples" and number(k.value) is not None:
                    self.profiles[name] = {"value": number(k.value), "line": node.lineno, "key": "max_examples"}
        elif d.endswith("load_profile") and node.args:
            name = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
            if name in self.profiles:
                self.examples = {**self.profiles[name], "line": node.lineno}
        elif d in ("pytest.importorskip", "importorskip"):
            self.marks.append({"kind": "importorskip", "line": node.lineno, "text": text(node)})
        elif d.startswith("monkeypatch.") or d.endswith("mock.patch") or d.endswith(".patch.object"):
            self.mocks.append({"line": node.lineno, "text": text(node)})


def scan(path):
    global SOURCE
    with open(path, "rb") as f:
        source = f.read()
    tree = ast.parse(source, filename=path)
    SOURCE = Source(source)
    out = File()
    out.statements(tree.body)
    facts = {
        "units": out.units,
        "hooks": out.hooks,
        "excludes": out.excludes,
        "marks": out.marks,
        "mocks": out.mocks,
    }
    if out.examples:
        facts["examples"] = out.examples
    return facts


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    answer = {}
    for key, path in request["files"].items():
        try:
            answer[key] = scan(path)
        except SyntaxError as e:
            answer[key] = {"error": f"SyntaxError: {e.msg}", "line": e.lineno or 0}
        except (ValueError, RecursionError, MemoryError) as e:
            answer[key] = {"error": f"{type(e).__name__}: {e}", "line": 0}
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        # dumps, not dump: only the one-shot encoder is the C one, several times faster on a big answer.
        f.write(json.dumps(answer, separators=(",", ":")))


if __name__ == "__main__":
    main()
