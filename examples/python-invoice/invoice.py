"""Invoice arithmetic in whole cents, so golden totals compare exactly."""


def compute_total(invoice):
    return sum(line["qty"] * line["unit_cents"] for line in invoice["lines"])


def format_total(invoice):
    cents = compute_total(invoice)
    return f"{invoice['currency']} {cents // 100}.{cents % 100:02d}"
