"""Zaubercocktail (Kosmos, 2001): the scoring table for a loud trading game, 4–7 players.

The cards stay real: players trade, drop out and lay down at the table. The engine
keeps what is slow on paper — the recipe deck with the Magic Bolt, who dropped out
first (the ring) and next (the goblet), each player's lay-down (hidden until the host
reveals them all), the ranking with its tie-breaks, the stones on the magic path —
and the history of every round.

A round goes: ``reveal`` the recipe card → trading, with a ``drop_out`` tap per player
who stops (ring first, then goblet) → at the last dropout each player enters a
``lay_down`` → the host taps ``reveal_entries`` → ``draw`` taps if a tie needs the
supply pile → stones move. ``false_trader`` sends a stone back one field at any time;
``undo`` takes back the last action since the last recipe card was revealed.

All numbers live in the plug-in's ``data.toml``; lay-down rules and points in
``laydown.py``.
"""
from __future__ import annotations

from typing import Any, ClassVar

from ...contracts import Action, Effect, State
from ..base import (SEAT, BadSetup, Choice, Fields, Game, IllegalAction, Outcome, RoundScore, Score, Scores,
                    new_rng_state, rng_from, rng_store)
from . import laydown

Round = dict[str, Any]
Entry = dict[str, Any]


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class Zaubercocktail(Game):
    # Every tap of a round can be taken back, one after another, until the next recipe
    # card is revealed: the rulebook's rounds are final once the next card is up.
    undoable = frozenset({"drop_out", "false_trader", "lay_down", "reveal_entries", "draw"})
    undo_barrier = frozenset({"reveal"})
    # A round is some thirty taps; this keeps all of them (and a long run of "Stop!"
    # taps) while bounding the memory the snapshots hold.
    undo_depth = 256
    #: false-trader taps listed per round (the newest; ``false_trader_taps`` counts all)
    FALSE_TRADERS_KEPT: ClassVar[int] = 32
    nothing_to_undo = "There is nothing to undo since the recipe card was revealed"
    # The history only grows (a new list each reveal), so states may share it.
    shared_keys: ClassVar[frozenset[str]] = Game.shared_keys | {"history"}
    # Lay-downs are far too many to list (about 10,000 per player): a sample is listed.
    legal_actions_complete = False
    # a player's hidden lay-down: from their phone, or at the tablet while no phone holds
    # their seat (the entry screen covers the table; the others look away)
    secret_types = frozenset({"lay_down"})
    secrets_at_the_tablet = True
    options = {"deck": Choice(("digital", "physical"), "who shuffles the recipe deck: the tablet, or the "
                                                       "players with the printed deck (the host taps each card "
                                                       "revealed)", default="digital")}

    def __init__(self, data: dict[str, Any] | None = None):
        super().__init__(data)
        self.kinds = laydown.kinds(self.data)
        self.joker: dict[str, Any] = self.data["black_something"]
        self.bolt: dict[str, Any] = self.data["recipe_deck"]["bolt"]
        self.recipes: dict[str, dict[str, Any]] = {r["id"]: r for r in self.data["recipes"]}
        self._check_data()

    def fields(self) -> dict[str, Fields]:
        joker = self.joker["id"]
        return {
            "reveal": {"card": Choice((*self.recipes, self.bolt["id"]), "the recipe card turned over", default=None)},
            "drop_out": {"seat": SEAT}, "false_trader": {"seat": SEAT},
            "lay_down": {"seat": SEAT, "cards": laydown.counts_field(self.data),
                         "black": laydown.counts_field(self.data, self.joker["name"] + "s")},
            "draw": {"seat": SEAT, "kind": Choice((*self.kinds, joker), "the ingredient drawn")},
        }

    def _check_data(self) -> None:
        """A hand-edited data file that cannot work is named here, not mid-game."""
        where = "zaubercocktail/data.toml"
        forward = self.data["scoring"]["forward_places"]
        for recipe in self.data["recipes"]:
            if len(recipe["forward"]) != forward:
                raise BadSetup(f"{where}: recipe card {recipe['id']} must list {forward} forward moves")
        for table in ("stones_to_end", "ring_best"):
            for n in range(self.min_players, self.max_players + 1):
                if str(n) not in self.data["dropouts"][table]:
                    raise BadSetup(f"{where}: [dropouts] {table} needs a value for {n} players")

    # --- set-up ---------------------------------------------------------------
    def setup(self, players: list[str], seed: int, options: dict[str, Any] | None = None) -> State:
        self.check_players(players)
        options = self.read_options(options, players)
        mode = options["deck"]
        state: State = {
            "game": self.id,
            "players": [p.strip() for p in players],
            "options": options,
            "rng": new_rng_state(seed),
            "stones": [self.data["path"]["start"]] * len(players),
            "deck": None,
            "revealed": [],
            "phase": "reveal",
            "round": self._new_round(1, len(players)),
            "history": [],
            "undo": [],
            "end": None,
        }
        if mode == "digital":
            state["deck"] = self._shuffled_deck(state)
        return state

    def _shuffled_deck(self, state: State) -> list[str]:
        """Recipe cards top first, the Magic Bolt shuffled in among the bottom cards."""
        rng = rng_from(state)
        cards = [r["id"] for r in self.data["recipes"]]
        rng.shuffle(cards)
        below = min(self.data["recipe_deck"]["bolt_among_bottom"] - 1, len(cards))
        top, bottom = cards[:len(cards) - below], cards[len(cards) - below:] + [self.bolt["id"]]
        rng.shuffle(bottom)
        rng_store(state, rng)
        return top + bottom

    def _new_round(self, number: int, seats: int) -> Round:
        deal = self.data["deal"]
        return {"number": number,
                "deal": deal["first_round"] if number == 1 else deal["later_rounds"],
                "recipe": None, "dropouts": [], "false_traders": [], "false_trader_taps": 0,
                "entries": [None] * seats, "entries_revealed": False,
                "order": None, "drawn": [None] * seats, "draw_log": [], "results": None}

    # --- small lookups ----------------------------------------------------------
    def _count_rule(self, table: str, state: State) -> int:
        return int(self.data["dropouts"][table][str(len(state["players"]))])

    def _card_name(self, card_id: str) -> str:
        if card_id == self.bolt["id"]:
            return str(self.bolt["name"])
        recipe = self.recipes[card_id]
        return "/".join(str(f) for f in recipe["forward"]) + f"/−{recipe['back']}"

    def _unrevealed(self, state: State) -> list[str]:
        if state["deck"] is not None:
            return list(state["deck"])
        gone = set(state["revealed"])
        return [c for c in [*self.recipes, self.bolt["id"]] if c not in gone]

    # --- what may be done now ----------------------------------------------------
    def actions(self, state: State) -> list[Action]:
        """Every action the table can take now but the lay-downs.

        Lay-downs are too many to list (about 10,000 per player) and the table's screens
        do not need them in every message (they would make up most of it): a player's
        lay-down screen asks for :meth:`lay_downs` when it opens, and a seat's own
        session lists its sample in ``seat_actions`` (``legal_actions_complete`` is
        False). ``is_legal`` accepts any legal lay-down; ``view()["entry_rules"]``
        describes them.
        """
        phase, rnd, seats = state["phase"], state["round"], range(len(state["players"]))
        actions: list[Action] = []
        if phase in ("reveal", "scored"):
            if state["options"]["deck"] == "digital":
                actions.append({"type": "reveal"})
            else:
                actions += [{"type": "reveal", "card": c} for c in self._unrevealed(state)]
        elif phase == "trading":
            actions += [{"type": "drop_out", "seat": s} for s in seats if s not in rnd["dropouts"]]
        elif phase == "laying":
            if all(e is not None for e in rnd["entries"]):
                actions.append({"type": "reveal_entries"})
        elif phase == "tiebreak":
            for s in self._seats_to_draw(state):
                actions += [{"type": "draw", "seat": s, "kind": k} for k in [*self.kinds, self.joker["id"]]]
        if phase != "over":
            actions += [{"type": "false_trader", "seat": s} for s in seats]
        return actions

    def seat_actions(self, state: State, seat: int) -> list[Action]:
        """The public actions naming ``seat`` and, while it may enter one, its sample of
        lay-downs (:meth:`lay_downs`)."""
        return [*super().seat_actions(state, seat), *self.lay_downs(state, seat)]

    def lay_downs(self, state: State, seat: int) -> list[Action]:
        """A sample of the lay-downs ``seat`` may enter now (none when it may not): laying
        nothing and every single set of natural cards that surely exists.

        Card conservation, from public facts only: the others' lay-downs are hidden (a
        list shaped by them would tell), but *how many* have entered is shown, and each
        of them holds at most ``most`` natural cards of a kind. What is listed is then
        legal whatever they entered; ``is_legal`` still takes more when the deck allows it.
        """
        if not self._may_enter(state, seat):
            return []
        out: list[Action] = [{"type": "lay_down", "seat": seat, "cards": {}, "black": {}}]
        least = self.data["scoring"]["min_per_kind"]
        entered = sum(1 for s, e in enumerate(state["round"]["entries"]) if e is not None and s != seat)
        for kid, kind in self.kinds.items():
            left = kind["cards"] - entered * kind["most"]
            for n in range(least, min(kind["most"], left) + 1):
                out.append({"type": "lay_down", "seat": seat, "cards": {kid: n}, "black": {}})
        return out

    # --- the actions (``Game.apply`` forks the state and calls these) ---------------
    def _do_reveal(self, state: State, action: Action) -> list[Effect]:
        digital = state["options"]["deck"] == "digital"
        card = action["card"]
        if not digital and card is None:       # the printed deck: which card was turned over
            raise self.invalid(state, "reveal", "card")
        if state["phase"] not in ("reveal", "scored"):
            raise IllegalAction("The next recipe card is revealed only after this round has been scored")
        if digital:
            if card is not None:
                raise IllegalAction("The tablet deals the recipe cards in this game: just tap reveal")
            card = state["deck"].pop(0)
        elif card not in self._unrevealed(state):
            raise IllegalAction("Tap the recipe card that was just turned over "
                                "(one that has not been revealed yet)")
        if state["phase"] == "scored":
            # a new list, never an append: earlier states share the history
            state["history"] = [*state["history"], state["round"]]
            state["round"] = self._new_round(state["round"]["number"] + 1, len(state["players"]))
        state["revealed"].append(card)
        state["round"]["recipe"] = card
        if card == self.bolt["id"]:
            state["phase"] = "over"
            state["end"] = {"reason": "magic_bolt", "round": state["round"]["number"]}
            self.announce(state, "magic_bolt", bolt=self.bolt["name"], round=state["round"]["number"])
            return [{"type": "game_over", "reason": "magic_bolt"}]
        state["phase"] = "trading"
        self.announce(state, "revealed", card=self._card_name(card), round=state["round"]["number"])
        return []

    def _do_drop_out(self, state: State, action: Action) -> None:
        seat = action["seat"]
        rnd = state["round"]
        if state["phase"] != "trading":
            raise IllegalAction("Players drop out only while the trading is on")
        if seat in rnd["dropouts"]:
            raise IllegalAction(f"{state['players'][seat]} has already stopped trading")
        rnd["dropouts"].append(seat)
        self.announce(state, "ring" if len(rnd["dropouts"]) == 1 else "goblet", seat=seat)
        if len(rnd["dropouts"]) >= self._count_rule("stones_to_end", state):
            state["phase"] = "laying"
            self.announce(state, "trading_over")

    def _do_false_trader(self, state: State, action: Action) -> None:
        seat = action["seat"]
        start = self.data["path"]["start"]
        before = state["stones"][seat]
        state["stones"][seat] = max(start, before - self.data["scoring"]["false_trader_back"])
        # the newest taps only: a round of hundreds of taps must not make every action and
        # message grow (issue 16); the count says how many there were
        rnd = state["round"]
        rnd["false_traders"] = [*rnd["false_traders"][-(self.FALSE_TRADERS_KEPT - 1):],
                                {"seat": seat, "from": before, "to": state["stones"][seat]}]
        rnd["false_trader_taps"] += 1

    def _do_lay_down(self, state: State, action: Action) -> None:
        seat = action["seat"]          # the shape was read first (400), then the moment and rules (422)
        rnd = state["round"]
        if state["phase"] == "trading":
            if seat not in rnd["dropouts"]:
                raise IllegalAction(f"{state['players'][seat]} is still trading: lay down after "
                                    "dropping out or when the round ends")
        elif state["phase"] != "laying":
            raise IllegalAction("Lay-downs are entered at the end of a round, before they are revealed")
        sets = laydown.check_lay_down(action["cards"], action["black"], self.data)
        # never checked against the others' entries here: their counts are theirs (the
        # reveal checks them all together, _check_deck)
        rnd["entries"][seat] = {"cards": {s["kind"]: s["natural"] for s in sets},
                                "black": {s["kind"]: s["black"] for s in sets if s["black"]}}

    def _check_deck(self, entries: list[Entry]) -> None:
        """Card conservation: the lay-downs together never use more cards of a kind (or
        Black Somethings) than the game has. Asked at the reveal, of all of them: an entry
        is never refused for what the *others* entered, which would let anyone probe
        their hidden counts (docs/security.md); one entry alone is bounded by the rules
        (``laydown.check_lay_down``: at most 7 of a kind, 4 Black Somethings)."""
        joker = self.data["black_something"]
        too_many = [f"{kind['cards']} {kind['name']} cards" for kid, kind in self.kinds.items()
                    if sum(e["cards"].get(kid, 0) for e in entries) > kind["cards"]]
        if sum(sum(e["black"].values()) for e in entries) > joker["cards"]:
            too_many.append(f"{joker['cards']} {joker['name']}s")
        if too_many:
            raise IllegalAction(f"The lay-downs together use more than the game's {' and '.join(too_many)}: "
                                "someone entered more than they laid. Each player checks their own "
                                "entry (Change entry), then reveal again")

    def _do_reveal_entries(self, state: State, action: Action) -> None:
        rnd = state["round"]
        if state["phase"] != "laying":
            raise IllegalAction("The lay-downs are revealed when the round has ended")
        missing = [state["players"][s] for s, e in enumerate(rnd["entries"]) if e is None]
        if missing:
            raise IllegalAction("Everyone lays down before the cards are turned over; "
                                "still waiting for " + ", ".join(missing))
        self._check_deck(rnd["entries"])        # together, as they are turned over
        rnd["entries_revealed"] = True
        for seat, entry in enumerate(rnd["entries"]):    # face up now: every lay-down is told
            sets = laydown.check_lay_down(entry["cards"], entry["black"], self.data)
            if sets:
                self.announce(state, "laid", seat=seat, cards=self._sets_words(sets),
                              points=laydown.score(sets)["points"])
            else:
                self.announce(state, "laid_nothing", seat=seat)
        totals = [self._entry_score(e) for e in rnd["entries"]]
        # rulebook: more points first; equal points: more cards played first
        layers = sorted((s for s, t in enumerate(totals) if t["cards_played"]),
                        key=lambda s: (-totals[s]["points"], -totals[s]["cards_played"], s))
        order: list[list[int]] = []
        for s in layers:
            key = (totals[s]["points"], totals[s]["cards_played"])
            if order and (totals[order[-1][0]]["points"], totals[order[-1][0]]["cards_played"]) == key:
                order[-1].append(s)
            else:
                order.append([s])
        rnd["order"] = order          # ``settle`` asks for draws or scores the round

    def _do_draw(self, state: State, action: Action) -> list[Effect]:
        seat, kind = action["seat"], action["kind"]
        rnd = state["round"]
        if state["phase"] != "tiebreak":
            raise IllegalAction("Cards are drawn only to break a tie after the lay-downs are revealed")
        if seat not in [s for g in self._undecided(state) for s in g]:
            raise IllegalAction(f"{state['players'][seat]} is not in a tie that needs a draw")
        if rnd["drawn"][seat] is not None:
            raise IllegalAction(f"{state['players'][seat]} has already drawn; wait for the others in the tie")
        if kind == self.joker["id"]:
            rnd["draw_log"].append({"seat": seat, "kind": kind, "value": None})
            self.announce(state, "draws_again", seat=seat, black=self.joker["name"])
            return []  # a Black Something has no value: that player draws again
        value = laydown.single_card_value(self.kinds[kind])
        self.announce(state, "drew", seat=seat, card=self.kinds[kind]["name"], value=value)
        rnd["drawn"][seat] = kind
        rnd["draw_log"].append({"seat": seat, "kind": kind, "value": value})

        def worth(s: int) -> int:
            return laydown.single_card_value(self.kinds[rnd["drawn"][s]])

        order: list[list[int]] = []
        for group in rnd["order"]:
            if len(group) > 1 and all(rnd["drawn"][s] is not None for s in group):
                # the more valuable card is ahead; equal cards stay tied and draw again
                for v in sorted({worth(s) for s in group}, reverse=True):
                    order.append([s for s in group if worth(s) == v])
                for s in group:
                    rnd["drawn"][s] = None
            else:
                order.append(group)
        rnd["order"] = order
        return []

    def settle(self, state: State, kind: str) -> list[Effect] | None:
        """Once the lay-downs are revealed: ask for draws while a tie changes a move,
        otherwise move the stones."""
        rnd = state["round"]
        if rnd["order"] is None or rnd["results"] is not None or state["phase"] == "over":
            return None
        if self._undecided(state):
            if state["phase"] != "tiebreak":
                self.announce(state, "tie", who=_and([state["players"][s] for s in self._seats_to_draw(state)]))
            state["phase"] = "tiebreak"
            return None
        return self._score_round(state)

    def _entry_score(self, entry: Entry) -> dict[str, int]:
        return laydown.score(laydown.check_lay_down(entry["cards"], entry["black"], self.data))

    # --- ranking and tie-breaks -------------------------------------------------
    def _layers_and_nothing(self, state: State) -> tuple[int, bool]:
        rnd = state["round"]
        layers = sum(len(g) for g in rnd["order"])
        return layers, layers < len(state["players"])

    def _move_at(self, state: State, position: int) -> int:
        """Recipe move for a laying player at this place (0 = best)."""
        recipe = self.recipes[state["round"]["recipe"]]
        layers, someone_laid_nothing = self._layers_and_nothing(state)
        if position < len(recipe["forward"]):
            return int(recipe["forward"][position])
        # Players who laid nothing are the lowest; only without them is the last layer lowest.
        if not someone_laid_nothing and position == layers - 1:
            return -int(recipe["back"])
        return 0

    def _groups_with_places(self, state: State) -> list[tuple[list[int], int]]:
        out: list[tuple[list[int], int]] = []
        place = 0
        for group in state["round"]["order"]:
            out.append((group, place))
            place += len(group)
        return out

    def _undecided(self, state: State) -> list[list[int]]:
        """Tied groups whose order changes somebody's move: they must draw."""
        ring = state["round"]["dropouts"][0]
        best = self._count_rule("ring_best", state)
        out = []
        for group, place in self._groups_with_places(state):
            if len(group) < 2:
                continue
            places = range(place, place + len(group))
            moves = {self._move_at(state, p) for p in places}
            ring_sides = {p < best for p in places} if ring in group else set()
            if len(moves) > 1 or len(ring_sides) > 1:
                out.append(group)
        return out

    def _seats_to_draw(self, state: State) -> list[int]:
        drawn = state["round"]["drawn"]
        return [s for g in self._undecided(state) for s in g if drawn[s] is None]

    # --- scoring ----------------------------------------------------------------
    def _score_round(self, state: State) -> list[Effect]:
        rnd, players = state["round"], state["players"]
        path, rules = self.data["path"], self.data["dropouts"]
        ring = rnd["dropouts"][0]
        best = self._count_rule("ring_best", state)
        recipe = self.recipes[rnd["recipe"]]
        place_of: dict[int, int] = {}
        shared: dict[int, bool] = {}
        for group, place in self._groups_with_places(state):
            for s in group:
                place_of[s], shared[s] = place, len(group) > 1
        layers = len(place_of)
        results = []
        for seat, entry in enumerate(rnd["entries"]):
            sets = laydown.check_lay_down(entry["cards"], entry["black"], self.data)
            total = laydown.score(sets)
            moves: list[dict[str, Any]] = []
            if seat in place_of:
                move = self._move_at(state, place_of[seat])
                if move:
                    moves.append({"why": "recipe", "fields": move})
                in_best = place_of[seat] < best
            else:
                moves.append({"why": "laid_nothing", "fields": -recipe["back"]})
                in_best = False
            if seat == ring:
                moves.append({"why": "ring", "fields": rules["ring_bonus"] if in_best else -rules["ring_bonus"]})
            before = state["stones"][seat]
            after = min(path["target"], max(path["start"], before + sum(m["fields"] for m in moves)))
            state["stones"][seat] = after
            self._announce_moves(state, seat, moves, before, after)
            results.append({
                "seat": seat, "name": players[seat], "sets": sets, **total,
                "laid_nothing": seat not in place_of,
                "rank": place_of[seat] + 1 if seat in place_of else layers + 1,
                "shared_rank": shared.get(seat, seat not in place_of and len(players) - layers > 1),
                "tie_break": self._tie_break(state, seat, total),
                "drew": [d["kind"] for d in rnd["draw_log"] if d["seat"] == seat],
                "ring": seat == ring, "goblet": seat in rnd["dropouts"][1:],
                "moves": moves, "from": before, "to": after, "moved": after - before,
            })
        rnd["results"] = results
        state["phase"] = "scored"
        effects: list[Effect] = [{"type": "stones_moved", "stones": list(state["stones"])}]
        if path["target"] in state["stones"]:
            state["phase"] = "over"
            state["end"] = {"reason": "target", "round": rnd["number"]}
            self.announce(state, "target", who=_and([players[s] for s, f in enumerate(state["stones"])
                                                     if f == path["target"]]), field=path["target"])
            effects.append({"type": "game_over", "reason": "target"})
        return effects

    def _sets_words(self, sets: list[laydown.Set]) -> str:
        """A revealed lay-down as the table says it: "3 Troll Hair + 1 Black Something, 2 Greenwurz"."""
        joker = self.joker["name"]
        return ", ".join(f"{s['natural']} {s['name']}" + (f" + {s['black']} {joker}" if s["black"] else "")
                         for s in sets)

    def _announce_moves(self, state: State, seat: int, moves: list[dict[str, Any]], before: int, after: int) -> None:
        """One stone's moves of a scored round: the recipe card's, the ring's, and where it is now."""
        for m in moves:
            way = "forward" if m["fields"] > 0 else "back"
            self.announce(state, f"{m['why']}_{way}", seat=seat, fields=abs(m["fields"]))
        self.announce(state, "stone_on" if after != before else "stone_stays", seat=seat, field=after)

    def _tie_break(self, state: State, seat: int, total: dict[str, int]) -> str | None:
        """Which rule placed this player among others with the same points."""
        if not total["cards_played"]:
            return None
        rnd = state["round"]
        same_points = [s for s, e in enumerate(rnd["entries"]) if s != seat
                       and self._entry_score(e)["points"] == total["points"] and self._entry_score(e)["cards_played"]]
        if not same_points:
            return None
        if any(self._entry_score(rnd["entries"][s])["cards_played"] == total["cards_played"] for s in same_points):
            group = next(g for g in rnd["order"] if seat in g)
            return "shared" if len(group) > 1 else "draw"
        return "cards"

    # --- the end -------------------------------------------------------------------
    def outcome(self, state: State) -> Outcome | None:
        """The stone furthest along the magic path wins; stones level share the win
        (the rulebook has no further tie-break)."""
        if state["phase"] != "over":
            return None
        stones, names = state["stones"], state["players"]
        furthest = max(stones)
        winners = tuple(s for s, f in enumerate(stones) if f == furthest)
        reason = state["end"]["reason"]
        who = _and([names[s] for s in winners])
        verb = "share the win" if len(winners) > 1 else "wins"
        if reason == "magic_bolt":
            message = f"The Magic Bolt is out: {who} {verb} on field {furthest}"
        else:
            message = f"A stone reached the target field: {who} {verb}"
        rounds = len([r for r in [*state["history"], state["round"]] if r["results"]])
        return Outcome(winners=winners, reason=reason, message=message,
                       ranking=Outcome.rank(stones),
                       details={"scores": list(stones), "rounds_scored": rounds})

    def scores(self, state: State) -> Scores:
        """Each magic stone's field on the path, and where every stone stood after each round
        scored so far: the score sheet. Rounds are as many as recipe cards at most (each
        round turns one over), so the sheet stays small however the game goes."""
        rounds = [r for r in [*state["history"], state["round"]] if r["results"]]
        target = self.data["path"]["target"]
        return Scores(
            lines=(Score("field", "Field on the magic path", tuple(state["stones"]),
                         note=f"The first stone on field {target} wins; when the Magic Bolt comes out, "
                              "the stone furthest along."),),
            rounds=tuple(RoundScore(f"Round {r['number']} · {self._card_name(r['recipe'])}",
                                    tuple(res["to"] for res in r["results"])) for r in rounds))

    # --- views --------------------------------------------------------------------
    def view(self, state: State, seat: int | None = None) -> dict[str, Any]:
        rnd, players, phase = state["round"], state["players"], state["phase"]
        path = self.data["path"]
        recipe_id = rnd["recipe"]
        dropouts = rnd["dropouts"]
        pending_draw = self._seats_to_draw(state) if phase == "tiebreak" else []
        revealed = rnd["entries_revealed"]
        table = laydown.points_table(self.data)
        outcome = self.outcome(state)
        view: dict[str, Any] = {
            "game": self.id,
            "phase": phase,
            "path": {"start": path["start"], "target": path["target"]},
            "players": [{
                "seat": s, "name": name, "field": state["stones"][s],
                "dropped_out": ("ring" if dropouts[:1] == [s] else "goblet" if s in dropouts else None),
                "entered": rnd["entries"][s] is not None,
                "to_draw": s in pending_draw,
            } for s, name in enumerate(players)],
            "round": {
                "number": rnd["number"], "deal": rnd["deal"],
                "deal_reminder": f"Deal {rnd['deal']} cards to each player, one at a time.",
                "recipe": self.card_view(recipe_id),
                "ring": dropouts[0] if dropouts else None,
                "goblet": dropouts[1:],
                "stones_to_end": self._count_rule("stones_to_end", state),
                "false_traders": rnd["false_traders"],
                "false_trader_taps": rnd["false_trader_taps"],
                "entries": [self._entry_view(e) if revealed and e is not None else None
                            for e in rnd["entries"]],
                "draws": rnd["draw_log"],
                "order": rnd["order"] if revealed else None,
                "results": rnd["results"],
            },
            "next_deal": self.data["deal"]["later_rounds"] if phase == "scored" else None,
            "recipe_deck": {"mode": state["options"]["deck"],
                            "remaining": len(self._unrevealed(state)),
                            # ids: the faces are GET /api/v1/zaubercocktail/cards, asked for once
                            "revealed": list(state["revealed"])},
            "kinds": [{**kind, "single_card_value": laydown.single_card_value(kind), "points": table[kid]}
                      for kid, kind in self.kinds.items()],
            "black_something": dict(self.joker),
            "entry_rules": {"max_kinds": self.data["scoring"]["max_kinds"],
                            "min_per_kind": self.data["scoring"]["min_per_kind"],
                            "black_needs_natural": True},
            "ring_best": self._count_rule("ring_best", state),
            "ring_bonus": self.data["dropouts"]["ring_bonus"],
            "forward_places": self.data["scoring"]["forward_places"],
            # The message carries what the table shows: the earlier rounds sit in a closed
            # box that asks GET /api/v1/zaubercocktail/history when opened, so only their
            # count rides along, and at the end the last round (the outcome shows its
            # results when the Magic Bolt ended a round before any were scored): a message
            # does not grow with the game (issues 16, 26).
            "history": [self._round_summary(r) for r in (state["history"][-1:] if outcome is not None else [])],
            "rounds_before": len(state["history"]),
            "outcome": outcome.to_json(players) if outcome is not None else None,
        }
        if seat is not None:
            view["you"] = {"seat": seat, "name": players[seat], **self.private_view(state, seat)}
        return view

    def private_view(self, state: State, seat: int) -> dict[str, Any]:
        """A player's own hidden lay-down (until the host reveals them all) and whether
        they may enter one now: only on that player's phone."""
        seat = self.seat_of(state, {"seat": seat})
        entry = state["round"]["entries"][seat]
        return {"entry": self._entry_view(entry) if entry is not None else None,
                "may_enter": self._may_enter(state, seat),
                "preview": laydown.preview(entry["cards"] if entry else {},
                                           entry["black"] if entry else {}, self.data)}

    def _may_enter(self, state: State, seat: int) -> bool:
        return state["phase"] == "laying" or (state["phase"] == "trading" and seat in state["round"]["dropouts"])

    def card_view(self, card_id: str | None) -> dict[str, Any] | None:
        """A recipe card's face: its name (``5/3/1/−2``), moves, or the Magic Bolt."""
        if card_id is None:
            return None
        if card_id == self.bolt["id"]:
            return {"id": card_id, "name": self.bolt["name"], "magic_bolt": True}
        recipe = self.recipes[card_id]
        return {"id": card_id, "name": self._card_name(card_id), "magic_bolt": False,
                "forward": list(recipe["forward"]), "back": recipe["back"]}

    def recipe_cards(self) -> list[dict[str, Any]]:
        """Every card of the recipe deck face up, the Magic Bolt last."""
        return [face for c in [*self.recipes, self.bolt["id"]] if (face := self.card_view(c)) is not None]

    def _entry_view(self, entry: Entry) -> dict[str, Any]:
        sets = laydown.check_lay_down(entry["cards"], entry["black"], self.data)
        return {"cards": dict(entry["cards"]), "black": dict(entry["black"]), "sets": sets,
                **laydown.score(sets)}

    def history(self, state: State) -> list[dict[str, Any]]:
        """Every earlier round, oldest first (public: what the table saw scored)."""
        return [self._round_summary(r) for r in state["history"]]

    def _round_summary(self, rnd: Round) -> dict[str, Any]:
        return {"number": rnd["number"], "deal": rnd["deal"], "recipe": self.card_view(rnd["recipe"]),
                "ring": rnd["dropouts"][0] if rnd["dropouts"] else None, "goblet": rnd["dropouts"][1:],
                "false_traders": rnd["false_traders"], "draws": rnd["draw_log"],
                "results": rnd["results"]}

    def prompt(self, state: State) -> str:
        rnd, phase, players = state["round"], state["phase"], state["players"]
        if phase == "reveal":
            return (f"Deal {rnd['deal']} cards to each player. When everyone has looked at "
                    "their cards, reveal the recipe card.")
        if phase == "trading":
            left = self._count_rule("stones_to_end", state) - len(rnd["dropouts"])
            where = "the ring" if not rnd["dropouts"] else "the goblet"
            return (f"Trade! Tap a player who stops trading (their magic stone goes in {where}); "
                    f"the round ends after {left} more.")
        if phase == "laying":
            missing = [players[s] for s, e in enumerate(rnd["entries"]) if e is None]
            if missing:
                return "Enter each lay-down (hidden until revealed). Waiting for " + ", ".join(missing) + "."
            return "Everyone has laid down: reveal the lay-downs."
        if phase == "tiebreak":
            names = [players[s] for s in self._seats_to_draw(state)]
            return ("A tie: each of " + ", ".join(names) + " draws a card from the supply pile; "
                    "tap the ingredient drawn (a Black Something is drawn again).")
        if phase == "scored":
            return (f"Stones moved. Put the laid cards under the supply pile, deal "
                    f"{self.data['deal']['later_rounds']} cards to each player, then reveal the next recipe card.")
        outcome = self.outcome(state)
        assert outcome is not None
        why = "The Magic Bolt is out" if outcome.reason == "magic_bolt" else "A stone reached the target field"
        names = [players[s] for s in outcome.winners]
        return f"{why}: " + " and ".join(names) + (" win!" if len(names) > 1 else " wins!")
