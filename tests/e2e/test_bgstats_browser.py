"""The History tab's BG Stats downloads in headless Chromium, on a phone: a finished game's
own file and the file of all games download, validate against the format's documented
fields, and hold nothing of the game still running. Screenshot under test-output/<test>/."""
from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import pytest

from tests.e2e.layout_checks import axe_problems, problems
from tests.e2e.test_scores_browser import open_tab

pytestmark = pytest.mark.browser

SCHEMA = json.loads((Path(__file__).parent.parent / "web" / "bgstats.schema.json").read_text())


def test_the_history_tab_downloads_bg_stats_files(live_table, page_on, output_dir):
    from tests.e2e.test_size_matrix_browser import play
    table = live_table.table
    table.start("zauberwald", ["Julie", "Linus"], seed=9)
    play(table, random.Random(1), lambda s: s["outcome"] is not None,
         prefer=("turn", "floor_turned", "end_search", "basket", "return_ingredients", "choose_tile"))
    finished = table.session()
    status, running = live_table.call("POST", "/api/v1/session",
                                      {"game": "zaubercocktail", "players": ["Ann", "Ben", "Cy", "Di"], "seed": 5})
    assert status == 201, running

    page = page_on(live_table.url, (390, 844))
    open_tab(page, "history")
    row = page.locator(f'#history-table tr[data-game="{finished["id"]}"]')
    row.wait_for()
    link = row.locator("a.row-export")
    assert link.bounding_box()["height"] >= 48
    assert not problems(page) and not axe_problems(page)
    page.screenshot(path=str(output_dir / "history_phone.png"))

    with page.expect_download() as got:
        link.tap()
    download = got.value
    assert download.suggested_filename == f"potionpi-zauberwald-{finished['id']}.bgsplay"
    document = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    jsonschema.validate(document, SCHEMA)
    (play_entry,) = document["plays"]
    names = {p["id"]: p["name"] for p in document["players"]}
    winners = [names[s["playerRefId"]] for s in play_entry["playerScores"] if s["winner"]]
    assert winners == [finished["players"][w] for w in finished["outcome"]["winners"]]
    assert document["games"][0]["name"] == "Im großen Zauberwald"

    with page.expect_download() as got:
        page.locator("#export-bgstats").tap()
    everything = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
    assert got.value.suggested_filename == "potionpi-all.bgsplay"
    jsonschema.validate(everything, SCHEMA)
    assert [p["name"] for p in everything["players"]] == ["Julie", "Linus"]     # not the running game's
