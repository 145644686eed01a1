"""The score over time in headless Chromium at 1024x768: the top bar's Score button and the
Score tab during each game, the final score with its chart on every end screen, the Players
tab's statistics (who wins, streaks, a chart of wins or scores, head-to-head), and a game
that has ended replayed step by step on the board while the live game waits. Screenshots
under test-output/<test>/; every control a finger's size, nothing cut, axe clean."""
from __future__ import annotations

import random
import re

import pytest

from controller import games, records
from tests.e2e.layout_checks import axe_problems, problems
from tests.players import OPTIONS, PLAYERS, choose

pytestmark = pytest.mark.browser

T0 = 1_700_000_000.0


def drawn(page, session) -> None:
    """The board shows ``session``; generous: after hundreds of quick actions a busy machine's
    tablet takes a while to draw its way to the newest."""
    page.wait_for_function("([id, v]) => document.body.dataset.game === id && document.body.dataset.version === v",
                           arg=[str(session["id"]), str(session["version"])], timeout=180_000)


def play(table, game_id: str, rng: random.Random, until, limit: int = 8000) -> dict:
    """The quick players (tests/players.py) on the live table until ``until(session)``."""
    engine = games.load(game_id)
    for _ in range(limit):
        session = table.session()
        if until(session):
            return session
        table.act(choose(game_id, engine, table.inspect(lambda _e, s: s), rng))
    raise AssertionError(f"{game_id}: never reached the screen")


def someone_ahead(session) -> bool:
    return bool(session["scores"]["lines"][0]["leaders"]) or session["outcome"] is not None


def open_tab(page, tab: str) -> None:
    """The panel on ``tab``, once that tab is drawn (its answer is in, or why not is said)."""
    # the panel's script loads after the board's first frame: a tap on More before it is
    # wired does nothing (a page opened with its own ``ready`` may not have waited for it)
    page.wait_for_selector("body[data-ready=yes]", state="attached")
    if page.locator("#sheet").is_hidden():
        page.locator("#btn-more").tap()
        page.wait_for_selector("#sheet:not([hidden])")
    page.locator(f'.sheet-tab[data-tab="{tab}"]').tap()
    # generous: the panel asks the table one answer at a time, after the log it opened on
    page.wait_for_selector(f'#sheet-body[data-tab="{tab}"][data-shown="{tab}"]', timeout=120_000)
    refused = page.locator("#sheet-body .form-error")
    assert not refused.count(), f"the {tab} tab says: {refused.inner_text()}"


def scroll_sheet_to(page, selector: str) -> None:
    """Scroll the panel's body (as a finger would) so ``selector`` is at its top."""
    page.evaluate("""(sel) => { const body = document.querySelector('#sheet .sheet-body');
      body.scrollTop += document.querySelector(sel).getBoundingClientRect().top - body.getBoundingClientRect().top - 8; }""",
                  selector)


# A replay shows the game, not the live table: the board offers nothing to tap but what only
# changes the view (a fold, "See the board"), and none of the live table's own controls shows,
# even disabled: the phone links, New game, the "stop!" calls, the forest floor's panel and
# the search's clock, the master's, a basket's or a card's entry, "Reveal all lay-downs".
VIEW_ONLY = "summary, #ex-see-board, #btn-see-board"
LIVE_ONLY = ("#ex-phones, #mi-phones, #zc-reveal-entries, #zw-turn, #zw-timer, #zw-floor, #zw-stops, .zw-add, "
             ".zw-minus, button.zw-tile, .zw-direction")
LIVE_CONTROLS_JS = """([viewOnly, liveOnly]) => [...document.querySelectorAll(
    `#game-view :is(button, a[href], input, select, textarea, [role=button], summary), #game-view :is(${liveOnly})`)]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .filter((e) => e.matches(liveOnly) || (!e.disabled && !e.matches(viewOnly)))
  .map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${[...e.classList].join('.')} "${e.textContent.trim().slice(0, 30)}"`)"""


