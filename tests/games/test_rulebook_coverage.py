"""docs/rules/<game>.md traces every rulebook sentence and every DEFAULTS.md ruling.

Each game's "## Traceability" table (issue 17) has one row per sentence of its rulebook
(``shared/rules/<game>.txt``) and one per ruling of that game's ``DEFAULTS.md`` section
(rows starting ``DEFAULTS.md:``). Each row names tests (``tests/<file>.py::test_name``,
comma-separated) or says ``not modelled: physical — <why>``.

A sentence is one sentence of a line, or one list item; headings (a line with no closing
punctuation) are not sentences. A row quotes its sentence in ``"…"``; a long one may be
shortened with ``…`` (the pieces appear in order, the first at the start, the last at the
end). The rulebooks live beside the repository, not in it: found by looking upwards from
the checkout; without them the coverage tests skip and say so. That each named test
exists is ``test_traceability.py``'s job; Im großen Zauberwald has its own, stricter file
(``test_zauberwald_traceability.py``).
"""
from __future__ import annotations

import pytest
from test_traceability import (DEFAULTS_PREFIX, ROOT, Row, defaults_rulings, find_rules, normal, quote_of,
                               quotes, rulebook_sentences, traceability_rows)

#: (docs/rules page, rulebook, DEFAULTS.md section, fewest rulings that section has)
GAMES = [("mirakel-mix.md", "mirakel-mix.txt", "Mirakel Mix", 8),
         ("zaubercocktail.md", "zaubercocktail.txt", "Zaubercocktail", 6),
         ("mix-it.md", "mix-it.txt", "Mix It", 5),
         ("elixir.md", "elixir.txt", "Elixir", 5)]
RULES = find_rules("DEFAULTS.md")
needs_rules = pytest.mark.skipif(RULES is None, reason="shared/rules/ (the rulebooks) is not beside this checkout")


def split_rows(page: str) -> tuple[list[Row], list[Row]]:
    """The page's rows quoting the rulebook, and those quoting DEFAULTS.md."""
    table = traceability_rows(ROOT / "docs" / "rules" / page)
    assert table, f"docs/rules/{page} needs a '## Traceability' table"
    rulings = [r for r in table if r.sentence.strip().startswith(DEFAULTS_PREFIX)]
    return [r for r in table if r not in rulings], rulings


def test_the_sentence_splitter_keeps_quotations_and_drops_headings():
    text = ('The Phantasmal End\n- "Stop! Wait." is one sentence.\nTurn gently and not too fast! '
            'If the turning is difficult, turn back.\n(However, you count it.)\n')
    assert rulebook_sentences(text) == ['"Stop! Wait." is one sentence.', "Turn gently and not too fast!",
                                        "If the turning is difficult, turn back.", "(However, you count it.)"]
    assert quotes("Turn gently … too fast!", "Turn gently and not too fast!")
    assert not quotes("Turn gently … slowly!", "Turn gently and not too fast!")


def test_the_sentence_splitter_keeps_a_quoted_stop_in_its_sentence():
    text = ('Round Procedure\n- "For a Gold Rose I will give almost anything. What do you want?"\n'
            'The partner calls out loudly "Stop!". The game is briefly interrupted.\n'
            'Each player may:\n(With four players, two.) Then it ends.\n')
    assert rulebook_sentences(text) == [
        '"For a Gold Rose I will give almost anything. What do you want?"',
        'The partner calls out loudly "Stop!".', "The game is briefly interrupted.",
        "Each player may:", "(With four players, two.)", "Then it ends."]
    assert quotes("The partner calls … loudly \"Stop!\".", 'The partner calls out loudly "Stop!".')
    assert not quotes("The partner … quietly.", 'The partner calls out loudly "Stop!".')


@needs_rules
@pytest.mark.parametrize("page, rulebook, section, fewest", GAMES, ids=[g[2] for g in GAMES])
def test_every_rulebook_sentence_has_a_row_and_every_row_quotes_one(page, rulebook, section, fewest):
    assert RULES is not None
    sentences = [normal(s) for s in rulebook_sentences((RULES / rulebook).read_text(encoding="utf-8"))]
    book, _ = split_rows(page)
    missing = [s for s in sentences if not any(quotes(quote_of(r), s) for r in book)]
    assert not missing, "sentences without a row:\n" + "\n".join(missing)
    stray = [f"{r.where()} {r.sentence}" for r in book if not any(quotes(quote_of(r), s) for s in sentences)]
    assert not stray, "rows that quote no rulebook sentence:\n" + "\n".join(stray)


@needs_rules
@pytest.mark.parametrize("page, rulebook, section, fewest", GAMES, ids=[g[2] for g in GAMES])
def test_every_defaults_ruling_has_a_row(page, rulebook, section, fewest):
    assert RULES is not None
    rulings = defaults_rulings((RULES / "DEFAULTS.md").read_text(encoding="utf-8"), section)
    assert len(rulings) >= fewest
    _, rows = split_rows(page)
    missing = [s for s in rulings if not any(quotes(quote_of(r), s) for r in rows)]
    assert not missing, "DEFAULTS.md rulings without a row:\n" + "\n".join(missing)
    stray = [r.where() for r in rows if not any(quotes(quote_of(r), s) for s in rulings)]
    assert not stray, "rows that quote no DEFAULTS.md ruling: " + ", ".join(stray)
