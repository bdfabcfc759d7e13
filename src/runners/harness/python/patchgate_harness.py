#!/usr/bin/env python3
"""Serve a module's Python properties to patchgate (protocol patchgate-harness/2).

Usage: python3 patchgate_harness.py MODULE_OR_PATH

MODULE_OR_PATH is either a ``.py`` file, imported from that file with its
folder first on sys.path, or a dotted module name, imported with the current
directory first on sys.path (as ``python -m`` would). The module must define
``PROPERTIES``: a list of objects or dicts with ``name`` (str),
``claimed_fields`` (a set or list of str) and ``check`` (called with one
fixture; raising or returning False fails, anything else passes).

The protocol runs over file descriptor 3, a socket patchgate opens; the
first line patchgate sends is a key, read before the module is imported, and
every answer carries an HMAC of its sequence number and body under that key.
File descriptor 1 and sys.stdout point at stderr and file descriptor 0 at the
null device, so nothing a property prints can pass for an answer, and a line
a property writes on the channel itself cannot be signed. See
docs/harness-protocol.md in patchgate.

Standard library only; Python 3.9 or later.
"""

import hashlib
import hmac
import importlib
import importlib.util
import json
import os
import socket
import sys
import traceback

PROTOCOL = "patchgate-harness/2"
CHANNEL_FD = 3
MAC_HEX = 32
ADAPTER_VERSION = "1"
MAX_ERROR_CHARS = 500
EXIT_USAGE = 2
EXIT_LOAD_FAILED = 3

_PASS = '{"status":"pass"}'
_RETURNED_FALSE = '{"status":"fail","error":"check returned False"}'


class LoadError(Exception):
    """The target could not be turned into a property list; the message says why."""


class Prop(object):
    __slots__ = ("name", "claims", "check")

    def __init__(self, name, claims, check):
        self.name = name
        self.claims = claims
        self.check = check


# --------------------------------------------------------------- loading


def _looks_like_path(target):
    if target.endswith(".py"):
        return True
    return os.sep in target or (os.altsep is not None and os.altsep in target)


def load_module(target):
    """Imports TARGET and returns (module, label for messages)."""
    if _looks_like_path(target):
        path = os.path.abspath(target)
        if not os.path.isfile(path):
            raise LoadError("no such file: %s" % path)
        sys.path.insert(0, os.path.dirname(path))
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise LoadError("cannot import %s as a Python module" % path)
        module = importlib.util.module_from_spec(spec)
        # Registered before it runs, as a normal import would (dataclasses and
        # pickling look the module up by name).
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
        return module, path
    sys.path.insert(0, os.getcwd())
    return importlib.import_module(target), target


def _field(item, key, where):
    if isinstance(item, dict):
        if key not in item:
            raise LoadError("%s has no %r key" % (where, key))
        return item[key]
    try:
        return getattr(item, key)
    except AttributeError:
        raise LoadError("%s (a %s) has no %r attribute" % (where, type(item).__name__, key))


def collect_properties(module, label):
    """The module's PROPERTIES, validated, in declaration order."""
    try:
        declared = module.PROPERTIES
    except AttributeError:
        raise LoadError("%s does not define PROPERTIES (a list of properties)" % label)
    if not isinstance(declared, (list, tuple)):
        raise LoadError("%s: PROPERTIES must be a list, not %s" % (label, type(declared).__name__))
    props = []
    seen = set()
    for index, item in enumerate(declared):
        where = "%s: PROPERTIES[%d]" % (label, index)
        name = _field(item, "name", where)
        if not isinstance(name, str) or not name:
            raise LoadError("%s: name must be a non-empty string, got %r" % (where, name))
        where = "%s (%s)" % (where, name)
        if name in seen:
            raise LoadError("%s: duplicate property name" % where)
        seen.add(name)
        claimed = _field(item, "claimed_fields", where)
        if isinstance(claimed, (str, bytes)):
            raise LoadError("%s: claimed_fields must be a set or list of field names, not a string" % where)
        try:
            claims = sorted(set(claimed))
        except TypeError:
            raise LoadError("%s: claimed_fields must be a set or list of strings" % where)
        for claim in claims:
            if not isinstance(claim, str):
                raise LoadError("%s: claimed field %r is not a string" % (where, claim))
        check = _field(item, "check", where)
        if not callable(check):
            raise LoadError("%s: check is not callable" % where)
        props.append(Prop(name, claims, check))
    return props


# --------------------------------------------------------------- serving


def describe_exception(exc):
    """Exception type and the first line of its message, bounded."""
    kind = type(exc).__name__
    try:
        text = str(exc)
    except Exception:
        text = ""
    first = ""
    for line in text.splitlines():
        if line.strip():
            first = line.strip()
            break
    message = "%s: %s" % (kind, first) if first else kind
    if len(message) > MAX_ERROR_CHARS:
        message = message[:MAX_ERROR_CHARS] + "..."
    return message


def run_batch(check, fixtures):
    """One result per fixture, as JSON text, in order."""
    parts = []
    append = parts.append
    for fixture in fixtures:
        try:
            outcome = check(fixture)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # SystemExit from a check is a failure, not our exit
            append('{"status":"fail","error":%s}' % json.dumps(describe_exception(exc)))
            continue
        append(_RETURNED_FALSE if outcome is False else _PASS)
    return ",".join(parts)


