"""bench/reach's baseline: what patchgate_reach.py does minus the check.

Reads the same request, ast.parses every file, answers no hits. Run the same
way (sandboxed, `python3 -I -S`), so the ratio prices the check alone.
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
    answer[key] = {"hits": []}
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump(answer, f)
