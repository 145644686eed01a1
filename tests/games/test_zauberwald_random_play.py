"""Random whole games: nothing created or lost, no tile used twice, legal means accepted."""
import json
import pathlib
import random
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_zauberwald_support import GAME, TOTAL, count_all  # noqa: E402

from controller.games.base import IllegalAction  # noqa: E402
from tests.sizes import examples  # noqa: E402


def check_invariants(state, plain=True):
    assert count_all(state) == TOTAL                         # forest + baskets + cards = 72
    for seat, hand in enumerate(state["tiles"]):
        held = list(hand) + list(state["used_tiles"][seat])
        rnd = state["round"]
        if rnd and seat == state["master"] and state["phase"] == "turn":
            held.append(rnd["tile"])                        # chosen, not yet turned
        assert sorted(held) == GAME.magic_tiles              # no tile used twice, none lost
    for cards in state["cards"]:
        for card in cards:
            if card:
                assert all(card["on_card"].get(c, 0) <= n for c, n in card["recipe"].items())
                assert set(card["on_card"]) <= set(card["recipe"])
    assert all(n >= 0 for n in state["forest"].values())
    if plain:
        assert json.loads(json.dumps(state)) == state        # plain JSON, no tuples or sets


def random_basket(rng, state):
    """Any basket the forest could have given this seat (wider than legal_actions' samples)."""
    rnd = state["round"]
    seat = rnd["to_check"][0]
    rakeable = {c: state["forest"].get(c, 0) - rnd["back"].get(c, 0) for c in GAME.colours}
    limit = GAME._basket_limit(state, seat)
    size = rng.randint(0, limit if limit is not None else 6)
    basket = {}
    for _ in range(size):
        colours = [c for c in GAME.colours if rakeable[c] - basket.get(c, 0) > 0]
        if not colours:
            break
        c = rng.choice(colours)
        basket[c] = basket.get(c, 0) + 1
    return {"type": "basket", "seat": seat, "ingredients": basket}


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 4), seed=st.integers(0, 10_000), choices=st.integers(0, 2**32),
       physical=st.booleans(), first=st.integers(0, 3))
def test_random_games(n, seed, choices, physical, first):
    # Whole games are long: hypothesis picks the seeds, a seeded Random picks the moves.
    rng = random.Random(choices)
    options = {"cards": "physical" if physical else "dealt", "first": first % n}
    state = GAME.setup(["Ann", "Ben", "Cem", "Dan"][:n], seed=seed, options=options)
    for _ in range(2000):
        if GAME.outcome(state) is not None:
            break
        check_invariants(state)
        legal = GAME.legal_actions(state)
        assert legal, f"no legal action in phase {state['phase']}"
        # every legal action is accepted as-is (a few of them, to keep the run short)
        for action in rng.sample(legal, min(2, len(legal))):
            after, effects = GAME.apply(state, action)
            check_invariants(after, plain=False)
        if state["phase"] == "check" and rng.random() < 0.5:
            action = random_basket(rng, state)
        else:
            action = rng.choice(legal)
        before = json.dumps(state, sort_keys=True)
        try:
            state, effects = GAME.apply(state, action)
        except IllegalAction as exc:
            raise AssertionError(f"{action} refused: {exc}")
        assert json.dumps(state, sort_keys=True) != before or action["type"] == "choose_tile"
        if action["type"] == "turn":
            assert effects == [{"device": "forest_floor", "op": "rotate",
                                "ants": state["round"]["ants"], "direction": action["direction"]}]
        else:
            assert effects == []
    out = GAME.outcome(state)
    assert out is not None, "the game did not end"
    check_invariants(state)
    assert out.winners and set(out.winners) <= set(range(n))
    assert [p.seat for p in out.ranking if p.place == 1] == list(out.winners)
    if out.reason == "tiles":
        assert all(not hand for hand in state["tiles"])
        assert all(sorted(used) == GAME.magic_tiles for used in state["used_tiles"])
    else:
        assert out.details["scores"]["potions"][out.winners[0]] == 3


@settings(max_examples=examples(10), deadline=None)
@given(seed=st.integers(0, 10_000), picks=st.lists(st.integers(0, 50), min_size=60, max_size=60))
def test_replay_is_deterministic(seed, picks):
    def play():
        state = GAME.setup(["Ann", "Ben", "Cem"], seed=seed)
        for p in picks:
            if GAME.outcome(state):
                break
            legal = GAME.legal_actions(state)
            state, _ = GAME.apply(state, legal[p % len(legal)])
        return state
    assert play() == play()
