"""Updating the SD-card image's potionpi from a file the owner picks on the tablet.

The image keeps each potionpi in its own virtualenv, side by side::

    /opt/potionpi/releases/0.1.0/    a venv (bin/potionpi, ...)
    /opt/potionpi/current  -> releases/0.1.0     what the service runs
    /opt/potionpi/previous -> releases/...       what a failed update goes back to
    /opt/potionpi/wheels/            every dependency's wheel: updates install offline

A file is a potionpi wheel, or the project's release archive (``make image`` writes
``potionpi-VERSION-bookworm-arm64.tar.gz``: the wheel and every dependency's wheel for
the Pi). The settings page checks it (:func:`inspect`) and leaves it in the data dir's
``update/`` folder; a root service (``potionpi-update.service``, started by a path unit
when the request appears) checks it again, never trusting the page, and installs it:

1. a new venv beside the current one, ``pip install --no-index`` from the file and the
   wheels already on the card (nothing is downloaded, the table may have no internet);
2. the service stopped, the game database copied (sqlite's backup), ``current``
   pointed at the new venv, the Pico flashed if its firmware is older, the service started;
3. the health check: the unit active, ``/healthz`` answering with the new version, and a
   watchdog ping from the new process;
4. if any of it fails: the service stopped, ``current`` pointed back, the database copied
   back, the old potionpi started again.

The games (the data dir), the PIN and the config (/etc/potionpi.toml) are never touched
by an update. Root never runs the uploaded code: pip unpacks it, the service runs it as
the table's user, in its sandbox. So the root side is not the installed potionpi either:
the image copies this module to /usr/lib/potionpi/updater/ and runs it with Debian's
Python (``python3 -I release.py --from-spool``), which is why it imports only the
standard library. An uploaded potionpi can never replace the program that installs the
next one.
"""
from __future__ import annotations

import email.parser
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Mapping, Protocol

OPT = Path("/opt/potionpi")
SPOOL = "update"                       # under the data dir: the page leaves files here
REQUEST = "request.json"
STATUS = "status.json"
EXTRAS = "pi,image"
MAX_BYTES = 64 * 1024 * 1024           # a release archive is ~15 MB
MAX_MEMBERS = 400
WHEEL_NAME = re.compile(r"^potionpi-(?P<version>\d+(?:\.\d+)*(?:[a-z0-9.+]*)?)-py3-none-any\.whl$")
ANY_WHEEL = re.compile(r"^[A-Za-z0-9_.+-]+\.whl$")
ARCHIVE = (".tar.gz", ".tgz", ".tar")
# potionpi-update.service's TimeoutStartSec (a test keeps them equal): a Pi Zero 2 W's pip
# install took over 9 minutes in the emulator. An install that is neither done nor stopped
# after this and the margin (the stop hook's own time) is stale: the page offers a new one.
INSTALL_TIMEOUT = 1800
STALE_MARGIN = 600


def version_tuple(version: str) -> tuple[int, ...]:
    """"1.2.0" -> (1, 2, 0); what is not a number ends it (as check.version_tuple: this
    module may import nothing of potionpi's, see above)."""
    parts = []
    for piece in version.split("-")[0].split("."):
        if not piece.isdigit():
            break
        parts.append(int(piece))
    return tuple(parts)


class BadUpdate(Exception):
    """A file that cannot be installed; ``status`` is the HTTP status for the page."""

    def __init__(self, sentence: str, status: int = 400):
        super().__init__(sentence)
        self.status = status


@dataclass
class Package:
    """A checked update file."""
    kind: str                # "wheel" or "archive"
    version: str
    wheel: str               # the potionpi wheel's file name
    wheels: list[str] = field(default_factory=list)   # an archive's other wheels


def _wheel_metadata(data: zipfile.ZipFile, name: str) -> tuple[str, str]:
    """(Name, Version) from a wheel's METADATA; raises BadUpdate."""
    infos = data.infolist()
    if len(infos) > 5000:
        raise BadUpdate(f"{name} holds {len(infos)} files, far more than a potionpi wheel")
    for info in infos:
        if info.filename.startswith("/") or ".." in Path(info.filename).parts:
            raise BadUpdate(f"{name} has a file outside its own folders ({info.filename!r}); "
                            "it is not a wheel pip made")
    meta = [i.filename for i in infos if re.fullmatch(r"[^/]+\.dist-info/METADATA", i.filename)]
    if len(meta) != 1:
        raise BadUpdate(f"{name} is a zip file but not a wheel (it has no .dist-info/METADATA)")
    message = email.parser.HeaderParser().parsestr(data.read(meta[0]).decode("utf-8", "replace"))
    return message.get("Name", ""), message.get("Version", "")


