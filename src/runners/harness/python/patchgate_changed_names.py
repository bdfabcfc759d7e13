"""Which names of a Python module a patch changed, for the stability probe.

Parses (never imports or runs) the base's and the head's copy of each
modified module with the standard library's ast module and answers, per
module, one of:

- {"names": []}: the two parse to the same tree (comments, blank lines and
  formatting only): nothing that runs changed;
- {"names": [...]}: only these top-level definitions changed, and nothing the
  module runs when imported refers to them: code reaches the change only by
  naming one of them (the gate then looks for the names in the files a test
  loads);
- {"whole": "<why>"}: something that runs at import changed, or refers to a
  changed definition, or the change is of a kind that code can reach without
  naming it; every test that loads the module may run it.

A top-level statement is a *unit*, judged by its name alone, when it is:

- a function whose decorators are all known to return a plain wrapper
  (staticmethod, property, functools.cache…): an unknown decorator may
  register the function somewhere other code finds it by other names;
- a class with no keywords (no metaclass), such decorators only, bases that
  are `object`, builtin exceptions or unit classes of the same module, and a
  body of such functions, docstrings and plain assignments: a metaclass or a
  base's `__init_subclass__` elsewhere may register it;
- a plain assignment to names (not `__all__` and the module protocol's
  dunders) whose value calls nothing but a few pure builtins.

An `if TYPE_CHECKING:` block with no `else` never runs and is left out.
Everything else is the module's *frame* (imports, calls, conditionals…),
which runs at import: a change to it, or a frame that refers to a changed
unit (`DEFAULT = Encoder()`), is the whole module. Units that refer to a
changed unit count as changed too (a helper's change reaches its callers).
The answer holds the changed units' names after that closure.

Runs in the sandbox under `python3 -I -S`, so nothing from the checkout is on
sys.path.

Request (argv[1]): {"files": {"b\\u241f<path>": "<file>", "h\\u241f<path>": "<file>"},
                    "settings": {"modules": ["<path>", ...]}}
Answer (argv[2]): {"<path>": {"names": [...]} | {"whole": "..."}}
"""

import ast
import builtins
import json
import os
import re
import sys

# Under -I the script's folder is not on sys.path; the import reader beside it is the gate's own file.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from patchgate_imports import dotted  # noqa: E402

PURE_DECORATORS = {
    "staticmethod",
    "classmethod",
    "property",
    "abstractmethod",
    "abc.abstractmethod",
    "overload",
    "typing.overload",
    "final",
    "typing.final",
    "override",
    "typing.override",
    "typing_extensions.override",
    "cache",
    "functools.cache",
    "lru_cache",
    "functools.lru_cache",
    "cached_property",
    "functools.cached_property",
    "dataclass",
    "dataclasses.dataclass",
    "total_ordering",
    "functools.total_ordering",
}
# `@x.setter` and friends build a property from the one above.
PROPERTY_PARTS = {"setter", "getter", "deleter"}
PURE_CALLS = {
    "frozenset",
    "set",
    "tuple",
    "list",
    "dict",
    "int",
    "float",
    "complex",
    "str",
    "bytes",
    "bytearray",
    "bool",
    "range",
    "len",
    "ord",
    "chr",
    "min",
    "max",
    "sorted",
    "object",
    "field",
    "dataclasses.field",
    "TypeVar",
    "typing.TypeVar",
    "NewType",
    "typing.NewType",
}
# Names the import system or `import *` read from a module by themselves.
MODULE_PROTOCOL = {
    "__all__",
    "__getattr__",
    "__dir__",
    "__path__",
    "__spec__",
    "__loader__",
    "__package__",
    "__builtins__",
    "__file__",
    "__name__",
    "__annotations__",
    "__class__",
    "__init__",
}
EXCEPTIONS = {
    n for n in dir(builtins) if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)
}
WORD = re.compile(r"[^\W\d]\w*")


def pure_decorator(node):
    target = node.func if isinstance(node, ast.Call) else node
    name = dotted(target)
    if name is None:
        return False
    if isinstance(node, ast.Call) and any(not pure_value(a) for a in [*node.args, *(k.value for k in node.keywords)]):
        return False
    if name in PURE_DECORATORS:
        return True
    return isinstance(target, ast.Attribute) and target.attr in PROPERTY_PARTS and not isinstance(node, ast.Call)


