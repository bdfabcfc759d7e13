"""Installment plans in whole cents."""


def split_installments(total_cents, count):
    """Split a total into `count` installments that add back up to it exactly.

    The first `total_cents % count` installments carry one extra cent. The
    first version rounded `total_cents / count` for every installment, which
    bills a cent too many or too few whenever the split is uneven; the seed
    tape (property_seeds.json) keeps the seed that found it.
    """
    if count < 1:
        raise ValueError("count must be at least 1")
    base, extra = divmod(total_cents, count)
    return [base + (1 if i < extra else 0) for i in range(count)]
