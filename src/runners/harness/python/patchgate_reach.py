"""Where Python production code reaches into the test machinery.

Parses (never imports or runs) each file named in the request with the
standard library's ast module and reports, per file, every construct the gate
asks about: imports (module names, for the gate to match against test tools
and the test side), writes to sys.modules or builtins, os._exit, exit
handlers, and reads of the variables pytest sets. Runs in the sandbox under
`python3 -I -S`, so nothing from the checkout is on sys.path.

Request (argv[1]): {"files": {"<key>": "<absolute path>"}}
Answer (argv[2]): {"<key>": {"hits": [[line, kind, detail], ...]} | {"error": "..."}}
"""

import ast
import json
import sys

PYTEST_VARS = {
    "PYTEST_CURRENT_TEST",
    "PYTEST_VERSION",
    "PYTEST_XDIST_WORKER",
    "PYTEST_ADDOPTS",
    # Where patchgate's own pytest plugins write what the gate reads: production code has no business there.
    "PATCHGATE_CENSUS_REPORT",
    "PATCHGATE_SEEDS_WANT",
    "PATCHGATE_SEEDS_REPORT",
}


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


class Reach(ast.NodeVisitor):
    def __init__(self):
        self.hits = []

    def hit(self, node, kind, detail):
        self.hits.append([getattr(node, "lineno", 0), kind, detail])

    def visit_Import(self, node):
        for alias in node.names:
            self.hit(node, "import", alias.name)
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        if node.level == 0 and node.module:
            self.hit(node, "import", node.module)
        self.generic_visit(node)

    def target_write(self, target, node):
        root = target.value if isinstance(target, ast.Subscript) else target
        name = dotted(root.value if isinstance(root, ast.Attribute) else root) if root is not None else None
        if isinstance(target, ast.Subscript) and dotted(target.value) == "sys.modules":
            self.hit(node, "sys-modules", "sys.modules[...] is written")
        elif isinstance(target, ast.Attribute) and name in ("builtins", "__builtins__"):
            self.hit(node, "builtins", f"{name}.{target.attr} is replaced")
        elif isinstance(target, ast.Subscript) and dotted(target.value) == "__builtins__":
            self.hit(node, "builtins", "__builtins__[...] is written")

    def visit_Assign(self, node):
        for t in node.targets:
            self.target_write(t, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self.target_write(node.target, node)
        self.generic_visit(node)

    def visit_Delete(self, node):
        for t in node.targets:
            self.target_write(t, node)
        self.generic_visit(node)

    def visit_Call(self, node):
        name = dotted(node.func)
        first = const_str(node.args[0]) if node.args else None
        if name in ("os._exit", "posix._exit"):
            self.hit(node, "exit", f"{name}()")
        elif name in ("atexit.register", "sys.addaudithook"):
            self.hit(node, "exit-handler", f"{name}()")
        elif name in ("sys.modules.__setitem__", "sys.modules.pop", "sys.modules.update", "sys.modules.setdefault", "sys.modules.clear"):
            self.hit(node, "sys-modules", f"{name}()")
        elif name in ("setattr", "delattr") and node.args and dotted(node.args[0]) in ("builtins", "__builtins__"):
            self.hit(node, "builtins", f"{name}({dotted(node.args[0])}, ...)")
        elif name in ("__import__", "importlib.import_module", "import_module") and first:
            self.hit(node, "import", first)
        elif name in ("os.getenv", "os.environ.get", "environ.get", "getenv") and first in PYTEST_VARS:
            self.hit(node, "pytest-env", first)
        self.generic_visit(node)

    def visit_Subscript(self, node):
        key = const_str(node.slice)
        if key in PYTEST_VARS and dotted(node.value) in ("os.environ", "environ"):
            self.hit(node, "pytest-env", key)
        self.generic_visit(node)

    def visit_Compare(self, node):
        left = const_str(node.left)
        if left is not None and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            where = [dotted(c) for c in node.comparators]
            if left in PYTEST_VARS and any(w in ("os.environ", "environ") for w in where):
                self.hit(node, "pytest-env", left)
            if "sys.modules" in where and left.split(".")[0] in ("pytest", "_pytest", "hypothesis", "pluggy"):
                self.hit(node, "sys-modules", f"looks for {left} in sys.modules")
        self.generic_visit(node)


def scan(path):
    with open(path, "rb") as f:
        source = f.read()
    tree = ast.parse(source, filename=path)
    reach = Reach()
    reach.visit(tree)
    return {"hits": reach.hits}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    answer = {}
    for key, path in request["files"].items():
        try:
            answer[key] = scan(path)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
            answer[key] = {"error": f"{type(e).__name__}: {e}"}
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()
