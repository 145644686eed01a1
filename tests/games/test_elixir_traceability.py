"""docs/rules/elixir.md traces every rulebook sentence and every DEFAULTS.md ruling.

The "## Traceability" table (issue 17) has one row per sentence of the rulebook
(``shared/rules/elixir.txt``) and one per Elixir ruling of ``DEFAULTS.md``
(rows starting ``DEFAULTS.md:``). Each row names tests (``tests/<file>.py::test_name``,
comma-separated) or says ``not modelled: physical — <why>``.

A sentence is one sentence of a line, or one list item; headings (a line with no closing
punctuation) are not sentences. A row quotes its sentence in ``"…"``; a long one may be
shortened with ``…`` (the pieces appear in order, the first at the start, the last at the
end). The rulebooks live beside the repository, not in it: found by looking upwards from
the checkout; without them the coverage tests skip and say so. That each named test
exists is ``test_traceability.py``'s job.
"""
from __future__ import annotations

import pytest
from test_traceability import (DEFAULTS_PREFIX, ROOT, defaults_rulings, find_rules, normal, quote_of,
                               quotes, rulebook_sentences, traceability_rows)

DOC = ROOT / "docs" / "rules" / "elixir.md"
RULES = find_rules("elixir.txt")
needs_rules = pytest.mark.skipif(RULES is None, reason="shared/rules/ (the rulebooks) is not beside this checkout")


def split_rows() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(where, quoted sentence) of the rulebook rows and of the DEFAULTS.md rows."""
    table = traceability_rows(DOC)
    assert table, "docs/rules/elixir.md needs a '## Traceability' table"
    book: list[tuple[str, str]] = []
    rulings: list[tuple[str, str]] = []
    for row in table:
        is_ruling = row.sentence.strip().startswith(DEFAULTS_PREFIX)
        (rulings if is_ruling else book).append((row.where(), quote_of(row)))
    return book, rulings


@needs_rules
def test_every_rulebook_sentence_has_a_row_and_every_row_quotes_one():
    assert RULES is not None
    sentences = [normal(s) for s in rulebook_sentences((RULES / "elixir.txt").read_text(encoding="utf-8"))]
    book, _ = split_rows()
    missing = [s for s in sentences if not any(quotes(q, s) for _, q in book)]
    assert not missing, "sentences without a row:\n" + "\n".join(missing)
    stray = [f"{n}: {q}" for n, q in book if not any(quotes(q, s) for s in sentences)]
    assert not stray, "rows that quote no rulebook sentence:\n" + "\n".join(stray)


@needs_rules
def test_every_defaults_ruling_has_a_row():
    assert RULES is not None
    rulings = defaults_rulings((RULES / "DEFAULTS.md").read_text(encoding="utf-8"), "Elixir")
    assert len(rulings) >= 5
    _, rows = split_rows()
    missing = [r for r in rulings if not any(quotes(q, r) for _, q in rows)]
    assert not missing, "DEFAULTS.md rulings without a row:\n" + "\n".join(missing)
    stray = [n for n, q in rows if not any(quotes(q, r) for r in rulings)]
    assert not stray, "rows that quote no DEFAULTS.md ruling: " + ", ".join(stray)
