"""Every "## Traceability" table in ``docs/rules/*.md`` names tests that exist.

The format (issue 17): a section ``## Traceability`` holding a Markdown table
``| rulebook sentence | test |`` (it may be split by ``###`` sub-headings into several
tables with the same header). Each row's test cell is either

- one or more tests, comma-separated, each ``tests/<path>.py::test_name`` — a
  parametrised id (``test_name[4-3]``) and a test class (``TestX::test_name``) are
  allowed, backticks around a name are allowed; or
- ``not modelled: physical — <why>``, with a reason.

A doc without the section is skipped. Each named test must exist: the file exists and
defines the test function (read with ``ast``, so nothing is imported or run).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "docs" / "rules").glob("*.md"))

SECTION = re.compile(r"^##\s+Traceability\s*$", re.IGNORECASE)
NEXT_SECTION = re.compile(r"^#{1,2}\s")           # "## Another section" ends it; "###" does not
SEPARATOR_CELL = re.compile(r"^:?-{3,}:?$")
NOT_MODELLED = re.compile(r"^not modelled:\s*physical\s*[—–-]+\s*(?P<why>.*)$", re.IGNORECASE)
TEST_ID = re.compile(r"^(?P<file>tests/[\w./-]+\.py)::(?P<name>[A-Za-z_]\w*(?:::[A-Za-z_]\w*)?)"
                     r"(?P<param>\[.*\])?$")


@dataclass(frozen=True)
class Row:
    doc: str
    line: int
    sentence: str
    tests: str

    def where(self) -> str:
        return f"{self.doc}:{self.line}"


# --- quoting the rulebooks (shared by each game's coverage test) ----------------------
DEFAULTS_PREFIX = "DEFAULTS.md:"


def find_rules(rulebook: str) -> Path | None:
    """``shared/rules/`` beside the checkout (the rulebooks are not in the repository)."""
    for folder in (ROOT, *ROOT.parents):
        candidate = folder / "shared" / "rules"
        if (candidate / rulebook).is_file():
            return candidate
    return None


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


def split_cells(line: str) -> list[str]:
    """The cells of one Markdown table row (``\\|`` is a pipe inside a cell)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body)]


def is_separator(cells: list[str]) -> bool:
    return bool(cells) and all(SEPARATOR_CELL.match(c.replace(" ", "")) for c in cells)


def traceability_rows(path: Path) -> list[Row] | None:
    """The rows of the doc's traceability tables, or None if it has no such section."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(lines) if SECTION.match(line.strip())), None)
    if start is None:
        return None
    rows: list[Row] = []
    test_column = -1
    i = start + 1
    while i < len(lines) and not NEXT_SECTION.match(lines[i]):
        line = lines[i]
        if line.lstrip().startswith("|"):
            cells = split_cells(line)
            following = lines[i + 1] if i + 1 < len(lines) else ""
            if following.lstrip().startswith("|") and is_separator(split_cells(following)):
                # a header: find the test column by its name (else the last one)
                names = [c.strip("*_` ").lower() for c in cells]
                test_column = next((j for j, n in enumerate(names) if n in ("test", "tests")), -1)
                i += 2
                continue
            if not is_separator(cells):
                sentence = cells[0] if test_column != 0 else cells[-1]
                tests = cells[test_column] if -len(cells) <= test_column < len(cells) else ""
                rows.append(Row(path.name, i + 1, sentence, tests))
        i += 1
    return rows


def split_names(cell: str) -> list[str]:
    """Comma-separated test names; commas inside a parametrised id ``[…]`` are kept."""
    names, depth, current = [], 0, ""
    for ch in cell:
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            names.append(current)
            current = ""
        else:
            current += ch
    names.append(current)
    return [n.strip().strip("`").strip() for n in names]


@lru_cache(maxsize=None)
def defined_tests(file: Path) -> frozenset[str]:
    """Test functions a file defines: ``test_x`` and ``TestClass::test_x``."""
    tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    found: set[str] = set()
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, functions) and node.name.startswith("test"):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            found.update(f"{node.name}::{item.name}" for item in node.body
                         if isinstance(item, functions) and item.name.startswith("test"))
    return frozenset(found)


def row_problems(row: Row, root: Path = ROOT) -> list[str]:
    """What is wrong with one row (nothing, for a good one)."""
    cell = row.tests.strip().strip("*_").strip()
    if not row.sentence.strip():
        return [f"{row.where()}: the row quotes no sentence"]
    if not cell:
        return [f"{row.where()}: no test named and not marked 'not modelled: physical — <why>'"]
    if cell.lower().startswith("not modelled"):
        match = NOT_MODELLED.match(cell)
        if match is None:
            return [f"{row.where()}: write 'not modelled: physical — <why>', not {cell!r}"]
        if len(match["why"].strip(" .`*_")) < 3:
            return [f"{row.where()}: 'not modelled: physical' needs a reason after the dash"]
        return []
    problems = []
    for name in split_names(cell):
        match = TEST_ID.match(name)
        if match is None:
            problems.append(f"{row.where()}: {name!r} is not a test id like "
                            "tests/games/test_x.py::test_name (nor 'not modelled: physical — <why>')")
            continue
        file = root / match["file"]
        if not file.is_file():
            problems.append(f"{row.where()}: {match['file']} does not exist")
        elif match["name"] not in defined_tests(file):
            problems.append(f"{row.where()}: {match['file']} has no test {match['name']}")
    return problems


def table_problems(path: Path, root: Path = ROOT) -> list[str] | None:
    """Every problem of a doc's tables; None if the doc has no traceability section."""
    rows = traceability_rows(path)
    if rows is None:
        return None
    if not rows:
        return [f"{path.name}: the Traceability section has no table rows"]
    return [problem for row in rows for problem in row_problems(row, root)]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_test_named_in_a_traceability_table_exists(doc: Path) -> None:
    problems = table_problems(doc)
    if problems is None:
        pytest.skip(f"{doc.name} has no '## Traceability' section")
    assert not problems, "\n".join(problems)


