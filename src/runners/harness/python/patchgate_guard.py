"""pytest plugin: plugins only from where the gate trusts them, and what the run loaded (``-p patchgate_guard``).

The gate runs every pytest with ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``: left on,
pytest would load the ``pytest11`` entry point of every distribution on
``sys.path``, and a ``*.dist-info`` or ``*.egg-info`` folder committed in the
checkout would be one. This plugin takes autoload's place: when it is
registered (while pytest reads its command line, exactly where autoload would
run) it registers the entry points of distributions installed outside the
checkout, or inside a dependency folder the gate installed and sealed, under
the names and in the order autoload would have used, and refuses the rest.

At the end of the session it writes a report (``PATCHGATE_GUARD_REPORT``):
  plugins    entry points loaded, and refused with where they were declared
  shadowed   modules loaded from the checkout under the name of a standard
             library module or of the test toolchain (the gate decides which
             of those files the patch could write)
  collected  every selected test: its node id, and the classname and name
             pytest's JUnit writer gives it
  nativeToml on a pytest older than 9 with no configuration file of its own:
             what of pyproject.toml's [tool.pytest] table (read only by
             pytest 9) the plugin applied for collection, and what not

Environment:
  PATCHGATE_GUARD_ROOT     the checkout the run is in
  PATCHGATE_GUARD_TRUSTED  dependency folders inside it whose distributions
                           may declare plugins (os.pathsep-separated)
  PATCHGATE_GUARD_REPORT   path of the JSON report
PYTEST_DONT_REWRITE: the gate loads its plugins before pytest starts, so they cannot be rewritten.
"""

import json
import os
import sys

import pytest

SCHEMA = "patchgate/guard@1"
TOOLCHAIN = frozenset(
    (
        "pytest",
        "_pytest",
        "pluggy",
        "hypothesis",
        "_hypothesis_pytestplugin",
        "iniconfig",
        "packaging",
        "attr",
        "attrs",
        "sortedcontainers",
        "exceptiongroup",
        "tomli",
        "py",
    )
)
_this = sys.modules[__name__]
_state = {"registered": False, "loaded": [], "refused": [], "collected": None}


def _real(path):
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return ""


def _root():
    return _real(os.environ.get("PATCHGATE_GUARD_ROOT") or os.getcwd())


def _inside(path, folder):
    return bool(path) and bool(folder) and (path == folder or path.startswith(folder + os.sep))


def _trusted_folders():
    return [_real(p) for p in os.environ.get("PATCHGATE_GUARD_TRUSTED", "").split(os.pathsep) if p]


def _where(dist):
    path = getattr(dist, "_path", None)
    if path is None:
        try:
            path = dist.locate_file("")
        except Exception:
            return ""
    return _real(str(path))


def _trusted(location, root, folders):
    if not location:
        return False
    if not _inside(location, root):
        return True
    return any(_inside(location, f) for f in folders)


def _register_trusted(manager):
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8 has no importlib.metadata; pytest then needs importlib_metadata
        import importlib_metadata as metadata
    root = _root()
    folders = _trusted_folders()
    chosen = []
    for dist in list(metadata.distributions()):
        eps = [ep for ep in dist.entry_points if ep.group == "pytest11"]
        if not eps:
            continue
        location = _where(dist)
        name = (getattr(dist, "metadata", None) or {}).get("Name", "") or ""
        if not _trusted(location, root, folders):
            for ep in eps:
                _state["refused"].append({"name": ep.name, "value": ep.value, "dist": name, "location": location})
            continue
        chosen.append((dist, name, location, eps))
    # As autoload does: plugin packages are marked for assertion rewriting before they are imported.
    hook = getattr(manager, "rewrite_hook", None)
    if hook is not None:
        try:
            from _pytest.config import _iter_rewritable_modules

            files = [str(f) for dist, _, _, _ in chosen for f in (dist.files or [])]
            # A module already loaded (the gate's loader imports Hypothesis first) cannot be rewritten; marking
            # it would only warn, and a project's `filterwarnings = error` would turn that into a failure.
            names = [m for m in _iter_rewritable_modules(files) if m not in sys.modules]
            if names:
                hook.mark_rewrite(*names)
        except Exception:
            pass
    try:
        from pluggy._manager import DistFacade
    except ImportError:
        DistFacade = None
    for dist, name, location, eps in chosen:
        for ep in eps:
            if manager.get_plugin(ep.name) or manager.is_blocked(ep.name):
                continue
            plugin = ep.load()
            if manager.is_registered(plugin):
                continue
            manager.register(plugin, name=ep.name)
            # `required_plugins` and the header's plugin list read this, as for autoloaded plugins.
            distinfo = getattr(manager, "_plugin_distinfo", None)
            if DistFacade is not None and isinstance(distinfo, list):
                distinfo.append((plugin, DistFacade(dist)))
            _state["loaded"].append({"name": ep.name, "value": ep.value, "dist": name, "location": location})


