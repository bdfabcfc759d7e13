"""Mutants of the Python functions a patch touched, for the mutation probe.

Parses (never imports or runs) each file with the standard library's ast
module. The rules are the TypeScript ones (src/layers/mutation/ts-mutants.ts):
the same operators, the same suppressions (logging calls and the names only
they read, super() calls,
docstrings, text being joined with + or formatted with %), the same idea of
a site: a def (method, nested function) keyed by its qualified name; a lambda
is part of the def it is written in. Python has no `let`: a name's first
assignment in a function is its declaration and is never dropped (later
ones are, as TypeScript's reassignments are). The gate gives each mutant its
id.

Offsets in the answer are UTF-16 code units, as the gate's strings count
them; ast's columns are UTF-8 bytes.

Runs in the sandbox under `python3 -I -S`, so nothing from the checkout is on
sys.path.

Request (argv[1]): {"files": {"<key>": "<file>"},
                    "settings": {"changed": {"<key>": [[start, end], ...]},
                                 "functions": {"<key>": ["<site>", ...]}}}
Answer (argv[2]): {"<key>": {"touched": ["<site>", ...], "outside": [line, ...],
                             "mutants": {"<site>": [{"operator", "line", "start", "end",
                                                     "replacement", "original", "mutated"}]},
                             "spans": {"<site>": [first line, last line]}}
                   | {"error": "..."}}
"""

import ast
import io
import json
import re
import sys
import tokenize

COMPARE = {
    ast.Lt: (r"<(?!=)", ">="),
    ast.LtE: (r"<=", ">"),
    ast.Gt: (r">(?!=)", "<="),
    ast.GtE: (r">=", "<"),
    ast.Eq: (r"==", "!="),
    ast.NotEq: (r"!=", "=="),
    ast.Is: (r"\bis\b(?!\s+not\b)", "is not"),
    ast.IsNot: (r"\bis\s+not\b", "is"),
    ast.In: (r"(?<!not )\bin\b", "not in"),
    ast.NotIn: (r"\bnot\s+in\b", "in"),
}
BOOL = {ast.And: (r"\band\b", "or"), ast.Or: (r"\bor\b", "and")}
ARITH = {
    ast.Add: (r"\+", "-"),
    ast.Sub: (r"-", "+"),
    ast.Mult: (r"\*(?!\*)", "/"),
    ast.Div: (r"(?<!/)/(?!/)", "*"),
    ast.FloorDiv: (r"//", "*"),
    ast.Mod: (r"%", "*"),
}
INERT_TOKENS = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
LOGGER = re.compile(r"^(logging|log|logger|_?log(ger)?s?|.*_logger|LOG|LOGGER)$", re.IGNORECASE)
RAISE = "raise Exception('patchgate mutant')"


class Source:
    def __init__(self, text):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        wide = any(ord(c) > 0xFFFF for c in text)
        self.utf16 = None
        if wide:
            self.utf16 = [0]
            for c in text:
                self.utf16.append(self.utf16[-1] + (2 if ord(c) > 0xFFFF else 1))

    def offset(self, lineno, col_bytes):
        """A code point offset from ast's (line, UTF-8 byte column)."""
        line = self.lines[lineno - 1] if lineno - 1 < len(self.lines) else ""
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col_bytes].decode("utf-8", "replace"))

    def start(self, node):
        return self.offset(node.lineno, node.col_offset)

    def end(self, node):
        return self.offset(node.end_lineno, node.end_col_offset)

    def units(self, cp):
        return cp if self.utf16 is None else self.utf16[cp]


def sites_of(tree):
    """Every def with its qualified key and line span (decorators included), outermost first."""
    out = []
    used = {}

    def visit(node, scope):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, scope + [child.name])
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                key = ".".join(scope + [child.name])
                used[key] = used.get(key, 0) + 1
                if used[key] > 1:
                    key = f"{key}#{used[key]}"
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out.append((key, first, child.end_lineno, child))
                visit(child, key.split("."))
            else:
                visit(child, scope)

    visit(tree, [])
    return out