def _error(rid, message):
    return json.dumps({"id": rid, "error": {"message": message}})


def _result(rid, result):
    return json.dumps({"id": rid, "result": result})


def handle(request, props_by_name, listing, hello):
    """The response line (without newline) for one decoded request, and whether to stop."""
    if not isinstance(request, dict):
        return _error(None, "a request must be a JSON object"), False
    rid = request.get("id")
    if not isinstance(rid, int) or isinstance(rid, bool):
        return _error(None, "a request needs an integer id"), False
    method = request.get("method")
    params = request.get("params")
    if method == "check":
        if not isinstance(params, dict):
            return _error(rid, "check needs params {property, fixtures}"), False
        name = params.get("property")
        fixtures = params.get("fixtures")
        prop = props_by_name.get(name) if isinstance(name, str) else None
        if prop is None:
            return _error(rid, "unknown property %r" % (name,)), False
        if not isinstance(fixtures, list):
            return _error(rid, "check params.fixtures must be a list"), False
        body = run_batch(prop.check, fixtures)
        return '{"id":%d,"result":{"results":[%s]}}' % (rid, body), False
    if method == "hello":
        wanted = params.get("protocol") if isinstance(params, dict) else None
        if wanted is not None and wanted != PROTOCOL:
            return _error(rid, "this harness speaks %s, not %s" % (PROTOCOL, wanted)), False
        return _result(rid, hello), False
    if method == "list":
        return _result(rid, listing), False
    if method == "shutdown":
        return _result(rid, None), True
    return _error(rid, "unknown method %r" % (method,)), False


class Signer(object):
    """Signs each answer line with the channel key and its sequence number."""

    __slots__ = ("key", "seq")

    def __init__(self, key):
        self.key = key
        self.seq = 0

    def line(self, body):
        data = body.encode("utf-8")
        mac = hmac.new(self.key, str(self.seq).encode("ascii") + b"\n" + data, hashlib.sha256).hexdigest()
        self.seq += 1
        return mac[:MAC_HEX].encode("ascii") + b" " + data + b"\n"


def serve(proto_in, proto_out, props, signer):
    props_by_name = {p.name: p for p in props}
    listing = {"properties": [{"name": p.name, "claims": p.claims} for p in props]}
    hello = {
        "protocol": PROTOCOL,
        "language": "python",
        "implementation": "patchgate_harness.py/%s (%s %s)"
        % (ADAPTER_VERSION, sys.implementation.name, ".".join(str(v) for v in sys.version_info[:3])),
    }
    for raw in proto_in:
        if not raw.strip():
            continue
        try:
            # Each fixture is decoded exactly once, into its own objects: a
            # check that mutates its fixture cannot affect the next one.
            request = json.loads(raw)
        except ValueError as exc:
            line, stop = _error(None, "request is not JSON: %s" % exc), False
        else:
            try:
                line, stop = handle(request, props_by_name, listing, hello)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                rid = request.get("id") if isinstance(request, dict) else None
                line, stop = _error(rid, "harness error: %s" % describe_exception(exc)), False
        proto_out.write(signer.line(line))
        proto_out.flush()
        if stop:
            return


def claim_stdio():
    """The channel for the protocol; stdout goes to stderr and stdin to the null device.

    Returns (proto_in, proto_out, key). The key is read here, before any head
    module is imported.
    """
    channel = socket.socket(fileno=CHANNEL_FD)
    proto_in = channel.makefile("rb")
    proto_out = channel.makefile("wb")
    key_line = proto_in.readline().strip()
    try:
        key = bytes.fromhex(key_line.decode("ascii"))
    except ValueError:
        key = b""
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        sys.stderr.reconfigure(encoding="utf-8", errors="backslashreplace", line_buffering=True)
    except (AttributeError, ValueError):
        pass
    sys.stdout = sys.stderr
    return proto_in, proto_out, key


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: python3 patchgate_harness.py MODULE_OR_PATH\n")
        return EXIT_USAGE
    target = argv[1]
    # Our own folder is not the user's import path.
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == here:
        del sys.path[0]
    # Importing head code must not leave __pycache__ folders in the worktree.
    sys.dont_write_bytecode = True
    try:
        proto_in, proto_out, key = claim_stdio()
    except OSError as exc:
        sys.stderr.write("patchgate_harness: no protocol channel on fd %d: %s\n" % (CHANNEL_FD, exc))
        return EXIT_USAGE
    if not key:
        sys.stderr.write("patchgate_harness: the channel did not start with a key\n")
        return EXIT_USAGE
    try:
        module, label = load_module(target)
        props = collect_properties(module, label)
    except LoadError as exc:
        sys.stderr.write("patchgate_harness: %s\n" % exc)
        return EXIT_LOAD_FAILED
    except BaseException:
        sys.stderr.write("patchgate_harness: importing %s failed:\n" % target)
        traceback.print_exc()
        return EXIT_LOAD_FAILED
    try:
        serve(proto_in, proto_out, props, Signer(key))
    except BrokenPipeError:
        pass  # patchgate went away; nothing to answer
    finally:
        try:
            proto_out.close()
        except BrokenPipeError:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
