"""The daemon's HTTPS: served once `potionpi tls` made the certificate, made again at start
when the Pi's addresses changed, and a port it cannot have is said while plain HTTP goes on."""
from __future__ import annotations

import http.client
import socket
import ssl

import pytest

from controller.cli import main
from controller.config import Config, ConfigError
from controller.daemon import Daemon
from controller.service import certs, discovery
from tests.e2e.daemon_proc import free_port


def test_http_and_https_cannot_share_a_port(tmp_path, capsys):
    path = tmp_path / "potionpi.toml"
    path.write_text("[web]\nport = 8443\nhttps_port = 8443\n")
    with pytest.raises(ConfigError, match=r"web.https_port = 8443 is web.port too; use another port"):
        Config.load(path)
    assert main(["run", "--sim", "--data-dir", str(tmp_path), "--port", "8555", "--https-port", "8555"]) == 2
    assert "HTTP and HTTPS cannot share port 8555" in capsys.readouterr().err


def https_get(port: int, cafile, path: str = "/healthz") -> int:
    context = ssl.create_default_context(cafile=str(cafile))
    conn = http.client.HTTPSConnection("localhost", port, context=context, timeout=30)
    try:
        conn.request("GET", path)
        return conn.getresponse().status
    finally:
        conn.close()


def test_the_daemon_serves_https_and_remakes_the_certificate_for_a_new_address(tmp_path, monkeypatch):
    names, addresses = discovery.table_names()
    monkeypatch.setattr(discovery, "table_names", lambda: (list(names), list(addresses)))
    certs.make(tmp_path)
    said: list[str] = []
    addresses.append("10.42.0.1")                # the Pi's address changed since `potionpi tls`
    daemon = Daemon(Config.defaults(), sim=True, data_dir=tmp_path, say=said.append)
    try:
        daemon.start("127.0.0.1", 0, free_port())
        assert daemon.https is not None
        assert "  made a new HTTPS certificate for the table: the Pi now also answers to 10.42.0.1" in said
        assert "10.42.0.1" in certs.holds(tmp_path).addresses
        assert https_get(daemon.https.effective_port, certs.folder(tmp_path) / certs.CA_CERT) == 200
        assert daemon.https_urls() == [f"https://127.0.0.1:{daemon.https.effective_port}/"]
        service = daemon.app.extensions["potionpi"].extras["service"]
        assert service["https_port"] == daemon.https.effective_port and service["http_port"] == daemon.server.port
    finally:
        daemon.close()


def test_a_https_port_it_cannot_have_is_said_and_the_table_goes_on(tmp_path):
    certs.make(tmp_path)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    said: list[str] = []
    daemon = Daemon(Config.defaults(), sim=True, data_dir=tmp_path, say=said.append)
    try:
        daemon.start("127.0.0.1", 0, taken.getsockname()[1])
        assert daemon.https is None and daemon.https_urls() == []
        assert any(f"cannot serve HTTPS on port {taken.getsockname()[1]}" in s
                   and s.endswith("the table goes on over plain HTTP") for s in said), said
        conn = http.client.HTTPConnection("127.0.0.1", daemon.server.port, timeout=30)
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        daemon.close()
        taken.close()


def test_without_a_certificate_there_is_no_https_and_nothing_said(tmp_path):
    said: list[str] = []
    daemon = Daemon(Config.defaults(), sim=True, data_dir=tmp_path, say=said.append)
    try:
        daemon.start("127.0.0.1", 0)
        assert daemon.https is None and not any("HTTPS" in s for s in said)
    finally:
        daemon.close()
