"""Instance secrets in the data dir: the table PIN and the web session key."""
from __future__ import annotations

import os
import secrets
from pathlib import Path

from .config import is_pin

PIN_FILE = "table_pin"
KEY_FILE = "secret_key"


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner can read, atomically (never a half-written secret).

    Run as root (``sudo potionpi pin --new``) on a data dir that belongs to the service's
    user, the file is given to that user: a root-only PIN file would be one the running
    table cannot read."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
        owner = path.parent.stat()
        if os.geteuid() == 0 and owner.st_uid != 0:
            os.fchown(fh.fileno(), owner.st_uid, owner.st_gid)
    os.replace(tmp, path)


def table_pin(data_dir: Path, configured: str = "") -> tuple[str, str]:
    """(pin, where it came from): config, then $POTIONPI_PIN, then the data dir, else a new one."""
    if configured:
        return configured, "config"
    env = os.environ.get("POTIONPI_PIN", "").strip()
    if env:
        if not is_pin(env):
            raise ValueError(f"POTIONPI_PIN={env!r} is not allowed; use 4 to 8 digits")
        return env, "environment"
    pin = _kept_pin(data_dir)
    if pin:
        return pin, "data dir"
    return new_pin(data_dir), "generated"


def _kept_pin(data_dir: Path) -> str | None:
    try:
        pin = (data_dir / PIN_FILE).read_text().strip()
    except OSError:
        return None
    return pin if is_pin(pin) else None


def peek_pin(data_dir: Path, configured: str = "") -> str | None:
    """The PIN ``table_pin`` would give, without making one (None: none yet); for the
    Pi's screen and the image's first boot, which must not race the daemon to make it."""
    if configured:
        return configured
    env = os.environ.get("POTIONPI_PIN", "").strip()
    if env and is_pin(env):
        return env
    return _kept_pin(data_dir)


def new_pin(data_dir: Path, pin: str | None = None) -> str:
    """Store ``pin`` (or a fresh random 4-digit one) as the table PIN."""
    pin = pin or f"{secrets.randbelow(10_000):04d}"
    data_dir.mkdir(parents=True, exist_ok=True)
    write_private(data_dir / PIN_FILE, pin.encode() + b"\n")
    return pin


def secret_key(data_dir: Path) -> bytes:
    """The key that signs tablet session cookies; kept so tablets stay signed in after a restart."""
    path = data_dir / KEY_FILE
    if path.exists():
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    key = secrets.token_bytes(32)
    data_dir.mkdir(parents=True, exist_ok=True)
    write_private(path, key)
    return key
