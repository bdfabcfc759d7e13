"""patchgate's loader: the first code of ours in every pytest process the gate starts.

Python imports ``sitecustomize`` while it starts, before the main module and
before the current directory (``python -m``) or the script's folder is put on
``sys.path``. The gate puts this folder first on ``PYTHONPATH``, so this file,
not one the checkout holds, is the one imported. It:

1. runs the interpreter's own ``sitecustomize`` (Debian ships one), if any,
   from outside the checkout;
2. imports the gate's instruments (its pytest plugins), pytest with every
   built-in plugin (the JUnit writer among them) and Hypothesis with its
   plugin, while nothing of the checkout is importable, so that no module the
   patch wrote can stand in for them later (an import finds ``sys.modules``
   first);
3. writes a manifest of what it loaded, from where, with each instrument's
   SHA-256, to the descriptor the gate handed over, and closes it: that
   happens before any code of the checkout has run, so the checkout cannot
   write that manifest;
4. puts the checkout back on ``sys.path`` where ``python -m`` would have, but
   after the standard library (``PYTHONSAFEPATH`` kept Python from doing it
   first): a module of the checkout can never stand in for one of the
   standard library.

Only the process the gate started does 2-4 (it takes ``PATCHGATE_GUARD_FD``
out of the environment); Python processes the tests start only get 1, and
behave as Python normally does (``PYTHONSAFEPATH`` is taken out too).

Environment:
  PATCHGATE_GUARD_FD       descriptor for the manifest (JSON, one document)
  PATCHGATE_GUARD_ROOT     the checkout the run is in
  PATCHGATE_GUARD_MODULES  the gate's plugin modules to load, comma-separated
"""

import os
import sys

def _watched(name):
    """What a checkout module must never stand in for: the runner, its plugin framework, the property
    library, and the gate's own instruments."""
    top = name.split(".", 1)[0]
    return top in ("pytest", "_pytest", "pluggy", "hypothesis", "_hypothesis_pytestplugin") or top.startswith(
        "patchgate_"
    )


def _inside(path, root):
    if not path or not root:
        return False
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return False
    return real == root or real.startswith(root + os.sep)


def _chain_system_sitecustomize(here, root):
    """The interpreter's own sitecustomize, which this file shadows on purpose."""
    for entry in sys.path:
        if not entry or os.path.realpath(entry) == here or _inside(entry, root):
            continue
        candidate = os.path.join(entry, "sitecustomize.py")
        if os.path.isfile(candidate):
            import runpy

            try:
                runpy.run_path(candidate, run_name="sitecustomize")
            except Exception as exc:  # as Python itself does: a broken one does not stop the interpreter
                sys.stderr.write("Error in sitecustomize (%s): %r\n" % (candidate, exc))
            return candidate
    return None


def _path0():
    """What ``python -m`` / ``-c`` / ``python script.py`` would have put first on sys.path."""
    argv = list(getattr(sys, "orig_argv", None) or [])[1:]
    takes_value = set("WXcm")
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            i += 1
            break
        if arg.startswith("-") and arg != "-":
            letters = arg[1:]
            for j, letter in enumerate(letters):
                if letter in ("c", "m"):
                    return os.getcwd()
                if letter in takes_value:
                    if j == len(letters) - 1:
                        i += 1
                    break
            i += 1
            continue
        break
    if i < len(argv) and argv[i] != "-":
        return os.path.dirname(os.path.realpath(argv[i]))
    return os.getcwd()


def _after_stdlib():
    """The index in sys.path of the first site folder: the checkout goes there, after the standard library."""
    for i, entry in enumerate(sys.path):
        if os.path.basename(entry.rstrip(os.sep)) in ("site-packages", "dist-packages"):
            return i
    return len(sys.path)


def _sha256(path):
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def _load(manifest, root):
    import importlib

    wanted = [m for m in os.environ.get("PATCHGATE_GUARD_MODULES", "").split(",") if m]
    # Whatever ran before this file (a .pth line of a site folder) and imported a watched module did so first.
    manifest["preloaded"] = sorted(n for n in sys.modules if _watched(n))
    import json  # noqa: F401  (the instruments write JSON; loaded before anything can shadow it)

    import pytest
    from _pytest.config import default_plugins

    for name in default_plugins:
        try:
            importlib.import_module("_pytest." + name)
        except Exception:
            # pytest imports it again itself and reports the failure in its own words.
            pass
    toolchain = {"pytest": pytest.__file__}
    try:
        import _hypothesis_pytestplugin
        import hypothesis

        toolchain["hypothesis"] = hypothesis.__file__
        toolchain["_hypothesis_pytestplugin"] = _hypothesis_pytestplugin.__file__
    except ImportError:
        pass
    import pluggy

    toolchain["pluggy"] = pluggy.__file__
    manifest["toolchain"] = toolchain
    modules = {}
    for name in wanted:
        mod = importlib.import_module(name)
        path = getattr(mod, "__file__", None) or ""
        modules[name] = {"file": os.path.realpath(path) if path else "", "sha256": _sha256(path) if path else ""}
    manifest["modules"] = modules


def _boot():
    fd_text = os.environ.pop("PATCHGATE_GUARD_FD", None)
    root = os.path.realpath(os.environ.get("PATCHGATE_GUARD_ROOT") or os.getcwd())
    here = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
    safe = bool(getattr(sys.flags, "safe_path", False))
    # Processes the tests start behave as Python normally does.
    os.environ.pop("PYTHONSAFEPATH", None)
    chained = _chain_system_sitecustomize(here, root)
    if fd_text is None:
        return
    manifest = {
        "schema": "patchgate/guard-start@1",
        "pid": os.getpid(),
        "safePath": safe,
        "executable": sys.executable,
        "version": list(sys.version_info[:3]),
    }
    if chained:
        manifest["sitecustomize"] = chained
    try:
        _load(manifest, root)
    except BaseException as exc:  # noqa: BLE001  the gate is told, in words, and the run goes on
        manifest["error"] = "%s: %s" % (type(exc).__name__, exc)
    if safe:
        entry = _path0()
        if entry and entry not in sys.path:
            sys.path.insert(_after_stdlib(), entry)
    try:
        import json

        data = json.dumps(manifest, sort_keys=True).encode("utf-8")
        fd = int(fd_text)
        while data:
            data = data[os.write(fd, data) :]
        os.close(fd)
    except (OSError, ValueError):
        # No descriptor (a command that is not the one the gate started): the gate sees no manifest.
        pass


_boot()
del _boot
