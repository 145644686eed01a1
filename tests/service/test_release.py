"""Updating the image's potionpi from a file: bad files refused with a sentence, a good one
switched to, a broken one rolled back with the games as they were.

The releases here are real potionpi source trees (the repo's, copied, with the version
changed or a module broken) started as real daemons; the service manager is a small
process runner in place of systemd (the image test, `make image-test`, runs the real
systemd unit and the real pip install in the booted image)."""
from __future__ import annotations

import http.client
import io
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from controller import __version__
from controller.service import release
from controller.service.release import BadUpdate, Layout

REPO = Path(__file__).resolve().parents[2]


def wheel(folder: Path, version: str = "9.9.9", *, name: str = "potionpi",
          file_version: str | None = None) -> Path:
    """A wheel as pip builds it (METADATA, WHEEL, RECORD), with one module."""
    path = folder / f"potionpi-{file_version or version}-py3-none-any.whl"
    dist = f"potionpi-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("controller/__init__.py", f'__version__ = "{version}"\n')
        z.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        z.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\nTag: py3-none-any\n")
        z.writestr(f"{dist}/RECORD", "")
    return path


def archive(folder: Path, members: dict[str, bytes]) -> Path:
    path = folder / "potionpi-9.9.9-bookworm-arm64.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_a_good_wheel_and_a_release_archive_are_read(tmp_path):
    package, folder = release.inspect(wheel(tmp_path), "potionpi-9.9.9-py3-none-any.whl")
    assert (package.kind, package.version, folder) == ("wheel", "9.9.9", None)
    own = wheel(tmp_path).read_bytes()
    path = archive(tmp_path, {"potionpi-9.9.9/potionpi-9.9.9-py3-none-any.whl": own,
                              "potionpi-9.9.9/flask-3.1.0-py3-none-any.whl": b"PK",
                              "potionpi-9.9.9/RELEASE.txt": b"potionpi 9.9.9\n"})
    package, folder = release.inspect(path, path.name)
    try:
        assert package.kind == "archive" and package.wheels == ["flask-3.1.0-py3-none-any.whl"]
        assert sorted(p.name for p in folder.iterdir()) == [
            "flask-3.1.0-py3-none-any.whl", "potionpi-9.9.9-py3-none-any.whl"]
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("make, sentence", [
    (lambda d: (d / "notes.txt").write_text("hi") and d / "notes.txt",
     "is neither a potionpi wheel (.whl) nor a release archive"),
    (lambda d: (d / "potionpi-1.0-py3-none-any.whl").write_bytes(b"not a zip") and
     d / "potionpi-1.0-py3-none-any.whl", "is not a wheel: it is not a zip file"),
    (lambda d: wheel(d, name="flask"), "is the package 'flask', not potionpi"),
    (lambda d: wheel(d, "9.9.9", file_version="9.9.8"), "its name and its contents disagree"),
    (lambda d: shutil.copy(wheel(d), d / "requests-2.0-py3-none-any.whl") and
     d / "requests-2.0-py3-none-any.whl", "is not a potionpi wheel"),
    (lambda d: archive(d, {"x/setup.sh": b"rm -rf /"}), "which is not a wheel"),
    (lambda d: archive(d, {"x/flask-3.1.0-py3-none-any.whl": b"PK"}), "holds 0 potionpi wheels"),
])
def test_bad_files_are_refused_with_a_sentence(tmp_path, make, sentence):
    path = make(tmp_path)
    with pytest.raises(BadUpdate) as err:
        release.inspect(path, path.name)
    assert sentence in str(err.value) and err.value.status == 400


def test_an_archive_entry_that_is_a_link_is_refused(tmp_path):
    path = tmp_path / "potionpi-9.9.9.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("x/potionpi-9.9.9-py3-none-any.whl")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/shadow"
        tar.addfile(info)
    with pytest.raises(BadUpdate, match="which is not a wheel"):
        release.inspect(path, path.name)


@pytest.mark.parametrize("version, sentence", [
    (__version__, f"potionpi {__version__} is already installed"),
    ("0.0.1", f"older than the installed {__version__}"),
])
def test_the_same_or_an_older_version_is_refused(tmp_path, version, sentence):
    package, _ = release.inspect(wheel(tmp_path, version), f"potionpi-{version}-py3-none-any.whl")
    with pytest.raises(BadUpdate) as err:
        release.refuse_version(package, __version__)
    assert sentence in str(err.value) and err.value.status == 409


