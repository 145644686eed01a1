"""`potionpi screen`: the table's address, PIN and Wi-Fi on the Pi's own screen (HDMI).

The SD-card image runs it on the first console (tty1) instead of a login prompt, so a
table with a screen plugged in says how to reach it without a terminal: the address a
tablet opens (also as a QR code), the table PIN, the table's own Wi-Fi and its password,
and what the first boot made of the card's files. It redraws only when something on it
changes (a new address, a new PIN), looking every few seconds; the login prompt stays on
the second console (Alt+F2).

It also keeps the banner of the other consoles' login prompts (the serial port, Alt+F2):
the address a tablet can open, or that the table is waiting for the network (agetty's own
``\\4`` would show the host name's 127.0.1.1 until then). The image's getty units read it
(``--issue-file``) and are told to show it again when it changes (``/run/agetty.reload``).
"""
from __future__ import annotations

import io
import os
import re
import socket
import time
from pathlib import Path
from typing import IO, Callable

from .. import __version__, secrets_store
from ..config import Config, ConfigError
from . import discovery, firstboot, install

CLEAR = "\033[H\033[2J\033[3J"
#: the login prompts' banner (the image's getty drop-ins name it) and agetty's reload trigger
CONSOLE_ISSUE = Path("/run/potionpi-screen/console.issue")
AGETTY_RELOAD = Path("/run/agetty.reload")


def read_state(root: Path = Path("/")) -> firstboot.State:
    return firstboot.State.load(root)


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def screen_text(*, name: str, urls: list[str], pin: str | None, ready: bool,
                state: firstboot.State, wifi: str | None, qr: str = "",
                size: tuple[int, int] | None = None) -> str:
    """The whole screen. ``size`` (columns, rows) of the console: the QR code goes beside
    the text where it fits, else below it, else it is left out (the text always shows)."""
    lines = [f"potionpi {__version__}  -  the table {name!r}"
             + ("" if ready else "  (starting...)"), ""]
    lan = tablet_urls(urls)
    if lan:
        lines.append(f"  Open on the tablet:  {lan[0]}")
        lines += [f"                  or:  {u}" for u in lan[1:]]
    else:
        lines.append("  No network yet: join the table's own Wi-Fi (below), or plug in a cable.")
    lines.append(f"  Table PIN:           {pin or '(made when the table has started)'}")
    if wifi:
        lines.append(f"  Wi-Fi:               {wifi!r}")
    if state.hotspot_password:
        lines.append(f"  The table's Wi-Fi:   {state.hotspot_ssid!r}  password {state.hotspot_password}")
        lines.append(f"                       (then open http://{firstboot.hotspot.ADDRESS}:{_port_of(urls)}/)")
    if state.errors:
        lines.append("")
        lines.append(f"  ! {firstboot.SETUP_FILE} was NOT applied: fix these and boot again:")
        lines += [f"    - {e}" for e in state.errors[:4]]
    elif state.stopped:
        lines.append("")
        lines.append(f"  ! applying {firstboot.SETUP_FILE} stopped: {state.stopped}")
    lines.append("")
    code = qr.splitlines() if qr and lan else []
    return "\n".join(_layout(lines, code, size)) + "\n"


def tablet_urls(urls: list[str]) -> list[str]:
    """The table's addresses a tablet can open: none but the `.local` name means no network
    yet (nothing answers that name then), and the Pi's own loopback helps no tablet."""
    lan = [u for u in urls if "127.0.0.1" not in u]
    return lan if any(re.match(r"http://\d", u) for u in lan) else []


def console_issue(*, name: str, addresses: list[str], port: int) -> str:
    """The login prompts' banner: the addresses a tablet can open, or that there is none yet."""
    if not addresses:
        return ("potionpi: waiting for the network; the address for the tablet shows here "
                "as soon as the Pi has one\n\n")
    urls = [discovery.http_url(a, port) for a in addresses] + [discovery.http_url(f"{name}.local", port)]
    return f"potionpi: open {' or '.join(urls)} on the tablet (the table PIN: `potionpi pin`)\n\n"


def keep_console_issue(text: str, issue: Path = CONSOLE_ISSUE, reload: Path = AGETTY_RELOAD) -> bool:
    """Write the banner if it changed and have the waiting login prompts show it again."""
    try:
        if issue.read_text() == text:
            return False
    except OSError:
        pass
    try:
        part = issue.with_name(issue.name + ".new")
        part.write_text(text)
        part.replace(issue)
        if reload.exists():
            os.utime(reload)          # agetty watches it (inotify): each waiting one redraws
    except OSError:
        return False                  # not the image (no such folder): the screen still shows
    return True


def _layout(text: list[str], code: list[str], size: tuple[int, int] | None) -> list[str]:
    if not code:
        return text
    if size is None:
        return text + code
    cols, rows = size
    text_width = max(len(line) for line in text) + 3
    code_width = max(len(ANSI.sub("", line)) for line in code)
    if text_width + code_width <= cols and max(len(text), len(code)) <= rows:
        text = text + [""] * (len(code) - len(text))
        return [t.ljust(text_width) + c for t, c in zip(text, code + [""] * len(text))]
    if len(text) + len(code) <= rows:
        return text + code
    return text + ["  (a bigger screen shows the address as a QR code too)"]


def _port_of(urls: list[str]) -> int:
    for url in urls:
        tail = url.rstrip("/").rsplit(":", 1)[-1]
        if tail.isdigit():
            return int(tail)
    return 80


def _config(config_path: str | None) -> Config:
    try:
        return Config.load(config_path or (install.CONFIG_FILE if Path(install.CONFIG_FILE).exists()
                                           else None))
    except ConfigError:
        return Config.defaults()


def draw(*, root: Path = Path("/"), config_path: str | None = None, config: Config | None = None,
         size: tuple[int, int] | None = None) -> str:
    """The screen as it is now."""
    config = config or _config(config_path)
    port = config["web"]["port"]
    data_dir = Path(config["store"]["data_dir"] or install.DATA_DIR)
    urls = discovery.table_urls("0.0.0.0", port)
    lan = tablet_urls(urls)
    state = read_state(root)
    return screen_text(name=socket.gethostname(), urls=urls,
                       pin=secrets_store.peek_pin(data_dir, config["table"]["pin"]),
                       ready=discovery.page_answers("127.0.0.1", port, 2.0), state=state,
                       wifi=firstboot._wifi_ssid(root),
                       qr=discovery.terminal_qr(lan[0]) if lan else "", size=size)


def _size(out: IO[str]) -> tuple[int, int] | None:
    try:
        found = os.get_terminal_size(out.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return None                       # not a console (a pipe, the journal): all of it
    return found.columns, found.lines


def run(out: IO[str], *, interval: float = 5.0, once: bool = False,
        config_path: str | None = None, sleep: Callable[[float], None] = time.sleep) -> int:
    shown = ""
    while True:
        config = _config(config_path)
        text = draw(config=config, size=_size(out))
        if text != shown:
            out.write(CLEAR + text)
            out.flush()
            shown = text
        keep_console_issue(console_issue(name=socket.gethostname(),
                                         addresses=discovery.interface_addresses(),
                                         port=config["web"]["port"]))
        if once:
            return 0
        sleep(interval)