def check_wheel(path: Path, name: str) -> str:
    """The version of the potionpi wheel at ``path`` (uploaded as ``name``); raises BadUpdate."""
    found = WHEEL_NAME.match(name)
    if not found:
        raise BadUpdate(f"{name!r} is not a potionpi wheel: its name should look like "
                        "potionpi-1.2.0-py3-none-any.whl")
    try:
        with zipfile.ZipFile(path) as data:
            project, version = _wheel_metadata(data, name)
            bad = data.testzip()
    except zipfile.BadZipFile:
        raise BadUpdate(f"{name} is not a wheel: it is not a zip file (was the download cut short?)") from None
    if bad is not None:
        raise BadUpdate(f"{name} is damaged ({bad} does not match its checksum); download it again")
    if project.lower().replace("_", "-") != "potionpi":
        raise BadUpdate(f"{name} is the package {project!r}, not potionpi")
    if version != found.group("version"):
        raise BadUpdate(f"{name} says it is version {version!r} inside; its name and its "
                        "contents disagree")
    return version


def inspect(path: Path, name: str) -> tuple[Package, Path | None]:
    """Check an uploaded file; (the package, a folder with its wheels, or None for a bare
    wheel). The folder is the caller's to remove. Raises BadUpdate with a sentence."""
    name = Path(name).name
    if path.stat().st_size > MAX_BYTES:
        raise BadUpdate(f"{name} is {path.stat().st_size // 2**20} MB; an update is at most "
                        f"{MAX_BYTES // 2**20} MB", 413)
    if name.endswith(".whl"):
        return Package("wheel", check_wheel(path, name), name), None
    if not name.endswith(ARCHIVE):
        raise BadUpdate(f"{name!r} is neither a potionpi wheel (.whl) nor a release archive "
                        "(.tar.gz): pick the file the project publishes for the Pi")
    folder = Path(tempfile.mkdtemp(prefix="potionpi-release-"))
    try:
        wheels = _unpack(path, name, folder)
        own = [w for w in wheels if WHEEL_NAME.match(w)]
        if len(own) != 1:
            raise BadUpdate(f"{name} holds {len(own)} potionpi wheels; a release archive holds one")
        version = check_wheel(folder / own[0], own[0])
        return Package("archive", version, own[0], sorted(set(wheels) - set(own))), folder
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _unpack(path: Path, name: str, folder: Path) -> list[str]:
    """The archive's wheels, copied flat into ``folder``; only plain files are taken."""
    try:
        with tarfile.open(path) as tar:
            members = tar.getmembers()
            if len(members) > MAX_MEMBERS:
                raise BadUpdate(f"{name} holds {len(members)} entries; a release archive holds "
                                "a few dozen wheels")
            wheels = []
            total = 0
            for member in members:
                base = Path(member.name).name
                if member.isdir() or base in ("RELEASE.txt", "SHA256SUMS"):
                    continue
                if not member.isfile() or not ANY_WHEEL.match(base):
                    raise BadUpdate(f"{name} holds {member.name!r}, which is not a wheel; a "
                                    "release archive holds only wheels")
                total += member.size
                if total > 4 * MAX_BYTES:
                    raise BadUpdate(f"{name} unpacks to more than {4 * MAX_BYTES // 2**20} MB", 413)
                source = tar.extractfile(member)
                if source is None:
                    continue
                with source, open(folder / base, "wb") as target:
                    shutil.copyfileobj(source, target)
                wheels.append(base)
    except tarfile.TarError as exc:
        raise BadUpdate(f"{name} is not a release archive: {exc}") from None
    return wheels


def refuse_version(package: Package, installed: str) -> None:
    """An update must be newer than what runs (an older potionpi may not read the games)."""
    if version_tuple(package.version) == version_tuple(installed):
        raise BadUpdate(f"potionpi {package.version} is already installed", 409)
    if version_tuple(package.version) < version_tuple(installed):
        raise BadUpdate(f"{package.wheel} is potionpi {package.version}, older than the "
                        f"installed {installed}; an older potionpi may not read this table's "
                        "games, so it is not installed", 409)


