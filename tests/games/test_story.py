"""The story of the game: every event a player would announce at the table is in the game
log, in the table's words (log.toml), read through the log book as the tablet reads it.

Each game is played by the engine tests' quick players with fixed seeds; the log book
(controller/records.py) replays the logged actions and tells them, and what it tells is
what the session's ``told`` says for the same action.
"""
from __future__ import annotations

import pathlib
import random
import re
import string
import sys
from typing import Any, Callable

import pytest

from controller import games, records
from controller.games.base import load_data

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from elixir_support import all_actions as elixir_actions  # noqa: E402
from elixir_support import choose as elixir_choose  # noqa: E402
from mix_it_support import choose as mix_it_choose  # noqa: E402

Chooser = Callable[[Any, dict[str, Any], random.Random], dict[str, Any]]


def any_legal(game, state, rng, prefer=(), avoid=("undo",)):
    legal = [a for a in game.legal_actions(state) if a["type"] not in avoid]
    chosen = next(([a for a in legal if a["type"] == t] for t in prefer if any(a["type"] == t for a in legal)), legal)
    return rng.choice(chosen)


def cocktail(game, state, rng):
    """One lay-down per player and round (what it holds at random), the rest in turn."""
    legal = [a for a in game.legal_actions(state) if a["type"] not in ("undo", "false_trader")]
    entered = state["round"]["entries"]
    # a lay-down is its seat's own action (the table's list has none: each phone sends its own)
    lays = [a for seat, e in enumerate(entered) if e is None
            for a in game.seat_actions(state, seat) if a["type"] == "lay_down"]
    for kind in ("reveal_entries", "draw", "reveal"):
        found = [a for a in legal if a["type"] == kind]
        if found:
            return rng.choice(found)
    return rng.choice([a for a in lays if a["cards"]] or lays or [a for a in legal if a["type"] == "drop_out"])


def forest(game, state, rng):
    """Baskets as full as the rules let them (so potions get finished); no "stop!"."""
    legal = [a for a in game.legal_actions(state) if a["type"] not in ("undo", "stop")]
    baskets = [a for a in legal if a["type"] == "basket"]
    if baskets:
        return max(baskets, key=lambda a: sum(a["ingredients"].values()))
    return rng.choice(legal)


PLAYERS: dict[str, tuple[list[str], dict[str, Any], Chooser]] = {
    "mirakel-mix": (["Ann", "Ben", "Cleo"], {"fill": "random"}, lambda g, s, r: any_legal(g, s, r)),
    "elixir": (["Ann", "Ben", "Cleo"], {}, lambda g, s, r: elixir_choose(r, s, elixir_actions(s))),
    "zaubercocktail": (["Ann", "Ben", "Cleo", "Dan"], {}, cocktail),
    "zauberwald": (["Ann", "Ben", "Cleo"], {}, forest),
    "mix-it": (["Ann", "Ben", "Cleo"], {}, lambda g, s, r: mix_it_choose(s, r)),
}


def story(game_id: str, seeds=range(6), limit: int = 3000) -> list[str]:
    """The log of a few whole games, oldest first, each entry as the log book tells it; each
    entry also checked against the session's ``told`` of the same moment."""
    players, options, choose = PLAYERS[game_id]
    engine = games.load(game_id)
    texts: list[str] = []
    for seed in seeds:
        rng = random.Random(seed)
        state = engine.setup(players, seed, options)
        logged = []
        for version in range(1, limit):
            if engine.outcome(state) is not None:
                break
            action = choose(engine, state, rng)
            state, _ = engine.apply(state, action)
            logged.append({"version": version, "at": 0.0, "source": "player", "action": action})
            assert records.join(records.told(game_id, state["told"], players)) or action["type"] == "note"
        row = {"id": seed, "game": game_id, "players": players, "seed": seed, "options": options, "started": seed}
        entries = records.LogBook().entries(row, logged)
        last = next(e for e in entries if e["version"] == len(logged))
        assert last["text"] == records.join(records.told(game_id, state["told"], players))
        texts += [e["text"] for e in reversed(entries)]
    return texts


def told(texts: list[str], pattern: str) -> list[str]:
    found = [t for t in texts if re.search(pattern, t)]
    assert found, f"the log never says /{pattern}/"
    return found


