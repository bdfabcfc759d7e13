from hypothesis import given, settings, strategies as st

from invoice import compute_total

LINE = st.fixed_dictionaries({"qty": st.integers(0, 1_000), "unit_cents": st.integers(0, 1_000_000)})


@settings(max_examples=25, deadline=None)
@given(lines=st.lists(LINE, max_size=20))
def test_total_is_sum_of_line_amounts(lines):
    invoice = {"currency": "USD", "lines": lines}
    assert compute_total(invoice) == sum(line["qty"] * line["unit_cents"] for line in lines)
    assert compute_total(invoice) >= 0
