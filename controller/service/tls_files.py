"""Where the table's HTTPS files live in its data folder, and whether they are there.

controller/service/certs.py makes and reads them; every start of the daemon only asks
``ready`` (is there a certificate to serve?), which needs none of certs.py's own
imports: a table without HTTPS loads none of it (docs/performance.md).
"""
from __future__ import annotations

from pathlib import Path

TLS_DIR = "tls"
CA_KEY, CA_CERT = "ca.key", "ca.crt"
KEY, CERT, HOLDS = "table.key", "table.crt", "table.json"


def folder(data_dir: Path) -> Path:
    return Path(data_dir) / TLS_DIR


def ready(data_dir: Path) -> bool:
    """A certificate and its key are there to serve HTTPS with."""
    tls = folder(data_dir)
    return all((tls / name).is_file() for name in (KEY, CERT, HOLDS))
