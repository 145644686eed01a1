"""Downloads tapped while the table is still busy with another history-wide answer for the
same device (web_ui/admission.py answers 429 with Retry-After), in headless Chromium: the
page says it is busy and trying again, then saves the real file under the table's name;
a refusal is never saved as the file, and one that will not pass is said in a sentence.
The History tab's CSV and BG Stats files on the tablet, the settings page's export and log.
Screenshots under test-output/<test>/."""
from __future__ import annotations

import csv
import io
import json
import logging
import random
from pathlib import Path

import pytest

from controller.service import logs
from tests.e2e.test_scores_browser import open_tab
from tests.web.helpers import PIN

pytestmark = pytest.mark.browser

HERE = "127.0.0.1"            # the address the test's browser comes from: the table's own device


def finished_game(live_table) -> dict:
    from tests.e2e.test_size_matrix_browser import over, wald_play
    live_table.table.start("zauberwald", ["Julie", "Linus"], seed=9)
    wald_play(over)(live_table.table, random.Random(1))
    return live_table.table.session()


def busy_turn(live_table):
    """The table's one history-wide answer for this device, as if another were still being
    made: every such ask of the page is answered 429 until ``end()``."""
    downloads = live_table.app.extensions["potionpi"].extras["downloads"]
    downloads.begin(HERE, True)
    return lambda: downloads.end(HERE, True)


def saved_after_the_wait(page, link, release, status: str):
    """Tap ``link`` while the table is busy: the page says so (and saves nothing yet), then,
    the table free again, saves the file. Returns the download."""
    saved = []
    page.on("download", lambda d: saved.append(d))
    link.tap()
    page.wait_for_selector(f'{status}[data-state="busy"]', timeout=60_000)
    assert "busy" in page.locator(status).inner_text() and "trying again" in page.locator(status).inner_text()
    assert saved == [], "a refusal was saved as the file"
    with page.expect_download(timeout=60_000) as got:
        release()
    page.wait_for_selector(f'{status}[data-state="done"]', timeout=60_000)
    return got.value


def test_the_history_tabs_files_wait_for_a_busy_table_and_never_save_its_refusal(live_table, page_on, output_dir):
    finished = finished_game(live_table)
    page = page_on(live_table.url, (1024, 768))
    open_tab(page, "history")

    release = busy_turn(live_table)
    page.locator("#export-csv").scroll_into_view_if_needed()
    saved = []
    page.on("download", lambda d: saved.append(d))
    page.locator("#export-csv").tap()
    status = ".export-links + .download-status"
    page.wait_for_selector(f'{status}[data-state="busy"]', timeout=60_000)
    page.screenshot(path=str(output_dir / "csv-busy.png"))
    assert "trying again" in page.locator(status).inner_text()
    assert page.evaluate("""(sel) => { const r = document.querySelector(sel).getBoundingClientRect(),
      b = document.querySelector('#sheet-body').getBoundingClientRect();
      return r.top >= b.top && r.bottom <= b.bottom + 1; }""", status), "the busy line is out of sight"
    assert saved == [], "the 429 was saved as the file"
    with page.expect_download(timeout=60_000) as got:
        release()
    page.wait_for_selector(f'{status}[data-state="done"]', timeout=60_000)
    page.screenshot(path=str(output_dir / "csv-done.png"))
    download = got.value
    assert download.suggested_filename == "potionpi-history.csv"          # the table's name for it
    rows = list(csv.DictReader(io.StringIO(Path(download.path()).read_text(encoding="utf-8"))))
    assert {r["player"] for r in rows if r["game_no"] == str(finished["id"])} == {"Julie", "Linus"}, rows[:3]
    assert "potionpi-history.csv" in page.locator(status).inner_text()

    # one game's BG Stats file, from its row, the same way
    row = page.locator(f'#history-table tr[data-game="{finished["id"]}"]')
    download = saved_after_the_wait(page, row.locator("a.row-export"), busy_turn(live_table),
                                    f'#history-table tr[data-game="{finished["id"]}"] .download-status')
    assert download.suggested_filename == f"potionpi-zauberwald-{finished['id']}.bgsplay"
    document = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert len(document["plays"]) == 1 and "error" not in document
    page.screenshot(path=str(output_dir / "bgstats-done.png"))


def test_the_settings_pages_downloads_wait_for_a_busy_table_and_say_why_not(live_table, page_on, output_dir, tmp_path):
    finished = finished_game(live_table)
    handler = logs.open_log_file(tmp_path)
    logging.getLogger("potionpi.test").info("table started")
    live_table.app.extensions["potionpi"].extras["service"] = {"data_dir": tmp_path, "urls": []}
    try:
        page = page_on(live_table.url + "/settings", (390, 844), ready="#pin")
        page.fill("#pin", PIN)
        page.locator("button", has_text="Unlock").tap()
        page.wait_for_selector("text=Download the log")
        # the links are in the page before its module has run: a tap before that was the
        # browser's own download (the 429 saved as the file, no line said), not the page's
        page.wait_for_selector("body[data-ready=yes]", state="attached")

        status = "nav.actions[data-downloads] + .download-status"
        export = page.locator("a", has_text="Download every game")
        download = saved_after_the_wait(page, export, busy_turn(live_table), status)
        assert download.suggested_filename.startswith("potionpi-games-") and download.suggested_filename.endswith(".json")
        games = json.loads(Path(download.path()).read_text(encoding="utf-8"))
        assert "error" not in games and finished["id"] in [g["id"] for g in games["games"]], str(games)[:300]
        page.screenshot(path=str(output_dir / "export-done.png"), full_page=True)

        # a refusal that asking again will not change: said in a sentence, nothing saved
        handler.close()
        (tmp_path / logs.LOG_FILE).unlink()
        saved = []
        page.on("download", lambda d: saved.append(d))
        page.locator("a", has_text="Download the log").tap()
        page.wait_for_selector(f'{status}[data-state="failed"]')
        assert "no such file" in page.locator(status).inner_text()
        assert saved == []
        page.screenshot(path=str(output_dir / "log-failed.png"), full_page=True)
    finally:
        logs.close_log_file(handler)