# --- install and roll back, with real daemons -----------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def health(port: int) -> dict | None:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/healthz")
        body = json.loads(conn.getresponse().read())
        conn.close()
        return body
    except (OSError, ValueError):
        return None


class Runner:
    """Starts ``current/bin/potionpi run --sim`` as systemd would start the unit."""

    def __init__(self, layout: Layout, port: int):
        self.layout, self.port = layout, port
        self.proc: subprocess.Popen | None = None
        self.config = layout.opt / "potionpi.toml"
        self.config.write_text('[table]\npin = "4711"\n')

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.proc = None

    def start(self) -> str | None:
        if self.proc is not None and self.proc.poll() is None:
            return None                        # as `systemctl start` of an active unit
        self.proc = subprocess.Popen(
            [str(self.layout.current / "bin" / "potionpi"), "run", "--sim", "--host", "127.0.0.1",
             "--port", str(self.port), "--data-dir", str(self.layout.data_dir),
             "--config", str(self.config)],
            cwd=self.layout.data_dir,          # the unit's WorkingDirectory
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        end = time.monotonic() + 90
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                last = (self.proc.stderr.read() if self.proc.stderr else "").strip().splitlines()
                return f"it exited with status {self.proc.returncode}: {last[-1] if last else ''}"
            if health(self.port) is not None:
                return None
            time.sleep(0.2)
        return "it did not answer within 90 s"

    def healthy(self, version: str) -> str | None:
        body = health(self.port)
        if body is None:
            return "/healthz did not answer"
        return None if body["version"] == version else f"it answers as {body['version']}"

    def flash_if_older(self) -> str | None:
        return None


def source_release(target: Path, version: str, *, broken: str = "") -> None:
    """A potionpi release made from this repo's code: its version set, or a module broken."""
    for package in ("controller", "web_ui"):
        shutil.copytree(REPO / package, target / "src" / package, symlinks=False,
                        ignore=shutil.ignore_patterns("__pycache__"))
    init = target / "src/controller/__init__.py"
    init.write_text(init.read_text().replace(f'"{__version__}"', f'"{version}"'))
    if broken:
        (target / "src" / broken).write_text("raise SystemExit('a broken potionpi')\n")
    bin_dir = target / "bin"
    bin_dir.mkdir()
    script = bin_dir / "potionpi"
    script.write_text(f"#!/bin/sh\nPYTHONPATH={target / 'src'} exec {sys.executable} "
                      "-m controller.cli \"$@\"\n")
    script.chmod(0o755)


@pytest.fixture
def table(tmp_path):
    """An image-like /opt with the running release, its daemon started, one game played."""
    layout = Layout(opt=tmp_path / "opt", data_dir=tmp_path / "data", owner=None)
    layout.releases.mkdir(parents=True)
    layout.data_dir.mkdir()
    source_release(layout.releases / __version__, __version__)
    os.symlink(f"releases/{__version__}", layout.current)
    runner = Runner(layout, free_port())
    assert runner.start() is None
    conn = http.client.HTTPConnection("127.0.0.1", runner.port, timeout=10)
    conn.request("POST", "/api/v1/session", json.dumps({"game": "mirakel-mix", "players": ["Ann", "Ben"]}),
                 {"Content-Type": "application/json", "X-Table-Pin": "4711"})
    game = json.loads(conn.getresponse().read())
    conn.close()
    yield layout, runner, game
    runner.stop()


def stage_from_source(*, broken: str = "", fail: str = ""):
    def stage(layout, wheel_path, package, wheels, target):
        if fail:
            return fail
        source_release(target, package.version, broken=broken)
        return None
    return stage


def session(port: int) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/api/v1/session")
    body = json.loads(conn.getresponse().read())
    conn.close()
    return body


def test_a_good_update_is_switched_to_and_keeps_the_game(table, tmp_path):
    layout, runner, game = table
    out = io.StringIO()
    code = release.install_file(layout, runner, wheel(tmp_path, "9.9.9"), out,
                                stage=stage_from_source())
    assert code == 0, out.getvalue()
    assert layout.installed() == "9.9.9" and os.readlink(layout.previous).endswith(__version__)
    assert health(runner.port)["version"] == "9.9.9"
    assert session(runner.port)["id"] == game["id"]            # the game goes on
    status = release.Status.load(layout.spool)
    assert status.state == "installed" and f"it replaced {__version__}" in status.message


def test_a_broken_update_rolls_back_and_the_games_are_as_they_were(table, tmp_path):
    layout, runner, game = table
    database = layout.data_dir / "potionpi.sqlite3"
    out = io.StringIO()
    code = release.install_file(layout, runner, wheel(tmp_path, "9.9.9"), out,
                                stage=stage_from_source(broken="controller/daemon.py"))
    assert code == 1
    assert layout.installed() == __version__ and not (layout.releases / "9.9.9").exists()
    assert health(runner.port)["version"] == __version__       # the old one runs again
    assert session(runner.port)["id"] == game["id"]
    status = release.Status.load(layout.spool)
    assert status.state == "rolled-back"
    assert "potionpi 9.9.9 did not come up (it exited with status 1: a broken potionpi)" in status.message
    assert f"so {__version__} runs again with the same games" in status.message
    with sqlite3.connect(database) as db:
        assert db.execute("pragma integrity_check").fetchone() == ("ok",)


def test_a_new_version_that_damages_the_database_and_dies_gets_the_old_database_back(table, tmp_path):
    layout, runner, game = table
    database = layout.data_dir / "potionpi.sqlite3"
    runner.stop()
    with sqlite3.connect(database) as db:
        before = db.execute("select count(*) from sqlite_master").fetchone()
    assert runner.start() is None

    def stage(layout_, wheel_path, package, wheels, target):
        source_release(target, package.version, broken="controller/daemon.py")
        # the new code "migrates" the schema before it dies
        daemon = target / "src/controller/daemon.py"
        daemon.write_text(f"import sqlite3\nsqlite3.connect({str(database)!r}).execute("
                          "'create table migrated (x)').connection.commit()\n"
                          "raise SystemExit('a broken potionpi')\n")
        return None

    assert release.install_file(layout, runner, wheel(tmp_path), io.StringIO(), stage=stage) == 1
    runner.stop()
    with sqlite3.connect(database) as db:
        assert db.execute("select count(*) from sqlite_master").fetchone() == before
        assert db.execute("select count(*) from sqlite_master where name = 'migrated'").fetchone() == (0,)


def test_a_wheel_pip_cannot_install_changes_nothing(table, tmp_path):
    layout, runner, _ = table
    pid = runner.proc.pid
    out = io.StringIO()
    code = release.install_file(layout, runner, wheel(tmp_path), out,
                                stage=stage_from_source(fail="pip could not install it (No matching distribution)"))
    assert code == 1 and layout.installed() == __version__
    assert runner.proc.pid == pid                               # never stopped
    assert not layout.previous.exists() and not (layout.releases / "9.9.9").exists()
    status = release.Status.load(layout.spool)
    assert status.state == "failed" and status.message.endswith("; nothing was changed")


def test_the_page_request_is_taken_once_by_the_root_side(tmp_path):
    layout = Layout(opt=tmp_path / "opt", data_dir=tmp_path / "data", owner=None)
    layout.spool.mkdir(parents=True)
    upload = wheel(tmp_path)
    package, _ = release.inspect(upload, upload.name)
    status = release.request(layout.spool, upload, package, "0.1.0")
    assert status.state == "waiting" and status.busy
    with pytest.raises(BadUpdate, match="is being installed; wait until it is done"):
        release.request(layout.spool, wheel(tmp_path), package, "0.1.0")
    assert release.take_request(layout) == layout.spool / upload.name
    assert release.take_request(layout) is None


# --- an install systemd stopped (potionpi-update.service's ExecStopPost) -------------
def left_installing(layout: Layout, minutes_ago: float, boot: str | None = None) -> None:
    """The status the updater leaves when it is killed mid-install."""
    release.Status("installing", "9.9.9", __version__, "installing potionpi 9.9.9 beside "
                   f"{__version__}", time.time(), release.boot_id() if boot is None else boot,
                   time.monotonic() - minutes_ago * 60).save(layout.spool)


def test_an_install_stopped_after_the_switch_is_switched_back_and_says_so(table, tmp_path):
    layout, runner, game = table
    database = layout.data_dir / "potionpi.sqlite3"
    source_release(layout.releases / "9.9.9", "9.9.9")
    left_installing(layout, minutes_ago=30)
    runner.stop()                              # what _install did before the time limit hit
    release._copy_db(database, layout.spool / "before-9.9.9.sqlite3")
    release._point(layout.current, layout.releases / "9.9.9")
    release._point(layout.previous, layout.releases / __version__)
    assert runner.start() is None and health(runner.port)["version"] == "9.9.9"
    out = io.StringIO()
    assert release.after_stop(out, {"SERVICE_RESULT": "timeout"}, layout=layout, service=runner) == 0
    assert layout.installed() == __version__ and health(runner.port)["version"] == __version__
    assert session(runner.port)["id"] == game["id"]
    assert not (layout.releases / "9.9.9").exists()
    assert not (layout.spool / "before-9.9.9.sqlite3").exists()
    status = release.Status.load(layout.spool)
    assert status.state == "failed" and not status.busy
    assert status.message == ("the install of potionpi 9.9.9 was stopped after 30 minutes (it "
                              "took longer than the update service allows); potionpi "
                              f"{__version__} is still running; try again")
    upload = wheel(tmp_path)                   # and the next update is taken
    package, _ = release.inspect(upload, upload.name)
    assert release.request(layout.spool, upload, package, __version__).state == "waiting"


def test_an_install_killed_during_pip_keeps_the_table_running_and_is_marked_failed(table):
    layout, runner, _ = table
    pid = runner.proc.pid
    (layout.releases / "9.9.9" / "lib").mkdir(parents=True)      # pip's half-made venv
    left_installing(layout, minutes_ago=4)
    assert release.after_stop(io.StringIO(), {"SERVICE_RESULT": "oom-kill"}, layout=layout,
                              service=runner) == 0
    assert runner.proc.pid == pid and layout.installed() == __version__   # never restarted
    assert not (layout.releases / "9.9.9").exists()
    status = release.Status.load(layout.spool)
    assert status.state == "failed" and "stopped after 4 minutes (the Pi ran out of memory); " \
        f"potionpi {__version__} is still running; try again" in status.message


def test_after_stop_leaves_an_install_that_said_how_it_ended_alone(tmp_path):
    layout = Layout(opt=tmp_path / "opt", data_dir=tmp_path / "data", owner=None)
    release.Status("rolled-back", "9.9.9", "0.1.0", "potionpi 9.9.9 did not come up").save(layout.spool)
    before = (layout.spool / release.STATUS).read_text()
    for result in ("success", "exit-code"):       # exit 1: it rolled back and said so
        assert release.after_stop(io.StringIO(), {"SERVICE_RESULT": result}, layout=layout,
                                  service=None) == 0
    assert (layout.spool / release.STATUS).read_text() == before


@pytest.mark.parametrize("minutes_ago, boot, why", [
    ((release.INSTALL_TIMEOUT + release.STALE_MARGIN) / 60 + 1, None, "it ran past its time limit"),
    (1, "another-boot", "the Pi restarted"),
])
def test_an_install_no_one_can_still_be_running_is_shown_failed(tmp_path, minutes_ago, boot, why):
    layout = Layout(opt=tmp_path / "opt", data_dir=tmp_path / "data", owner=None)
    left_installing(layout, minutes_ago, boot)
    shown = release.Status.load(layout.spool).settled("9.9.9")
    assert shown.state == "failed" and not shown.busy
    assert shown.message == (f"the install of potionpi 9.9.9 did not finish ({why}); potionpi "
                             "9.9.9 is running; try again")        # cut off after the switch


def test_an_install_still_within_its_time_is_busy(tmp_path):
    layout = Layout(opt=tmp_path / "opt", data_dir=tmp_path / "data", owner=None)
    left_installing(layout, minutes_ago=release.INSTALL_TIMEOUT / 60 - 1)
    assert release.Status.load(layout.spool).settled().busy


def test_the_update_unit_gives_pip_the_updaters_time_and_runs_the_stop_hook():
    unit = (REPO / "image/files/etc/systemd/system/potionpi-update.service").read_text()
    assert f"\nTimeoutStartSec={release.INSTALL_TIMEOUT}\n" in unit
    assert "\nExecStopPost=/usr/bin/python3 -I /usr/lib/potionpi/updater/release.py --after-stop\n" in unit
