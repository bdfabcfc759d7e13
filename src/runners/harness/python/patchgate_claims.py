"""Claim candidates in Python files, for `patchgate claims suggest`.

Parses (never imports or runs) each file named in the request with the
standard library's ast module and reports, per file, the facts a claim can be
written about, each with its line and enclosing function (`Class.method`):

- "return": a return statement, with its code as `ast.unparse` writes it
  ("code");
- "raise": a raise statement, with the raised class ("cls") when it reads as
  a name or a call of one (`raise InvoiceError(...)`), and its code;
- "status": a whole number from 100 to 599 held under a status name (a dict
  key, a keyword argument, an assignment target `status`, `status_code`,
  `code`, ...), passed to abort()/send_response()/send_error()/set_status(),
  or returned from a function whose name mentions status or code ("value");
- "field": a string key of a dict literal that is returned, passed to a call,
  or assigned; an attribute assignment `self.x = ...`; an annotated name in a
  class body (dataclass, pydantic and ORM fields) ("name");
- "comparison": each link of a comparison, with its operator and operands as
  `ast.unparse` writes them ("op", "left", "right"), at the right operand's
  line.

and the spans (first and last line, decorators included) of every function
and class, named by nesting. Runs in the sandbox under `python3 -I -S`, so
nothing from the checkout is on sys.path.

Request (argv[1]): {"files": {"<key>": "<absolute path>"}}
Answer (argv[2]): {"<key>": {"items": [{...}], "spans": [{"name", "start", "end"}]}
                  | {"error": "SyntaxError: ...", "line": n}}
"""

import ast
import json
import re
import sys

STATUS_NAME = re.compile(r"^(status|statuscode|status_code|code|httpstatus|http_status|httpcode|http_code)$", re.I)
STATUS_CALLS = {"abort", "send_response", "send_error", "set_status", "status"}
STATUS_FUNCTION = re.compile(r"status|code", re.I)
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
# Where a dict literal can sit and still be the value that is returned, passed on or assigned.
CONTAINERS = (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.IfExp, ast.Starred, ast.keyword, ast.Await)


def dotted(node):
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def last(name):
    return name.rsplit(".", 1)[-1] if name else None


def text(node):
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - a node unparse cannot write is shown as nothing
        return ""


def status_value(node):
    if isinstance(node, ast.Constant) and type(node.value) is int and 100 <= node.value <= 599:
        return node.value
    return None


def target_name(t):
    if isinstance(t, ast.Name):
        return t.id
    if isinstance(t, ast.Attribute):
        return t.attr
    if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
        return t.slice.value
    return None


class Facts(ast.NodeVisitor):
    def __init__(self):
        self.items = []
        self.spans = []
        self.names = []
        self.kinds = []

    def symbol(self):
        return ".".join(self.names) if self.names else None

    def item(self, line, kind, **extra):
        entry = {"line": line, "kind": kind}
        if self.names:
            entry["symbol"] = self.symbol()
        entry.update({k: v for k, v in extra.items() if v is not None})
        self.items.append(entry)

    def scope(self, node, kind):
        start = min([d.lineno for d in node.decorator_list] + [node.lineno])
        self.names.append(node.name)
        self.kinds.append(kind)
        self.spans.append({"name": self.symbol(), "start": start, "end": node.end_lineno or node.lineno})
        self.generic_visit(node)
        self.kinds.pop()
        self.names.pop()

    def visit_FunctionDef(self, node):
        self.scope(node, "def")

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.scope(node, "class")

    def function_name(self):
        for name, kind in zip(reversed(self.names), reversed(self.kinds)):
            if kind == "def":
                return name
        return None

    def visit_Return(self, node):
        self.item(node.lineno, "return", code=text(node))
        value = status_value(node.value) if node.value is not None else None
        if value is not None and STATUS_FUNCTION.search(self.function_name() or ""):
            self.item(node.value.lineno, "status", value=value)
        self.generic_visit(node)

    def visit_Raise(self, node):
        exc = node.exc
        cls = dotted(exc.func) if isinstance(exc, ast.Call) else dotted(exc) if exc is not None else None
        self.item(node.lineno, "raise", cls=cls, code=text(node))
        self.generic_visit(node)

    def visit_Dict(self, node):
        kept = kept_value(node)
        for key, value in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            status = status_value(value) if STATUS_NAME.match(key.value) else None
            if status is not None:
                self.item(value.lineno, "status", value=status)
            elif kept:
                self.item(key.lineno, "field", name=key.value)
        self.generic_visit(node)

    def visit_keyword(self, node):
        value = status_value(node.value)
        if node.arg and STATUS_NAME.match(node.arg) and value is not None:
            self.item(node.value.lineno, "status", value=value)
        self.generic_visit(node)

    def visit_Call(self, node):
        value = status_value(node.args[0]) if node.args else None
        if value is not None and last(dotted(node.func)) in STATUS_CALLS:
            self.item(node.args[0].lineno, "status", value=value)
        self.generic_visit(node)

    def assigned(self, targets, value, node):
        status = status_value(value) if value is not None else None
        for t in targets:
            name = target_name(t)
            if status is not None and name and STATUS_NAME.match(name):
                self.item(value.lineno, "status", value=status)
                continue
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                self.item(t.lineno, "field", name=t.attr)

    def visit_Assign(self, node):
        self.assigned(node.targets, node.value, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if isinstance(node.target, ast.Name) and self.kinds and self.kinds[-1] == "class":
            value = status_value(node.value) if node.value is not None else None
            if not (value is not None and STATUS_NAME.match(node.target.id)):
                self.item(node.target.lineno, "field", name=node.target.id)
        self.assigned([node.target], node.value, node)
        self.generic_visit(node)

    def visit_Compare(self, node):
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            self.item(right.lineno, "comparison", op=OPS.get(type(op), "?"), left=text(left), right=text(right))
            left = right
        self.generic_visit(node)


def kept_value(node):
    """Whether a dict literal is returned, passed to a call, or assigned (through containers)."""
    child = node
    parent = getattr(node, "_pg_parent", None)
    while parent is not None:
        if isinstance(parent, ast.Return):
            return True
        if isinstance(parent, ast.Call):
            return child in parent.args or child in parent.keywords
        if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            return child is parent.value
        if isinstance(parent, ast.Lambda):
            return child is parent.body
        if isinstance(parent, CONTAINERS) and not (isinstance(parent, ast.IfExp) and child is parent.test):
            if isinstance(parent, ast.Dict) and child in parent.keys:
                return False
            child = parent
            parent = getattr(parent, "_pg_parent", None)
            continue
        return False
    return False


def scan(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        source = f.read()
    tree = ast.parse(source, filename=path)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child._pg_parent = node
    facts = Facts()
    facts.visit(tree)
    return {"items": facts.items, "spans": facts.spans}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    answer = {}
    for key, path in request["files"].items():
        try:
            answer[key] = scan(path)
        except SyntaxError as e:
            entry = {"error": f"{type(e).__name__}: {e.msg}"}
            if e.lineno:
                entry["line"] = e.lineno
            answer[key] = entry
        except (ValueError, RecursionError, MemoryError) as e:
            answer[key] = {"error": f"{type(e).__name__}: {e}"}
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()
