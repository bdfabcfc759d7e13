"""bench/hits: a property whose check does nothing, to measure the harness itself."""


def _accept(fixture):
    return True


PROPERTIES = [
    {"name": "trivial", "claimed_fields": [], "check": _accept},
]