# --- the status the settings page shows -------------------------------------------
@dataclass
class Status:
    state: str = "idle"          # idle, waiting, installing, installed, rolled-back, failed
    version: str = ""            # the one asked for
    previous: str = ""           # the one it replaced (or went back to)
    message: str = ""
    at: float = 0.0
    boot: str = ""               # the boot it started in, and when (monotonic seconds):
    started: float = 0.0         # a clock jump cannot make an install look stale or fresh

    @classmethod
    def load(cls, spool: Path) -> "Status":
        try:
            raw = json.loads((spool / STATUS).read_text())
        except (OSError, ValueError):
            return cls()
        return cls(**{k: v for k, v in raw.items() if k in cls.__dataclass_fields__})

    def save(self, spool: Path, owner: str | None = None) -> None:
        spool.mkdir(parents=True, exist_ok=True)
        tmp = spool / (STATUS + ".new")
        tmp.write_text(json.dumps(asdict(self)) + "\n")
        if owner:
            shutil.chown(tmp, owner, owner)
        os.replace(tmp, spool / STATUS)

    @property
    def busy(self) -> bool:
        return self.state in ("waiting", "installing")

    def minutes(self) -> int | None:
        """How long this attempt has run, if it started in this boot."""
        if not self.boot or self.boot != boot_id():
            return None
        return max(0, round((time.monotonic() - self.started) / 60))

    def settled(self, running: str = "") -> "Status":
        """This status, or "failed" if it says busy but no install can still be running:
        the Pi restarted since (a power cut), or it is past the unit's time limit.
        ``running``: the version ``current`` points at (a power cut may follow the switch)."""
        if not self.busy:
            return self
        if self.boot:
            if self.boot == boot_id() and \
                    time.monotonic() - self.started <= INSTALL_TIMEOUT + STALE_MARGIN:
                return self
            why = "the Pi restarted" if self.boot != boot_id() else "it ran past its time limit"
        elif time.time() - self.at <= INSTALL_TIMEOUT + STALE_MARGIN:   # an older updater's
            return self
        else:
            why = "it ran past its time limit"
        return Status("failed", self.version, self.previous,
                      f"the install of potionpi {self.version} did not finish ({why}); potionpi "
                      f"{running or self.previous} is running; try again", self.at, self.boot,
                      self.started)