def test_at_least_one_rules_doc_has_a_traceability_table() -> None:
    """So the check above cannot pass by skipping everything."""
    assert any(traceability_rows(doc) for doc in DOCS)


# --- the checker itself ------------------------------------------------------------------

GOOD_TEST_FILE = '''
import pytest

def helper():
    pass

@pytest.mark.parametrize("n", [4, 5])
def test_counts(n):
    pass

class TestRound:
    def test_ends(self):
        pass
'''


def write_doc(tmp_path: Path, table: str, *, after: str = "") -> Path:
    (tmp_path / "tests" / "games").mkdir(parents=True, exist_ok=True)
    (tmp_path / "tests" / "games" / "test_x.py").write_text(GOOD_TEST_FILE, encoding="utf-8")
    doc = tmp_path / "game.md"
    doc.write_text("# Game\n\nSome text | with a pipe.\n\n## Traceability\n\n"
                   "| rulebook sentence | test |\n|---|---|\n" + table + "\n" + after, encoding="utf-8")
    return doc


def test_the_checker_accepts_every_allowed_form(tmp_path: Path) -> None:
    doc = write_doc(tmp_path, "\n".join([
        '| "Each player takes a stone." | tests/games/test_x.py::test_counts |',
        '| "The round ends …" | `tests/games/test_x.py::test_counts[4]`, tests/games/test_x.py::TestRound::test_ends |',
        '| "A sentence with a \\| pipe." | tests/games/test_x.py::test_counts[a, b] |',
        "\n### Setup\n",
        "| rulebook sentence | test |\n|:---|---:|",
        '| "Place the board on the box." | not modelled: physical — the box stays on the table |',
        '| DEFAULTS.md: "Start field 0." | not modelled: physical - a board printed with its fields |',
    ]), after="## Next section\n\n| not | a row |\n|---|---|\n| x | y |\n")
    rows = traceability_rows(doc)
    assert rows is not None and len(rows) == 5
    assert rows[2].sentence == '"A sentence with a | pipe."'
    assert table_problems(doc, tmp_path) == []


def test_the_checker_names_every_broken_row(tmp_path: Path) -> None:
    doc = write_doc(tmp_path, "\n".join([
        '| "No such file." | tests/games/test_gone.py::test_counts |',
        '| "No such test." | tests/games/test_x.py::test_missing |',
        '| "A helper is no test." | tests/games/test_x.py::helper |',
        '| "No reason." | not modelled: physical — |',
        '| "Not the wording." | not modelled because it is physical |',
        '| "Nothing at all." |  |',
        '| "A bare name." | test_counts |',
        '|  | tests/games/test_x.py::test_counts |',
    ]))
    problems = table_problems(doc, tmp_path)
    assert problems is not None and len(problems) == 8, problems
    for words in ("test_gone.py does not exist", "has no test test_missing", "has no test helper",
                  "needs a reason", "write 'not modelled: physical — <why>'", "no test named",
                  "'test_counts' is not a test id", "quotes no sentence"):
        assert any(words in p for p in problems), words


def test_a_doc_without_the_section_is_skipped_and_an_empty_section_is_not(tmp_path: Path) -> None:
    plain = tmp_path / "plain.md"
    plain.write_text("# Game\n\n| a | b |\n|---|---|\n| c | d |\n", encoding="utf-8")
    assert table_problems(plain, tmp_path) is None
    empty = tmp_path / "empty.md"
    empty.write_text("# Game\n\n## Traceability\n\nTo do.\n\n## Later\n", encoding="utf-8")
    assert table_problems(empty, tmp_path) == ["empty.md: the Traceability section has no table rows"]
