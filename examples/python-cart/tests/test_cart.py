import pytest

from cart import apply_discount, line_total, total


def test_line_total():
    assert line_total(250, 4) == 1000


def test_negative_quantity_is_refused():
    with pytest.raises(ValueError):
        line_total(250, -1)


def test_total():
    assert total([(250, 4), (99, 1)]) == 1099


def test_empty_cart():
    assert total([]) == 0


def test_discount():
    assert apply_discount(1000, 10) == 900


def test_large_discount_is_refused():
    with pytest.raises(ValueError):
        apply_discount(1000, 60)
