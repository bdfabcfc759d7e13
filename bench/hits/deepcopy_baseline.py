"""bench/hits yardstick: scoring the way the seed proposal's score_hits.py does.

Everything happens in one Python process: for every mutant the fixture is
deep-copied, one field of the copy is replaced, and the property's check runs
on it. No serialisation, no second process. Only the scoring loop is timed
(time.perf_counter), after one untimed pass, so start-up and loading the
input are not charged to it.

Usage: python3 deepcopy_baseline.py PROPERTIES_PY PROPERTY_NAME INPUT_JSON

INPUT_JSON holds {"fixture": ..., "edits": [[path, value], ...], "repeat": n}:
path is a list of keys and indices, value what goes there. An empty path
stands for the unperturbed fixture (the baseline check). Prints one JSON line:
{"seconds", "checks", "passed"}.
"""

import copy
import importlib.util
import json
import os
import sys
import time


def find_check(properties_py, name):
    folder = os.path.dirname(os.path.abspath(properties_py))
    sys.path.insert(0, folder)
    module_name = os.path.splitext(os.path.basename(properties_py))[0]
    spec = importlib.util.spec_from_file_location(module_name, properties_py)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    for prop in module.PROPERTIES:
        prop_name = prop["name"] if isinstance(prop, dict) else prop.name
        if prop_name == name:
            return prop["check"] if isinstance(prop, dict) else prop.check
    raise SystemExit("no property %r in %s" % (name, properties_py))


def passes(check, fixture):
    # Same rule as the harness: raising or returning False fails.
    try:
        return check(fixture) is not False
    except Exception:
        return False


def one_pass(check, fixture, edits):
    passed = 0
    for path, value in edits:
        mutant = copy.deepcopy(fixture)
        if path:
            parent = mutant
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = value
        passed += passes(check, mutant)
    return passed


def main(argv):
    properties_py, name, input_json = argv[1:4]
    check = find_check(properties_py, name)
    with open(input_json, encoding="utf-8") as f:
        data = json.load(f)
    fixture, edits, repeat = data["fixture"], data["edits"], data["repeat"]
    one_pass(check, fixture, edits)  # warm-up
    passed = 0
    start = time.perf_counter()
    for _ in range(repeat):
        passed += one_pass(check, fixture, edits)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "checks": repeat * len(edits), "passed": passed}))


if __name__ == "__main__":
    main(sys.argv)
