"""The table as an app: its manifest and icons, the iOS home-screen tags, the seat pages'
own names, /secure (the table CA for the tablet), the service worker, and phone links
that stay plain http when made on the https tablet."""
from __future__ import annotations

import json
import plistlib
import re
import struct
import xml.etree.ElementTree as ET

import pytest

from controller.service import certs
from controller.service.discovery import mdns_name

from .helpers import AUTH

HOST = mdns_name()        # a name the table answers to (its Host allowlist, its certificate)


def manifest(client) -> dict:
    page = client.get("/").get_data(as_text=True)
    href = re.search(r'<link rel="manifest" href="([^"]+)">', page).group(1)
    response = client.get(href.replace("&amp;", "&"))
    assert response.status_code == 200
    assert response.content_type.startswith("application/manifest+json")
    return json.loads(response.get_data())


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_opens_the_table_full_screen(client):
    m = manifest(client)
    assert m["name"] == "potionpi table" and m["short_name"] == "potionpi"
    assert m["start_url"] == "/" and m["scope"] == "/" and m["id"] == "/"
    assert m["display"] == "standalone"
    page = client.get("/").get_data(as_text=True)
    theme = re.search(r'<meta name="theme-color" content="([^"]+)">', page).group(1)
    assert m["theme_color"] == m["background_color"] == theme


def test_every_icon_is_served_at_the_size_it_claims(client):
    icons = manifest(client)["icons"]
    sizes = {(i["sizes"], i["purpose"], i["type"]) for i in icons}
    # what Chrome asks for to install (192 and 512), a maskable one for Android, the drawing
    assert {("192x192", "any", "image/png"), ("512x512", "any", "image/png"),
            ("512x512", "maskable", "image/png"), ("any", "any", "image/svg+xml")} <= sizes
    for icon in icons:
        response = client.get(icon["src"])
        assert response.status_code == 200, icon["src"]
        assert response.content_type.startswith(icon["type"]), icon
        data = response.get_data()
        if icon["type"] == "image/png":
            width, height = (int(n) for n in icon["sizes"].split("x"))
            assert png_size(data) == (width, height), icon["src"]
        else:
            svg = ET.fromstring(data)
            assert svg.get("viewBox") == "0 0 512 512" and svg.find("{http://www.w3.org/2000/svg}title") is not None


def test_the_table_page_has_the_ios_home_screen_tags(client):
    page = client.get("/").get_data(as_text=True)
    for tag in ('<meta name="apple-mobile-web-app-capable" content="yes">',
                '<meta name="mobile-web-app-capable" content="yes">',
                '<meta name="apple-mobile-web-app-title" content="potionpi">'):
        assert tag in page
    touch = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', page).group(1)
    assert png_size(client.get(touch.replace("&amp;", "&")).get_data()) == (180, 180)


def test_a_seat_page_keeps_its_own_name_and_never_the_tables_start_page(client):
    client.post("/api/v1/session", json={"game": "mix-it", "players": ["Ann", "Ben"]}, headers=AUTH)
    seats = client.get("/api/v1/seats", headers=AUTH).get_json()["seats"]
    page = client.get(seats[1]["url"].replace("http://localhost", "")).get_data(as_text=True)
    assert 'rel="manifest"' not in page
    assert '<meta name="apple-mobile-web-app-title" content="Ben">' in page


@pytest.fixture
def owner_service(app, tmp_path):
    """What the daemon tells the pages: its data dir and ports (HTTPS on 443)."""
    service = {"data_dir": tmp_path, "http_port": 8080, "https_port": 443, "urls": []}
    app.extensions["potionpi"].extras["service"] = service
    return service


def test_the_secure_page_before_potionpi_tls_says_what_to_run(client, owner_service):
    page = client.get("/secure").get_data(as_text=True)
    assert "This table has no certificate yet" in page and "potionpi tls" in page
    for path in ("/secure/potionpi-table.mobileconfig", "/secure/potionpi-table-ca.crt"):
        response = client.get(path)
        assert response.status_code == 404 and "potionpi tls" in response.get_data(as_text=True)


def test_the_secure_page_installs_the_table_ca_on_an_ipad_or_android(client, owner_service):
    certs.make(owner_service["data_dir"])
    der = certs.ca_der(owner_service["data_dir"])
    page = client.get("/secure", base_url=f"http://{HOST}:8080").get_data(as_text=True)
    assert certs.fingerprint(der) in page
    assert "Certificate Trust Settings" in page and "Install a certificate" in page
    assert 'href="https://' in page and "<svg" in page            # the secure address and its QR code
    profile = client.get("/secure/potionpi-table.mobileconfig")
    assert profile.content_type == "application/x-apple-aspen-config"
    assert "attachment" in profile.headers["Content-Disposition"]
    assert plistlib.loads(profile.get_data())["PayloadContent"][0]["PayloadContent"] == der
    android = client.get("/secure/potionpi-table-ca.crt")
    assert android.content_type == "application/x-x509-ca-cert" and android.get_data() == der
    # over https it says this tablet is done
    assert "trusts the table already" in client.get("/secure", base_url=f"https://{HOST}").get_data(as_text=True)


def test_the_service_worker_keeps_the_page_and_its_hashed_files_only(client, app, monkeypatch):
    response = client.get("/sw.js")
    assert response.content_type.startswith("text/javascript")
    assert response.headers["Cache-Control"] == "no-cache"
    body = response.get_data(as_text=True)
    files = json.loads(re.search(r"const FILES = (\[.*?\]);", body).group(1))
    from web_ui import assets
    assert set(assets.import_map()["imports"].values()) <= set(files)
    assert all("?v=" in f for f in files)                      # content-hashed: never stale
    assert not any(f.startswith("/api/") for f in files)
    assert 'url.pathname === PAGE' in body                     # the page only, by name
    # a changed file is a new worker version (so the update takes effect)
    version = re.search(r"const VERSION = \"(\w+)\"", body).group(1)
    real = assets.import_map
    monkeypatch.setattr(assets, "import_map", lambda: {"imports": {**real()["imports"], "/static/x.js": "/static/x.js?v=1"}})
    assert re.search(r"const VERSION = \"(\w+)\"", client.get("/sw.js").get_data(as_text=True)).group(1) != version


def test_links_made_on_the_https_tablet_send_phones_to_plain_http(client, owner_service):
    client.post("/api/v1/session", json={"game": "mix-it", "players": ["Ann", "Ben"]}, headers=AUTH)
    seats = client.get("/api/v1/seats", headers=AUTH, base_url=f"https://{HOST}").get_json()["seats"]
    assert all(s["url"].startswith(f"http://{HOST}:8080/") for s in seats)
    join = client.get("/join", base_url=f"https://{HOST}").get_data(as_text=True)
    typed = re.sub(r"<[^>]+>", "", re.search(r'<strong class="address">(.*?)</strong>', join).group(1))
    assert typed == f"http://{HOST}:8080/"
    # over plain http nothing changes
    seats = client.get("/api/v1/seats", headers=AUTH, base_url=f"http://{HOST}:8080").get_json()["seats"]
    assert all(s["url"].startswith(f"http://{HOST}:8080/") for s in seats)
