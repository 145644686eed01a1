"""The tablet's static files: gzip'd, with content hashes, cached by the browser.

``/static/<file>`` (the shared page), ``/games/<id>/<file>`` (each game's plug-in) and
``/devices/<name>/<file>`` (each device plug-in's tablet module, e.g. the forest floor's) are served from memory: each file is read once (again when it changes on disk), hashed
and, if it is text, gzip'd once. A tablet on the table's Wi-Fi then gets:

* the compressed file when it says ``Accept-Encoding: gzip`` (CSS and JS shrink ~3x);
* with ``?v=<hash>`` of the current content: ``Cache-Control: max-age=1 year, immutable``,
  so a warm reload asks for nothing; the page links its CSS and script that way and an
  import map (:func:`import_map`) points every module, imported by whatever path, at its
  hashed URL;
* without it (or with an old hash): ``no-cache`` and a strong ETag, so the browser asks
  and gets ``304 Not Modified`` until the file changes;
* on a cold load, every module the board needs at once (:func:`preload_tags`: the
  page's helpers and the running game's whole import graph as ``modulepreload``
  links, its stylesheet linked in the head), not one import level after the other;
* the game on the table as part of the page's own module graph (:data:`TABLE_GAME`),
  so its board is drawn as the page's script runs, before the first frame.

No CDN: everything comes from the Pi.
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import mimetypes
import re
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from flask import Response, abort, g, request
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup
from werkzeug.security import safe_join

from controller import games
from controller.config import DEVICES

STATIC = Path(__file__).resolve().parent / "static"
YEAR = 365 * 24 * 3600
COMPRESSIBLE = (".js", ".css", ".svg", ".json", ".html", ".txt", ".map", ".webmanifest")
MIN_GZIP = 512          # smaller files gain less than the header costs
# not in every system's mime.types (the Pi's may lack them)
TYPES = {".webmanifest": "application/manifest+json", ".mp4": "video/mp4", ".webm": "video/webm",
         ".png": "image/png", ".svg": "image/svg+xml"}


@dataclass(frozen=True)
class Asset:
    data: bytes
    gz: bytes | None
    digest: str           # first 16 hex digits of the SHA-256 of the content
    mimetype: str         # Flask adds "; charset=utf-8" to text types
    modified: float


class AssetCache:
    """Files read, hashed and compressed once per change on disk (keyed by mtime, size)."""

    def __init__(self) -> None:
        self._files: dict[Path, tuple[tuple[int, int], Asset]] = {}
        self._lock = threading.Lock()

    def get(self, path: Path) -> Asset | None:
        try:
            stat = path.stat()
        except (OSError, ValueError):           # ValueError: a NUL in the name (``%00``)
            return None
        if not path.is_file():
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._files.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        data = path.read_bytes()
        gz = None
        if path.suffix in COMPRESSIBLE and len(data) >= MIN_GZIP:
            # mtime=0: the same bytes every time, so the ETag of the gzip'd file is stable
            gz = gzip.compress(data, compresslevel=9, mtime=0)
        mimetype = TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        asset = Asset(data, gz, hashlib.sha256(data).hexdigest()[:16], mimetype, stat.st_mtime)
        with self._lock:
            self._files[path] = (key, asset)
        return asset


CACHE = AssetCache()


def serve(folder: Path, filename: str) -> Response:
    """One file of ``folder`` (404 for anything outside it or missing)."""
    joined = safe_join(str(folder), filename)
    asset = CACHE.get(Path(joined)) if joined is not None else None
    if asset is None:
        abort(404)
    zipped = asset.gz is not None and "gzip" in request.headers.get("Accept-Encoding", "")
    response = Response(asset.gz if zipped else asset.data, mimetype=asset.mimetype)
    if zipped:
        response.headers["Content-Encoding"] = "gzip"
    response.headers["Vary"] = "Accept-Encoding"
    response.set_etag(asset.digest + ("-gz" if zipped else ""))
    response.last_modified = datetime.fromtimestamp(asset.modified, timezone.utc)
    if request.args.get("v") == asset.digest:
        response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    else:
        response.headers["Cache-Control"] = "no-cache"
    if asset.mimetype.startswith("video/"):
        # Safari plays a video only from a server that answers byte ranges (206)
        response.make_conditional(request, accept_ranges=True, complete_length=len(asset.data))
    else:
        response.make_conditional(request)    # 304 when the ETag matches
    return response


def versioned(url: str, path: Path) -> str:
    asset = CACHE.get(path)
    return f"{url}?v={asset.digest}" if asset is not None else url


def static_url(filename: str) -> str:
    """``/static/<filename>?v=<hash>`` for templates."""
    return versioned(f"/static/{filename}", STATIC / filename)


def plugin_folders() -> dict[str, Path]:
    """URL prefix -> folder of every plug-in's tablet files: ``/games/<id>/`` from a game's
    ``static/``, ``/devices/<name>/`` from a device plug-in's ``static/``."""
    out = {f"/games/{game_id}/": plugin.static_dir() for game_id, plugin in games.plugins().items()}
    out.update({f"/devices/{name}/": device.folder / "static" for name, device in DEVICES.items()})
    return out