def pure_value(node):
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and dotted(n.func) not in PURE_CALLS:
            return False
        if isinstance(n, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
    return True


def words(node):
    """Every name, attribute and identifier-like string a node mentions."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.update(WORD.findall(n.value))
        elif isinstance(n, ast.alias):
            out.update(n.name.split("."))
            if n.asname:
                out.add(n.asname)
    return out


def assigned_names(stmt):
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
        value = stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.simple:
        targets = [stmt.target]
        value = stmt.value
    else:
        return None
    if not all(isinstance(t, ast.Name) for t in targets):
        return None
    if value is not None and not pure_value(value):
        return None
    return [t.id for t in targets]


def function_unit(stmt):
    return isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and all(
        pure_decorator(d) for d in stmt.decorator_list
    )


def class_unit(stmt, unit_classes):
    if not isinstance(stmt, ast.ClassDef) or stmt.keywords:
        return False
    if not all(pure_decorator(d) for d in stmt.decorator_list):
        return False
    for b in stmt.bases:
        name = dotted(b)
        if name not in ("object", *EXCEPTIONS) and name not in unit_classes:
            return False
    for s in stmt.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not function_unit(s) or s.name == "__init_subclass__":
                return False
        elif isinstance(s, ast.Pass):
            continue
        elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
            continue
        elif assigned_names(s) is None:
            return False
    return True


def type_checking_only(stmt):
    """`if TYPE_CHECKING:` with no else: read by type checkers, never run (TYPE_CHECKING is False at run time)."""
    return (
        isinstance(stmt, ast.If)
        and not stmt.orelse
        and dotted(stmt.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING")
    )


def split(tree):
    """(units: name -> [dumps], frame: [dumps, or a unit's names where it stands], unit words, frame words)."""
    units = {}
    unit_words = {}
    frame = []
    frame_words = set()
    unit_classes = set()
    for stmt in tree.body:
        if type_checking_only(stmt):
            continue
        names = None
        if function_unit(stmt):
            names = [stmt.name]
        elif class_unit(stmt, unit_classes):
            names = [stmt.name]
            unit_classes.add(stmt.name)
        else:
            names = assigned_names(stmt)
        if names is not None and any(n in MODULE_PROTOCOL for n in names):
            names = None
        if names is None:
            frame.append((ast.dump(stmt), stmt.lineno))
            frame_words |= words(stmt)
            continue
        dump = ast.dump(stmt)
        frame.append(names)
        for n in names:
            units.setdefault(n, []).append(dump)
            unit_words.setdefault(n, set()).update(words(stmt))
    return units, frame, unit_words, frame_words


def judge(base_text, head_text):
    try:
        base = ast.parse(base_text)
        head = ast.parse(head_text)
    except (SyntaxError, ValueError) as e:
        return {"whole": f"a copy does not parse ({type(e).__name__})"}
    if ast.dump(base) == ast.dump(head):
        return {"names": []}
    b_units, b_frame, _, b_frame_words = split(base)
    h_units, h_frame, h_words, h_frame_words = split(head)
    # Where a unit stands matters only to import-time code that refers to it (defined yet or not).
    seen = b_frame_words | h_frame_words

    def placed(frame):
        out = []
        for item in frame:
            if isinstance(item, list):
                named = [n for n in item if n in seen]
                if named:
                    out.append((tuple(named), None))
            else:
                out.append(item)
        return out

    b_placed, h_placed = placed(b_frame), placed(h_frame)
    if [d for d, _ in b_placed] != [d for d, _ in h_placed]:
        pairs = [(b, h) for b, h in zip(b_placed, h_placed) if b[0] != h[0]]
        differing = [h for _, h in pairs] + h_placed[len(b_placed) :]
        line = next((h[1] for h in differing if h[1] is not None), None)
        where = f" (line {line})" if line is not None else ""
        return {"whole": f"code that runs when the module is imported changed{where}"}
    changed = {n for n in set(b_units) | set(h_units) if b_units.get(n) != h_units.get(n)}
    # A unit that mentions a changed one runs it, or hands it on: it changed too.
    grew = True
    while grew:
        grew = False
        for n, ws in h_words.items():
            if n not in changed and ws & changed:
                changed.add(n)
                grew = True
    hit = sorted(changed & h_frame_words)
    if hit:
        return {"whole": f"code that runs when the module is imported refers to {', '.join(hit[:3])}, which changed"}
    return {"names": sorted(changed)}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    files = request["files"]
    answer = {}
    for module in request.get("settings", {}).get("modules", []):
        try:
            with open(files["b\u241f" + module], encoding="utf-8") as f:
                base = f.read()
            with open(files["h\u241f" + module], encoding="utf-8") as f:
                head = f.read()
            answer[module] = judge(base, head)
        except Exception as e:  # one module's failure is that module's whole, never the answer's
            answer[module] = {"whole": f"the gate could not compare its copies ({type(e).__name__})"}
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()
