"""docs/rules/mirakel-mix.md traces every rulebook sentence and every DEFAULTS.md ruling.

The "## Traceability" table (issue 17) has one row per sentence of the rulebook
(``shared/rules/mirakel-mix.txt``) and one per Mirakel Mix ruling of ``DEFAULTS.md``
(rows starting ``DEFAULTS.md:``). Each row names tests (``tests/<file>.py::test_name``,
comma-separated) or says ``not modelled: physical — <why>``.

A sentence is one sentence of a line, or one list item; headings (a line with no closing
punctuation) are not sentences. A row quotes its sentence in ``"…"``; a long one may be
shortened with ``…`` (the pieces appear in order, the first at the start, the last at the
end). The rulebooks live beside the repository, not in it: found by looking upwards from
the checkout; without them the coverage tests skip and say so.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules" / "mirakel-mix.md"
DEFAULTS_PREFIX = "DEFAULTS.md:"
NOT_MODELLED = re.compile(r"^not modelled: physical — \S.*$")
TEST_ID = re.compile(r"^(?P<file>tests/[\w./-]+\.py)::(?P<name>test\w*)(?:\[.*\])?$")
# a sentence ends at . ! ? (a closing quote or bracket may follow) before the next one starts
BOUNDARY = re.compile(r'(?<=[.!?])["”)]?\s+(?=["(A-Z])')


def find_rules() -> Path | None:
    for folder in (ROOT, *ROOT.parents):
        if (folder / "shared" / "rules" / "mirakel-mix.txt").is_file():
            return folder / "shared" / "rules"
    return None


RULES = find_rules()
needs_rules = pytest.mark.skipif(RULES is None, reason="shared/rules/ (the rulebooks) is not beside this checkout")


def normal(text: str) -> str:
    return " ".join(text.replace("`", "").split())


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
            if line[:match.start()].count('"') % 2:  # inside a quotation
                continue
            out.append(line[start:match.end()].strip())
            start = match.end()
        out.append(line[start:].strip())
    return [normal(s) for s in out if s]


def defaults_rulings(text: str) -> list[str]:
    """The bullets of DEFAULTS.md's Mirakel Mix section, each joined into one line."""
    section = re.search(r"^## Mirakel Mix\b.*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section is not None, "DEFAULTS.md has no section for Mirakel Mix"
    rulings: list[str] = []
    for line in section.group(1).splitlines():
        if line.startswith("- "):
            rulings.append(line[2:])
        elif line.startswith("  ") and rulings:
            rulings[-1] += " " + line.strip()
    return [normal(r) for r in rulings]


def table_rows() -> list[tuple[int, str, str]]:
    """(line, quoted sentence, test cell) of each row of the doc's Traceability table."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index("## Traceability")
    rows = []
    for number, line in enumerate(lines[start + 1:], start + 2):
        if re.match(r"^#{1,2}\s", line):
            break
        if not line.startswith("| ") or line.startswith("| rulebook sentence |"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
        assert len(cells) == 2, f"line {number}: a row has two cells"
        rows.append((number, cells[0], cells[1]))
    return rows


def quote_of(cell: str) -> str:
    text = cell.removeprefix(DEFAULTS_PREFIX).strip()
    assert text[0] == '"' and text[-1] == '"', f"{cell!r}: quote the sentence"
    return normal(text[1:-1])


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


def split_rows() -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    book, rulings = [], []
    for number, sentence, _ in table_rows():
        (rulings if sentence.startswith(DEFAULTS_PREFIX) else book).append((number, quote_of(sentence)))
    return book, rulings


def test_the_sentence_splitter_keeps_quotations_and_drops_headings():
    text = ('The Phantasmal End\n- "Stop! Wait." is one sentence.\nTurn gently and not too fast! '
            'If the turning is difficult, turn back.\n(However, you count it.)\n')
    assert rulebook_sentences(text) == ['"Stop! Wait." is one sentence.', "Turn gently and not too fast!",
                                        "If the turning is difficult, turn back.", "(However, you count it.)"]
    assert quotes("Turn gently … too fast!", "Turn gently and not too fast!")
    assert not quotes("Turn gently … slowly!", "Turn gently and not too fast!")


@needs_rules
def test_every_rulebook_sentence_has_a_row_and_every_row_quotes_one():
    assert RULES is not None
    sentences = rulebook_sentences((RULES / "mirakel-mix.txt").read_text(encoding="utf-8"))
    book, _ = split_rows()
    missing = [s for s in sentences if not any(quotes(q, s) for _, q in book)]
    assert not missing, "sentences without a row:\n" + "\n".join(missing)
    stray = [f"line {n}: {q}" for n, q in book if not any(quotes(q, s) for s in sentences)]
    assert not stray, "rows that quote no rulebook sentence:\n" + "\n".join(stray)


@needs_rules
def test_every_defaults_ruling_has_a_row():
    assert RULES is not None
    rulings = defaults_rulings((RULES / "DEFAULTS.md").read_text(encoding="utf-8"))
    assert len(rulings) >= 8
    _, rows = split_rows()
    missing = [r for r in rulings if not any(quotes(q, r) for _, q in rows)]
    assert not missing, "DEFAULTS.md rulings without a row:\n" + "\n".join(missing)
    stray = [f"line {n}" for n, q in rows if not any(quotes(q, r) for r in rulings)]
    assert not stray, "rows that quote no DEFAULTS.md ruling: " + ", ".join(stray)


def test_every_row_names_tests_that_exist_or_why_not():
    defined: dict[str, set[str]] = {}
    problems = []
    for number, _, cell in table_rows():
        if cell.startswith("not modelled"):
            if not NOT_MODELLED.match(cell):
                problems.append(f"line {number}: write 'not modelled: physical — <why>'")
            continue
        for name in (n.strip().strip("`") for n in cell.split(",")):
            match = TEST_ID.match(name)
            if match is None:
                problems.append(f"line {number}: {name!r} is not a test id")
                continue
            file = ROOT / match["file"]
            if match["file"] not in defined:
                tree = ast.parse(file.read_text(encoding="utf-8")) if file.is_file() else ast.Module(body=[])
                defined[match["file"]] = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            if match["name"] not in defined[match["file"]]:
                problems.append(f"line {number}: {match['file']} has no test {match['name']}")
    assert not problems, "\n".join(problems)