def boot_id() -> str:
    """The kernel's id for this boot (time.monotonic() counts from it)."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def request(spool: Path, upload: Path, package: Package, installed: str) -> Status:
    """Leave a checked upload for the root service (the page's side)."""
    status = Status.load(spool).settled(installed)
    if status.busy:
        raise BadUpdate(f"potionpi {status.version} is being installed; wait until it is done", 409)
    target = spool / package.wheel if package.kind == "wheel" else \
        spool / f"potionpi-{package.version}-release.tar.gz"
    os.replace(upload, target)
    status = Status("waiting", package.version, installed,
                    f"potionpi {package.version} is being installed; the table restarts in a "
                    "minute or two", time.time(), boot_id(), time.monotonic())
    status.save(spool)
    tmp = spool / (REQUEST + ".new")
    tmp.write_text(json.dumps({"file": target.name, "version": package.version}) + "\n")
    os.replace(tmp, spool / REQUEST)       # the path unit starts the root service on this
    return status


# --- the root side ------------------------------------------------------------------
class Service(Protocol):
    """The table's service, as the installer sees it."""
    def stop(self) -> None: ...
    def start(self) -> str | None: ...               # None: started; else why not
    def healthy(self, version: str) -> str | None: ...   # None: healthy; else why not
    def flash_if_older(self) -> str | None: ...      # None: fine; else a note


@dataclass
class Layout:
    """Where the releases and the games are (tests: a scratch dir)."""
    opt: Path = OPT
    data_dir: Path = Path("/var/lib/potionpi")
    python: str = "/usr/bin/python3"     # Debian's, which made every venv here
    owner: str | None = "potionpi"       # the table's user, who reads the status

    @property
    def releases(self) -> Path:
        return self.opt / "releases"

    @property
    def current(self) -> Path:
        return self.opt / "current"

    @property
    def previous(self) -> Path:
        return self.opt / "previous"

    @property
    def wheels(self) -> Path:
        return self.opt / "wheels"

    @property
    def spool(self) -> Path:
        return self.data_dir / SPOOL

    def installed(self) -> str:
        """The version ``current`` points at (its folder's name)."""
        try:
            return os.readlink(self.current).rstrip("/").rsplit("/", 1)[-1]
        except OSError:
            return ""

    def supports(self) -> bool:
        """Is this potionpi installed the image's way (releases under /opt)?"""
        return self.releases.is_dir() and self.current.is_symlink()


def _point(link: Path, target: Path) -> None:
    """Repoint a symlink atomically (rename over it)."""
    tmp = link.with_name(link.name + ".new")
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(os.path.relpath(target, link.parent))
    os.replace(tmp, link)


Stage = Callable[[Layout, Path, Package, Path | None, Path], str | None]


def pip_stage(layout: Layout, wheel: Path, package: Package, wheels: Path | None,
              target: Path) -> str | None:
    """A new venv at ``target`` with the wheel installed offline; None, or why not."""
    def run(cmd: list[str]) -> str | None:
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode == 0:
            return None
        lines = [l for l in (done.stderr or done.stdout).splitlines() if l.strip()]
        return lines[-1].strip() if lines else f"exit {done.returncode}"
    problem = run([layout.python, "-m", "venv", str(target)])
    if problem:
        return f"could not make its virtualenv: {problem}"
    links = ["--find-links", str(layout.wheels)] + (["--find-links", str(wheels)] if wheels else [])
    problem = run([str(target / "bin" / "python"), "-m", "pip", "install", "--quiet",
                   "--disable-pip-version-check", "--no-index", *links,
                   f"{wheel}[{EXTRAS}]"])
    if problem:
        return (f"pip could not install it from the wheels on this card ({problem}); a release "
                "archive brings every wheel it needs")
    return None


def _copy_db(source: Path, target: Path) -> None:
    """sqlite's own backup: a consistent copy even with a WAL beside the file."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def install_file(layout: Layout, service: Service, file: Path, out: IO[str], *,
                 stage: Stage = pip_stage, db_name: str = "potionpi.sqlite3") -> int:
    """Install ``file`` and keep it only if it comes up; 0 installed, 1 not (and the table
    runs what it ran before)."""
    spool = layout.spool
    installed = layout.installed()
    status = Status("installing", "", installed, "checking the file", time.time(), boot_id(),
                    time.monotonic())

    def say(state: str, message: str) -> None:
        status.state, status.message, status.at = state, message, time.time()
        status.save(spool, layout.owner)
        out.write(f"potionpi update: {message}\n")
        out.flush()

    try:
        package, wheels = inspect(file, file.name)
        status.version = package.version
        refuse_version(package, installed)
    except BadUpdate as exc:
        say("failed", f"{exc}; nothing was changed")
        return 1
    try:
        return _install(layout, service, file if wheels is None else wheels / package.wheel,
                        package, wheels, stage, db_name, installed, say)
    finally:
        if wheels is not None:
            shutil.rmtree(wheels, ignore_errors=True)


def _install(layout: Layout, service: Service, wheel: Path, package: Package, wheels: Path | None,
             stage: Stage, db_name: str, installed: str, say: Callable[[str, str], None]) -> int:
    # made where it stays: a venv cannot be moved (its scripts name its own python)
    target = layout.releases / package.version
    shutil.rmtree(target, ignore_errors=True)         # a failed attempt's leftovers
    say("installing", f"installing potionpi {package.version} beside {installed}")
    problem = stage(layout, wheel, package, wheels, target)
    if problem:
        shutil.rmtree(target, ignore_errors=True)
        say("failed", f"potionpi {package.version} was not installed: {problem}; nothing was changed")
        return 1
    if wheels is not None:                  # the next update may need them offline
        layout.wheels.mkdir(parents=True, exist_ok=True)
        for name in package.wheels:
            if not (layout.wheels / name).exists():
                shutil.copy2(wheels / name, layout.wheels / name)
    old = layout.current.resolve()
    database = layout.data_dir / db_name
    backup = layout.spool / f"before-{package.version}.sqlite3"
    service.stop()
    if database.exists():
        backup.unlink(missing_ok=True)
        _copy_db(database, backup)
    _point(layout.current, target)
    _point(layout.previous, old)
    note = service.flash_if_older()
    why = service.start() or service.healthy(package.version)
    if why is None:
        say("installed", f"potionpi {package.version} is installed and running (it replaced "
                         f"{installed})" + (f"; {note}" if note else ""))
        _prune(layout, keep={target, old})
        backup.unlink(missing_ok=True)
        return 0
    # it did not come up: everything back as it was
    service.stop()
    _point(layout.current, old)
    if backup.exists():
        _copy_db(backup, database)
        backup.unlink()
    back = service.start() or service.healthy(installed)
    shutil.rmtree(target, ignore_errors=True)
    say("rolled-back", f"potionpi {package.version} did not come up ({why}), so {installed} "
                       "runs again with the same games" +
                       ("" if back is None else f"; but {installed} did not come up either: {back}"))
    return 1


def _prune(layout: Layout, keep: set[Path]) -> None:
    """Only the running release and the one before it stay (the card is small)."""
    for release in layout.releases.iterdir():
        if release.resolve() not in keep:
            shutil.rmtree(release, ignore_errors=True)


def take_request(layout: Layout) -> Path | None:
    """The file the page left (the request is consumed: the path unit fires once)."""
    path = layout.spool / REQUEST
    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    path.unlink(missing_ok=True)
    name = Path(str(raw.get("file", ""))).name
    return layout.spool / name if name else None


# --- the real service: systemd ---------------------------------------------------
@dataclass
class Systemd:
    """potionpi.service through systemctl; healthy = active, /healthz answering with the
    version, and a watchdog ping from the new process within ``deadline`` seconds."""
    unit: str = "potionpi.service"
    port: int = 8080
    deadline: float = 180.0
    user: str = "potionpi"
    potionpi: Path = OPT / "current" / "bin" / "potionpi"
    run: Callable[[list[str]], "subprocess.CompletedProcess[str]"] = \
        lambda cmd: subprocess.run(cmd, capture_output=True, text=True)
    _armed: int = 0

    def stop(self) -> None:
        self.run(["systemctl", "stop", self.unit])

    def start(self) -> str | None:
        done = self.run(["systemctl", "start", self.unit])
        if done.returncode:
            return f"`systemctl start` failed: {(done.stderr or done.stdout).strip()[:200]}"
        self._armed = self._watchdog_stamp()
        return None

    def show(self) -> dict[str, str]:
        done = self.run(["systemctl", "show", self.unit, "-p",
                         "ActiveState,SubState,MainPID,WatchdogUSec,WatchdogTimestampMonotonic,NRestarts"])
        return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)

    def _watchdog_stamp(self) -> int:
        value = self.show().get("WatchdogTimestampMonotonic", "0")
        return int(value) if value.isdigit() else 0

    def healthy(self, version: str) -> str | None:
        import http.client
        end = time.monotonic() + self.deadline
        why = "it did not answer"
        answered = False
        while time.monotonic() < end:
            props = self.show()
            if props.get("ActiveState") != "active":
                return f"the service is {props.get('ActiveState')} ({props.get('SubState')})"
            if not answered:
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                    conn.request("GET", "/healthz")
                    body = json.loads(conn.getresponse().read() or b"{}")
                    conn.close()
                    if body.get("version") != version:
                        return f"the page answers as potionpi {body.get('version')}, not {version}"
                    answered = True
                except (OSError, ValueError) as exc:
                    why = f"/healthz did not answer ({exc})"
            stamp = self._watchdog_stamp()
            if answered and stamp > self._armed:
                return None                 # the new process pinged the watchdog itself
            if answered:
                why = "no watchdog ping came"
            time.sleep(1.0)
        return why

    def flash_if_older(self) -> str | None:
        done = self.run(["runuser", "-u", self.user, "--", str(self.potionpi),
                         "firmware", "flash", "--if-older"])
        if done.returncode in (0, 1):       # 1: no Pico plugged in
            return None
        return "the Pico was not flashed: `potionpi firmware flash` at the console tries again"


def from_spool(out: IO[str], *, layout: Layout | None = None, service: Service | None = None) -> int:
    """`potionpi update --from-spool`: what potionpi-update.service runs, as root."""
    layout = layout or Layout()
    file = take_request(layout)
    if file is None or not file.exists():
        out.write("potionpi update: no update was asked for\n")
        return 0
    try:
        return install_file(layout, service or systemd_service(), file, out)
    finally:
        file.unlink(missing_ok=True)


def systemd_service(config: Path = Path("/etc/potionpi.toml")) -> Systemd:
    """The service on the port its config names (read here with tomllib alone)."""
    try:
        with config.open("rb") as fh:
            port = int(tomllib.load(fh).get("web", {}).get("port", 8080))
    except (OSError, ValueError, tomllib.TOMLDecodeError):
        port = 8080
    return Systemd(port=port)


STOPPED = {"timeout": "it took longer than the update service allows",
           "oom-kill": "the Pi ran out of memory", "signal": "it was killed",
           "core-dump": "the installer crashed", "exit-code": "the installer failed",
           "watchdog": "it stopped answering"}


def after_stop(out: IO[str], environ: Mapping[str, str] | None = None, *,
               layout: Layout | None = None, service: Service | None = None) -> int:
    """`release.py --after-stop`: potionpi-update.service's ExecStopPost. If systemd stopped
    the install before it said how it ended (its time limit, the OOM killer, a kill), put
    back what it had switched and say so on the settings page; never leave it "installing"."""
    environ = os.environ if environ is None else environ
    result = environ.get("SERVICE_RESULT", "")
    layout = layout or Layout()
    status = Status.load(layout.spool)
    if result == "success" or not status.busy:
        return 0                            # the updater wrote how it ended itself
    service = service or systemd_service()
    minutes = status.minutes()
    old = layout.releases / status.previous if status.previous else None
    if old is not None and old.is_dir() and layout.installed() != status.previous:
        service.stop()                      # killed after the switch: switch back
        _point(layout.current, old)
        backup = layout.spool / f"before-{status.version}.sqlite3"
        if backup.exists():
            _copy_db(backup, layout.data_dir / "potionpi.sqlite3")
            backup.unlink()
    back = service.start()                  # also when killed between stop and switch
    if status.version and status.version != layout.installed():
        shutil.rmtree(layout.releases / status.version, ignore_errors=True)   # the half venv
    when = "" if minutes is None else f" after {minutes} minute{'s' if minutes != 1 else ''}"
    status.state, status.at = "failed", time.time()
    status.message = (f"the install of potionpi {status.version or 'the update'} was stopped"
                      f"{when} ({STOPPED.get(result, result or 'it was stopped')}); potionpi "
                      f"{layout.installed()} is still running; try again" +
                      ("" if back is None else f"; but it did not start: {back}"))
    status.save(layout.spool, layout.owner)
    out.write(f"potionpi update: {status.message}\n")
    return 0


def from_file(file: Path, out: IO[str], err: IO[str], *, dry_run: bool = False,
              layout: Layout | None = None) -> int:
    """`potionpi update --from-file FILE` at the Pi's console (as root). 0 installed,
    1 not installed (rolled back), 2 refused as given."""
    layout = layout or Layout()
    if not layout.supports():
        err.write("potionpi: this potionpi was not installed from the SD-card image: update it "
                  "with `potionpi update` (git or pip)\n")
        return 2
    if not file.is_file():
        err.write(f"potionpi: --from-file {file}: no such file\n")
        return 2
    try:
        package, folder = inspect(file, file.name)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        refuse_version(package, layout.installed())
    except BadUpdate as exc:
        err.write(f"potionpi: {exc}; nothing was changed\n")
        return 2
    if dry_run:
        out.write(f"would install potionpi {package.version} ({package.kind}) into "
                  f"{layout.releases / package.version}, switch {layout.current} to it, restart "
                  f"the table and go back to {layout.installed()} if it does not come up\n")
        return 0
    if os.geteuid() != 0:
        err.write("potionpi: installing an update needs root: `sudo potionpi update --from-file FILE`\n")
        return 2
    return install_file(layout, systemd_service(), file, out)


def main(argv: list[str] | None = None) -> int:
    """The image's root updater: ``python3 -I /usr/lib/potionpi/updater/release.py
    --from-spool`` (potionpi-update.service) or ``--from-file FILE``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--from-spool"]:
        return from_spool(sys.stdout)
    if args == ["--after-stop"]:
        return after_stop(sys.stdout)
    if len(args) == 2 and args[0] == "--from-file":
        return from_file(Path(args[1]), sys.stdout, sys.stderr)
    sys.stderr.write("usage: release.py --from-spool | --after-stop | --from-file FILE\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())


def view(layout: Layout | None = None) -> dict[str, Any]:
    """For the settings page: can this table update from a file, and how the last went."""
    layout = layout or Layout()
    status = Status.load(layout.spool).settled(layout.installed())
    return {"supported": layout.supports(), "status": asdict(status), "busy": status.busy}
