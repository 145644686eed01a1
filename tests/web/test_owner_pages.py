"""/join puts more phones on the table; /settings lets the owner (PIN) download the log
and every game."""
from __future__ import annotations

import json
import logging
import re

import pytest

from controller.daemon import FirmwareWatch
from controller.service import discovery, logs
from web_ui.hosts import TableNames

from .helpers import AUTH, PIN


@pytest.fixture
def owned(app, table, tmp_path):
    """The app as the daemon sets it up: a data dir with a log file, a firmware watch."""
    handler = logs.open_log_file(tmp_path)
    logging.getLogger("potionpi.test").warning("the beam flickered at 21:04")
    watch = FirmwareWatch(table)
    app.extensions["potionpi"].extras["service"] = {
        "data_dir": tmp_path, "firmware": watch, "urls": ["http://192.168.1.20:8080/"]}
    yield watch
    logs.close_log_file(handler)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def typed_address(page: str) -> str:
    """The address /join says to type, as the phone shows it (its parts joined)."""
    strong = re.search(r'<strong class="address">(.*?)</strong>', page).group(1)
    return re.sub(r"<[^>]+>", "", strong)


def test_join_shows_the_table_name_this_screen_used_as_qr(app, client):
    app.extensions["potionpi"].names = TableNames(["games.home.arpa"])
    page = client.get("/join", base_url="http://games.home.arpa:8080").get_data(as_text=True)
    assert typed_address(page) == "http://games.home.arpa:8080/"
    assert "<svg" in page and 'aria-label="QR code of http://games.home.arpa:8080/"' in page
    # a name that is not the table's gets no page at all (DNS rebinding)
    response = client.get("/join", base_url="http://rebind.evil.example:8080")
    assert response.status_code == 421 and b"only to its own names" in response.data
    # ... and says where the table is: its own address and port, not the foreign name
    address = discovery.lan_address() or "127.0.0.1"
    assert f"open it as http://{address}:8080/)".encode() in response.data
    assert b"rebind" not in response.data


def test_join_on_the_pis_own_screen_shows_the_network_address(client, owned):
    page = client.get("/join", base_url="http://127.0.0.1:8080").get_data(as_text=True)
    address = discovery.lan_address() or "127.0.0.1"
    assert typed_address(page) == f"http://{address}:8080/"


def test_join_breaks_the_address_only_between_its_parts(app, client):
    app.extensions["potionpi"].names = TableNames(["games.home.arpa"])
    page = client.get("/join", base_url="http://games.home.arpa:8765").get_data(as_text=True)
    strong = re.search(r'<strong class="address">(.*?)</strong>', page).group(1)
    assert strong == ("<span>http://</span><wbr><span>games.home.arpa</span><wbr><span>:8765</span>"
                      "<wbr><span>/</span>")


def test_settings_need_the_pin(client, owned):
    page = client.get("/settings")
    assert page.status_code == 200 and 'name="pin"' in page.get_data(as_text=True)
    for path in ("/settings/log", "/settings/export"):
        locked = client.get(path)
        assert locked.status_code == 401 and "Enter the table PIN" in locked.get_data(as_text=True)


def test_wrong_pin_is_refused_and_counted(client, owned):
    token = csrf_of(client.get("/settings").get_data(as_text=True))
    wrong = client.post("/settings", data={"pin": "0000", "csrf": token})
    assert wrong.status_code == 401
    assert "That is not the table PIN (4 tries left this minute)." in wrong.get_data(as_text=True)
    stale = client.post("/settings", data={"pin": PIN, "csrf": "old"})
    assert stale.status_code == 403 and "out of date" in stale.get_data(as_text=True)
    assert client.get("/settings/log").status_code == 401


def test_owner_downloads_the_log_and_every_game(client, owned, table):
    table.start("mirakel-mix", ["Ann", "Ben"], seed=3)
    token = csrf_of(client.get("/settings").get_data(as_text=True))
    page = client.post("/settings", data={"pin": PIN, "csrf": token}).get_data(as_text=True)
    assert "Download the log" in page and "Download every game" in page

    log = client.get("/settings/log")
    assert log.status_code == 200
    assert log.headers["Content-Disposition"].startswith('attachment; filename="potionpi-')
    assert b"the beam flickered at 21:04" in log.data

    export = client.get("/settings/export")
    data = json.loads(export.data)
    assert export.headers["Content-Disposition"].endswith('.json"')
    assert data["games"][0]["game"] == "mirakel-mix" and data["games"][0]["players"] == ["Ann", "Ben"]


def test_the_running_games_log_is_withheld_until_it_is_over(client, owned, table):
    table.start("mirakel-mix", ["Ann", "Ben"], seed=3)       # replaced: its log may go
    table.start("mirakel-mix", ["Cem", "Dana"], seed=4)      # still being played
    download = client.get("/settings/export", headers=AUTH).data
    running, replaced = json.loads(download)["games"]
    assert running["players"] == ["Cem", "Dana"] and running["actions"] is None
    assert "still being played" in running["actions_withheld"]
    # the seed deals every hidden card again: not while the game is on the table (issue 22)
    assert running["seed"] is None and b'"seed": 4' not in download
    assert replaced["actions"] == [] and replaced["seed"] == 3


def test_scripts_use_the_pin_header(client, owned):
    assert client.get("/settings/export", headers=AUTH).status_code == 200


def test_older_pico_firmware_is_shown(client, owned):
    owned({"link": {"firmware": "0.9.0"}})        # the floor's status as the Pico connects
    state = client.get("/api/v1/firmware").get_json()
    assert state == {"host": owned.host, "pico": "0.9.0", "older": True}
    page = client.get("/settings", headers=AUTH).get_data(as_text=True)
    assert "older: run <code>potionpi update</code>" in page


def test_older_pico_firmware_is_a_notice_to_the_tablets(table, owned):
    seen = []
    table_notice = table.notice
    table.notice = lambda n: (seen.append(n), table_notice(n))
    owned({"link": {"firmware": "0.9.0"}})
    owned({"link": {"firmware": "0.9.0"}})        # told once, not on every status
    import time
    deadline = time.monotonic() + 2
    while not seen and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    assert len(seen) == 1 and seen[0]["kind"] == "firmware"
    assert "runs firmware 0.9.0, older than" in seen[0]["message"]
