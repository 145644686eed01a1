"""The daemon's log file in the data dir, beside journald: the tablet's settings page
offers it for download, so nobody needs SSH and ``journalctl`` to send a bug report."""
from __future__ import annotations

import copy
import logging
import logging.handlers
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOG_FILE = "potionpi.log"
MAX_BYTES = 512 * 1024     # small: an SD card, and a file a phone can mail
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


#: loggers whose lines any client on the Wi-Fi can cause (a bad request, a closed socket)
CLIENT_LOGGERS = ("waitress", "web_ui")
#: the longest such line (before its traceback, if it has one)
LINE_MOST = 300


class ClientLogBudget:
    """Lines any client can cause reach the log file at a bounded rate, so a guest who
    sends thousands of bad requests cannot rotate the owner's log away (issue 22).

    A bucket of ``burst`` lines refills by one every ``every`` seconds (on the monotonic
    clock); what does not fit is left out and counted, and the next line that fits says how
    many were left out. A line is cut at ``LINE_MOST`` characters. A traceback is written
    once per place it comes from; the same failure again is one line. Everything else (the table, the devices) passes untouched.
    """

    def __init__(self, burst: int = 40, every: float = 20.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst, self.every, self._clock = burst, every, clock
        self._tokens = float(burst)
        self._at = clock()
        self._left_out = 0
        self._traced: set[tuple[str, str, int]] = set()
        self._lock = threading.Lock()

    def admit(self, record: logging.LogRecord) -> logging.LogRecord | None:
        """The record to write (a copy when changed: other handlers see the original), or
        None to leave it out."""
        if not record.name.startswith(CLIENT_LOGGERS):
            return record
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._at) / self.every)
            self._at = now
            if self._tokens < 1:
                self._left_out += 1
                return None
            self._tokens -= 1
            record = copy.copy(record)
            text = record.getMessage()
            if len(text) > LINE_MOST:            # a path of 8,000 letters is the client's, not ours
                record.msg, record.args = text[:LINE_MOST] + f"… ({len(text)} characters)", None
            if self._left_out:
                record.msg = f"{record.getMessage()} (and {self._left_out} earlier line(s) of clients' " \
                             "requests left out of this log)"
                record.args = None
                self._left_out = 0
            if record.exc_info and record.exc_info[1] is not None:
                tb = record.exc_info[2]
                while tb is not None and tb.tb_next is not None:
                    tb = tb.tb_next
                where = (type(record.exc_info[1]).__name__,
                         tb.tb_frame.f_code.co_filename if tb else "", tb.tb_lineno if tb else 0)
                if where in self._traced:          # the same failure again: one line
                    record.msg = f"{record.getMessage()}: {where[0]}: {record.exc_info[1]} (traceback above)"
                    record.args, record.exc_info, record.exc_text = None, None, None
                else:
                    self._traced.add(where)
        return record


class LogFile(logging.handlers.RotatingFileHandler):
    """The rotating log file, with clients' lines under a :class:`ClientLogBudget`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.budget = ClientLogBudget()

    def emit(self, record: logging.LogRecord) -> None:
        admitted = self.budget.admit(record)
        if admitted is not None:
            super().emit(admitted)


def open_log_file(data_dir: Path, level: int = logging.INFO) -> logging.Handler:
    """Add a rotating ``potionpi.log`` (512 KB, 3 old ones kept) to the root logger; what
    clients can cause is written at a bounded rate (:class:`ClientLogBudget`)."""
    handler = LogFile(data_dir / LOG_FILE, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.setLevel(level)
    root = logging.getLogger()
    root.addHandler(handler)
    if root.level > level or root.level == logging.NOTSET:
        root.setLevel(level)
    return handler


def close_log_file(handler: logging.Handler) -> None:
    logging.getLogger().removeHandler(handler)
    handler.close()


def last_log(data_dir: Path, max_bytes: int = 2 * MAX_BYTES) -> bytes:
    """The newest log lines, oldest first: the previous file's tail, then the current file
    (at most ``max_bytes``). Empty when nothing was logged yet."""
    parts = []
    for path in (data_dir / f"{LOG_FILE}.1", data_dir / LOG_FILE):
        try:
            parts.append(path.read_bytes())
        except OSError:
            continue
    return b"".join(parts)[-max_bytes:]
