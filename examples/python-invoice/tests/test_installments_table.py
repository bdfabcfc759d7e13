"""The table-driven corpus: one `total count<TAB>installments` row per case, locked by digest."""
import pathlib

from installments import split_installments

CORPUS = pathlib.Path(__file__).parent.parent / "testdata" / "installments.tsv"


def rows():
    for number, line in enumerate(CORPUS.read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        given, expected = line.split("\t")
        total, count = (int(x) for x in given.split())
        yield number, total, count, [int(x) for x in expected.split()]


def test_installments_match_the_corpus():
    for number, total, count, expected in rows():
        assert split_installments(total, count) == expected, f"{CORPUS.name} line {number}"
