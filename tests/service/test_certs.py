"""`potionpi tls` and controller/service/certs.py: the table CA and its certificate."""
from __future__ import annotations

import datetime as dt
import os
import plistlib
import stat

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID

from controller.cli import main
from controller.service import certs, discovery


@pytest.fixture
def lan(monkeypatch):
    """The Pi as a tablet sees it: potionpi on 192.168.1.20 (and a public address it has too)."""
    here = {"names": ["potionpi", "potionpi.local", "localhost"],
            "addresses": ["127.0.0.1", "::1", "192.168.1.20", "203.0.113.9"]}
    monkeypatch.setattr(discovery, "table_names", lambda: (list(here["names"]), list(here["addresses"])))
    monkeypatch.setattr(discovery, "host_name", lambda: "potionpi")
    monkeypatch.setattr(discovery, "mdns_name", lambda: "potionpi.local")
    return here


def load(data_dir, name):
    return x509.load_pem_x509_certificate((certs.folder(data_dir) / name).read_bytes())


def test_the_ca_and_certificate_are_for_the_pis_names_with_private_keys(tmp_path, lan):
    held, left_out, new_ca = certs.make(tmp_path)
    assert new_ca
    tls = certs.folder(tmp_path)
    for key in (certs.CA_KEY, certs.KEY):
        assert stat.S_IMODE((tls / key).stat().st_mode) == 0o600, key
    assert stat.S_IMODE(tls.stat().st_mode) == 0o700
    cert, ca = load(tmp_path, certs.CERT), load(tmp_path, certs.CA_CERT)
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert sans.get_values_for_type(x509.DNSName) == ["potionpi", "potionpi.local", "localhost"]
    assert [str(a) for a in sans.get_values_for_type(x509.IPAddress)] == ["127.0.0.1", "::1", "192.168.1.20"]
    assert held.names == ("potionpi", "potionpi.local", "localhost")
    assert left_out == ["203.0.113.9 (not a private address)"]
    # what browsers and Apple ask of a server certificate
    assert cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value == \
        x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH])
    assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert cert.not_valid_after_utc - cert.not_valid_before_utc <= dt.timedelta(days=825)
    assert isinstance(cert.public_key(), ec.EllipticCurvePublicKey)
    assert cert.issuer == ca.subject
    ca.public_key().verify(cert.signature, cert.tbs_certificate_bytes, ec.ECDSA(cert.signature_hash_algorithm))


def test_the_ca_can_vouch_for_the_tables_own_names_only(tmp_path, lan):
    certs.make(tmp_path)
    ca = load(tmp_path, certs.CA_CERT)
    constraint = ca.extensions.get_extension_for_class(x509.NameConstraints)
    assert constraint.critical
    dns = [n.value for n in constraint.value.permitted_subtrees if isinstance(n, x509.DNSName)]
    assert dns == ["local", "localhost", "potionpi"]
    nets = {str(n.value) for n in constraint.value.permitted_subtrees if isinstance(n, x509.IPAddress)}
    assert {"192.168.0.0/16", "10.0.0.0/8", "127.0.0.0/8"} <= nets and not any(n.startswith("203.") for n in nets)
    basic = ca.extensions.get_extension_for_class(x509.BasicConstraints)
    assert basic.critical and basic.value.ca and basic.value.path_length == 0


def test_a_new_address_gets_a_new_certificate_from_the_same_ca(tmp_path, lan):
    first, _, _ = certs.make(tmp_path)
    assert certs.needs_new(tmp_path) is None
    assert certs.refresh(tmp_path) is None
    lan["addresses"].append("10.42.0.1")                       # the Pi's own hotspot came on
    assert certs.needs_new(tmp_path) == "the Pi now also answers to 10.42.0.1"
    assert certs.refresh(tmp_path) == "the Pi now also answers to 10.42.0.1"
    second = certs.holds(tmp_path)
    assert "10.42.0.1" in second.addresses
    assert second.ca_fingerprint == first.ca_fingerprint      # the tablet needs nothing new
    # the end comes near: made again a month before it
    soon = second.not_after - dt.timedelta(days=10)
    assert certs.needs_new(tmp_path, now=soon).startswith("it ends on ")


def test_a_name_the_ca_was_not_made_for_is_left_out_and_said(tmp_path, lan):
    certs.make(tmp_path)
    held, left_out, new_ca = certs.make(tmp_path, ("table.example.org", "potionpi-2.local"))
    assert not new_ca
    assert "potionpi-2.local" in held.names                    # a .local name is the CA's kind
    assert "table.example.org" not in held.names
    assert any(item.startswith("table.example.org (the table CA was made for other names") for item in left_out)
    held, _, new_ca = certs.make(tmp_path, ("table.example.org",), new_ca=True)
    assert new_ca and "table.example.org" in held.names


def test_the_ios_profile_installs_exactly_the_table_ca(tmp_path, lan):
    certs.make(tmp_path)
    profile = plistlib.loads(certs.mobileconfig(tmp_path))
    assert profile["PayloadType"] == "Configuration" and profile["PayloadVersion"] == 1
    [payload] = profile["PayloadContent"]
    assert payload["PayloadType"] == "com.apple.security.root"
    assert payload["PayloadContent"] == certs.ca_der(tmp_path)
    assert "potionpi" in profile["PayloadDisplayName"]
    # the same profile every time (iOS replaces a profile by its identifier)
    assert plistlib.loads(certs.mobileconfig(tmp_path))["PayloadUUID"] == profile["PayloadUUID"]
    assert certs.fingerprint(certs.ca_der(tmp_path)).count(":") == 31


def test_no_ca_no_profile(tmp_path):
    with pytest.raises(certs.NoCA):
        certs.mobileconfig(tmp_path)
    assert certs.refresh(tmp_path) is None and not certs.ready(tmp_path)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to hand files to another user")
def test_run_as_root_for_the_services_data_dir_the_files_go_to_its_owner(tmp_path, lan):
    data = tmp_path / "var-lib-potionpi"
    data.mkdir()
    os.chown(data, 65534, 65534)
    certs.make(data)
    for path in [certs.folder(data), *certs.folder(data).iterdir()]:
        assert (path.stat().st_uid, path.stat().st_gid) == (65534, 65534), path


def test_potionpi_tls_says_what_it_made_and_what_next(tmp_path, lan, capsys):
    assert main(["tls", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    held = certs.holds(tmp_path)
    assert f"its SHA-256 fingerprint: {held.ca_fingerprint}" in out
    assert "for potionpi, potionpi.local, localhost, 127.0.0.1, ::1, 192.168.1.20" in out
    assert "left out: 203.0.113.9 (not a private address)" in out
    assert "/secure and install the table's certificate" in out
    assert "then the tablet opens https://potionpi.local/" in out
    # again: the CA stays, the tablet needs nothing
    assert main(["tls", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "(kept)" in out and "needs nothing new" in out
    assert certs.holds(tmp_path).ca_fingerprint == held.ca_fingerprint
