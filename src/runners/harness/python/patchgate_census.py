"""pytest plugin: which tests generated inputs (load it with ``-p patchgate_census``).

patchgate's claims layer binds a claim's property cell to a test node id
only when that test is a property: it ran inputs Hypothesis generated, not
one hand-written example. The JUnit report cannot say which tests those are,
so this plugin records, per collected test item, whether it is a Hypothesis
test and how many generated examples passed (from Hypothesis's own
statistics, the numbers ``--hypothesis-show-statistics`` prints).

Environment:
  PATCHGATE_CENSUS_REPORT  path of the JSON report written at session finish:
                           {"schema": "patchgate/census@1", "tests":
                           {nodeid: {"hypothesis": bool, "examples": int}}}

Without the variable the plugin does nothing. Standard library and pytest
only; Hypothesis is optional (without it no test is a property).
PYTEST_DONT_REWRITE: the gate loads its plugins before pytest starts, so they cannot be rewritten.
"""

import json
import os

import pytest

REPORT_ENV = "PATCHGATE_CENSUS_REPORT"
# Explicit @example cases never reach the statistics; shrinking only follows a failure.
COUNTED_PHASES = ("reuse", "generate")

_tests = {}
_collector = None


def _generated(stats):
    total = 0
    for phase in COUNTED_PHASES:
        value = stats.get(phase + "-phase")
        if not isinstance(value, dict):
            continue
        for case in value.get("test-cases", ()):
            if isinstance(case, dict) and case.get("status") == "valid":
                total += 1
    return total


def pytest_configure(config):
    global _collector
    if not os.environ.get(REPORT_ENV):
        return
    try:
        from hypothesis.statistics import collector
    except ImportError:
        return
    _collector = collector


def _is_hypothesis(item):
    obj = getattr(item, "obj", None)
    return obj is not None and bool(getattr(obj, "is_hypothesis_test", False))


# trylast: the innermost wrapper, inside Hypothesis's own, which installs the
# statistics callback chained onto here.
@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_call(item):
    if not os.environ.get(REPORT_ENV):
        yield
        return
    rec = _tests.setdefault(item.nodeid, {"hypothesis": _is_hypothesis(item), "examples": 0})
    if _collector is None or not rec["hypothesis"]:
        yield
        return
    outer = _collector.value

    def note(stats):
        rec["examples"] += _generated(stats)
        if outer is not None:
            outer(stats)

    with _collector.with_value(note):
        yield


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get(REPORT_ENV)
    if not path:
        return
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"schema": "patchgate/census@1", "tests": _tests}, f, sort_keys=True)
    os.replace(tmp, path)
