"""The settings page's update form: the installed version shown, a good file left for the
root service, every bad file a 4xx with a sentence and nothing left behind."""
from __future__ import annotations

import io
import json
import os
import re

import pytest

from controller import __version__
from controller.service import release

from ..service.test_release import archive, wheel
from .helpers import AUTH


@pytest.fixture
def image_table(app, tmp_path):
    """The app as on the SD-card image: releases under a scratch /opt."""
    layout = release.Layout(opt=tmp_path / "opt", data_dir=tmp_path / "data", owner=None)
    (layout.releases / __version__).mkdir(parents=True)
    os.symlink(f"releases/{__version__}", layout.current)
    app.extensions["potionpi"].extras["service"] = {"data_dir": layout.data_dir, "firmware": None,
                                                    "urls": [], "release_layout": layout}
    return layout


def send(client, name: str, data: bytes, headers=AUTH):
    return client.post("/settings/update", headers=headers, content_type="multipart/form-data",
                       data={"package": (io.BytesIO(data), name)})


def leftovers(layout: release.Layout) -> list[str]:
    return sorted(p.name for p in layout.spool.iterdir()) if layout.spool.exists() else []


def test_the_settings_page_shows_the_version_and_the_form(client, image_table):
    page = client.get("/settings", headers=AUTH).get_data(as_text=True)
    assert f"<dd>{__version__}" in page
    assert 'action="/settings/update"' in page and 'enctype="multipart/form-data"' in page
    assert 'name="package"' in page and "goes back to" in page


def test_a_good_wheel_is_left_for_the_root_service(client, image_table, tmp_path):
    answer = send(client, "potionpi-9.9.9-py3-none-any.whl", wheel(tmp_path).read_bytes())
    assert answer.status_code == 202
    assert "potionpi 9.9.9 is being installed" in answer.get_data(as_text=True)
    request = json.loads((image_table.spool / release.REQUEST).read_text())
    assert request == {"file": "potionpi-9.9.9-py3-none-any.whl", "version": "9.9.9"}
    assert leftovers(image_table) == ["potionpi-9.9.9-py3-none-any.whl", "request.json", "status.json"]
    # a second one while the first is being installed
    again = send(client, "potionpi-9.9.9-py3-none-any.whl", wheel(tmp_path).read_bytes())
    assert again.status_code == 409 and "is being installed; wait until it is done" in again.get_data(as_text=True)


@pytest.mark.parametrize("name, make, status, sentence", [
    ("notes.txt", lambda d: b"hello", 400, "is neither a potionpi wheel (.whl) nor a release archive"),
    ("potionpi-9.9.9-py3-none-any.whl", lambda d: b"not a zip", 400, "it is not a zip file"),
    ("potionpi-9.9.9.tar.gz", lambda d: archive(d, {"x/run.sh": b"#!/bin/sh"}).read_bytes(), 400,
     "which is not a wheel"),
    (f"potionpi-{__version__}-py3-none-any.whl", lambda d: wheel(d, __version__).read_bytes(), 409,
     "is already installed"),
    ("potionpi-0.0.1-py3-none-any.whl", lambda d: wheel(d, "0.0.1").read_bytes(), 409, "older than the installed"),
])
def test_a_bad_file_gets_a_sentence_and_changes_nothing(client, image_table, tmp_path, name, make,
                                                        status, sentence):
    answer = send(client, name, make(tmp_path))
    page = answer.get_data(as_text=True)
    assert answer.status_code == status and sentence in page and "Nothing was changed." in page
    assert leftovers(image_table) == []
    assert "Traceback" not in page


def test_no_file_no_pin_no_token(client, image_table, tmp_path):
    none = client.post("/settings/update", headers=AUTH, content_type="multipart/form-data", data={})
    assert none.status_code == 400 and "Pick a file first" in none.get_data(as_text=True)
    locked = send(client, "potionpi-9.9.9-py3-none-any.whl", wheel(tmp_path).read_bytes(), headers={})
    assert locked.status_code == 401 and "Enter the table PIN to update potionpi." in locked.get_data(as_text=True)
    # a browser that unlocked the page must send the form's token with the file
    token = re.search(r'name="csrf" value="([^"]+)"', client.get("/settings").get_data(as_text=True)).group(1)
    assert client.post("/settings", data={"pin": "4711", "csrf": token}).status_code == 200
    stale = client.post("/settings/update", content_type="multipart/form-data",
                        data={"package": (io.BytesIO(wheel(tmp_path).read_bytes()),
                                          "potionpi-9.9.9-py3-none-any.whl"), "csrf": "old"})
    assert stale.status_code == 403 and "out of date" in stale.get_data(as_text=True)
    fresh = client.post("/settings/update", content_type="multipart/form-data",
                        data={"package": (io.BytesIO(wheel(tmp_path).read_bytes()),
                                          "potionpi-9.9.9-py3-none-any.whl"), "csrf": token})
    assert fresh.status_code == 202
    assert leftovers(image_table)[0] == "potionpi-9.9.9-py3-none-any.whl"


def test_a_file_larger_than_any_update_is_413(client, image_table):
    big = b"\0" * (release.MAX_BYTES + 2 * 1024 * 1024)
    answer = send(client, "potionpi-9.9.9-py3-none-any.whl", big)
    assert answer.status_code == 413 and "larger than 64 MB" in answer.get_data(as_text=True)
    assert leftovers(image_table) == []


def test_a_table_installed_with_git_cannot_update_from_a_file(client, app, tmp_path):
    app.extensions["potionpi"].extras["service"] = {
        "data_dir": tmp_path, "firmware": None, "urls": [],
        "release_layout": release.Layout(opt=tmp_path / "no-opt", data_dir=tmp_path)}
    page = client.get("/settings", headers=AUTH).get_data(as_text=True)
    assert 'action="/settings/update"' not in page and "potionpi update" in page
    answer = send(client, "potionpi-9.9.9-py3-none-any.whl", wheel(tmp_path).read_bytes())
    assert answer.status_code == 409 and "run `potionpi update` at its console" in answer.get_data(as_text=True)


def test_the_last_update_shows_on_the_settings_page(client, image_table):
    release.Status("rolled-back", "9.9.9", __version__,
                   f"potionpi 9.9.9 did not come up (it exited), so {__version__} runs again "
                   "with the same games").save(image_table.spool)
    page = client.get("/settings", headers=AUTH).get_data(as_text=True)
    assert "potionpi 9.9.9 did not come up (it exited)" in page and "⚠" in page


def test_an_install_left_installing_by_a_power_cut_does_not_block_the_next(client, image_table, tmp_path):
    release.Status("installing", "9.9.8", __version__, "installing potionpi 9.9.8", 1.0,
                   "a-boot-before-the-power-cut", 5.0).save(image_table.spool)
    page = client.get("/settings", headers=AUTH).get_data(as_text=True)
    assert "did not finish (the Pi restarted)" in page and "try again" in page
    answer = send(client, "potionpi-9.9.9-py3-none-any.whl", wheel(tmp_path).read_bytes())
    assert answer.status_code == 202
    assert "potionpi 9.9.9 is being installed" in answer.get_data(as_text=True)
