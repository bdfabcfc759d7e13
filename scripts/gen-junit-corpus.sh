#!/usr/bin/env bash
# Regenerates test/corpus/junit-generated/ from the runner inputs in
# scripts/junit-corpus/, with the real runners. Not run by CI: CI only parses
# the committed reports. Needs (Debian bookworm): nodejs 20, catch2 g++,
# python3-nose2, cmake ninja-build, bats.
#
#   apt-get install -y catch2 g++ python3-nose2 cmake ninja-build bats
#   scripts/gen-junit-corpus.sh
#
# Reports are written exactly as the runners leave them. The work folder has a
# fixed name so the paths runners print into reports stay the same from run
# to run; timings, timestamps and the host name do change.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/scripts/junit-corpus"
out="$root/test/corpus/junit-generated"
work="${TMPDIR:-/tmp}/patchgate-junit-corpus"

rm -rf "$work"
mkdir -p "$work"

# Each runner exits non-zero when a test fails, which these inputs do on
# purpose; what they print goes to run.log beside the report.
run() { "$@" >>run.log 2>&1 || true; }

echo "node:test $(node --version)"
mkdir -p "$out/node-test" "$work/node-test"
cp "$src/node-test/todo.test.mjs" "$work/node-test/"
(cd "$work/node-test" && run node --test --test-reporter=junit --test-reporter-destination=report.xml todo.test.mjs)
cp "$work/node-test/report.xml" "$out/node-test/todo-failing.xml"

echo "Catch2 $(dpkg-query -W -f='${Version}' catch2)"
mkdir -p "$out/catch2" "$work/catch2"
cp "$src/catch2/dialect.cpp" "$work/catch2/"
(cd "$work/catch2" && g++ -std=c++17 -O0 -o dialect dialect.cpp && run ./dialect --reporter junit --out report.xml)
cp "$work/catch2/report.xml" "$out/catch2/mayfail-shouldfail.xml"

echo "nose2 $(dpkg-query -W -f='${Version}' python3-nose2)"
mkdir -p "$out/nose2" "$work/nose2"
cp "$src/nose2/test_calc.py" "$work/nose2/"
(cd "$work/nose2" && run /usr/bin/python3 -m nose2 --plugin nose2.plugins.junitxml --junit-xml \
  --junit-xml-path report.xml test_calc)
cp "$work/nose2/report.xml" "$out/nose2/expected-failures.xml"

echo "$(ctest --version | head -n 1)"
mkdir -p "$out/ctest"
cmake -S "$src/ctest" -B "$work/ctest" >/dev/null
cmake --build "$work/ctest" >/dev/null
(cd "$work/ctest" && run ctest --output-junit report.xml)
cp "$work/ctest/report.xml" "$out/ctest/not-run-reasons.xml"

# Configured for several build types and run without -C.
cmake -G 'Ninja Multi-Config' -S "$src/ctest-multiconfig" -B "$work/ctest-multiconfig" >/dev/null
(cd "$work/ctest-multiconfig" && run ctest --output-junit report.xml)
cp "$work/ctest-multiconfig/report.xml" "$out/ctest/missing-configuration.xml"

echo "$(bats --version)"
mkdir -p "$out/bats" "$work/bats"
cp "$src/bats/colours.bats" "$work/bats/"
(cd "$work/bats" && { bats --formatter junit colours.bats >report.xml || true; })
cp "$work/bats/report.xml" "$out/bats/ansi-colours.xml"

echo "written to $out"
