"""An idle daemon sleeps: with a game on the table and two tablets watching, it uses
next to no CPU (issue 16: the event loop once spun at 18 s of CPU a minute).

Counted in CPU ticks from /proc (what the process used), not wall time; generous."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.e2e.daemon_proc import DaemonProcess
from tests.web.sse import SSEClient

pytestmark = pytest.mark.slow

WATCH_SECONDS = 4


def cpu_ticks(pid: int) -> int:
    """utime + stime of the process (all its threads), in clock ticks."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def test_an_idle_daemon_with_two_open_streams_uses_next_to_no_cpu(tmp_path):
    d = DaemonProcess(tmp_path).start()
    tablets = []
    try:
        status, _ = d.request("POST", "/api/v1/session",
                              {"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": 7})
        assert status == 201
        tablets = [SSEClient(d.url), SSEClient(d.url)]
        for tablet in tablets:
            assert tablet.next_event()["data"]["version"] == 0
        time.sleep(1.0)                       # start-up work (imports, first requests) done
        before = cpu_ticks(d.proc.pid)
        time.sleep(WATCH_SECONDS)
        used = (cpu_ticks(d.proc.pid) - before) / os.sysconf("SC_CLK_TCK")
        # a spinning loop used ~1.2 s of these 4; sleeping threads use ~0
        assert used < 0.1 * WATCH_SECONDS, f"idle daemon used {used:.2f} s CPU in {WATCH_SECONDS} s"
    finally:
        for tablet in tablets:
            tablet.close()
        d.terminate()
