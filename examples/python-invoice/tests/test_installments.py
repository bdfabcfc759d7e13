from hypothesis import given, settings, strategies as st

from installments import split_installments


@settings(max_examples=200, deadline=None)
@given(
    total=st.integers(min_value=0, max_value=1_000_000),
    count=st.integers(min_value=1, max_value=12),
)
def test_installments_add_up(total, count):
    parts = split_installments(total, count)
    assert len(parts) == count
    assert sum(parts) == total
    assert max(parts) - min(parts) <= 1


@settings(max_examples=25, deadline=None)
@given(count=st.integers(max_value=0), total=st.integers(min_value=0, max_value=1_000_000))
def test_count_below_one_is_rejected(count, total):
    try:
        parts = split_installments(total, count)
    except ValueError:
        return
    raise AssertionError(f"a plan of {count} installments was accepted: {parts}")
