"""Which UART the TMC2209 is on, which device class the service needs for it, and what a
maker is told when it does not open (issue 25): a stand-in root with a model name,
/dev links and /proc/devices as a Pi 4 and a Pi 5 have them."""
from __future__ import annotations

import errno
from pathlib import Path

import pytest

from controller.devices import uart
from controller.devices.tmc2209 import Tmc2209Error, open_port

PROC_DEVICES = """Character devices:
  1 mem
  4 /dev/vc/0
  4 tty
  4 ttyS
  5 /dev/tty
188 ttyUSB
204 ttyAMA
254 gpiochip

Block devices:
  8 sd
204 blk204
"""


def a_pi(tmp_path: Path, model: str, serial0: str) -> Path:
    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/model").write_bytes(model.encode() + b"\0")
    (tmp_path / "proc/devices").write_text(PROC_DEVICES)
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / serial0).touch()
    (tmp_path / "dev/serial0").symlink_to(serial0)
    return tmp_path


def test_on_a_pi_5_serial0_is_the_debug_connector_and_is_refused_with_the_fix(tmp_path):
    root = a_pi(tmp_path, "Raspberry Pi 5 Model B Rev 1.0", "ttyAMA10")
    problem = uart.uart_problem("/dev/serial0", root)
    assert problem and "debug connector (ttyAMA10), not GPIO14/15" in problem
    assert '"/dev/ttyAMA0"' in problem and "uart0-pi5" in problem
    assert uart.uart_problem("/dev/ttyAMA0", root) is None


def test_on_a_pi_4_serial0_is_gpio14_15(tmp_path):
    root = a_pi(tmp_path, "Raspberry Pi 4 Model B Rev 1.4", "ttyS0")
    assert uart.uart_problem("/dev/serial0", root) is None
    assert uart.resolved_name("/dev/serial0", root) == "ttyS0"


@pytest.mark.parametrize("name,classes", [
    ("/dev/ttyAMA0", ["char-ttyAMA"]), ("/dev/ttyS0", ["char-ttyS"]), ("/dev/ttyUSB1", ["char-ttyUSB"]),
    ("/dev/serial0", ["char-ttyAMA", "char-ttyS"]),      # an alias that is not there to follow
    ("loop://", [])])
def test_the_device_class_follows_the_device_name_where_there_is_no_node(tmp_path, name, classes):
    assert uart.device_classes(name, tmp_path) == classes


def test_the_device_class_comes_from_the_nodes_major_where_there_is_one(monkeypatch, tmp_path):
    root = a_pi(tmp_path, "Raspberry Pi 4 Model B", "ttyAMA0")

    class Node:                          # a character device 204:0, as /dev/ttyAMA0 is
        st_rdev = (204 << 8) | 0
    monkeypatch.setattr(Path, "stat", lambda self, **kw: Node())
    assert uart.device_classes("/dev/serial0", root) == ["char-ttyAMA"]


def test_each_way_of_failing_to_open_names_its_own_fix(monkeypatch, tmp_path):
    root = a_pi(tmp_path, "Raspberry Pi 4 Model B", "ttyS0")
    missing = OSError(errno.ENOENT, "No such file or directory")
    assert "does not exist: enable the serial port's hardware" in uart.open_failure("/dev/x", missing, root)
    monkeypatch.setenv("INVOCATION_ID", "1")                   # under systemd: the unit's policy
    denied = OSError(errno.EPERM, "Operation not permitted")
    assert "run `sudo potionpi install` again" in uart.open_failure("/dev/ttyS0", denied, root)
    monkeypatch.delenv("INVOCATION_ID")
    no_group = OSError(errno.EACCES, "Permission denied")
    assert "dialout group" in uart.open_failure("/dev/ttyS0", no_group, root)
    pi5 = a_pi(tmp_path / "five", "Raspberry Pi 5 Model B", "ttyAMA10")
    assert '"/dev/ttyAMA0"' in uart.open_failure("/dev/ttyAMA0", missing, pi5)


def test_opening_a_uart_that_is_not_there_says_how_to_enable_it(tmp_path):
    with pytest.raises(Tmc2209Error, match="does not exist: enable the serial port's hardware"):
        open_port(str(tmp_path / "ttyAMA0"))
