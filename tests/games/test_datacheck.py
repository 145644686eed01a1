"""A game file someone broke is said when the table starts (file, line and what is wrong),
and a start after one that read them all reads only what changed."""
from __future__ import annotations

import os
import shutil

import pytest

from controller import cli, games
from controller.games import datacheck


def test_every_installed_games_files_read_well_and_are_then_remembered(tmp_path):
    files = datacheck.game_files()
    assert {f.parent.name for f in files} == {p.package.rsplit(".", 1)[1] for p in games.plugins().values()}
    assert {f.name for f in files} >= {"data.toml", "log.toml"}
    assert datacheck.check(tmp_path) == len(files)
    assert datacheck.check(tmp_path) == 0                  # the next start only looks at them


def test_a_changed_file_is_read_again_and_a_broken_one_named_with_its_line(tmp_path):
    data = tmp_path / "game" / "data.toml"
    data.parent.mkdir()
    shutil.copy(games.plugin("mix-it").static_dir().parent / "data.toml", data)
    keep = tmp_path / "data"
    keep.mkdir()
    assert datacheck.check(keep, [data]) == 1 and datacheck.check(keep, [data]) == 0
    data.write_text(data.read_text() + "\nbroken = = 3\n")
    with pytest.raises(datacheck.BadGameData) as bad:
        datacheck.check(keep, [data])
    assert str(data) in str(bad.value) and "line" in str(bad.value) and "not valid TOML" in str(bad.value)
    with pytest.raises(datacheck.BadGameData):              # still said at the next start
        datacheck.check(keep, [data])


@pytest.mark.parametrize("players", ["", "[players]\nmin = 2\n", "[players]\nmin = 5\nmax = 4\n",
                                     "[players]\nmin = 2\nmax = \"4\"\n"])
def test_a_data_file_whose_player_counts_the_lobby_cannot_read_is_refused(tmp_path, players):
    data = tmp_path / "data.toml"
    data.write_text(f"title = \"x\"\n{players}")
    with pytest.raises(datacheck.BadGameData) as bad:
        datacheck.check(tmp_path, [data])
    assert "[players]" in str(bad.value) and "min <= max" in str(bad.value)


def test_a_kept_record_that_cannot_be_read_or_written_only_means_reading_again(tmp_path):
    data = tmp_path / "log.toml"
    data.write_text("[words]\nyou = \"you\"\n")
    (tmp_path / datacheck.CHECKED_FILE).write_bytes(b"\xff not json")
    assert datacheck.check(tmp_path, [data]) == 1 and datacheck.check(tmp_path, [data]) == 0
    assert datacheck.check(tmp_path / "missing", [data]) == 1      # nowhere to keep it: read each time
    os.utime(data, ns=(1, 1))                                      # touched: read again
    assert datacheck.check(tmp_path, [data]) == 1


def test_potionpi_run_stops_at_start_with_the_broken_game_file(tmp_path, monkeypatch, capsys):
    broken = tmp_path / "data.toml"
    broken.write_text("[players]\nmin = 2\nmax = = 4\n")
    monkeypatch.setattr(datacheck, "game_files", lambda: [broken])
    assert cli.main(["run", "--sim", "--port", "0", "--data-dir", str(tmp_path / "table")]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert f"potionpi: the game file {broken} is not valid TOML" in err and "line 3" in err
    assert not (tmp_path / "table" / "potionpi.sqlite3").exists()       # nothing was opened
