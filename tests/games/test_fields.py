"""The declared fields and options every game uses: what each takes, what it gives the
handler, and the one sentence a refusal says (controller/games/fields.py)."""
from __future__ import annotations

import pytest

from controller import games
from controller.games import counts as C
from controller.games.base import (SEAT, BadSetup, Choice, Counts, Flag, Game, InvalidAction, ListOf, Text,
                                   Whole, new_rng_state)
from controller.games.fields import read

TABLE = {"players": ["Ann", "Ben", "Cem"]}


def refused(fields, action, state=TABLE):
    with pytest.raises(InvalidAction) as exc:
        read(action, fields, state, InvalidAction)
    return str(exc.value)


@pytest.mark.parametrize("value", ["2", 2.0, True, None, [2], -1, 7])
def test_a_whole_number_is_a_json_whole_number_within_its_bounds(value):
    said = refused({"value": Whole(0, 6, "the number rolled")}, {"value": value})
    assert said == '"value" must be a whole number from 0 to 6: the number rolled'


def test_bounds_in_words():
    assert Whole(0, 1).allowed(TABLE) == "0 or 1"
    assert Whole(1).allowed(TABLE) == "a whole number of at least 1"
    assert Whole(high=9).allowed(TABLE) == "a whole number of at most 9"
    assert Whole().allowed(TABLE) == "a whole number"


def test_a_seat_is_one_at_this_table():
    assert read({"seat": 2}, {"seat": SEAT}, TABLE, InvalidAction)["seat"] == 2
    for bad in (3, -1, True, "0"):
        assert refused({"seat": SEAT}, {"seat": bad}) == '"seat" must be a seat at this table, 0 to 2'


def test_a_choice_is_one_of_its_values_of_the_same_type():
    tiles = Choice((1, 2, 3), "a magic tile")
    assert read({"tile": 2}, {"tile": tiles}, TABLE, InvalidAction)["tile"] == 2
    assert refused({"tile": tiles}, {"tile": True}) == '"tile" must be one of 1, 2, 3: a magic tile'
    assert refused({"tile": tiles}, {"tile": 2.0}).startswith('"tile" must be')
    colour = Choice(("red", "blue"), noun="drop colour")
    assert refused({"colour": colour}, {"colour": "pink"}) == \
        'there is no drop colour \'pink\': "colour" must be "red" or "blue"'


def test_null_is_a_value_only_where_it_is_one_of_the_choices():
    to = Choice(("5", "6", None))
    assert read({"to": None}, {"to": to}, TABLE, InvalidAction)["to"] is None
    assert refused({"to": to}, {}).startswith('"to" must be one of "5", "6", null')  # left out: required
    herb = Choice(("moss",), default=None)
    assert read({"herb": None}, {"herb": herb}, TABLE, InvalidAction)["herb"] is None


def test_defaults_fill_in_what_is_left_out_and_the_rest_is_kept():
    fields = {"count": Whole(1, default=1), "free": Flag(default=False), "brews": ListOf(Whole(0), default=[])}
    assert read({"type": "buy", "x": 3}, fields, TABLE, InvalidAction) == \
        {"type": "buy", "x": 3, "count": 1, "free": False, "brews": []}


def test_counts_drop_zeros_and_name_an_unknown_thing():
    basket = Counts(("red", "white"))
    assert read({"ingredients": {"red": 2, "white": 0}}, {"ingredients": basket}, TABLE,
                InvalidAction)["ingredients"] == {"red": 2}
    assert refused({"ingredients": basket}, {"ingredients": {"gold": 1}}) == \
        "\"ingredients\" has no ingredient called 'gold': it counts red, white"
    for bad in ({"red": -1}, {"red": True}, {"red": 1.5}, ["red"], None):
        assert refused({"ingredients": basket}, {"ingredients": bad}).startswith(
            '"ingredients" must be how many of each ingredient, e.g. {"red": 2}, each a whole number of 0 or more')


def test_a_list_takes_its_items_and_may_refuse_repeats():
    picks = ListOf(Whole(0), distinct=True)
    assert read({"brews": [0, 2]}, {"brews": picks}, TABLE, InvalidAction)["brews"] == [0, 2]
    for bad in ([0, 0], [True], "0", [-1]):
        assert refused({"brews": picks}, {"brews": bad}) == \
            '"brews" must be a list without repeats, each a whole number of at least 0'


