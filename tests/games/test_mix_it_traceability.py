"""docs/rules/mix-it.md traces every rulebook sentence and every DEFAULTS.md ruling.

The rulebook (``shared/rules/mix-it.txt``) and ``DEFAULTS.md`` live beside the
repository, not in it: found by looking upwards from the checkout; without them these
tests skip and say so. That each named test exists is ``test_traceability.py``'s job.

A sentence is one sentence of a line, or one list item; headings (a line with no
closing punctuation) are not sentences. A row quotes its sentence in ``"…"`` (a
DEFAULTS.md ruling as ``DEFAULTS.md: "…"``); a long one may be shortened with ``…``,
and the pieces must still appear in order, the first at the start and the last at the
end.
"""
from __future__ import annotations

import pytest
from test_traceability import (DEFAULTS_PREFIX, ROOT, Row, defaults_rulings, find_rules, normal, quote_of, quotes,
                               rulebook_sentences, traceability_rows)

DOC = ROOT / "docs" / "rules" / "mix-it.md"
RULES = find_rules("mix-it.txt")
needs_rules = pytest.mark.skipif(RULES is None, reason="shared/rules/ (the rulebooks) is not beside this checkout")


def rows() -> tuple[list[Row], list[Row]]:
    table = traceability_rows(DOC)
    assert table, "docs/rules/mix-it.md needs a '## Traceability' table"
    ruling_rows = [r for r in table if r.sentence.strip().startswith(DEFAULTS_PREFIX)]
    return [r for r in table if r not in ruling_rows], ruling_rows


@needs_rules
def test_every_rulebook_sentence_has_a_row() -> None:
    assert RULES is not None
    sentences = [normal(s) for s in rulebook_sentences((RULES / "mix-it.txt").read_text(encoding="utf-8"))]
    book_rows, _ = rows()
    missing = [s for s in sentences if not any(quotes(quote_of(r), s) for r in book_rows)]
    assert not missing, "sentences without a row:\n" + "\n".join(missing)
    stray = [r.where() + " " + r.sentence for r in book_rows
             if not any(quotes(quote_of(r), s) for s in sentences)]
    assert not stray, "rows that quote no rulebook sentence:\n" + "\n".join(stray)


@needs_rules
def test_every_defaults_ruling_has_a_row() -> None:
    assert RULES is not None
    rulings = defaults_rulings((RULES / "DEFAULTS.md").read_text(encoding="utf-8"), "Mix It")
    assert len(rulings) >= 5
    _, ruling_rows = rows()
    missing = [s for s in rulings if not any(quotes(quote_of(r), s) for r in ruling_rows)]
    assert not missing, "DEFAULTS.md rulings without a row:\n" + "\n".join(missing)
    stray = [r.where() for r in ruling_rows if not any(quotes(quote_of(r), s) for s in rulings)]
    assert not stray, "rows that quote no DEFAULTS.md ruling: " + ", ".join(stray)