def test_mirakel_mix_tells_potions_cards_won_and_spent_swaps_drops_and_moves():
    texts = story("mirakel-mix")
    told(texts, r"(Ann|Ben|Cleo) put a disk on the (.+) flask\. The (flame wall|poison pit|"
                r"lightning grid|monster crypt|double speed|place swap) potion is complete: (Ann|Ben|Cleo) wins its card")
    told(texts, r"(Ann|Ben|Cleo) gave up a (flame wall|poison pit|lightning grid|monster crypt) potion card "
                r"to cross the \2")
    told(texts, r"(Ann|Ben|Cleo) swapped places with (Ann|Ben|Cleo): \1 is on \S+ now, \2 on \S+")
    told(texts, r"(Ann|Ben|Cleo) used the double-speed potion: \d+ steps in one move")
    told(texts, r"(Ann|Ben|Cleo)'s drop [1-4] of 4 was (red|yellow|green|blue|purple|orange)")
    told(texts, r"(Ann|Ben|Cleo) put a disk on the .+ flask$")
    told(texts, r"(Ann|Ben|Cleo) moves \d steps?\. .* had a disk in it too: \d steps?")
    told(texts, r"No potion is complete: (Ann|Ben|Cleo)'s turn ends")
    told(texts, r"(Ann|Ben|Cleo) moved to \w+")
    told(texts, r"'s apprentice has left the cave!|Nobody can")


def test_elixir_tells_rolls_places_purchases_unknowns_and_brews_but_no_brew_card():
    texts = story("elixir")
    told(texts, r"(Ann|Ben|Cleo) rolled [1-6] to see who begins")
    told(texts, r"(Ann|Ben|Cleo)'s wizard stopped at (the jeweller|their own laboratory|the street|the herbalist)")
    told(texts, r"(Ann|Ben|Cleo) bought 1 (mandrake|ruby|amethyst|emerald|toad eye|bat wing|.+) for \d+ gold")
    told(texts, r"(Ann|Ben|Cleo) meets .+: “.+”")
    told(texts, r"(Ann|Ben|Cleo) rolled [1-6]( \(counts \d+\))?: .+ (fails|strikes)")
    told(texts, r"(Ann|Ben|Cleo) rolled [1-6]: the experiment counts \d+ and succeeded")
    told(texts, r"the experiment counts \d+, doubtful: it stays on the lab table")
    told(texts, r"(Ann|Ben|Cleo) drank the .+: its card lies face up")
    told(texts, r"holds the three parts of the elixir of life and wins!")
    # a brew card taken face down is never named (a drink turns it face up: that one is)
    brews = [b["name"] for b in load_data("controller.games.elixir")["brews"]]
    for text in told(texts, r"takes a brew card face down|draws a brew card"):
        assert not any(name in text for name in brews), text


def test_zaubercocktail_tells_each_rounds_revealed_lay_downs_and_the_moves_they_earn():
    texts = story("zaubercocktail", seeds=range(3))
    told(texts, r"Round \d+: recipe card \d/\d/\d/−\d turned over")
    told(texts, r"(Ann|Ben|Cleo|Dan)'s magic stone goes in the ring")
    told(texts, r"(Ann|Ben|Cleo|Dan) entered a lay-down \(hidden\)$")
    revealed = told(texts, r"^All lay-downs revealed\. ")
    assert all(len(re.findall(r"(laid down .+?: \d+ points|laid nothing)", t)) == 4 for t in revealed)
    told(texts, r"(Ann|Ben|Cleo|Dan) moves \d+ fields? forward")
    told(texts, r"(Ann|Ben|Cleo|Dan) is on field \d+ now")
    told(texts, r"had the ring")
    told(texts, r"the Magic Bolt is turned over, the game is over|reached the target field")
    # entering a lay-down never tells its cards
    kinds = [k["name"] for k in load_data("controller.games.zaubercocktail")["kinds"]]
    assert not any(k in t for t in told(texts, r"entered a lay-down") for k in kinds)


def test_zauberwald_tells_tiles_baskets_and_what_they_completed():
    texts = story("zauberwald", seeds=range(3))
    told(texts, r"(Ann|Ben|Cleo) chose magic tile [234]")
    told(texts, r"(Ann|Ben|Cleo) turned the forest floor (clockwise|counter clockwise)")
    told(texts, r"(Ann|Ben|Cleo)'s basket: .+\. \1 laid .+ on the (first|second|third) recipe card")
    told(texts, r"(Ann|Ben|Cleo) finished the (first|second|third) magic potion")
    told(texts, r"Round \d+: (Ann|Ben|Cleo) is the master magician")
    told(texts, r"Every magic tile has been used: .+ wins?")


