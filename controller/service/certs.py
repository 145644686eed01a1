"""The table's own HTTPS: a table CA and a certificate for the Pi's names (`potionpi tls`).

The tablet trusts the table CA once (a profile on an iPad, a CA certificate on Android,
from the table's /secure page); every certificate the Pi makes later is signed by it, so
a new address after a DHCP change needs nothing on the tablet: the daemon makes a new
certificate at start when the Pi's names or addresses are no longer all in it, or it
ends within 30 days (``refresh``).

Kept in ``<data dir>/tls/``: ``ca.key`` and ``table.key`` (0600, only the table's user
reads them), ``ca.crt``, ``table.crt``, and ``table.json`` (what the certificate holds and
when it ends, so the daemon's start-up check needs no crypto library). Keys are ECDSA
P-256 (a Pi Zero 2 W signs a handshake with one in a few ms). The CA may only vouch for
the table's own kind of names: ``.local`` names, ``localhost``, the Pi's host name and
private addresses (a critical name constraint), so a copy of its key taken from the SD
card cannot impersonate any other site to the tablet. A certificate lasts 800 days
(Apple's limit for certificates, even from a root the user installed, is 825).
"""
from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import json
import os
import ssl
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..secrets_store import write_private
from . import discovery
# the files' names, folder() and ready() are this module's to callers (cli, install); they
# live apart so that the daemon's start asks ready() without importing this module
from .tls_files import CA_CERT, CA_KEY, CERT, HOLDS, KEY, TLS_DIR, folder, ready  # noqa: F401

CA_DAYS = 3650
CERT_DAYS = 800
RENEW_DAYS = 30
#: the addresses a table's CA may vouch for: private, link-local, loopback, carrier-grade NAT
PRIVATE_NETS = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10",
                "127.0.0.0/8", "::1/128", "fc00::/7", "fe80::/10")
PROFILE_TYPE = "application/x-apple-aspen-config"
UUIDS = uuid.UUID("6b1f3d8e-8a0e-4d7e-9f43-0c6a1b7d2e55")     # potionpi's namespace for profile ids


class NoCA(Exception):
    """There is no table CA yet (`potionpi tls` makes one)."""


@dataclass(frozen=True)
class Holds:
    """What the table's certificate is for, and until when."""

    names: tuple[str, ...]
    addresses: tuple[str, ...]
    not_after: dt.datetime
    ca_fingerprint: str
    ca_names: tuple[str, ...]         # the DNS names the CA may vouch for (its name constraint)

    def to_json(self) -> dict[str, Any]:
        return {"names": list(self.names), "addresses": list(self.addresses),
                "not_after": self.not_after.isoformat(), "ca_fingerprint": self.ca_fingerprint,
                "ca_names": list(self.ca_names)}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> "Holds":
        return cls(tuple(raw["names"]), tuple(raw["addresses"]), dt.datetime.fromisoformat(raw["not_after"]),
                   str(raw["ca_fingerprint"]), tuple(raw["ca_names"]))


def has_ca(data_dir: Path) -> bool:
    return (folder(data_dir) / CA_CERT).is_file()