def live_controls_in_the_replay(page, last: int, samples: int = 30) -> list[str]:
    """The live table's controls shown on a replay's board, at ``samples`` steps from the
    set-up to ``last`` (the end), each with the step it was seen at."""
    found: dict[str, int] = {}
    for step in sorted({*range(0, last, max(1, last // samples)), last}):
        page.locator("#replay-slider").fill(str(step))
        page.wait_for_function("(n) => document.body.dataset.replayDrawn === String(n)", arg=step)
        for control in page.evaluate(LIVE_CONTROLS_JS, [VIEW_ONLY, LIVE_ONLY]):
            found.setdefault(control, step)
    return [f"step {step}: {control}" for control, step in found.items()]


def close_sheet(page) -> None:
    page.locator("#sheet-close").tap()
    page.wait_for_selector("#sheet", state="hidden")


@pytest.mark.parametrize("game_id", list(PLAYERS))
def test_the_running_score_in_the_top_bar_the_score_tab_and_the_end_screen(live_table, page_on, output_dir, game_id):
    table, rng = live_table.table, random.Random(5)
    names = PLAYERS[game_id]
    table.start(game_id, names, seed=5, options=OPTIONS.get(game_id, {}))
    # Elixir's main score (the parts) is face down all game: the table only sees it at the end
    session = play(table, game_id, rng, someone_ahead if game_id != "elixir" else lambda s: s["version"] >= 40)
    # the page opens on the game under way (it would only draw every quick action in between)
    page = page_on(live_table.url)
    drawn(page, session)
    main = session["scores"]["lines"][0]
    button = page.locator("#btn-score")
    button.wait_for()
    label = button.get_attribute("aria-label")
    assert label.startswith(f"Score: {main['label']}, ")
    if main["leaders"]:
        leader = names[main["leaders"][0]]
        assert f"{leader}" in label and f"ahead with {main['values'][main['leaders'][0]]}" in label
        # the chip says who by letter, not only by colour
        assert button.locator(".score-lead .seat-chip").first.inner_text().strip() != ""
    else:
        assert label.endswith("nobody ahead yet")
    assert button.bounding_box()["height"] >= 48

    button.tap()
    panel = page.locator("#score-tab")
    panel.wait_for()
    assert panel.locator("table.score-table:not(.rounds) > tbody > tr").count() == len(names)
    for n, line in enumerate(session["scores"]["lines"]):
        cells = panel.locator(f'td.score-value[data-line="{line["key"]}"]')
        for seat, value in enumerate(line["values"]):
            text = cells.nth(seat).inner_text().strip()
            if value is None:
                assert text == "?", (line["key"], seat)
            else:
                assert text.endswith(str(value)) and text.startswith("★") == (seat in line["leaders"]), (line, seat)
    page.screenshot(path=str(output_dir / f"score-tab-{game_id}.png"))
    found = problems(page) + axe_problems(page)
    assert not found, "\n".join(found)
    close_sheet(page)

    page.goto("about:blank")             # away while the rest is played, then back for the end
    end = play(table, game_id, rng, lambda s: s["outcome"] is not None)
    page.goto(live_table.url)
    page.wait_for_selector("body[data-ready=yes]")
    drawn(page, end)
    final = page.locator("#score-final")
    final.wait_for()
    assert final.locator("table.score-table:not(.rounds) > tbody > tr").count() == len(names)
    winners = end["outcome"]["winners"]
    if game_id == "elixir":           # the winner's parts are shown at the end, the others' never
        parts = final.locator('td.score-value[data-line="elixir_parts"]')
        assert [parts.nth(s).inner_text().strip() for s in range(len(names))] == \
            [str(end["scores"]["lines"][0]["values"][s]) if s in winners else "?" for s in range(len(names))]
    # the chart of the main score over the game (Zaubercocktail: after each round)
    chart = final.locator(".score-chart svg.chart")
    chart.wait_for()
    assert chart.locator("g.chart-line").count() == len(names)
    # every line its own marker shape and its name in the legend: no colour needed to tell them apart
    legend = [t.strip() for t in final.locator(".chart-legend li").all_inner_texts()]
    assert legend == names
    final.scroll_into_view_if_needed()
    page.screenshot(path=str(output_dir / f"end-{game_id}.png"))
    found = problems(page)
    assert not found, "\n".join(found)


def history(store) -> None:
    """Twelve finished games of Mix It (cookies as the score) and four of Elixir, by hand:
    Ann wins the first three, Ben the next four in a row, then they take turns."""
    mix_winners = [0, 0, 0, 1, 1, 1, 1, 2, 0, 1, 2, 0]
    for n, w in enumerate(mix_winners):
        cookies = [1 + (n + s) % 2 for s in range(3)]
        cookies[w] = 3
        places = [1 if s == w else 2 for s in range(3)]
        no = store.new_game("mix-it", ["Ann", "Ben", "Cem"], seed=n, options={})
        store.append(no, 1, {"type": "x"}, "player",
                     outcome={"winners": [w], "cookies": cookies, "reason": "x", "message": "x",
                              "ranking": [{"seat": s, "place": places[s], "score": cookies[s]} for s in range(3)]})
    for n, w in enumerate([1, 1, 0, 1]):
        no = store.new_game("elixir", ["Ann", "Ben"], seed=n, options={})
        store.append(no, 1, {"type": "x"}, "player",
                     outcome={"winners": [w], "reason": "x", "message": "x",
                              "ranking": [{"seat": s, "place": 1 if s == w else 2, "score": None} for s in range(2)]})
    store.new_game("mix-it", ["Ann", "Ben", "Cem"], seed=99, options={})          # running: not counted


def test_the_players_tab_draws_win_rates_streaks_a_chart_and_head_to_head(live_table, page_on, output_dir):
    history(live_table.table.store)
    page = page_on(live_table.url)
    open_tab(page, "players")
    overall = page.locator("#stats-overall")
    overall.wait_for()
    rows = {r.get_attribute("data-player"): r.locator("td").all_inner_texts() for r in overall.locator("tbody tr").all()}
    # Ann: 5 Mix It wins and 1 Elixir win in 16 games; her newest game lost, her best run 3
    assert rows["Ann"] == ["16", "6", "38 %", "1 lost", "3 won"]
    assert rows["Ben"] == ["16", "8", "50 %", "1 won", "4 won"]
    assert rows["Cem"] == ["12", "2", "17 %", "1 lost", "1 won"]
    chart = page.locator("#stats-chart")
    assert chart.get_attribute("data-game") == "mix-it" and chart.get_attribute("data-show") == "wins"
    svg = chart.locator("svg.chart")
    svg.wait_for()
    assert svg.locator("g.chart-line").count() == 3
    assert [t.strip() for t in chart.locator(".chart-legend li").all_inner_texts()] == ["Ann", "Ben", "Cem"]
    page.screenshot(path=str(output_dir / "players-top.png"))
    scroll_sheet_to(page, "#stats-chart")
    page.screenshot(path=str(output_dir / "players-wins.png"))
    found = problems(page) + axe_problems(page)
    assert not found, "\n".join(found)

    page.locator('#stats-show .stats-pick[data-value="scores"]').tap()
    page.wait_for_selector('#stats-chart[data-show="scores"] svg.chart')
    assert "scores over time" in page.locator("#stats-chart h3").inner_text()
    scroll_sheet_to(page, "#stats-chart")
    page.screenshot(path=str(output_dir / "players-scores.png"))
    page.locator('#stats-game .stats-pick[data-value="elixir"]').tap()
    page.wait_for_selector('#stats-chart[data-game="elixir"][data-show="wins"] svg.chart')
    assert page.locator("#stats-show").count() == 0          # Elixir has no points: wins only

    versus = page.locator("#stats-versus")
    ann_vs = {r.get_attribute("data-opponent"): r.locator("td").all_inner_texts() for r in versus.locator("tbody tr").all()}
    # Ann and Ben: 12 Mix It (Ann ahead 5, behind 5, level 2: Cem won) and 4 Elixir (ahead 1, behind 3)
    assert ann_vs["Ben"] == ["16", "6", "8", "2"]
    page.locator('#stats-player .stats-pick[data-value="Cem"]').tap()
    page.wait_for_selector('#stats-player .stats-pick[data-value="Cem"][aria-pressed="true"]')
    cem_vs = {r.get_attribute("data-opponent"): r.locator("td").all_inner_texts()
              for r in page.locator("#stats-versus tbody tr").all()}
    assert set(cem_vs) == {"Ann", "Ben"} and cem_vs["Ann"][0] == "12"
    for pick in page.locator(".stats-pick").all():
        assert pick.bounding_box()["height"] >= 48
    scroll_sheet_to(page, "#stats-player")
    page.screenshot(path=str(output_dir / "players-head-to-head.png"))


def test_a_finished_game_replays_step_by_step_while_the_live_game_waits(live_table, page_on, output_dir):
    table, rng = live_table.table, random.Random(2)
    finished = table.start("zaubercocktail", PLAYERS["zaubercocktail"], seed=2)
    done = play(table, "zaubercocktail", rng, lambda s: s["outcome"] is not None)
    row = table.store.game(finished["id"])
    words = {e["version"]: e["text"] for e in records.LogBook().entries(row, table.store.actions(finished["id"]))}
    live = table.start("mix-it", PLAYERS["mix-it"], seed=1)
    page = page_on(live_table.url)
    drawn(page, live)

    open_tab(page, "history")
    replay = page.locator(f'#history-table tr[data-game="{finished["id"]}"] .row-replay')
    replay.wait_for()
    assert replay.bounding_box()["height"] >= 48
    replay.tap()
    page.wait_for_selector("#replay-bar")
    page.wait_for_function("() => document.body.dataset.replayDrawn === '0' && document.body.dataset.view === 'replay'")
    assert page.locator("#sheet").is_hidden()
    assert page.locator("#replay-count").inner_text() == f"step 0 of {done['version']}"
    assert "set up for Ann, Ben, Cem, Dan and Eva" in page.locator("#replay-line").inner_text()
    assert page.locator("#game-view").get_attribute("data-game") == "zaubercocktail"
    assert page.locator("#btn-score").is_hidden()              # the live game's score is not the replay's

    for step in (1, 2, 3):
        page.locator("#replay-next").tap()
        page.wait_for_function("(n) => document.body.dataset.replayDrawn === String(n)", arg=step)
        assert page.locator("#replay-line").inner_text() == words[step]
    page.screenshot(path=str(output_dir / "replay-step-3.png"))
    found = problems(page) + axe_problems(page)
    assert not found, "\n".join(found)

    # a replayed board offers nothing (no action was on offer), and the live game is untouched
    assert page.locator("#game-view [data-action]:visible").count() == 0
    assert page.locator(".zc-drop, .zc-enter, #zc-reveal").count() == 0
    assert table.session()["id"] == live["id"] and table.version == live["version"]

    page.locator("#replay-last").tap()
    page.wait_for_function("(n) => document.body.dataset.replayDrawn === String(n)", arg=done["version"])
    assert page.locator("#replay-next").is_disabled() and page.locator("#replay-last").is_disabled()
    page.locator("#score-final .score-chart svg.chart").wait_for()        # the end screen, with the score sheet
    page.screenshot(path=str(output_dir / "replay-end.png"))

    page.locator("#replay-slider").fill(str(done["version"] // 2))
    page.wait_for_function("(n) => document.body.dataset.replayDrawn === String(n)", arg=done["version"] // 2)
    assert re.fullmatch(rf"step {done['version'] // 2} of {done['version']}", page.locator("#replay-count").inner_text())
    shown = live_controls_in_the_replay(page, done["version"])
    assert not shown, "the live table's controls in the replay:\n" + "\n".join(shown)

    page.locator("#replay-leave").tap()
    page.wait_for_selector("#replay-bar", state="detached")
    page.wait_for_function("() => document.body.dataset.view === 'table'")
    assert page.locator("#game-view").get_attribute("data-game") == "mix-it"
    assert page.locator("#btn-score").is_visible()
    page.screenshot(path=str(output_dir / "replay-left.png"))


@pytest.mark.parametrize("game_id", [g for g in PLAYERS if g != "zaubercocktail"])
def test_every_game_replays_to_its_end_with_nothing_to_tap(live_table, page_on, output_dir, game_id):
    table, rng = live_table.table, random.Random(4)
    finished = table.start(game_id, PLAYERS[game_id], seed=4, options=OPTIONS.get(game_id, {}))
    done = play(table, game_id, rng, lambda s: s["outcome"] is not None)
    page = page_on(live_table.url)
    drawn(page, done)
    if page.locator("#ex-see-board").count():          # Elixir's winner covers the board until dismissed
        page.locator("#ex-see-board").tap()
    open_tab(page, "history")
    page.locator(f'#history-table tr[data-game="{finished["id"]}"] .row-replay').tap()
    page.wait_for_function("() => document.body.dataset.replayDrawn === '0'")
    middle = done["version"] // 2
    page.locator("#replay-slider").fill(str(middle))
    page.wait_for_function("(n) => document.body.dataset.replayDrawn === String(n)", arg=middle)
    assert page.locator("#game-view [data-action]:visible").count() == 0
    # the prompt is the one the table saw then, marked as the replay's
    assert page.evaluate("() => getComputedStyle(document.querySelector('#prompt'), '::before').content") == '"Replay · "'

    page.screenshot(path=str(output_dir / f"replay-{game_id}-middle.png"))
    page.locator("#replay-last").tap()
    page.wait_for_function("(n) => document.body.dataset.replayDrawn === String(n)", arg=done["version"])
    page.locator("#score-final").wait_for()
    page.screenshot(path=str(output_dir / f"replay-{game_id}-end.png"))
    # the whole game through: the board of each step, never the live table's controls
    shown = live_controls_in_the_replay(page, done["version"])
    assert not shown, "the live table's controls in the replay:\n" + "\n".join(shown)
    page.locator("#replay-leave").tap()
    page.wait_for_function("() => document.body.dataset.view === 'table'")
    assert table.version == done["version"]
