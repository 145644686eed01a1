"""Calibration results are written into the maker's config file, comments kept."""
from __future__ import annotations

import pytest

from controller.calibrate import calibrate, save
from controller.cli import UsageError
from controller.config import Config, ConfigError


def test_save_keeps_comments_and_loads_again(tmp_path):
    path = tmp_path / "potionpi.toml"
    path.write_text("# my table\n[web]\nport = 9000  # the kitchen tablet\n")
    save(path, "forest_floor", {"steps_per_ant": 212.5})
    save(path, "cauldron", {"colours": {"red": [0.6, 0.2, 0.2], "blue": [0.2, 0.3, 0.5]}})
    text = path.read_text()
    assert "# my table" in text and "# the kitchen tablet" in text
    config = Config.load(path)
    assert config["forest_floor"]["steps_per_ant"] == 212.5
    assert config["cauldron"]["colours"]["blue"] == [0.2, 0.3, 0.5]
    assert config["web"]["port"] == 9000


def test_calibration_needs_a_config_file_to_save_into():
    with pytest.raises(UsageError, match="--config FILE"):
        calibrate("floor", Config.defaults(), None)


def test_colour_calibration_without_a_sensor_says_what_to_set(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("")
    with pytest.raises(ConfigError, match='colour_sensor = "none"'):
        calibrate("colours", Config.load(path), str(path))
