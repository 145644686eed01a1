"""Only the table's own names are served, and the links it hands out use them.

DNS rebinding: a web page a player opens (``rebind.evil.example``) can have its name
point at the Pi and then read the table's pages and spend its PIN budget from the
player's browser. Such a request still says ``Host: rebind.evil.example``, so every
request whose Host is not one of the table's own names gets **421** with a sentence
before anything else looks at it. The table's own names are those its HTTPS certificate
is made for (``discovery.table_names``): the Pi's hostname and ``<hostname>.local``, its
interface addresses (read again when an unknown address turns up, at most every few
seconds: a DHCP lease or the hotspot may change them), ``localhost``; and the names in the
config (``[web] names``). A request without a Host (HTTP/1.0,
scripts) cannot come from a browser page and is served.

The seat links, their QR codes and ``/join`` are built from these names too, never from
the request's Host header (docs/security.md).
"""
from __future__ import annotations

import ipaddress
import json
import logging
import threading
import time
from typing import Callable, Iterable
from urllib.parse import urlsplit

from flask import Flask, Response, request

from controller.service import discovery

log = logging.getLogger(__name__)

#: how often an unknown address may make the table read its interfaces again
REFRESH_SECONDS = 5.0
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
MISDIRECTED = ("this is a potionpi table, and it answers only to its own names and addresses "
               "(open it as {url}); a page that sends another name could be a web site "
               "trying to reach the table through your browser")


def split_host(host: str) -> str:
    """``name:port``, ``[v6]:port`` or ``v6`` -> the name or address, lower case, no dot at
    the end; "" when it cannot be a host at all."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[1:end] if end > 0 else ""
    if host.count(":") > 1:                # a bare IPv6 address
        return host
    return host.rsplit(":", 1)[0].rstrip(".") if host else ""


class TableNames:
    """The names and addresses this table answers to (thread-safe): those its HTTPS
    certificate is made for (``discovery.table_names``) and ``extra``."""

    def __init__(self, extra: Iterable[str] = (), *,
                 names: Callable[[], tuple[list[str], list[str]]] = discovery.table_names) -> None:
        self.extra = {split_host(n) for n in extra if split_host(n)}
        self._names_of = names
        self._lock = threading.Lock()
        self._names: frozenset[str] = frozenset()
        self._read_at = -REFRESH_SECONDS
        self.refused = 0
        self._refresh()

    def _refresh(self) -> None:
        names, addresses = self._names_of()
        self._names = frozenset({*LOOPBACK_NAMES, *self.extra, *(n.lower().rstrip(".") for n in names),
                                 *addresses})
        self._read_at = time.monotonic()

    @property
    def names(self) -> frozenset[str]:
        return self._names

    def own(self, host_header: str | None) -> str | None:
        """The table's own spelling of the name in a Host header, or None if not ours."""
        name = split_host(host_header or "")
        if not name:
            return None
        if name in self._names:
            return name
        if _is_address(name):
            with self._lock:                   # a new DHCP lease, the hotspot just came up
                if time.monotonic() - self._read_at >= REFRESH_SECONDS:
                    self._refresh()
            if name in self._names:
                return name
        return None

    def lan_name(self) -> str | None:
        """An address another device can open (not loopback): an IPv4 address first."""
        names = sorted(n for n in self._names if _is_address(n) and not ipaddress.ip_address(n).is_loopback
                       and not ipaddress.ip_address(n).is_link_local)
        v4 = [n for n in names if ":" not in n]
        return (v4 or names)[0] if names else None


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _names() -> TableNames:
    from . import ctx
    return ctx().names


WILDCARDS = ("0.0.0.0", "::", "")


def table_url(path: str = "/") -> str:
    """``path`` on the table's own address for another device: the name this request used
    (checked to be the table's own) unless that is the Pi's loopback, then the address
    the server listens on (its network address when it listens on all of them). The port
    is the one the server listens on."""
    from . import ctx
    names = _names()
    listening = ctx().listening           # (host, port) once a server serves the app
    host = names.own(request.host) or "localhost"
    if host in LOOPBACK_NAMES:
        if listening is not None and listening[0] not in WILDCARDS:
            host = split_host(listening[0])
        else:
            routed = discovery.lan_address()      # the address the Pi reaches its network with
            host = routed if routed is not None and names.own(routed) else (names.lan_name() or host)
    # the plain-HTTP port even from the https tablet: phones do not trust the table's CA
    port = (listening[1] if listening is not None else None) \
        or ctx().extras.get("service", {}).get("http_port") or request.environ.get("SERVER_PORT") \
        or urlsplit(request.host_url).port or 80
    netloc = f"[{host}]" if ":" in host else host
    if str(port) not in ("80", ""):
        netloc += f":{port}"
    return f"http://{netloc}{path}"


def _refusal(status: int, sentence: str) -> Response:
    """An answer built from nothing the request sent: no template, no url_for (a Host no
    URL can be built with once made every page a 500)."""
    if request.path.startswith("/api/") or request.path == "/healthz":
        body, mimetype = json.dumps({"error": sentence}) + "\n", "application/json"
    else:
        body, mimetype = sentence[:1].upper() + sentence[1:] + ".\n", "text/plain"
    return Response(body, status=status, mimetype=mimetype, headers={"Cache-Control": "no-store"})


#: no address of this table holds a control character; a NUL once reached os.stat (a 500)
CONTROL = frozenset(chr(c) for c in range(32)) | {"\x7f"}


def register(app: Flask) -> None:
    @app.before_request
    def only_our_names() -> Response | None:
        if not CONTROL.isdisjoint(request.path):
            return _refusal(400, "this address holds a character no address of the table has "
                                 "(a control character such as %00)")
        host = request.headers.get("Host")
        if host is None or _names().own(host) is not None:
            return None
        names = _names()
        names.refused += 1
        if names.refused in (1, 10, 100) or names.refused % 1000 == 0:
            log.warning("refused %d request(s) for a name that is not the table's (the latest: %r)",
                        names.refused, host[:80])
        return _refusal(421, MISDIRECTED.format(url=table_url("/")))
