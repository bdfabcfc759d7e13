"""Known problems a human has frozen, with an owner and an expiry."""
import os
import pathlib


def test_legacy_rounding():
    # Frozen in flake_signatures.json: the legacy rounding table is off by a cent until PAY-101 lands.
    legacy = 1499
    assert legacy == 1500, f"rounding drift of {1500 - legacy} cent(s) in the legacy table"


def test_rate_cache_warmup():
    # Frozen in stability_freeze.json: fails on every other run while the rate cache warms up.
    from invoice import compute_total

    marker = pathlib.Path(os.environ.get("RATE_CACHE_DIR", pathlib.Path(__file__).parent.parent)) / ".rate-cache-warm"
    if marker.exists():
        marker.unlink()
        assert compute_total({"currency": "USD", "lines": []}) == 0
        return
    marker.write_text("warm")
    raise AssertionError("rate cache was cold")
