"""The traceability table of docs/rules/zauberwald.md: every test it names exists, every
sentence of the rulebook has a row; and the rulebook sentences no other test checked."""
from __future__ import annotations

import importlib.util
import pathlib
import re
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_zauberwald_support import GAME, TOTAL, act, count_all, start_search, table  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "rules" / "zauberwald.md"
RULEBOOK = "shared/rules/im-grossen-zauberwald.txt"
NOT_MODELLED = "not modelled: physical — "
A, B = 0, 1


# --- the table ---------------------------------------------------------------------------
def trace_rows() -> list[tuple[str, str]]:
    """(rulebook sentence, test column) for each row of the "## Traceability" table."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Traceability", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not line.startswith("|") or set(cells[0]) <= set("-: ") \
                or cells[0] == "rulebook sentence":
            continue
        rows.append((cells[0], cells[1]))
    return rows


def named_tests(column: str) -> list[str]:
    return [t.strip().strip("`") for t in column.split(",")]


def test_every_row_names_tests_or_says_why_it_is_not_modelled():
    rows = trace_rows()
    assert len(rows) > 100
    for sentence, column in rows:
        if column.startswith(NOT_MODELLED):
            assert len(column) > len(NOT_MODELLED) + 5, sentence
            continue
        for name in named_tests(column):
            assert re.fullmatch(r"tests/games/test_zauberwald\w*\.py::test_\w+", name), (sentence, name)


def test_every_test_named_in_the_table_exists():
    modules: dict[str, object] = {}
    for _, column in trace_rows():
        if column.startswith(NOT_MODELLED):
            continue
        for name in named_tests(column):
            path, func = name.split("::")
            if path not in modules:
                spec = importlib.util.spec_from_file_location(pathlib.Path(path).stem, REPO / path)
                assert spec and spec.loader, path
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                modules[path] = module
            assert callable(getattr(modules[path], func, None)), f"{name} does not exist"


def rulebook_sentences(text: str) -> list[str]:
    """The rulebook's sentences: each line split after . ! ? (also inside “...”); list items
    are sentences, lines without an end mark (titles, headings) are not."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if not line.startswith("- ") and not re.search(r"[.!?:][”\"]?$", line):
            continue                       # a heading
        out += re.split(r"(?:(?<=[.!?])|(?<=[.!?]”))\s+(?=[A-Z“\"])", line)
    return out


def quoted(cell: str) -> list[str]:
    """The pieces of a quoted (and perhaps …-shortened) sentence in the first column."""
    assert cell.startswith('"') and cell.endswith('"'), cell
    return [p.strip() for p in cell[1:-1].split("…") if p.strip()]


def covers(pieces: list[str], sentence: str) -> bool:
    at = 0
    for piece in pieces:
        at = sentence.find(piece, at)
        if at < 0:
            return False
        at += len(piece)
    return sentence.startswith(pieces[0])


def find_rulebook() -> pathlib.Path | None:
    for folder in REPO.parents:
        if (folder / RULEBOOK).is_file():
            return folder / RULEBOOK
    return None


def flat(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def test_every_rulebook_sentence_has_a_row():
    path = find_rulebook()
    if path is None:
        pytest.skip(f"the rulebook ({RULEBOOK}) is not next to this checkout")
    rows = [quoted(s) for s, _ in trace_rows() if not s.startswith("DEFAULTS.md")]
    sentences = rulebook_sentences(path.read_text(encoding="utf-8"))
    missing = [s for s in sentences if not any(covers(r, s) for r in rows)]
    assert missing == []
    # and no row quotes something the rulebook does not say
    assert [r for r in rows if not any(covers(r, s) for s in sentences)] == []


# --- the rulebook's sentences no other test checked --------------------------------------
def test_the_box_contents_the_engine_counts():
    # "16 recipe cards", "20 magic tiles", "72 ingredients", "16 trees"
    assert len(GAME.recipes) == 16 and len({GAME._recipe_key(r["ingredients"]) for r in GAME.recipes}) == 16
    assert all(sum(r["ingredients"].values()) == 7 for r in GAME.recipes)
    assert len(GAME.magic_tiles) * GAME.max_players == 20
    assert sum(GAME.supply.values()) == TOTAL == 72
    assert GAME.ants_around == 16                          # one ant per tree round the rim


def test_the_ingredients_are_nine_of_eight_colours():
    # DEFAULTS.md: 72 = 9 each of red, yellow, green, orange, black, blue, white, purple
    assert GAME.supply == {c: 9 for c in ("red", "yellow", "green", "orange", "black", "blue", "white", "purple")}


DEFAULT_RECIPES = {   # DEFAULTS.md, card by card
    1: "red yellow green orange orange black black",
    2: "yellow yellow green orange black white purple",
    3: "yellow green green black blue white white",
    4: "yellow green orange black black white purple",
    5: "yellow green orange blue white purple purple",
    6: "red red yellow yellow green green black",
    7: "red red orange blue blue white purple",
    8: "red orange orange black white white purple",
    9: "yellow green orange orange black black purple",
    10: "green green blue blue white purple purple",
    11: "red green black blue blue blue purple",
    12: "green green orange orange blue white white",
    13: "red red yellow yellow orange blue white",
    14: "red yellow black black blue blue purple",
    15: "red red yellow black white purple purple",
    16: "red red yellow orange blue white purple",
}


def test_the_sixteen_recipe_cards_are_the_defaults():
    def counts(words: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for w in words.split():
            out[w] = out.get(w, 0) + 1
        return out
    assert {r["number"]: r["ingredients"] for r in GAME.recipes} == \
        {n: counts(words) for n, words in DEFAULT_RECIPES.items()}


def test_an_ingredient_that_fell_out_of_the_box_goes_back_to_the_forest():
    # "If one or more ingredients falls outside of the box ... place them back in the
    # enchanted forest at random": it is in no basket, so the forest keeps counting it
    state = table([[1, 2, 3], [4, 5, 6]])
    forest = sum(state["forest"].values())
    state, _ = start_search(state, 3)
    state, _ = act(state, {"type": "end_search", "seat": A, "count": 3})
    state, _ = act(state, {"type": "basket", "seat": A, "ingredients": {"orange": 2}})   # the third fell out
    state, _ = act(state, {"type": "basket", "seat": B, "ingredients": {}})
    on_cards = sum(sum(c["on_card"].values()) for cards in state["cards"] for c in cards)
    assert on_cards == 1                                # 2 orange, 1 back as the penalty for the missing one
    assert sum(state["forest"].values()) == forest - 1 and count_all(state) == TOTAL
    assert state["phase"] == "choose"                   # the baskets are empty for the next round


def test_every_defaults_row_quotes_defaults_md():
    path = find_rulebook()
    if path is None:
        pytest.skip(f"the rulebook ({RULEBOOK}) is not next to this checkout")
    defaults = flat((path.parent / "DEFAULTS.md").read_text(encoding="utf-8"))
    rows = [quoted(s.removeprefix("DEFAULTS.md:").strip()) for s, _ in trace_rows() if s.startswith("DEFAULTS.md")]
    assert len(rows) >= 9
    for pieces in rows:
        at = 0
        for piece in pieces:
            found = defaults.find(flat(piece), at)
            assert found >= 0, piece
            at = found + len(flat(piece))