#: app.js imports this module statically; the page's import map points it at the
#: tablet.js of the game on the table when the page was made (without one: the file
#: itself, which exports nothing). The board is then drawn as app.js runs, in the task
#: that evaluates the page's modules, not after a dynamic ``import()`` a task or a frame
#: later; the same URL as ``import("/games/<id>/tablet.js")``, so one module.
TABLE_GAME = "/static/js/table-game.js"


def import_map(game_id: str | None = None) -> dict[str, dict[str, str]]:
    """Every module and stylesheet of the page and the games -> its hashed URL. Modules
    import each other by plain paths ("./ui.js", "/static/js/ui.js"); the browser looks
    each resolved URL up here, so all of them are cached for good and stay one module.
    With ``game_id`` (the game on the table), :data:`TABLE_GAME` is that game's board."""
    imports: dict[str, str] = {}
    for path in sorted(STATIC.rglob("*")):
        if path.suffix in (".js", ".css"):
            rel = path.relative_to(STATIC).as_posix()
            imports[f"/static/{rel}"] = static_url(rel)
    for prefix, folder in plugin_folders().items():
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".js", ".css"):
                url = f"{prefix}{path.relative_to(folder).as_posix()}"
                imports[url] = versioned(url, path)
    board = imports.get(f"/games/{game_id}/tablet.js") if game_id is not None else None
    if board is not None:
        imports[TABLE_GAME] = board
    return {"imports": imports}


def import_map_tag(game_id: str | None = None) -> Markup:
    """The page's ``<script type="importmap">`` (``game_id``: the game on the table). An
    import map is an inline script to the Content-Security-Policy, so its SHA-256 goes
    into this answer's ``script-src`` (web_ui/headers.py): exactly this map runs, no
    other inline script."""
    text = str(htmlsafe_json_dumps(import_map(game_id)))
    digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    g.setdefault("script_hashes", []).append(f"'sha256-{digest}'")
    return Markup(f'<script type="importmap">{text}</script>')


# ``import {a} from "./x.js"``, ``import "./x.js"``, over several lines too; never ``import(...)``
IMPORT_RE = re.compile(r"""(?:^|[;\n])\s*import\s+(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']""")
_IMPORTS: dict[str, tuple[str, ...]] = {}     # a module's content hash -> what it imports


def _file_of(url: str, folders: dict[str, Path] | None = None) -> Path | None:
    """The file behind a page URL (``/static/...``, ``/games/<id>/...``, ``/devices/<name>/...``),
    or None (``folders``: :func:`plugin_folders`, when the caller has it already)."""
    if url.startswith("/static/"):
        joined = safe_join(str(STATIC), url.removeprefix("/static/"))
    elif url.count("/") >= 3:
        _, kind, name, rest = url.split("/", 3)
        folder = (folders if folders is not None else plugin_folders()).get(f"/{kind}/{name}/")
        joined = safe_join(str(folder), rest) if folder is not None else None
    else:
        return None
    return Path(joined) if joined is not None else None


def module_graph(url: str, folders: dict[str, Path] | None = None) -> list[str]:
    """``url`` and every module it imports, directly or not (static imports only), in
    the order found. Read from the files' own import lines, so a game's new module is
    in without a list to keep."""
    folders = plugin_folders() if folders is None else folders
    seen: list[str] = []
    todo = [url]
    while todo:
        current = todo.pop(0)
        if current in seen:
            continue
        path = _file_of(current, folders)
        asset = CACHE.get(path) if path is not None else None
        if asset is None:
            continue
        seen.append(current)
        base = current.rsplit("/", 1)[0] + "/"
        specs = _IMPORTS.get(asset.digest)
        if specs is None:
            specs = _IMPORTS[asset.digest] = tuple(IMPORT_RE.findall(asset.data.decode("utf-8", "replace")))
        for spec in specs:
            if spec.startswith("/"):
                todo.append(spec)
            elif spec.startswith("./"):
                todo.append(base + spec[2:])
    return seen


def preload_tags(game_id: str | None) -> Markup:
    """``<link rel=modulepreload>`` for every module the page will run before it can draw
    the board (the page's own and, when a game is on the table, that game's whole module
    graph) and the game's stylesheet: the browser fetches them all at once instead of
    one import level after the other (five levels deep for a game)."""
    # app.js itself is the page's script; the stand-in for the game on the table is the
    # game's tablet.js (below) or, without one, an empty file not worth a request of its own
    # the plug-ins' folders looked up once for the page, not once for each of its files
    folders = plugin_folders()
    urls = [u for u in module_graph("/static/js/app.js", folders)[1:] if u != TABLE_GAME]
    links = [f'<link rel="modulepreload" href="{Markup.escape(versioned(u, p))}">'
             for u in urls if (p := _file_of(u, folders)) is not None]
    if game_id is not None and f"/games/{game_id}/" in folders:
        base = f"/games/{game_id}"
        for u in module_graph(f"{base}/tablet.js", folders):
            if u not in urls and (p := _file_of(u, folders)) is not None:
                links.append(f'<link rel="modulepreload" href="{Markup.escape(versioned(u, p))}">')
        css = _file_of(f"{base}/tablet.css", folders)
        if css is not None and css.is_file():
            links.append(f'<link rel="stylesheet" href="{Markup.escape(versioned(base + "/tablet.css", css))}" '
                         f'data-game-css="{Markup.escape(game_id)}">')
    return Markup("\n".join(links))
