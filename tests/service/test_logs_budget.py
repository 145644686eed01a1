"""Lines clients can cause reach the log file at a bounded rate (issue 22)."""
from __future__ import annotations

import logging

from controller.service.logs import ClientLogBudget, close_log_file, open_log_file


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def record(name: str, msg: str, exc=None) -> logging.LogRecord:
    return logging.LogRecord(name, logging.WARNING, __file__, 1, msg, None, exc)


def test_a_burst_then_one_line_per_interval_and_the_count_of_what_was_left_out():
    clock = Clock()
    budget = ClientLogBudget(burst=5, every=10.0, clock=clock)
    kept = [budget.admit(record("waitress", f"bad {n}")) for n in range(50)]
    assert sum(r is not None for r in kept) == 5
    clock.now += 10
    line = budget.admit(record("web_ui.hosts", "one more"))
    assert line.getMessage() == "one more (and 45 earlier line(s) of clients' requests left out of this log)"
    # the table's own lines are never held back
    assert all(budget.admit(record("controller.table", "a device could not do that")) for _ in range(100))


def test_a_traceback_is_written_once_per_place():
    budget = ClientLogBudget(burst=100)
    try:
        {}["x"]
    except KeyError as exc:
        info = (KeyError, exc, exc.__traceback__)
    first = budget.admit(record("web_ui.errors", "unexpected error on GET /x", info))
    again = budget.admit(record("web_ui.errors", "unexpected error on GET /y", info))
    assert first.exc_info is not None
    assert again.exc_info is None and again.getMessage().startswith("unexpected error on GET /y: KeyError")
    original = record("web_ui.errors", "kept whole for the other handlers", info)
    budget.admit(original)
    assert original.exc_info is not None                      # a copy was changed, not the record


def test_the_log_file_keeps_the_owners_lines_through_a_flood(tmp_path):
    handler = open_log_file(tmp_path)
    try:
        logging.getLogger("potionpi.test").warning("the beam flickered")
        for n in range(5000):
            logging.getLogger("waitress").info("Client disconnected while serving /x%d", n)
    finally:
        close_log_file(handler)
    text = (tmp_path / "potionpi.log").read_text()
    assert "the beam flickered" in text and text.count("Client disconnected") <= 40


def test_a_clients_long_line_is_cut():
    line = ClientLogBudget().admit(record("waitress", "Client disconnected while serving /" + "a" * 8000))
    assert len(line.getMessage()) < 400 and line.getMessage().endswith("(8035 characters)")