def holds(data_dir: Path) -> Holds | None:
    try:
        return Holds.from_json(json.loads((folder(data_dir) / HOLDS).read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def fingerprint(der: bytes) -> str:
    """SHA-256 of a certificate as an iPad's or Android's certificate details show it."""
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


def ca_der(data_dir: Path) -> bytes:
    """The table CA's certificate (DER), for the tablet to install."""
    path = folder(data_dir) / CA_CERT
    if not path.is_file():
        raise NoCA("this table has no CA yet")
    return ssl.PEM_cert_to_DER_cert(path.read_text())


def wanted(extra: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """The names and addresses the table answers to (discovery.table_names) and ``extra``."""
    names, addresses = discovery.table_names()
    for item in extra:
        item = item.strip().lower()
        try:
            addresses.append(str(ipaddress.ip_address(item)))
        except ValueError:
            names.append(item)
    return list(dict.fromkeys(n for n in names if n)), list(dict.fromkeys(addresses))


def _permitted(name: str, dns: tuple[str, ...]) -> bool:
    return any(name == d or name.endswith("." + d) for d in dns)


def _private(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    return any(ip in ipaddress.ip_network(net) for net in PRIVATE_NETS)


def needs_new(data_dir: Path, extra: tuple[str, ...] = (), now: dt.datetime | None = None) -> str | None:
    """Why the certificate should be made again (a sentence), or None while it still fits."""
    now = now or dt.datetime.now(dt.timezone.utc)
    held = holds(data_dir)
    if held is None or not ready(data_dir):
        return "there is no certificate yet"
    if held.not_after - now < dt.timedelta(days=RENEW_DAYS):
        return f"it ends on {held.not_after:%Y-%m-%d}"
    names, addresses = wanted(extra)
    missing = [n for n in names if n not in held.names and _permitted(n, held.ca_names)]
    missing += [a for a in addresses if a not in held.addresses and _private(a)]
    if missing:
        return "the Pi now also answers to " + ", ".join(missing)
    return None


def make(data_dir: Path, extra: tuple[str, ...] = (), new_ca: bool = False) -> tuple[Holds, list[str], bool]:
    """Make the table CA (if there is none, or ``new_ca``) and a certificate for the Pi's
    names and addresses. Returns what it holds, what it had to leave out (with why) and
    whether the CA is new (the tablet must install it then)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    tls = folder(data_dir)
    tls.mkdir(parents=True, exist_ok=True)
    os.chmod(tls, 0o700)
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    host = discovery.host_name()
    names, addresses = wanted(extra)

    made_ca = new_ca or not (tls / CA_KEY).is_file() or not (tls / CA_CERT).is_file()
    if made_ca:
        ca_key = ec.generate_private_key(ec.SECP256R1())
        # the CA can vouch for the table's own kind of names only (see the module docstring)
        kinds: tuple[str, ...] = ("local", "localhost")
        dns = kinds + tuple(n for n in names if not _permitted(n, kinds))
        subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "potionpi"),
                             x509.NameAttribute(NameOID.COMMON_NAME, f"potionpi table CA ({host})")])
        ca_cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                   .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=CA_DAYS))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                                content_commitment=False, key_encipherment=False,
                                                data_encipherment=False, key_agreement=False,
                                                encipher_only=False, decipher_only=False), critical=True)
                   .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
                   .add_extension(x509.NameConstraints(
                       permitted_subtrees=[*(x509.DNSName(d) for d in dns),
                                           *(x509.IPAddress(ipaddress.ip_network(n)) for n in PRIVATE_NETS)],
                       excluded_subtrees=None), critical=True)
                   .sign(ca_key, hashes.SHA256()))
        _write(tls / CA_KEY, ca_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                  serialization.NoEncryption()), data_dir)
        _write(tls / CA_CERT, ca_cert.public_bytes(serialization.Encoding.PEM), data_dir, private=False)
    else:
        loaded = serialization.load_pem_private_key((tls / CA_KEY).read_bytes(), password=None)
        if not isinstance(loaded, ec.EllipticCurvePrivateKey):
            raise ValueError(f"{tls / CA_KEY} is not the table CA's key; make a new one with "
                             "`potionpi tls --new-ca`")
        ca_key = loaded
        ca_cert = x509.load_pem_x509_certificate((tls / CA_CERT).read_bytes())

    permitted = _ca_constraints(data_dir)
    left_out = [f"{n} (the table CA was made for other names: `potionpi tls --new-ca` makes one for it)"
                for n in names if not _permitted(n, permitted)]
    left_out += [f"{a} (not a private address)" for a in addresses if not _private(a)]
    names = [n for n in names if _permitted(n, permitted)]
    addresses = [a for a in addresses if _private(a)]

    key = ec.generate_private_key(ec.SECP256R1())
    not_after = now + dt.timedelta(days=CERT_DAYS)
    sans: list[x509.GeneralName] = [*(x509.DNSName(n) for n in names),
                                    *(x509.IPAddress(ipaddress.ip_address(a)) for a in addresses)]
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "potionpi"),
                                     x509.NameAttribute(NameOID.COMMON_NAME, discovery.mdns_name())]))
            .issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(not_after)
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False, crl_sign=False,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    held = Holds(tuple(names), tuple(addresses), not_after,
                 fingerprint(ca_cert.public_bytes(serialization.Encoding.DER)), permitted)
    _write(tls / KEY, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption()), data_dir)
    _write(tls / CERT, cert.public_bytes(serialization.Encoding.PEM), data_dir, private=False)
    _write(tls / HOLDS, json.dumps(held.to_json(), indent=1).encode() + b"\n", data_dir, private=False)
    return held, left_out, made_ca


def _ca_constraints(data_dir: Path) -> tuple[str, ...]:
    """The DNS names the table CA may vouch for (its name constraint), read from it."""
    from cryptography import x509

    path = folder(data_dir) / CA_CERT
    if not path.is_file():
        raise NoCA("this table has no CA yet: `potionpi tls` makes one")
    ca = x509.load_pem_x509_certificate(path.read_bytes())
    try:
        constraint = ca.extensions.get_extension_for_class(x509.NameConstraints).value
    except x509.ExtensionNotFound:
        return ("",)          # no constraint: everything (an empty suffix matches every name)
    return tuple(n.value for n in constraint.permitted_subtrees or () if isinstance(n, x509.DNSName))


def _write(path: Path, data: bytes, data_dir: Path, private: bool = True) -> None:
    """Write atomically; keys only the owner reads. Run as root for the service's data dir,
    the files go to the data dir's owner (the table's user), who must read them."""
    if private:
        write_private(path, data)
    else:
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_bytes(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    if os.geteuid() == 0:
        owner = Path(data_dir).stat()
        if owner.st_uid != 0:
            for target in (path, path.parent):
                os.chown(target, owner.st_uid, owner.st_gid)


def refresh(data_dir: Path) -> str | None:
    """At the daemon's start: a new certificate from the table CA when the old one no longer
    fits (see ``needs_new``); returns why it was made, or None. Nothing without a CA key."""
    if not (folder(data_dir) / CA_KEY).is_file():
        return None
    why = needs_new(data_dir)
    if why is None:
        return None
    make(data_dir)
    return why


def server_context(data_dir: Path) -> ssl.SSLContext:
    """The TLS settings of the table's HTTPS listener (TLS 1.2 and up, HTTP/1.1)."""
    tls = folder(data_dir)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.options |= ssl.OP_NO_RENEGOTIATION | ssl.OP_NO_COMPRESSION
    context.set_alpn_protocols(["http/1.1"])
    context.load_cert_chain(tls / CERT, tls / KEY)
    return context


def mobileconfig(data_dir: Path) -> bytes:
    """An iOS/iPadOS configuration profile that installs the table CA (unsigned: iOS says
    "Not Verified"; the fingerprint on the /secure page is how to check it)."""
    import plistlib      # only for an iPad's profile: not at every start

    der = ca_der(data_dir)
    fp = fingerprint(der).replace(":", "")
    host = discovery.host_name()
    return plistlib.dumps({
        "PayloadContent": [{
            "PayloadCertificateFileName": "potionpi-table-ca.cer",
            "PayloadContent": der,
            "PayloadDescription": f"Lets this device trust the potionpi table on {host} over HTTPS.",
            "PayloadDisplayName": f"potionpi table CA ({host})",
            "PayloadIdentifier": f"local.potionpi.table.ca.{fp[:16]}",
            "PayloadType": "com.apple.security.root",
            "PayloadUUID": str(uuid.uuid5(UUIDS, fp + "/ca")).upper(),
            "PayloadVersion": 1,
        }],
        "PayloadDescription": "Trust the potionpi table's own HTTPS address, so the tablet stays awake "
                              "through a game and can work as an app. It can vouch for the table's "
                              "local names and addresses only.",
        "PayloadDisplayName": f"potionpi table ({host})",
        "PayloadIdentifier": f"local.potionpi.table.{fp[:16]}",
        "PayloadOrganization": "potionpi",
        "PayloadRemovalDisallowed": False,
        "PayloadType": "Configuration",
        "PayloadUUID": str(uuid.uuid5(UUIDS, fp)).upper(),
        "PayloadVersion": 1,
    })
