import json
import pathlib

from invoice import compute_total, format_total

GOLDEN = json.loads((pathlib.Path(__file__).parent.parent / "testdata" / "invoice.json").read_text())


def test_total_matches_golden():
    assert compute_total(GOLDEN) == GOLDEN["total_cents"]


def test_format_total():
    assert format_total(GOLDEN) == "USD 15.00"


def test_empty_invoice_is_zero():
    assert compute_total({"currency": "USD", "lines": []}) == 0
