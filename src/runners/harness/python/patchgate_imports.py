"""What each Python file loads, for the stability probe's scope.

Parses (never imports or runs) each file named in the request with the
standard library's ast module and reports, per file:

- "imports": every `import a.b` and `from .m import x, y`, anywhere in the
  file (a function-level import runs too), as [line, level, module, names];
  a literal `importlib.import_module("m")`, `__import__("m")`,
  `pytest.importorskip("m")`, `runpy.run_module("m")` and the modules a
  module-level `pytest_plugins` names count as imports of that module;
- "dynamic": loads whose target the text does not say, as [line, what]: an
  import of a computed name, `exec`, `runpy.run_path`, loading a module from a
  file path (`spec_from_file_location`, `SourceFileLoader`, `imp.load_*`), a
  `pytest_plugins` that is not a literal;
- "strings": the file's string constants (docstrings left out), so the gate
  can tell which data files a test names by path; "strings_capped" when
  there were too many to keep.

The answer also holds "__stdlib__": the names of the standard library's
top-level modules, which no file of the checkout can stand in for (the gate's
loader puts the checkout after them). Runs in the sandbox under
`python3 -I -S`, so nothing from the checkout is on sys.path.

Request (argv[1]): {"files": {"<key>": "<absolute path>"}}
Answer (argv[2]): {"<key>": {"imports": [...], "dynamic": [...], "strings": [...]}
                  | {"error": "SyntaxError: ..."}, "__stdlib__": [...]}
"""

import ast
import json
import sys

IMPORT_CALLS = {
    "__import__",
    "importlib.import_module",
    "import_module",
    "importlib.__import__",
    "pytest.importorskip",
    "importorskip",
    "runpy.run_module",
    "run_module",
}
PATH_LOADS = {
    "exec",
    "execfile",
    "runpy.run_path",
    "run_path",
    "importlib.util.spec_from_file_location",
    "spec_from_file_location",
    "importlib.machinery.SourceFileLoader",
    "SourceFileLoader",
    "importlib.machinery.SourcelessFileLoader",
    "imp.load_source",
    "imp.load_module",
    "imp.load_compiled",
    "imp.load_package",
    "load_source",
    "zipimport.zipimporter",
}
MAX_STRINGS = 5000
MAX_STRING = 300


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


def const_str(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def docstring_nodes(tree):
    """The string constants that are docstrings: not paths anything reads."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and const_str(body[0].value) is not None:
                out.add(id(body[0].value))
    return out


class Loads(ast.NodeVisitor):
    def __init__(self, docstrings):
        self.imports = []
        self.dynamic = []
        self.strings = []
        self.seen = set()
        self.capped = False
        self.docstrings = docstrings

    def visit_Import(self, node):
        for alias in node.names:
            self.imports.append([node.lineno, 0, alias.name, []])
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        names = [alias.name for alias in node.names]
        self.imports.append([node.lineno, node.level or 0, node.module or "", names])
        self.generic_visit(node)

    def visit_Call(self, node):
        name = dotted(node.func)
        if name in IMPORT_CALLS:
            first = const_str(node.args[0]) if node.args else None
            package = next((const_str(k.value) for k in node.keywords if k.arg == "package"), None)
            if len(node.args) > 1:
                package = const_str(node.args[1]) if name in ("importlib.import_module", "import_module") else package
            if first is None:
                self.dynamic.append([node.lineno, f"{name}() of a computed module name"])
            elif first.startswith("."):
                if package is None:
                    self.dynamic.append([node.lineno, f"{name}({first!r}) relative to a computed package"])
                else:
                    level = len(first) - len(first.lstrip("."))
                    self.imports.append([node.lineno, 0, f"{package}.{first[level:]}".rstrip("."), []])
            else:
                self.imports.append([node.lineno, 0, first, []])
        elif name in PATH_LOADS:
            self.dynamic.append([node.lineno, f"{name}() loads code from a path or a string"])
        self.generic_visit(node)

    def plugins(self, value, line):
        """A module-level `pytest_plugins`: a name or a list or tuple of names."""
        items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
        for item in items:
            text = const_str(item)
            if text is None:
                self.dynamic.append([line, "pytest_plugins names a computed module"])
            else:
                self.imports.append([line, 0, text, []])

    def visit_Constant(self, node):
        if isinstance(node.value, str) and id(node) not in self.docstrings and len(node.value) <= MAX_STRING:
            if node.value not in self.seen:
                if len(self.strings) >= MAX_STRINGS:
                    self.capped = True
                else:
                    self.seen.add(node.value)
                    self.strings.append(node.value)


def scan(path):
    with open(path, "rb") as f:
        source = f.read()
    tree = ast.parse(source, filename=path)
    loads = Loads(docstring_nodes(tree))
    for stmt in tree.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in targets) and stmt.value is not None:
            loads.plugins(stmt.value, stmt.lineno)
    loads.visit(tree)
    out = {"imports": loads.imports, "dynamic": loads.dynamic, "strings": loads.strings}
    if loads.capped:
        out["strings_capped"] = True
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    answer = {"__stdlib__": sorted(getattr(sys, "stdlib_module_names", ()))}
    for key, path in request["files"].items():
        try:
            answer[key] = scan(path)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
            answer[key] = {"error": f"{type(e).__name__}: {e}"}
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()
