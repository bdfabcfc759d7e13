"""pytest plugin: run only the tests the gate asks for, out of what the project's own configuration collects
(``-p patchgate_select``).

pytest collects every path it is given on its command line, whatever the
project says: ``testpaths``, ``python_files``, ``norecursedirs`` and
``collect_ignore`` only apply to what pytest finds by itself. So the gate
never names a test or a file there. pytest starts as the project's
configuration says, and this plugin

- ignores every file that is not one the gate asked for, so unrelated test
  modules are never imported (``conftest.py`` and ``__init__.py`` are always
  left to pytest: they shape the tests that are selected), and
- deselects, last of all plugins, every collected test that is neither a node
  id nor in a file the gate asked for.

A file the configuration does not collect (a ``bench/`` outside
``testpaths``) is then simply not run, exactly as in a full run.

With ``"stop": true`` in the selection, the run also ends at the first
selected test that fails (in its setup, call or teardown), as ``-x`` would:
the mutation probe asks only whether some test fails.

Environment:
  PATCHGATE_SELECT  path of a JSON document ``{"nodeids": [...], "files":
                    [...], "stop"?: true}``, relative to the directory pytest
                    starts in.
                    Read when the module is imported: the gate's loader
                    imports it before any code of the checkout runs, so that
                    code cannot change what is selected.

Without the variable the plugin does nothing.
PYTEST_DONT_REWRITE: the gate loads its plugins before pytest starts, so they cannot be rewritten.
"""

import json
import os

import pytest

SELECT_ENV = "PATCHGATE_SELECT"
# Never ignored: they configure the tests of their folder, selected or not.
ALWAYS_COLLECTED = ("conftest.py", "__init__.py")


def _normalize(path):
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _file_of(nodeid):
    at = nodeid.find("::")
    return nodeid if at < 0 else nodeid[:at]


def _read():
    path = os.environ.get(SELECT_ENV)
    if not path:
        return None
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    nodeids = frozenset(_normalize(str(n)) for n in data.get("nodeids", []))
    files = frozenset(_normalize(str(f)) for f in data.get("files", []))
    return {
        "nodeids": nodeids,
        "files": files,
        "wanted_files": files | {_file_of(n) for n in nodeids},
        "stop": data.get("stop") is True,
    }


_selection = _read()


def _rel(path, config):
    return os.path.relpath(str(path), str(config.invocation_params.dir)).replace(os.sep, "/")


def _key(item, config):
    """The item's node id with its file relative to where pytest started (as the gate's ids are)."""
    path = getattr(item, "path", None) or getattr(item, "fspath", None)
    nodeid = item.nodeid
    if path is None:
        return nodeid
    at = nodeid.find("::")
    return _rel(path, config) + (nodeid[at:] if at >= 0 else "")


def _ignored(path, config):
    if _selection is None or os.path.basename(str(path)) in ALWAYS_COLLECTED or os.path.isdir(str(path)):
        return None
    # Only an answer of "ignore": whether a wanted file is collected stays the configuration's to decide.
    return None if _rel(path, config) in _selection["wanted_files"] else True


if int(pytest.__version__.split(".")[0]) >= 7:

    @pytest.hookimpl(tryfirst=True)
    def pytest_ignore_collect(collection_path, config):
        return _ignored(collection_path, config)

else:  # pytest 6 names the path `path` (a py.path)

    @pytest.hookimpl(tryfirst=True)
    def pytest_ignore_collect(path, config):
        return _ignored(path, config)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    if _selection is None:
        return
    keep, drop = [], []
    for item in items:
        key = _key(item, config)
        wanted = key in _selection["nodeids"] or _file_of(key) in _selection["files"]
        (keep if wanted else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


_session = None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    global _session
    _session = session


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    # What `-x` does, without putting it on a command line the project's addopts also shape.
    if _selection is not None and _selection["stop"] and report.failed and _session is not None:
        _session.shouldstop = "patchgate: a selected test failed"