def is_logging_call(node):
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    owner = node.func.value
    name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
    return node.func.attr in LOG_METHODS and bool(LOGGER.match(name))


# What a value only logging reads may call and still be dropped from the probe: text conversions, no effects.
TEXT_CALLS = {"str", "repr", "len", "format", "hex"}


def stored_name(node):
    """The name an assignment stores to, when it stores one name only, a value that calls nothing but a text
    conversion (a call with effects is behaviour, whoever reads its result)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    else:
        return None
    if not all(isinstance(t, ast.Name) for t in targets) or len({t.id for t in targets}) != 1:
        return None
    calls = [c for c in ast.walk(node) if isinstance(c, ast.Call)]
    if any(not (isinstance(c.func, ast.Name) and c.func.id in TEXT_CALLS) for c in calls):
        return None
    return targets[0].id


def log_only_names(site_node):
    """The function's local names that only logging calls read (a message's redacted value, say),
    directly or through other such names (`shown = shown + "!"` feeds only the log when `shown` does)."""
    reads, stored, declared = [], set(), set()

    def scan(node, into):
        if into != "log" and is_logging_call(node):
            into = "log"
        elif into == "other":
            name = stored_name(node)
            if name is not None:
                stored.add(name)
                into = ("store", name)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads.append((node.id, into))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        for child in ast.iter_child_nodes(node):
            scan(child, into)

    scan(site_node, "other")
    names = {name for name, into in reads if into == "log" and name in stored} - declared
    changed = True
    while changed:
        changed = False
        for name, into in reads:
            feeds_log = into == "log" or (isinstance(into, tuple) and into[1] in names)
            if not feeds_log and name in names:
                names.discard(name)
                changed = True
    return names


def is_log_only_store(node, names):
    """An assignment to a name only logging reads: its value is no behaviour a test sees."""
    name = stored_name(node) if names else None
    return name is not None and name in names


def is_stringy(node):
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def is_booleanish(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    return isinstance(node, (ast.Compare, ast.BoolOp))


def constant_for(node):
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool) or v is None:
            return "None" if v is not None else "0"
        if isinstance(v, (int, float)):
            return "1" if v == 0 else "0"
        if isinstance(v, str):
            return "'patchgate'" if v == "" else "''"
    if isinstance(node, ast.List) and node.elts:
        return "[]"
    return "None"


def mutants_of(src, site_node, other_sites):
    text = src.text
    out = []

    def add(operator, whole, start, end, replacement):
        if text[start:end] == replacement:
            return
        ws, we = src.start(whole), src.end(whole)
        out.append(
            {
                "operator": operator,
                "line": text.count("\n", 0, start) + 1,
                "start": src.units(start),
                "end": src.units(end),
                "replacement": replacement,
                "original": text[ws:we],
                "mutated": text[ws:start] + replacement + text[end:we],
            }
        )

    def between(node, a, b, table_entry, operator):
        lo, hi = src.end(a), src.start(b)
        gap = text[lo:hi]
        if "#" in gap:
            return
        pattern, replacement = table_entry
        m = re.search(pattern, gap)
        if m:
            add(operator, node, lo + m.start(), lo + m.end(), replacement)

    # A name's first assignment in the function is its declaration (TypeScript's `let`, never dropped there):
    # dropping it only tells whether the code still runs. Later ones, and stores to attributes, are dropped.
    first_bindings = set()
    named = set()
    assigns = [n for n in ast.walk(site_node) if isinstance(n, ast.Assign)]
    for n in sorted(assigns, key=lambda n: (n.lineno, n.col_offset)):
        names = [t.id for t in n.targets if isinstance(t, ast.Name)]
        if any(name not in named for name in names):
            first_bindings.add(id(n))
        named.update(names)

    log_only = log_only_names(site_node)

    def visit(node, parent):
        if node is not site_node and id(node) in other_sites:
            return
        if is_logging_call(node) or is_log_only_store(node, log_only):
            return
        if isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                entry = COMPARE.get(type(op))
                if entry:
                    between(node, left, right, entry, "flip-comparison")
                left = right
        elif isinstance(node, ast.BoolOp):
            entry = BOOL[type(node.op)]
            for a, b in zip(node.values, node.values[1:]):
                between(node, a, b, entry, "flip-boolean")
        elif isinstance(node, ast.BinOp):
            entry = ARITH.get(type(node.op))
            if entry and not is_stringy(node.left) and not is_stringy(node.right):
                between(node, node.left, node.right, entry, "swap-arithmetic")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            s, o = src.start(node), src.start(node.operand)
            if "#" not in text[s:o]:
                add("flip-boolean", node, s, o, "")
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool) and not isinstance(parent, ast.Return):
            add("flip-boolean", node, src.start(node), src.end(node), "False" if node.value else "True")
        elif isinstance(node, ast.Return) and node.value is not None:
            v = node.value
            vs, ve = src.start(v), src.end(v)
            if is_booleanish(v):
                add("negate-return", node, vs, ve, f"not ({text[vs:ve]})")
            else:
                add("constant-return", node, vs, ve, constant_for(v))
            add("raise", node, src.start(node), src.end(node), RAISE)
        elif isinstance(node, (ast.Assign, ast.AugAssign)) and id(node) not in first_bindings:
            add("drop-statement", node, src.start(node), src.end(node), "pass")
        elif isinstance(node, ast.Expr):
            v = node.value
            docstring = isinstance(v, ast.Constant) and isinstance(v.value, (str, type(Ellipsis)))
            super_call = (
                isinstance(v, ast.Call)
                and isinstance(v.func, ast.Attribute)
                and isinstance(v.func.value, ast.Call)
                and isinstance(v.func.value.func, ast.Name)
                and v.func.value.func.id == "super"
            )
            if not docstring and not super_call and not is_logging_call(v):
                add("drop-statement", node, src.start(node), src.end(node), "pass")
        for child in ast.iter_child_nodes(node):
            if node is site_node and child in site_node.decorator_list:
                continue
            visit(child, node)

    visit(site_node, None)
    out.sort(key=lambda m: (m["start"], m["end"], m["operator"]))
    return out


def code_lines(text, tree):
    """The lines that hold code: not blank, not only a comment, not in a docstring (an edit of those changes
    nothing a function does, so it touches no function and is no module code either)."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in INERT_TOKENS:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return lines - docstrings


