"""docs/rules/zaubercocktail.md traces every rulebook sentence and every DEFAULTS.md ruling.

The rulebook (``shared/rules/zaubercocktail.txt``) and ``DEFAULTS.md`` live beside the
repository, not in it: found by looking upwards from the checkout; without them these
tests skip and say so. That each named test exists is ``test_traceability.py``'s job.

A sentence is one sentence of a line, or one list item; headings (a line with no
closing punctuation) are not sentences. A row quotes its sentence in ``"…"`` (a
DEFAULTS.md ruling as ``DEFAULTS.md: "…"``); a long one may be shortened with ``…``,
and the pieces must still appear in order, the first at the start and the last at the
end.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_traceability import ROOT, Row, traceability_rows

DOC = ROOT / "docs" / "rules" / "zaubercocktail.md"
DEFAULTS_PREFIX = "DEFAULTS.md:"


def find_rules() -> Path | None:
    for folder in (ROOT, *ROOT.parents):
        candidate = folder / "shared" / "rules"
        if (candidate / "zaubercocktail.txt").is_file():
            return candidate
    return None


RULES = find_rules()
needs_rules = pytest.mark.skipif(RULES is None, reason="shared/rules/ (the rulebooks) is not beside this checkout")

# a sentence ends at . ! ? (a closing quote or bracket may follow) before the next one starts
BOUNDARY = re.compile(r'(?<=[.!?])["”)]?\s+(?=["(A-Z])')


def rulebook_sentences(text: str) -> list[str]:
    """Every sentence and list item of a rulebook text, headings left out."""
    out: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("- "):
            line = line[2:].strip()
        elif not re.search(r'[.!?:)"]$', line):
            continue                                  # a heading, or an empty line
        start = 0
        for match in BOUNDARY.finditer(line):
            if line[:match.start()].count('"') % 2:  # inside a quotation: "… anything. What …?"
                continue
            out.append(line[start:match.end()].strip())
            start = match.end()
        out.append(line[start:].strip())
    return [s for s in out if s]


def defaults_rulings(text: str, game: str) -> list[str]:
    """The bullets of DEFAULTS.md's section for ``game``, each joined into one line."""
    section = re.search(rf"^## {re.escape(game)}\b.*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section is not None, f"DEFAULTS.md has no section for {game}"
    rulings: list[str] = []
    for line in section.group(1).splitlines():
        if line.startswith("- "):
            rulings.append(line[2:])
        elif line.startswith("  ") and rulings:
            rulings[-1] += " " + line.strip()
    return [normal(r) for r in rulings]


def normal(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def quote_of(row: Row) -> str:
    text = row.sentence.strip()
    if text.startswith(DEFAULTS_PREFIX):
        text = text[len(DEFAULTS_PREFIX):].strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        text = text[1:-1]
    return normal(text)


def quotes(quote: str, sentence: str) -> bool:
    """True if ``quote`` is ``sentence``, or the sentence shortened with "…"."""
    pieces = [p.strip() for p in quote.split("…")]
    if len(pieces) == 1:
        return quote == sentence
    if not (sentence.startswith(pieces[0]) and sentence.endswith(pieces[-1])):
        return False
    at = len(pieces[0])
    for piece in pieces[1:-1]:
        found = sentence.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return at <= len(sentence) - len(pieces[-1])


def rows() -> tuple[list[Row], list[Row]]:
    table = traceability_rows(DOC)
    assert table, "docs/rules/zaubercocktail.md needs a '## Traceability' table"
    ruling_rows = [r for r in table if r.sentence.strip().startswith(DEFAULTS_PREFIX)]
    return [r for r in table if r not in ruling_rows], ruling_rows


def test_the_sentence_splitter_keeps_quotations_and_drops_headings() -> None:
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
def test_every_rulebook_sentence_has_a_row() -> None:
    assert RULES is not None
    sentences = [normal(s) for s in rulebook_sentences((RULES / "zaubercocktail.txt").read_text(encoding="utf-8"))]
    book_rows, _ = rows()
    missing = [s for s in sentences if not any(quotes(quote_of(r), s) for r in book_rows)]
    assert not missing, "sentences without a row:\n" + "\n".join(missing)
    stray = [r.where() + " " + r.sentence for r in book_rows
             if not any(quotes(quote_of(r), s) for s in sentences)]
    assert not stray, "rows that quote no rulebook sentence:\n" + "\n".join(stray)


@needs_rules
def test_every_defaults_ruling_has_a_row() -> None:
    assert RULES is not None
    rulings = defaults_rulings((RULES / "DEFAULTS.md").read_text(encoding="utf-8"), "Zaubercocktail")
    assert len(rulings) >= 6
    _, ruling_rows = rows()
    missing = [s for s in rulings if not any(quotes(quote_of(r), s) for r in ruling_rows)]
    assert not missing, "DEFAULTS.md rulings without a row:\n" + "\n".join(missing)
    stray = [r.where() for r in ruling_rows if not any(quotes(quote_of(r), s) for s in rulings)]
    assert not stray, "rows that quote no DEFAULTS.md ruling: " + ", ".join(stray)
