"""The daemon's log file in the data dir, beside journald: the tablet's settings page
offers it for download, so nobody needs SSH and ``journalctl`` to send a bug report."""
from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

LOG_FILE = "potionpi.log"
MAX_BYTES = 512 * 1024     # small: an SD card, and a file a phone can mail
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def open_log_file(data_dir: Path, level: int = logging.INFO) -> logging.Handler:
    """Add a rotating ``potionpi.log`` (512 KB, 3 old ones kept) to the root logger."""
    handler = logging.handlers.RotatingFileHandler(data_dir / LOG_FILE, maxBytes=MAX_BYTES,
                                                   backupCount=BACKUPS, encoding="utf-8")
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