def test_zauberwald_tells_what_ends_the_game_after_a_third_potion_without_stop():
    """docs/rules/zauberwald.md, "Choices made": a third potion in an ordinary check keeps
    the game going until the tiles run out or someone calls a right "stop!"; the table is
    told so when it happens, and the master's prompt repeats it every round."""
    texts = story("zauberwald", seeds=range(3))
    third = told(texts, r"(Ann|Ben|Cleo) has cooked all three magic potions without calling “stop!”: "
                        r"the game ends when every magic tile is used \(\d+ rounds? to go\)")
    assert any("unless" in t and "calls a right “stop!” first" in t for t in third)
    engine = games.load("zauberwald")
    rng = random.Random(0)
    state = engine.setup(["Ann", "Ben", "Cleo"], 0, {})
    while not engine.cooked_all(state):
        state, _ = engine.apply(state, forest(engine, state, rng))
    while state["phase"] != "choose":
        state, _ = engine.apply(state, forest(engine, state, rng))
    prompt = engine.prompt(state)
    assert "all three potions: the game ends when every magic tile is used" in prompt, prompt
    assert "only 0 more" not in " ".join(texts) + prompt


def test_mix_it_tells_the_card_placed_and_who_scored_a_monster():
    texts = story("mix-it")
    cards = told(texts, r"(Ann|Ben|Cleo) placed \w+ (eyes|mouth|feet)( ★)? on Monster [12]")
    assert cards
    told(texts, r"(Ann|Ben|Cleo) moved \w+ (eyes|mouth|feet)( ★)? from Monster ([12]) to Monster [12]")
    told(texts, r"(Ann|Ben|Cleo) shouted “MONSTER!” \(Monster [12]\)")
    told(texts, r"(Ann|Ben|Cleo) scored a MONSTER! and earns a cookie")
    told(texts, r"won!")
    assert told(texts, r"^Monster 1 begins with \w+ (eyes|mouth|feet)")[0] == texts[0]     # entry 0: the set-up


def test_an_undo_tells_what_it_took_back():
    engine = games.load("zaubercocktail")
    state = engine.setup(["Ann", "Ben", "Cleo", "Dan"], 1, {})
    for action in ({"type": "reveal"}, {"type": "drop_out", "seat": 2}, {"type": "undo"}):
        state, _ = engine.apply(state, action)
    assert records.told("zaubercocktail", state["told"], state["players"]) == [
        "Undo – taken back: Cleo is done trading. Cleo's magic stone goes in the ring."]


def test_the_phones_end_screen_says_each_seats_score_in_words():
    assert records.results("mix-it", {"ranking": [{"seat": 1, "place": 1, "score": 3},
                                                  {"seat": 0, "place": 2, "score": 1}]}, ["Ann", "Ben"]) == \
        ["1 cookie", "3 cookies"]
    assert records.results("zauberwald", {"ranking": [{"seat": 0, "place": 1, "score": {
        "potions": 2, "ingredients_on_card": 1}}]}, ["Ann"]) == ["2 magic potions, 1 ingredient on the recipe card"]
    assert records.results("elixir", {"ranking": [{"seat": 0, "place": 1, "score": 1},
                                                  {"seat": 1, "place": 2, "score": 0}]}, ["Ann", "Ben"]) == \
        ["holds the elixir of life", "no elixir of life"]


@pytest.mark.parametrize("plugin", list(games.plugins().values()), ids=lambda p: p.id)
def test_every_template_reads(plugin):
    """Every sentence of every log.toml is a template the log can fill: known tables only,
    plain {field} or {field_no} or a counted noun {field:noun}, nothing that could fail."""
    data = load_data(plugin.package, "log.toml")
    assert set(data) <= {"actions", "when_empty", "events", "words", "result"}, set(data)
    sentences = [*data.get("actions", {}).values(), *data.get("when_empty", {}).values(),
                 *data.get("events", {}).values(), *data.get("result", {}).values()]
    for sentence in sentences:
        for _, field, spec, conversion in string.Formatter().parse(sentence):
            if field is None:
                continue
            assert re.fullmatch(r"[a-z_0-9]+", field) and conversion is None, (sentence, field)
            assert spec == "" or re.fullmatch(r"[a-z ]+", spec), (sentence, spec)