def judge(text, changed, functions):
    src = Source(text)
    tree = ast.parse(text)
    sites = sites_of(tree)
    code = code_lines(text, tree)
    touched, outside = [], []
    for start, end in changed:
        for line in range(start, end + 1):
            if line not in code:
                continue
            around = [s for s in sites if s[1] <= line <= s[2]]
            if around:
                innermost = max(around, key=lambda s: s[1])
                if innermost[0] not in touched:
                    touched.append(innermost[0])
            else:
                outside.append(line)
    wanted = functions if functions is not None else touched
    nodes = {s[0]: s[3] for s in sites}
    spans = {s[0]: [s[1], s[2]] for s in sites}
    mutants = {}
    for key in wanted:
        node = nodes.get(key)
        if node is None:
            continue  # not in this file: absent from the answer, never an empty list
        others = {id(s[3]) for s in sites if s[3] is not node}
        mutants[key] = mutants_of(src, node, others)
    order = {s[0]: s[1] for s in sites}
    touched.sort(key=lambda k: order[k])
    return {
        "touched": touched,
        "outside": outside,
        "mutants": mutants,
        "spans": {k: spans[k] for k in mutants},
    }


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    settings = request.get("settings", {})
    changed = settings.get("changed", {})
    functions = settings.get("functions", {})
    answer = {}
    for key, path in request["files"].items():
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            answer[key] = judge(text, changed.get(key, []), functions.get(key))
        except Exception as e:  # one file's failure is that file's, never the answer's
            answer[key] = {"error": f"{type(e).__name__}: {e}"}
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()