def pytest_plugin_registered(plugin, manager):
    if plugin is not _this or _state["registered"]:
        return
    _state["registered"] = True
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        _register_trusted(manager)


# What a pytest older than 9 takes from pyproject.toml's native [tool.pytest] table, which only pytest 9 reads:
# the settings that decide what is collected. Without them pytest 7 collects a `bench/` the project left out.
NATIVE_COLLECTION_KEYS = ("testpaths", "python_files", "python_classes", "python_functions", "norecursedirs")


def _native_table(rootpath):
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            return None
    try:
        with open(os.path.join(str(rootpath), "pyproject.toml"), "rb") as f:
            data = tomllib.load(f)
    except (OSError, ValueError):
        return None
    table = data.get("tool", {}).get("pytest") if isinstance(data.get("tool"), dict) else None
    if not isinstance(table, dict):
        return None
    return {k: v for k, v in table.items() if k != "ini_options"}


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Before pytest decides what to collect: a pyproject.toml that configures pytest only in the native
    [tool.pytest] table is honoured for collection by a pytest that predates it, as pytest 9 would."""
    try:
        major = int(pytest.__version__.split(".")[0])
    except ValueError:
        return
    if major >= 9 or getattr(early_config, "inipath", None) is not None:
        return
    table = _native_table(early_config.rootpath)
    if not table:
        return
    cache = getattr(early_config, "_inicache", None)
    if not isinstance(cache, dict):
        return
    applied = {}
    for key in NATIVE_COLLECTION_KEYS:
        value = table.get(key)
        if isinstance(value, str):
            value = value.split()
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            cache[key] = list(value)
            applied[key] = list(value)
    _state["native"] = {
        "pytest": pytest.__version__,
        "applied": applied,
        "ignored": sorted(k for k in table if k not in applied),
    }


def pytest_collection_finish(session):
    try:
        from _pytest.junitxml import bin_xml_escape, mangle_test_address
    except ImportError:
        return
    prefix = getattr(session.config.option, "junitprefix", None)
    out = []
    for item in session.items:
        names = mangle_test_address(item.nodeid)
        classnames = names[:-1]
        if prefix:
            classnames.insert(0, prefix)
        out.append({"nodeid": item.nodeid, "classname": ".".join(classnames), "name": str(bin_xml_escape(names[-1]))})
    _state["collected"] = out


def _shadowed(root):
    std = set(getattr(sys, "stdlib_module_names", ()))
    seen = {}
    for name, mod in list(sys.modules.items()):
        top = name.split(".", 1)[0]
        if not (top in std or top in TOOLCHAIN or top.startswith("patchgate_")):
            continue
        path = getattr(mod, "__file__", None)
        if not isinstance(path, str):
            continue
        real = _real(path)
        if _inside(real, root) and name not in seen:
            seen[name] = os.path.relpath(real, root).replace(os.sep, "/")
    return [{"module": m, "file": f} for m, f in sorted(seen.items())]


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("PATCHGATE_GUARD_REPORT")
    if not path:
        return
    report = {
        "schema": SCHEMA,
        "plugins": {"loaded": _state["loaded"], "refused": _state["refused"]},
        "shadowed": _shadowed(_root()),
    }
    if _state["collected"] is not None:
        report["collected"] = _state["collected"]
    if _state.get("native") is not None:
        report["nativeToml"] = _state["native"]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, sort_keys=True)
    os.replace(tmp, path)
