"""pytest plugin for patchgate's seed replay (load it with ``-p patchgate_seeds``).

patchgate replays the seed tape with one pytest process per recorded seed.
Nothing is named on pytest's command line (a single node id that no longer
exists would make pytest abort the entire batch, exit 4, and a named file is
collected whatever the project's configuration says): pytest collects as the
project configures it, ``patchgate_select`` keeps only the tape's files, and
this plugin deselects what the tape does not want, and reports per wanted
node id what happened and how many examples Hypothesis actually ran.

Environment:
  PATCHGATE_SEEDS_WANT    path of a JSON list of wanted node ids, relative to
                          the directory pytest is started in (the seed comes
                          from --hypothesis-seed); or of {"pairs": [[nodeid,
                          seed, counterexample?], ...]}: every pair in this
                          one process, each test run once per seed with that
                          seed set on the test itself, and reported per pair;
                          a counterexample (the test's arguments by name) is
                          run first, as an explicit example, so no generator
                          change can route around it
  PATCHGATE_SEEDS_REPORT  path of the JSON report written at session finish

Without both variables the plugin does nothing. Standard library, pytest and
Hypothesis only; Hypothesis is optional (tests without it count 0 examples).
PYTEST_DONT_REWRITE: the gate loads its plugins before pytest starts, so they cannot be rewritten.
"""

import json
import os
import sys

import pytest

WANT_ENV = "PATCHGATE_SEEDS_WANT"
REPORT_ENV = "PATCHGATE_SEEDS_REPORT"
PROFILE = "patchgate-seeds"

# Examples that count towards the tape's floor. The explicit phase (@example)
# never reaches the statistics, and shrink/explain cases only exist after a
# failure, when the count does not matter.
COUNTED_PHASES = ("reuse", "generate")

# When one wanted id covers several items (parametrized tests), or one item
# reports several phases, the worst outcome stands. A failure outranks an
# error in teardown because its counterexample is the evidence worth keeping.
RANK = {"passed": 0, "notrun": 1, "skipped": 2, "xfailed": 3, "error": 4, "failed": 5}

FAILING_PREFIX = "Falsifying"
MAX_TEXT = 20_000


PAIR_SEP = "\u0000"


class _State:
    def __init__(self, wanted, report_path, invocation_dir, seeds_of=None):
        self.wanted = wanted
        # pairs mode: wanted id -> seeds, in tape order; None when the seed is the session's
        self.seeds_of = seeds_of
        self.counterexample_of = {}  # (wanted id, seed) -> the test's arguments by name
        self.current_seed = None
        self.report_path = report_path
        self.invocation_dir = invocation_dir
        self.key_of_nodeid = {}
        self.matched = {}  # wanted id -> [item keys]
        self.deselected = {}  # wanted id -> why
        self.collect_errors = []
        self.items = {}  # item key -> record
        self.collector = None
        self.settings_cls = None


_state = None


def _rel(path):
    rel = os.path.relpath(str(path), _state.invocation_dir)
    return rel.replace(os.sep, "/")


def _item_key(item):
    # The tape's ids are relative to the checkout pytest runs in, but pytest's
    # own node ids are relative to its rootdir, which depends on ini files and
    # on the arguments; the item's file is not.
    path = getattr(item, "path", None) or getattr(item, "fspath", None)
    nodeid = item.nodeid
    sep = nodeid.find("::")
    suffix = nodeid[sep:] if sep >= 0 else ""
    if path is None:
        return nodeid
    return _rel(path) + suffix


def _normalize(nodeid):
    nodeid = nodeid.replace("\\", "/")
    while nodeid.startswith("./"):
        nodeid = nodeid[2:]
    return nodeid


def _wanted_for(key):
    """The wanted ids an item answers for: itself, or the test/class it is a parametrization or member of."""
    found = []
    for want in _state.wanted:
        if key == want or key.startswith(want + "[") or key.startswith(want + "::"):
            found.append(want)
    return found


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    global _state
    want_path = os.environ.get(WANT_ENV)
    report_path = os.environ.get(REPORT_ENV)
    if not want_path or not report_path:
        return
    with open(want_path, encoding="utf-8") as f:
        want = json.load(f)
    seeds_of = None
    if isinstance(want, dict):
        seeds_of = {}
        counterexamples = {}
        for pair in want["pairs"]:
            nodeid, seed = _normalize(pair[0]), str(pair[1])
            seeds_of.setdefault(nodeid, []).append(seed)
            if len(pair) > 2:
                counterexamples[(nodeid, seed)] = pair[2]
        wanted = list(seeds_of)
    else:
        wanted = [_normalize(w) for w in want]
        counterexamples = {}
    _state = _State(wanted, report_path, str(config.invocation_params.dir), seeds_of)
    _state.counterexample_of = counterexamples
    _drop_database_from_profile()


