"""bench/test-edits' yardstick: what patchgate_test_edits.py does minus the analysis.

Reads the same request, ast.parses every file, answers nothing about it. Run
the same way (sandboxed, `python3 -I -S`, one process), so the ratio prices
the reading of tests, assertions and strategies alone.
"""

import ast
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    request = json.load(f)
answer = {}
for key, path in request["files"].items():
    with open(path, "rb") as f:
        ast.parse(f.read(), filename=path)
    answer[key] = 1
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(answer, f)
