"""The secure table (docs/https.md): /secure, where the owner installs the table CA on the
tablet once (a profile for an iPad, a certificate for Android), the two downloads, and
the service worker the tablet runs over https (/sw.js). Server-rendered, no script."""
from __future__ import annotations

import hashlib
import ipaddress
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from flask import Blueprint, Response, render_template, request

from controller import __version__
from controller.service import discovery

from . import assets, ctx

# controller/service/certs.py and web_ui/tls.py are imported where used: a table that
# never ran `potionpi tls` serves no HTTPS and keeps neither in memory.

bp = Blueprint("secure", __name__)

PROFILE_NAME = "potionpi-table.mobileconfig"
CA_NAME = "potionpi-table-ca.crt"


def _service() -> dict[str, Any]:
    return ctx().extras.get("service", {})


def _data_dir() -> Path | None:
    return _service().get("data_dir")


def phone_url(url: str) -> str:
    """The address a phone opens: over plain HTTP, the table's HTTP port. Phones do not
    trust the table's CA, so a link made on the https tablet (a seat's QR code, /join)
    must not send them to https."""
    parts = urlsplit(url)
    if parts.scheme != "https":
        return url
    port = _service().get("http_port") or 80
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port == 80 else f"{host}:{port}"
    return urlunsplit(("http", netloc, parts.path, parts.query, parts.fragment))


def secure_urls() -> list[str]:
    """The table's https addresses, the kind this tablet used first (an Android tablet that
    came by the IP address may not resolve .local names)."""
    port = _service().get("https_port")
    if not port:
        return []
    from .tls import https_url
    names = [discovery.mdns_name(), *discovery.interface_addresses()]
    try:
        ipaddress.ip_address(request.host.rsplit(":", 1)[0].strip("[]"))
        names.sort(key=lambda n: not n[0].isdigit())          # came by address: addresses first
    except ValueError:
        pass
    return [https_url(n, port) for n in names]


@bp.get("/secure")
def secure_page() -> tuple[str, int, dict[str, str]]:
    from controller.service import certs

    data_dir = _data_dir()
    fingerprint = None
    if data_dir is not None and certs.has_ca(data_dir):
        fingerprint = certs.fingerprint(certs.ca_der(data_dir))
    urls = secure_urls()
    return (render_template("secure.html", fingerprint=fingerprint, urls=urls, here_secure=request.scheme == "https",
                            host=discovery.host_name(), qr=discovery.svg_qr(urls[0]) if urls else "",
                            profile=PROFILE_NAME, ca=CA_NAME),
            200, {"Cache-Control": "no-store"})


def _download(body: bytes, name: str, mimetype: str) -> Response:
    return Response(body, mimetype=mimetype, headers={
        "Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


def _no_ca() -> tuple[str, int]:
    return render_template("error.html", code=404, sentence="this table has no certificate yet: run "
                           "“potionpi tls” on the Pi first"), 404


@bp.get(f"/secure/{PROFILE_NAME}")
def profile() -> Response | tuple[str, int]:
    from controller.service import certs

    data_dir = _data_dir()
    if data_dir is None or not certs.has_ca(data_dir):
        return _no_ca()
    return _download(certs.mobileconfig(data_dir), PROFILE_NAME, certs.PROFILE_TYPE)


@bp.get(f"/secure/{CA_NAME}")
def ca_certificate() -> Response | tuple[str, int]:
    from controller.service import certs

    data_dir = _data_dir()
    if data_dir is None or not certs.has_ca(data_dir):
        return _no_ca()
    # DER: what Android's "Install a certificate → CA certificate" takes
    return _download(certs.ca_der(data_dir), CA_NAME, "application/x-x509-ca-cert")


def worker_files() -> list[str]:
    """What the tablet page loads, by content-hashed URL: every module and stylesheet (the
    import map's), the manifest and the icons the page links."""
    files = list(assets.import_map()["imports"].values())
    files += [assets.static_url(name) for name in ("manifest.webmanifest", "icons/cauldron.svg",
                                                   "icons/cauldron-180.png")]
    return list(dict.fromkeys(files))


@bp.get("/sw.js")
def service_worker() -> Response:
    files = worker_files()
    version = hashlib.sha256(json.dumps([__version__, files]).encode()).hexdigest()[:16]
    body = render_template("sw.js", version=version, files=files)
    return Response(body, mimetype="text/javascript", headers={
        # the browser compares the worker byte by byte on every visit: never from a cache
        "Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})
