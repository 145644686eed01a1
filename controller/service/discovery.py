"""Finding the table without SSH: its addresses, a QR code of the address, the mDNS advert.

Android tablets often cannot resolve ``.local`` names, so the QR code and the /join page
carry the Pi's plain IP address; the ``.local`` name is listed too, for everything else.
"""
from __future__ import annotations

import errno
import io
import os
import socket
from html import escape
from pathlib import Path

SERVICE_NAME = "potionpi"
AVAHI_FILE = "/etc/avahi/services/potionpi.service"
#: the console's QR code, kept in the data folder (``terminal_qr``)
QR_FILE = "console-qr.txt"
QR_DRAWING = "segno error=m compact border=2"     # how it is drawn: a change draws it again


def lan_address() -> str | None:
    """The IPv4 address this machine uses on its network, or None (no network).

    A UDP connect sends no packet; it only makes the kernel choose the source address.
    """
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.connect(("10.255.255.255", 1))
            address = sock.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def host_name() -> str:
    """This machine's host name, lower case, without a domain ("potionpi")."""
    return socket.gethostname().split(".")[0].lower() or "localhost"


def mdns_name() -> str:
    """The name avahi gives this machine on the network: ``<host name>.local``."""
    return f"{host_name()}.local"


def interface_addresses() -> list[str]:
    """Every IPv4 address of this machine's network interfaces but loopback (Linux: asked
    of each interface; elsewhere the address of the default route)."""
    found: list[str] = []
    try:
        import fcntl
        import struct
        interfaces = socket.if_nameindex()
    except (ImportError, OSError):
        interfaces = []
    for _, name in interfaces:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            try:        # SIOCGIFADDR: the interface's IPv4 address (an error: it has none)
                packed = fcntl.ioctl(sock.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue
        address = socket.inet_ntoa(packed[20:24])
        if not address.startswith("127.") and address not in found:
            found.append(address)
    route = lan_address()
    if route and route not in found:
        found.append(route)
    return found


def table_names() -> tuple[list[str], list[str]]:
    """(names, addresses) a tablet may open this table by: the host name as it is, bare and
    with ``.local``, ``localhost``, and every interface address with the loopback ones.
    The HTTPS certificate (controller/service/certs.py) is made for exactly these."""
    full = socket.gethostname().lower()
    names = [n for n in dict.fromkeys([full, host_name(), mdns_name(), "localhost"]) if n]
    return names, ["127.0.0.1", "::1", *interface_addresses()]


def port_taken(host: str, port: int) -> bool:
    """True when another program listens on ``port`` (e.g. the service, for `make run`)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as waitress binds
        try:
            sock.bind((host, port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False


def page_answers(host: str, port: int, timeout: float) -> bool:
    """Does the tablet page answer ``GET /healthz`` with 200 within ``timeout``? (The
    watchdog's health check, and the Pi's screen's "starting..." until it does.)"""
    import http.client

    host = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
    try:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
        try:
            conn.request("GET", "/healthz")
            return conn.getresponse().status == 200
        finally:
            conn.close()
    except OSError:
        return False


def http_url(host: str, port: int) -> str:
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"


def table_urls(host: str, port: int) -> list[str]:
    """Addresses a tablet can open, best for a phone first (the plain IP address)."""
    if host not in ("0.0.0.0", "::", ""):
        return [http_url(host, port)]
    urls = []
    address = lan_address()
    if address:
        urls.append(http_url(address, port))
    urls.append(http_url(f"{socket.gethostname()}.local", port))
    urls.append(http_url("127.0.0.1", port))
    return urls


def join_url(host: str, port: int) -> str:
    """The one address to put in a QR code: the IP address when there is a network."""
    return table_urls(host, port)[0]


def terminal_qr(url: str, keep: Path | None = None) -> str:
    """``url`` as a QR code drawn with block characters, for the console and the journal.

    With ``keep`` (a file in the data folder) the drawing is kept there under its address
    and drawn again only when the address changed: a start then loads no QR library
    (segno and what it imports are ~1.2 MiB of an idle daemon on a Pi Zero, for the rest
    of the evening). A file that cannot be read or written only means drawing it."""
    key = f"{QR_DRAWING} {url}"
    if keep is not None:
        try:
            first, _, drawn = keep.read_text(encoding="utf-8").partition("\n")
            if first == key and drawn:
                return drawn
        except (OSError, UnicodeError):
            pass
    import segno      # only when drawn: the daemon stays small on a Pi Zero

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    drawn = out.getvalue()
    if keep is not None:
        tmp = keep.with_name(keep.name + ".tmp")
        try:
            tmp.write_text(f"{key}\n{drawn}", encoding="utf-8")
            os.replace(tmp, keep)
        except OSError:
            pass
    return drawn


def svg_qr(url: str) -> str:
    """``url`` as an inline SVG QR code that scales to its box (no fixed size: the page
    makes it as wide as the screen allows)."""
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", border=2, xmldecl=False, omitsize=True,
                                     svgns=True, title=f"QR code of {url}")
    return out.getvalue().decode()


def avahi_service(port: int, name: str = SERVICE_NAME) -> str:
    """The avahi-daemon service file advertising the tablet page as ``_http._tcp``."""
    return f"""<?xml version="1.0" standalone='no'?>
<!DOCTYPE service-group SYSTEM "avahi-service.dtd">
<!-- written by `potionpi install`; `potionpi uninstall` removes it -->
<service-group>
  <name>{escape(name)}</name>
  <service>
    <type>_http._tcp</type>
    <port>{int(port)}</port>
    <txt-record>path=/</txt-record>
  </service>
</service-group>
"""