def _drop_database_from_profile():
    # trylast: Hypothesis's own pytest_configure has loaded --hypothesis-profile
    # by now, and the user's root conftest has run, so the profile derived here
    # keeps their settings. Test modules are imported later, so @given and
    # @settings made there inherit database=None.
    try:
        from hypothesis import settings
        from hypothesis.statistics import collector
    except ImportError:
        return
    _state.settings_cls = settings
    _state.collector = collector
    settings.register_profile(PROFILE, parent=settings.default, database=None)
    settings.load_profile(PROFILE)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    if _state is None:
        return
    report = outcome.get_result()
    if report.failed:
        path = getattr(collector, "path", None) or getattr(collector, "fspath", None)
        _state.collect_errors.append(
            {
                "path": _rel(path) if path is not None else report.nodeid,
                "message": _error_lines(str(report.longrepr)),
            }
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_modifyitems(session, config, items):
    if _state is None:
        yield
        return
    # Before any other plugin filters: "collected" means the test exists.
    for item in items:
        key = _item_key(item)
        _state.key_of_nodeid[item.nodeid] = key
        for want in _wanted_for(key):
            _state.matched.setdefault(want, []).append(key)
    yield
    # After every other plugin (-k, -m, the user's hooks): only wanted items run.
    keep, drop = [], []
    for item in items:
        (keep if _wanted_for(_state.key_of_nodeid.get(item.nodeid, _item_key(item))) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_deselected(items):
    if _state is None:
        return
    for item in items:
        key = _state.key_of_nodeid.get(item.nodeid) or _item_key(item)
        for want in _wanted_for(key):
            _state.deselected.setdefault(want, "deselected by the test configuration (-k, -m or a plugin)")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    """Pairs mode: the item once per seed, the seed set on the test the way @seed() sets it."""
    if _state is None or _state.seeds_of is None:
        return None
    from _pytest.runner import runtestprotocol

    key = _state.key_of_nodeid.get(item.nodeid) or _item_key(item)
    seeds = []
    counterexample_for = {}
    for want in _wanted_for(key):
        for seed in _state.seeds_of.get(want, ()):
            if seed not in seeds:
                seeds.append(seed)
            if (want, seed) in _state.counterexample_of:
                counterexample_for.setdefault(seed, _state.counterexample_of[(want, seed)])
    obj = getattr(item, "obj", None)
    fn = getattr(obj, "__func__", obj)
    hypothesis_test = fn is not None and getattr(fn, "is_hypothesis_test", False)
    for i, seed in enumerate(seeds):
        _state.current_seed = seed
        if hypothesis_test:
            # What @seed(n) sets, and what Hypothesis reads before --hypothesis-seed or derandomize: the tape's
            # seed decides this run, whatever the test's own settings say.
            fn._hypothesis_internal_use_seed = int(seed)
        restore = _with_counterexample(fn, counterexample_for.get(seed)) if hypothesis_test else None
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        # Until the last seed, tear down the item only: its module and class fixtures serve the next run.
        last = i == len(seeds) - 1
        try:
            runtestprotocol(item, log=True, nextitem=nextitem if last else item.parent)
        finally:
            if restore is not None:
                restore()
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    _state.current_seed = None
    return True


def _with_counterexample(fn, arguments):
    """Adds the stored counterexample as an explicit example of this run (explicit phase on); returns the undo."""
    if not isinstance(arguments, dict):
        return None
    from hypothesis import Phase, example

    had = "hypothesis_explicit_examples" in fn.__dict__
    before = list(getattr(fn, "hypothesis_explicit_examples", ()) or ())
    before_settings = getattr(fn, "_hypothesis_internal_use_settings", None)
    fn.hypothesis_explicit_examples = list(before)
    example(**arguments)(fn)
    if before_settings is not None and Phase.explicit not in before_settings.phases:
        fn._hypothesis_internal_use_settings = _state.settings_cls(
            parent=before_settings, phases=(Phase.explicit, *before_settings.phases)
        )

    def restore():
        if had:
            fn.hypothesis_explicit_examples = before
        else:
            del fn.hypothesis_explicit_examples
        if before_settings is not None:
            fn._hypothesis_internal_use_settings = before_settings

    return restore


def _record(key):
    if _state.current_seed is not None:
        key = key + PAIR_SEP + _state.current_seed
    rec = _state.items.get(key)
    if rec is None:
        rec = {"outcome": None, "runs": [], "explicit": 0}
        _state.items[key] = rec
    return rec


# trylast makes this the innermost wrapper, inside Hypothesis's own, which
# installs the statistics callback this one chains onto.
@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_call(item):
    if _state is None or _state.collector is None:
        yield
        return
    rec = _record(_state.key_of_nodeid.get(item.nodeid) or _item_key(item))
    _force_no_database(item, rec)
    outer = _state.collector.value

    def note(stats):
        rec["runs"].append(_summarize(stats))
        if outer is not None:
            outer(stats)

    with _state.collector.with_value(note):
        yield


def _force_no_database(item, rec):
    # A test module that loads another profile, or a test's own
    # @settings(database=...), would make the replay depend on examples saved
    # on this machine: the replay must depend on the seed alone.
    obj = getattr(item, "obj", None)
    if obj is None or not getattr(obj, "is_hypothesis_test", False):
        return
    fn = getattr(obj, "__func__", obj)
    current = getattr(fn, "_hypothesis_internal_use_settings", None)
    if current is None:
        return
    try:
        from hypothesis import Phase

        if Phase.explicit in current.phases:
            rec["explicit"] = len(getattr(fn, "hypothesis_explicit_examples", ()) or ())
        if current.database is not None:
            fn._hypothesis_internal_use_settings = _state.settings_cls(parent=current, database=None)
    except Exception:  # noqa: BLE001 - an unexpected settings shape must not break the run
        return


def _summarize(stats):
    """Counts the test cases of one Hypothesis run from its raw statistics dict."""
    phases = {}
    for key, value in stats.items():
        if not (isinstance(key, str) and key.endswith("-phase") and isinstance(value, dict)):
            continue
        counts = {}
        for case in value.get("test-cases", ()):
            status = case.get("status") if isinstance(case, dict) else None
            counts[str(status)] = counts.get(str(status), 0) + 1
        phases[key[: -len("-phase")]] = counts
    counted = [phases.get(p, {}) for p in COUNTED_PHASES]
    return {
        "passing": sum(c.get("valid", 0) for c in counted),
        "invalid": sum(c.get("invalid", 0) + c.get("overrun", 0) for c in counted),
        "failing": sum(c.get("interesting", 0) for c in phases.values()),
        "stopped_because": stats.get("stopped-because"),
        "phases": phases,
    }


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if _state is None or call.excinfo is None:
        return
    report = outcome.get_result()
    if not report.failed:
        return
    rec = _record(_state.key_of_nodeid.get(item.nodeid) or _item_key(item))
    if "message" in rec and rec.get("when") == "call":
        return
    exc = call.excinfo.value
    rec["when"] = call.when
    rec["message"] = _short_message(exc)
    falsifying = _falsifying_from_notes(exc) or _falsifying_from_text(str(report.longrepr))
    if falsifying:
        rec["falsifying"] = falsifying
        arguments = _arguments_of(falsifying)
        if arguments is not None:
            rec["arguments"] = arguments


def pytest_runtest_logreport(report):
    if _state is None:
        return
    rec = _record(_state.key_of_nodeid.get(report.nodeid) or report.nodeid)
    if hasattr(report, "wasxfail"):
        outcome, reason = "xfailed", report.wasxfail
    elif report.failed:
        outcome, reason = ("failed" if report.when == "call" else "error"), None
    elif report.skipped:
        outcome, reason = "skipped", _skip_reason(report)
    elif report.when == "call":
        outcome, reason = "passed", None
    else:
        return
    if rec["outcome"] is None or RANK[outcome] > RANK[rec["outcome"]]:
        rec["outcome"] = outcome
        if reason is not None:
            rec["reason"] = reason
        if outcome == "error":
            rec["error_when"] = report.when
            rec.setdefault("message", _error_lines(str(report.longrepr)))


def _skip_reason(report):
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        reason = str(longrepr[2])
    else:
        reason = str(longrepr)
    return reason[len("Skipped: ") :] if reason.startswith("Skipped: ") else reason


def _short_message(exc):
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    name = type(exc).__name__
    return (f"{name}: {first}" if first else name)[:MAX_TEXT]


def _falsifying_from_notes(exc):
    """Hypothesis attaches "Falsifying example: ..." as an exception note, exactly as it prints it."""
    found = []
    seen = set()

    def walk(e):
        if id(e) in seen:
            return
        seen.add(id(e))
        for note in getattr(e, "__notes__", ()) or ():
            if isinstance(note, str) and note.startswith(FAILING_PREFIX):
                found.append(note)
        for sub in getattr(e, "exceptions", ()) or ():
            walk(sub)

    walk(exc)
    return "\n\n".join(found)[:MAX_TEXT]


def _falsifying_from_text(text):
    # pytest prints exception lines as "E" plus seven spaces; Hypothesis's
    # block is "Falsifying example: f(" ... ")" or a single line.
    lines = [ln[8:] if ln.startswith("E       ") else ln[1:].strip() for ln in text.splitlines() if ln.startswith("E")]
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].startswith(FAILING_PREFIX):
            block = [lines[i]]
            if lines[i].endswith("("):
                i += 1
                while i < len(lines):
                    block.append(lines[i])
                    if lines[i] == ")":
                        break
                    i += 1
            blocks.append("\n".join(block))
        i += 1
    return "\n\n".join(blocks)[:MAX_TEXT]


def _arguments_of(falsifying):
    """The falsifying call's arguments by name, when every one is a plain literal that JSON can carry.

    Hypothesis prints `Falsifying example: test_x(total=1, count=2)`; the call is parsed with ast and each
    value read with literal_eval (never evaluated), so `explore` can offer it for the tape.
    """
    import ast

    first = falsifying.split("\n\n")[0]
    call = first.split(":", 1)[1].strip() if ":" in first else ""
    try:
        node = ast.parse(call, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not isinstance(node, ast.Call) or node.args:
        return None
    out = {}
    for kw in node.keywords:
        if kw.arg is None:
            return None
        try:
            value = ast.literal_eval(kw.value)
        except (ValueError, SyntaxError, TypeError, RecursionError):
            return None
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            return None
        if isinstance(value, tuple):
            return None
        out[kw.arg] = value
    return out


def _error_lines(text):
    lines = [ln for ln in text.splitlines() if ln.startswith("E ")]
    chosen = [ln[1:].strip() for ln in lines] if lines else [ln for ln in text.splitlines() if ln.strip()][-5:]
    return "\n".join(chosen)[-MAX_TEXT:]


def _aggregate(want, seed=None):
    items = _state.matched.get(want, [])
    keys = items if seed is None else [k + PAIR_SEP + seed for k in items]
    result = {"items": items, "outcome": None}
    runs = []
    explicit = 0
    for key in keys:
        rec = _state.items.get(key, {"outcome": None, "runs": [], "explicit": 0})
        outcome = rec["outcome"] or "notrun"
        runs.extend(rec["runs"])
        explicit = max(explicit, rec.get("explicit", 0))
        if result["outcome"] is None or RANK[outcome] > RANK[result["outcome"]]:
            result["outcome"] = outcome
            for field in ("reason", "message", "falsifying", "arguments", "error_when"):
                result.pop(field, None)
                if field in rec:
                    result[field] = rec[field]
            if outcome == "notrun":
                result["reason"] = "collected but never ran (did the session stop early, e.g. -x?)"
    if want in _state.deselected and result["outcome"] in (None, "notrun"):
        result["outcome"] = "deselected"
        result["reason"] = _state.deselected[want]
    if runs:
        fewest = min(runs, key=lambda r: r["passing"])
        result["examples"] = fewest["passing"]
        result["invalid"] = fewest["invalid"]
        result["failing"] = max(r["failing"] for r in runs)
        result["stopped_because"] = fewest["stopped_because"]
        result["phases"] = fewest["phases"]
    else:
        result["examples"] = None
    result["hypothesis_runs"] = len(runs)
    result["explicit"] = explicit
    return result


def pytest_sessionfinish(session, exitstatus):
    if _state is None:
        return
    # pytest-xdist workers each see part of the run; only the controller
    # reports, and it says the run was distributed, since it collected nothing
    # itself and its report alone would read as "every test is gone".
    if hasattr(session.config, "workerinput"):
        return
    collected = [w for w in _state.wanted if w in _state.matched]
    report = {
        "version": 1,
        "exitstatus": int(exitstatus),
        "distributed": bool(session.config.pluginmanager.hasplugin("dsession")),
        "collected": collected,
        "collect_errors": _state.collect_errors,
        "tests": (
            {w: _aggregate(w) for w in collected}
            if _state.seeds_of is None
            else {w + PAIR_SEP + s: _aggregate(w, s) for w in collected for s in _state.seeds_of[w]}
        ),
    }
    tmp = _state.report_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    os.replace(tmp, _state.report_path)
    sys.stdout.flush()
