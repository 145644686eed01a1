"""The tablet page and its assets: served from the package, nothing from outside."""
from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import re
from importlib import resources
from pathlib import Path

import pytest

from controller.games import plugins

from .helpers import start_game

PACKAGE = Path(str(resources.files("web_ui")))
# every game's tablet files, as the page loads them: /games/<game id>/<file>
GAME_FILES = {f"/games/{game_id}/{p.relative_to(Path(str(plugin.static_dir()))).as_posix()}": p
              for game_id, plugin in plugins().items()
              for p in sorted(Path(str(plugin.static_dir())).rglob("*")) if p.is_file()}
ASSETS = sorted(p for p in (PACKAGE / "static").rglob("*") if p.is_file()) + \
    sorted((PACKAGE / "templates").glob("*.html")) + sorted((PACKAGE / "templates").glob("*.js")) + \
    sorted(GAME_FILES.values())
BINARY = (".png", ".mp4", ".webm")       # the icons and the clip that keeps the screen on
# The SVG namespace is a name, not an address anything is fetched from.
ALLOWED_URLS = {"http://www.w3.org/2000/svg"}


def boot_data(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="boot">(.*?)</script>', page, re.S)
    assert match
    return json.loads(html.unescape(match.group(1)))


def test_the_page_renders_the_start_screen_data_when_no_game_runs(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    boot = boot_data(page)
    assert boot["session"] is None and boot["simulated"] is True and boot["unlocked"] is False
    assert "mirakel-mix" in {g["id"] for g in boot["games"]}
    assert 'value="mirakel-mix"' in page                  # server-rendered game choice
    # each game's toggles come from its plug-in, checked: the option gets the value
    assert 'id="mirakel-mix-settings" data-game="mirakel-mix"' in page
    assert 'id="opt-mirakel-mix-coach" data-option="coach" data-on="true"' in page
    assert 'id="opt-zaubercocktail-deck" data-option="deck" data-on="&#34;physical&#34;"' in page
    assert "We deal the printed recipe cards" in page and "The recipe cards" in page
    # as many name fields as the largest game takes (Zaubercocktail: 7)
    most = max(g["max_players"] for g in boot["games"])
    assert page.count('name="player"') == most
    assert response.headers["Cache-Control"] == "no-store"


def test_the_page_carries_the_running_session_so_it_draws_at_once(client):
    session = start_game(client)
    boot = boot_data(client.get("/").get_data(as_text=True))
    assert boot["session"] == session


def test_player_names_cannot_break_out_of_the_boot_data(client):
    start_game(client, players=["</script><b>Ann", "Ben"])
    page = client.get("/").get_data(as_text=True)
    assert "</script><b>" not in page
    assert boot_data(page)["session"]["players"][0] == "</script><b>Ann"


def test_every_asset_is_served_with_a_type_a_browser_accepts(client):
    types = {".js": "text/javascript", ".css": "text/css", ".webmanifest": "application/manifest+json",
             ".png": "image/png", ".svg": "image/svg+xml", ".mp4": "video/mp4", ".webm": "video/webm"}
    urls = {"/static/" + p.relative_to(PACKAGE / "static").as_posix(): p
            for p in ASSETS if PACKAGE / "static" in p.parents}
    for url, path in {**urls, **GAME_FILES}.items():
        response = client.get(url)
        assert response.status_code == 200, url
        assert response.get_data() == path.read_bytes(), url
        if path.suffix in types:      # ES modules are refused with any other MIME type
            assert response.content_type.startswith(types[path.suffix]), (url, response.content_type)


def test_every_game_has_a_tablet_module_and_stylesheet(client):
    """The page draws every game, Mirakel Mix too, through /games/<id>/tablet.js + .css."""
    for game_id in plugins():
        script = client.get(f"/games/{game_id}/tablet.js")
        assert script.status_code == 200 and "export function render(" in script.get_data(as_text=True)
        assert client.get(f"/games/{game_id}/tablet.css").status_code == 200


def test_game_files_are_cached_like_the_shared_ones(client):
    shared = client.get("/static/js/ui.js")
    game = client.get("/games/mirakel-mix/tablet.js")
    assert game.headers.get("Cache-Control") == shared.headers.get("Cache-Control")
    assert game.headers.get("ETag") and game.headers.get("Last-Modified")
    again = client.get("/games/mirakel-mix/tablet.js", headers={"If-None-Match": game.headers["ETag"]})
    assert again.status_code == 304


@pytest.mark.parametrize("url", [
    "/games/no-such-game/tablet.js",               # no such plug-in
    "/games/mirakel-mix/nothing.js",               # no such file
    "/games/mirakel-mix/../engine.py",             # out of the static folder
    "/games/mirakel-mix/..%2Fengine.py",
    "/games/mirakel-mix/%2E%2E/data.toml",
    "/games/mirakel-mix//etc/passwd",
    "/games/zaubercocktail/../../mirakel_mix/engine.py",
])
def test_only_files_in_a_games_static_folder_are_served(client, url):
    response = client.get(url, follow_redirects=True)      # "//" is first merged into "/"
    assert response.status_code == 404, url
    assert b"MirakelMix" not in response.get_data() and b"root:" not in response.get_data()


def test_the_page_loads_only_assets_that_exist(client):
    page = client.get("/").get_data(as_text=True)
    for url in re.findall(r'(?:src|href)="(/static/[^"]+)"', page):
        assert client.get(url).status_code == 200, url
    for path in (PACKAGE / "static" / "js").glob("*.js"):
        for module in re.findall(r'from "\./([^"]+)"', path.read_text()):
            assert (path.parent / module).is_file(), f"{path.name} imports a missing {module}"
    # a game's modules import their neighbours relatively and the shared ones from /static/
    for url, path in GAME_FILES.items():
        if path.suffix != ".js":
            continue
        for module in re.findall(r'(?:from|import) "([^"]+)"', path.read_text()):
            target = module if module.startswith("/") else url.rsplit("/", 1)[0] + "/" + module.removeprefix("./")
            assert client.get(target).status_code == 200, f"{url} imports a missing {module}"


def test_the_page_names_no_game():
    """The shell and its script draw whatever games are installed (issue 9)."""
    for path in (PACKAGE / "templates" / "table.html", PACKAGE / "static" / "js" / "app.js",
                 PACKAGE / "__init__.py"):
        text = path.read_text().lower()
        for game_id in ("mirakel", "zauberwald", "zaubercocktail"):
            assert game_id not in text, f"{path.name} names {game_id}"


def test_nothing_is_fetched_from_outside_the_table(client):
    """Works offline on the table's own Wi-Fi: no CDN, no web font, no external URL."""
    texts = {str(p): p.read_text() for p in ASSETS if p.suffix not in BINARY}
    texts["rendered page"] = client.get("/").get_data(as_text=True)
    for name, text in texts.items():
        urls = set(re.findall(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"')]*", text))
        assert urls <= ALLOWED_URLS, (name, urls - ALLOWED_URLS)
        assert "@import" not in text and "@font-face" not in text, name


def test_every_drop_colour_has_a_letter_and_an_okabe_ito_colour():
    css = (PACKAGE / "static" / "table.css").read_text()
    okabe_ito = {"red": "#d55e00", "orange": "#e69f00", "yellow": "#f0e442", "green": "#009e73",
                 "blue": "#0072b2", "purple": "#cc79a7"}
    for colour, hex_value in okabe_ito.items():
        assert f"--c-{colour}: {hex_value}" in css
        assert f".c-{colour}" in css
    ui = (PACKAGE / "static" / "js" / "ui.js").read_text()
    for colour, letter in {"red": "R", "yellow": "Y", "green": "G", "blue": "B", "purple": "P",
                           "orange": "O"}.items():
        assert f'{colour}: {{ letter: "{letter}"' in ui


def test_static_files_come_gzipd_when_asked(client):
    plain = client.get("/static/table.css")
    zipped = client.get("/static/table.css", headers={"Accept-Encoding": "gzip, deflate"})
    assert plain.headers.get("Content-Encoding") is None
    assert zipped.headers["Content-Encoding"] == "gzip" and zipped.headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(zipped.get_data()) == plain.get_data()
    assert len(zipped.get_data()) < len(plain.get_data()) / 2
    assert zipped.headers["ETag"] != plain.headers["ETag"]      # one ETag per representation
    again = client.get("/static/table.css", headers={"Accept-Encoding": "gzip",
                                                     "If-None-Match": zipped.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""


def test_the_page_comes_gzipd_when_asked_and_is_never_cached(client):
    """The page is sent afresh on every load (session, CSRF token): a quarter of its bytes."""
    start_game(client)
    plain = client.get("/")
    zipped = client.get("/", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert plain.headers.get("Content-Encoding") is None and plain.headers["Cache-Control"] == "no-store"
    assert zipped.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped.headers["Vary"]
    assert zipped.headers["Cache-Control"] == "no-store" and zipped.mimetype == "text/html"
    text = gzip.decompress(zipped.get_data()).decode()
    assert boot_data(text)["session"] == boot_data(plain.get_data(as_text=True))["session"]
    assert len(zipped.get_data()) < len(plain.get_data()) / 3
    # the import map's hash in the policy is the one of the map inside the zipped page
    assert zipped.headers["Content-Security-Policy"] == plain.headers["Content-Security-Policy"]


def test_the_page_links_its_files_by_content_hash_cached_for_good(client):
    page = client.get("/").get_data(as_text=True)
    css = re.search(r'href="(/static/table\.css\?v=[0-9a-f]{16})"', page).group(1)
    script = re.search(r'src="(/static/js/app\.js\?v=[0-9a-f]{16})"', page).group(1)
    for url in (css, script):
        response = client.get(url)
        assert response.status_code == 200
        assert "immutable" in response.headers["Cache-Control"] and "max-age=31536000" in response.headers["Cache-Control"]
    # every module, whatever path imports it, is mapped to its hashed URL
    imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', page, re.S).group(1))["imports"]
    assert imports["/static/js/ui.js"].startswith("/static/js/ui.js?v=")
    assert imports["/games/mirakel-mix/tablet.js"].startswith("/games/mirakel-mix/tablet.js?v=")
    assert imports["/games/zaubercocktail/tablet.css"].startswith("/games/zaubercocktail/tablet.css?v=")
    for url in imports.values():
        assert "immutable" in client.get(url).headers["Cache-Control"], url
    # an old hash is not trusted for a year: the browser asks again
    assert client.get("/static/js/ui.js?v=0000000000000000").headers["Cache-Control"] == "no-cache"


def preloads(page: str) -> tuple[list[str], list[str]]:
    """(modules the page asks the browser to fetch at once, the game stylesheets it links)."""
    modules = re.findall(r'<link rel="modulepreload" href="([^"]+)">', page)
    styles = re.findall(r'<link rel="stylesheet" href="([^"]+)" data-game-css="[^"]+">', page)
    return [html.unescape(m) for m in modules], [html.unescape(s) for s in styles]


def test_the_page_has_the_running_games_whole_module_graph_fetched_at_once(client):
    """A board five imports deep is asked for in one go, not one level after the other."""
    modules, styles = preloads(client.get("/").get_data(as_text=True))
    # no game on the table: the page's own modules only, no game's (the More panel, sounds
    # and firmware notice are asked for after the first frame: not preloaded; the story
    # line is drawn with the board)
    assert {m.split("?")[0] for m in modules} == {"/static/js/ui.js", "/static/js/net.js", "/static/js/pinpad.js",
                                                  "/static/js/story.js",
                                                  "/static/js/awake.js", "/static/js/offline.js"}
    assert styles == []
    start_game(client)
    page = client.get("/").get_data(as_text=True)
    modules, styles = preloads(page)
    plain = [m.split("?")[0] for m in modules]
    # tablet.js and what it imports, and what those import: cave.js and words.js are
    # three levels down (tablet -> view -> cave -> words), icons.js is shared
    for url in ("/games/mirakel-mix/tablet.js", "/games/mirakel-mix/view.js", "/games/mirakel-mix/cave.js",
                "/games/mirakel-mix/words.js", "/devices/cauldron/sim.js", "/static/js/icons.js", "/static/js/ui.js"):
        assert plain.count(url) == 1, url
    assert not [m for m in plain if m.startswith("/games/") and not m.startswith("/games/mirakel-mix/")]
    assert "/static/js/app.js" not in plain           # the page's script itself
    assert [s.split("?")[0] for s in styles] == ["/games/mirakel-mix/tablet.css"]
    # each by its hashed URL, the same the import map names (so the import finds it fetched)
    imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', page, re.S).group(1))["imports"]
    for url in modules + styles:
        assert imports[url.split("?")[0]] == url
        assert "immutable" in client.get(url).headers["Cache-Control"], url
    # still no inline script but the import map
    csp = client.get("/").headers["Content-Security-Policy"]
    assert csp.count("'sha256-") == 1 and "unsafe-inline" not in csp


def import_map_of(page: str) -> dict[str, str]:
    return json.loads(re.search(r'<script type="importmap">(.*?)</script>', page, re.S).group(1))["imports"]


def test_the_game_on_the_table_is_the_page_scripts_own_import(client):
    """app.js imports table-game.js; the page's import map makes it the running game's
    board (so it is drawn as the page's script runs), and with no game the empty stand-in,
    which is not worth a request before the first frame."""
    page = client.get("/").get_data(as_text=True)
    imports = import_map_of(page)
    assert imports["/static/js/table-game.js"].startswith("/static/js/table-game.js?v=")
    assert 'import * as onTable from "./table-game.js"' in client.get("/static/js/app.js").get_data(as_text=True)
    assert not [m for m in preloads(page)[0] if "table-game" in m]
    # render-blocking: the first frame painted is the one app.js drew, not the bare shell
    assert re.search(r'<script type="module" src="/static/js/app\.js\?v=\w+" blocking="render">', page)
    start_game(client)
    page = client.get("/").get_data(as_text=True)
    imports = import_map_of(page)
    # the same hashed URL as the game's own entry: one module, whichever way it is imported
    assert imports["/static/js/table-game.js"] == imports["/games/mirakel-mix/tablet.js"]
    assert imports["/games/mirakel-mix/tablet.js"] in preloads(page)[0]
    assert not [m for m in preloads(page)[0] if "table-game" in m]
    # the CSP lets exactly this page's map run (it differs with the game on the table)
    response = client.get("/")
    text = re.search(r'<script type="importmap">(.*?)</script>', response.get_data(as_text=True), re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in response.headers["Content-Security-Policy"]


def test_every_games_preloads_follow_its_own_imports(client):
    """Read from the modules' import lines: a game's new module is preloaded without a list."""
    from web_ui.assets import module_graph
    for game_id in plugins():
        graph = module_graph(f"/games/{game_id}/tablet.js")
        assert graph[0] == f"/games/{game_id}/tablet.js"
        for url in graph:
            assert client.get(url).status_code == 200, url
            text = client.get(url).get_data(as_text=True)
            for spec in re.findall(r'^import\s[^;]*?from "([^"]+)"', text, re.M | re.S):
                target = spec if spec.startswith("/") else url.rsplit("/", 1)[0] + "/" + spec.removeprefix("./")
                assert target in graph, f"{url} imports {spec}, not preloaded"