def test_text_has_a_length():
    note = Text(4)
    assert refused({"text": note}, {"text": "hello"}) == '"text" must be text of at most 4 letters'
    assert refused({"text": note}, {"text": 4}) == '"text" must be text of at most 4 letters'


# --- a game's declarations: read by the core before the handler runs ----------------------------
class Pot(Game):
    id, name = "pot", "Pot"
    options = {"speed": Choice(("slow", "fast"), "how fast the pot boils", default="slow"),
               "first": SEAT}

    def __init__(self) -> None:
        super().__init__(data={})

    def fields(self):
        return {"add": {"seat": SEAT, "beans": Whole(1, 3, "beans in one go"), "loud": Flag(default=False)}}

    def setup(self, players, seed, options=None):
        self.check_players(players)
        return {"players": players, "options": self.read_options(options, players), "rng": new_rng_state(seed),
                "beans": 0, "seen": None}

    def actions(self, state):
        return [{"type": "add", "seat": 0, "beans": 1}]

    def _do_add(self, state, action):
        state["beans"] += action["beans"]
        state["seen"] = action               # what the handler was given

    def view(self, state, seat=None):
        return {}

    def outcome(self, state):
        return None


def test_the_handler_gets_the_action_with_its_fields_read():
    game = Pot()
    state = game.setup(["Ann", "Ben"], 1, {"first": 1})
    new, _ = game.apply(state, {"type": "add", "seat": 1, "beans": 2})
    assert new["seen"] == {"type": "add", "seat": 1, "beans": 2, "loud": False}
    with pytest.raises(InvalidAction, match='"beans" must be a whole number from 1 to 3: beans in one go'):
        game.apply(state, {"type": "add", "seat": 1, "beans": 4})
    assert not game.is_legal(state, {"type": "add", "seat": 2, "beans": 1})


def test_options_are_filled_in_and_refused_in_one_format():
    game = Pot()
    assert game.setup(["Ann", "Ben"], 1, {"first": 1})["options"] == {"speed": "slow", "first": 1}
    with pytest.raises(BadSetup) as exc:
        game.setup(["Ann", "Ben"], 1, {"sped": "fast"})
    assert str(exc.value) == "Pot has no option 'sped'; it knows: speed, first"
    with pytest.raises(BadSetup) as exc:
        game.setup(["Ann", "Ben"], 1, {"speed": "warp"})
    assert str(exc.value) == 'the option "speed" must be "slow" or "fast": how fast the pot boils'
    with pytest.raises(BadSetup) as exc:
        game.setup(["Ann", "Ben"], 1, {"first": 2})
    assert str(exc.value) == 'the option "first" must be a seat at this table, 0 to 1'


def test_a_required_option_must_be_given():
    with pytest.raises(BadSetup, match='the option "first" must be a seat'):
        Pot().setup(["Ann", "Ben"], 1, {})


@pytest.mark.parametrize("game_id", games.available())
def test_every_start_screen_toggle_is_an_option_its_game_takes(game_id):
    plugin, engine = games.plugin(game_id), games.load(game_id)
    players = [f"P{i}" for i in range(plugin.min_players)]
    for toggle in plugin.toggles:
        assert toggle.option in engine.options, (game_id, toggle.option)
        engine.setup(players, 1, {toggle.option: toggle.value})      # taken, no BadSetup
    assert engine.setup(players, 1)["options"] == engine.read_options({}, players)


# --- counts of things ------------------------------------------------------------------------------
def test_counts_arithmetic_keeps_plain_dicts_without_zeros():
    a, b = {"red": 2, "blue": 1}, {"red": 2, "white": 3}
    assert C.add(a, b) == {"red": 4, "blue": 1, "white": 3} and type(C.add(a, b)) is dict
    assert C.sub(a, {"red": 2}) == {"blue": 1}
    assert C.common(a, b) == {"red": 2}
    assert C.contains(a, {"red": 1}) and not C.contains(a, {"white": 1})
    assert C.total(a) == 3 and C.merge([a, b, {}]) == C.add(a, b)
    assert C.words({"white": 2, "red": 1}, ["red", "white"]) == "1 red, 2 white"
    assert C.words({"ruby": 1}, {"ruby": "Ruby"}) == "1 Ruby" and C.words({}, []) == "nothing"
