"""The firmware's outbox: replies wait here while USB cannot take them (firmware/outbox.py)."""
from __future__ import annotations

import importlib.util

from controller.devices.sim_pico import find_firmware_dir


def outbox_module():
    spec = importlib.util.spec_from_file_location("fw_outbox", find_firmware_dir() / "outbox.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def drain(box, limit=10**6):
    out = bytearray()
    while box.waiting() and limit:
        out.append(box.pop())
        limit -= 1
    return bytes(out)


def test_frames_come_out_whole_and_in_order_across_the_wrap():
    box = outbox_module().Outbox(16)
    assert box.send(b"\x00abcde\x00") and box.send(b"\x00fg\x00")
    assert drain(box, 9) == b"\x00abcde\x00\x00f"
    assert box.send(b"\x00hijklmn\x00")          # wraps round the end of the ring
    assert drain(box) == b"g\x00\x00hijklmn\x00"
    assert box.dropped == 0


def test_a_host_that_does_not_read_costs_whole_frames_never_torn_ones():
    box = outbox_module().Outbox(16)
    assert box.send(b"\x00status1\x00")          # 9 bytes
    assert not box.send(b"\x00status2\x00")      # would not fit: dropped whole, counted
    assert box.dropped == 1 and box.waiting() == 9
    assert drain(box) == b"\x00status1\x00"       # what is on the wire is one whole frame
    assert box.send(b"\x00status3\x00")
    assert drain(box) == b"\x00status3\x00"
