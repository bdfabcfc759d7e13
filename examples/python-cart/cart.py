"""A shopping cart's arithmetic, in cents."""


def line_total(price_cents, quantity):
    if quantity < 0:
        raise ValueError("quantity must not be negative")
    return price_cents * quantity


def total(lines):
    result = 0
    for price_cents, quantity in lines:
        result += line_total(price_cents, quantity)
    return result


def apply_discount(amount_cents, percent):
    if percent > 50:
        raise ValueError("a discount over 50% needs a manager")
    return amount_cents - amount_cents * percent // 100
