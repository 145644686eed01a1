"""Mix It (rulebook: shared/rules/mix-it.txt; defaults: DEFAULTS.md, Mix It).

Two monsters are built side by side, each a column of three slots (eyes, mouth, feet:
the BASIC RULE, never broken). A slot is a stack; only its top card counts. On a turn a
player PLACEs a part from the hand (then draws back to 3), MOVEs a top card to the other
monster's same slot (not the card the player just before moved), or CHANGEs goal (once
per game). After every action both monsters are checked against every secret goal: a
player whose goal shows may shout "MONSTER!" (``claim``, from the phone); the table
checks the card and confirms (``confirm``): a cookie and a new goal. All-star monsters
win the EXTRA COOKIE. The first to 3 cookies wins (the extra one counts).

Secrets: hands, goals, the deck's order and the goal pile's order never appear in
``view(state)``; each player's hand and goal are in ``private_view(state, seat)``.
"""
from __future__ import annotations

from typing import Any

from ...contracts import Action, Effect, State
from ..base import (SEAT, Choice, Fields, Game, IllegalAction, Outcome, Score, Scores, Whole, new_rng_state,
                    rng_from, rng_store)

VARIANTS = ("classic", "express")


class MixIt(Game):
    undoable = frozenset({"place", "move", "change_goal"})
    undo_barrier = frozenset({"claim", "confirm"})        # a shout and a cookie are facts
    nothing_to_undo = "there is nothing to undo (a MONSTER!, a cookie or a new deck cannot be taken back)"
    legal_actions_complete = False      # placements, goal changes and claims are on the phones
    # a hand card placed, the secret goal changed, the goal shown: each player's phone only
    secret_types = frozenset({"place", "change_goal", "claim"})
    options = {"variant": Choice(VARIANTS, "the classic game, or Mix It Express (one goal each, no hands)",
                                 default="classic")}

    def __init__(self, data: dict[str, Any] | None = None):
        super().__init__(data)
        d = self.data
        self.parts: list[str] = [p["id"] for p in d["parts"]]
        self.species: dict[str, dict[str, Any]] = {s["id"]: s for s in d["species"]}
        self.cards: dict[str, dict[str, Any]] = {c["id"]: c for c in d["cards"]}
        self.goals: dict[str, dict[str, Any]] = {g["id"]: g for g in d["goals"]}
        self.hand_size = int(d["hand_size"])
        self.to_win = int(d["cookies_to_win"])
        self.goal_changes = int(d["goal_changes"])
        self.monster_count = int(d["monsters"])

    def fields(self) -> dict[str, Fields]:
        monster = Whole(0, self.monster_count - 1, "Monster 1 or Monster 2")
        return {
            "place": {"seat": SEAT, "monster": monster,
                      "card": Choice(self.cards, 'a Monster Parts card, e.g. "blubbo-eyes-star"', default=None)},
            "move": {"seat": SEAT, "monster": monster, "part": Choice(self.parts, "the slot the top card is in")},
            "change_goal": {"seat": SEAT}, "claim": {"seat": SEAT},
        }

    # --- set-up ---------------------------------------------------------------------
    def setup(self, players: list[str], seed: int, options: dict[str, Any] | None = None) -> State:
        self.check_players(players)
        options = self.read_options(options, players)
        variant = options["variant"]
        n = len(players)
        state: State = {
            "players": list(players), "options": options, "rng": new_rng_state(seed),
            "monsters": [{p: [] for p in self.parts} for _ in range(self.monster_count)],
            "hands": [[] for _ in range(n)], "goals": [None] * n, "won": [[] for _ in range(n)],
            "changed": [0] * n, "extra": {"holder": None, "since": None, "before": None, "contested": None},
            "turn": 0, "locked": None, "step": 0, "showing": [None] * n, "claims": [],
            "refills": 0, "winners": [], "undo": [],
        }
        rng = rng_from(state)
        deck = list(self.cards)
        rng.shuffle(deck)
        goal_pile = list(self.goals)
        rng.shuffle(goal_pile)
        # Each player receives 1 Secret Goal card and 3 Monster Parts cards (Express: no hand).
        for seat in range(n):
            state["goals"][seat] = goal_pile.pop()
            if variant == "classic":
                state["hands"][seat] = [deck.pop() for _ in range(self.hand_size)]
        state["deck"], state["goal_pile"] = deck, goal_pile
        self._starters(state, deck)
        rng_store(state, rng)
        self.announce(state, "started", **{f"monster_{m + 1}": self.card_name(next(c for p in self.parts
                                                                             for c in monster[p]))
                                          for m, monster in enumerate(state["monsters"])})
        self.settle(state, "setup")
        return state

    def _starters(self, state: State, deck: list[str]) -> None:
        """The first 2 cards of the deck show where Monster 1 and 2 are built, each in
        its own part's slot (the BASIC RULE)."""
        for monster in state["monsters"]:
            card = deck.pop()
            monster[self.cards[card]["part"]].append(card)

    # --- actions --------------------------------------------------------------------
    def _turn_of(self, state: State, action: Action) -> int:
        """The acting seat, refused unless it is that player's turn and nothing waits."""
        seat: int = action["seat"]
        names = state["players"]
        if state["claims"]:
            who = ", ".join(names[c["seat"]] for c in state["claims"])
            raise IllegalAction(f'first the table checks the "MONSTER!" of {who}: confirm it on the tablet')
        if seat != state["turn"]:
            raise IllegalAction(f"it is {names[state['turn']]}'s turn, not {names[seat]}'s")
        return seat

    def is_secret(self, state: State, action: Action) -> bool:
        """In Express the card placed is the face-up deck's top: the table places it."""
        if action.get("type") == "place" and state["options"]["variant"] == "express":
            return False
        return super().is_secret(state, action)

    def _do_place(self, state: State, action: Action) -> None:
        """A. PLACE 1 card in a free space or OVER another card, then draw back to 3."""
        seat = self._turn_of(state, action)
        monster, card = action["monster"], action["card"]
        express = state["options"]["variant"] == "express"
        if express:
            top = state["deck"][-1]
            if card is not None and card != top:
                raise IllegalAction("in Mix It Express you place the top card of the face-up deck")
            card = top
        if card is None:
            raise self.invalid(state, "place", "card")
        hand = state["hands"][seat]
        if not express and card not in hand:
            raise IllegalAction(f"{state['players'][seat]} has no {self.card_name(card)} in hand")
        part = self.cards[card]["part"]
        if express:
            state["deck"].pop()
        else:
            hand.remove(card)
        state["monsters"][monster][part].append(card)
        state["locked"] = None
        self.announce(state, "placed", seat=seat, card=self.card_name(card), monster=monster)
        if not express:
            hand.append(state["deck"].pop())        # back to 3 cards
        if not state["deck"]:
            self._new_deck(state)
        self._next_turn(state)

    def _new_deck(self, state: State) -> None:
        """The last card left the deck: all cards on the table form a new deck, and its
        first 2 cards start Monster 1 and 2 again."""
        rng = rng_from(state)
        deck = [c for monster in state["monsters"] for p in self.parts for c in monster[p]]
        rng.shuffle(deck)
        state["monsters"] = [{p: [] for p in self.parts} for _ in range(self.monster_count)]
        self._starters(state, deck)
        state["deck"] = deck
        rng_store(state, rng)
        state["refills"] += 1
        state["locked"] = None
        self.announce(state, "new_deck")

    def _do_move(self, state: State, action: Action) -> None:
        """B. MOVE a top card to the other monster's same slot, except the card moved by
        the player directly before."""
        seat = self._turn_of(state, action)
        source, part = action["monster"], action["part"]
        stack = state["monsters"][source][part]
        if not stack:
            raise IllegalAction(f"Monster {source + 1} has no {part} to move")
        card = stack[-1]
        locked = state["locked"]
        if locked is not None and locked["card"] == card:
            raise IllegalAction(f"{state['players'][locked['by']]} moved {self.card_name(card)} just before you: "
                                "you may move any top card except the one moved by the player directly before you")
        target = 1 - source if self.monster_count == 2 else (source + 1) % self.monster_count
        stack.pop()
        state["monsters"][target][part].append(card)
        state["locked"] = {"card": card, "monster": target, "part": part, "by": seat}
        self.announce(state, "moved", seat=seat, card=self.card_name(card), monster=source, to=target)
        self._next_turn(state)

    def _do_change_goal(self, state: State, action: Action) -> None:
        """C. CHANGE goal: ONLY 1 time during the game. The old goal goes under the pile."""
        seat = self._turn_of(state, action)
        name = state["players"][seat]
        if state["options"]["variant"] == "express":
            raise IllegalAction("in Mix It Express each player has only 1 goal card")
        if state["changed"][seat] >= self.goal_changes:
            raise IllegalAction(f"{name} has already changed goal: only {self.goal_changes} time during the game")
        if not state["goal_pile"]:
            raise IllegalAction("there is no goal card left to change to")
        old = state["goals"][seat]
        state["goals"][seat] = state["goal_pile"].pop()
        if old is not None:
            state["goal_pile"].insert(0, old)
        state["changed"][seat] += 1
        state["locked"] = None
        self.announce(state, "changed_goal", seat=seat)
        self._next_turn(state)

    def _next_turn(self, state: State) -> None:
        state["step"] += 1
        state["turn"] = (state["turn"] + 1) % len(state["players"])

    def _do_claim(self, state: State, action: Action) -> None:
        """'MONSTER!': the player whose goal shows on the table shows the goal card."""
        seat = action["seat"]
        name = state["players"][seat]
        if any(c["seat"] == seat for c in state["claims"]):
            raise IllegalAction(f'{name} has already shouted "MONSTER!"; the table is checking it')
        showing = state["showing"][seat]
        if showing is None:
            raise IllegalAction(f"{name}'s goal is not on the table: no MONSTER! yet")
        state["claims"].append({"seat": seat, "goal": state["goals"][seat], **showing})
        self.announce(state, "shouted", seat=seat, monster=showing["monster"])

    def _do_confirm(self, state: State, action: Action) -> None:
        """The table checked every goal card shown: each claimant earns a cookie (the card,
        face down) and takes a new goal; all-star monsters decide the EXTRA COOKIE."""
        claims = state["claims"]
        if not claims:
            raise IllegalAction('nobody has shouted "MONSTER!"')
        names = state["players"]
        express = state["options"]["variant"] == "express"
        for claim in claims:
            seat = claim["seat"]
            state["won"][seat].append(claim["goal"])
            state["goals"][seat] = None if express or not state["goal_pile"] else state["goal_pile"].pop()
        for c in claims:
            self.announce(state, "cookie", seat=c["seat"])
        self._extra_cookie(state, [c for c in claims if c["star"]])
        state["claims"] = []
        state["step"] += 1
        if express:
            state["winners"] = sorted(c["seat"] for c in claims)
        else:
            state["winners"] = [s for s in range(len(names)) if self.cookies(state, s) >= self.to_win]
        if state["winners"]:
            self.announce(state, "won", who=" and ".join(names[w] for w in state["winners"]))

    def _extra_cookie(self, state: State, stars: list[dict[str, Any]]) -> None:
        """All-star monsters built at the same time (after the same action): the extra
        cookie stays where it was; one alone takes it from whoever holds it."""
        extra = state["extra"]
        by_time: dict[int, list[int]] = {}
        for claim in stars:
            by_time.setdefault(claim["since"], []).append(claim["seat"])
        for since, seats in sorted(by_time.items()):
            earlier_same_time = extra["since"] == since and extra["holder"] not in seats
            if len(seats) > 1 or earlier_same_time or extra["contested"] == since:
                if earlier_same_time and extra["contested"] != since:
                    extra["holder"] = extra["before"]       # built at the same time: undone
                extra["contested"] = since
                self.announce(state, "extra_cookie_stays")
                continue
            seat = seats[0]
            extra.update(before=extra["holder"], holder=seat, since=since)
            self.announce(state, "extra_cookie", seat=seat)

    # --- after every action ---------------------------------------------------------
    def settle(self, state: State, kind: str) -> list[Effect] | None:
        """Check every monster against every goal (who may shout "MONSTER!")."""
        for seat, goal in enumerate(state["goals"]):
            found = self.shows(state, goal)
            before = state["showing"][seat]
            if found is None:
                state["showing"][seat] = None
            elif before is not None and before["monster"] == found["monster"] and before["goal"] == goal:
                state["showing"][seat] = {**found, "since": before["since"]}
            else:
                state["showing"][seat] = {**found, "since": state["step"]}
        return None

    def shows(self, state: State, goal: str | None) -> dict[str, Any] | None:
        """Where ``goal`` shows on the table (an all-star one first), or None."""
        if goal is None:
            return None
        want = self.goals[goal]
        found = None
        for m, monster in enumerate(state["monsters"]):
            tops = [monster[p][-1] if monster[p] else None for p in self.parts]
            if all(t is not None and self.cards[t]["species"] == want[p] for t, p in zip(tops, self.parts)):
                star = all(self.cards[t]["star"] for t in tops if t is not None)
                if found is None or (star and not found["star"]):
                    found = {"monster": m, "star": star, "goal": goal}
        return found

    def undo_barrier_reached(self, before: State, after: State, kind: str) -> bool:
        # a new deck was shuffled: the table is gone, nothing before it can be undone
        return kind in self.undo_barrier or after["refills"] != before["refills"]

    # --- reading --------------------------------------------------------------------
    def cookies(self, state: State, seat: int) -> int:
        """Goal cards won plus the EXTRA COOKIE if this seat holds it."""
        return len(state["won"][seat]) + (state["extra"]["holder"] == seat)

    def scores(self, state: State) -> Scores:
        """Cookies: goal cards won (face down, but how many is seen) and the EXTRA COOKIE."""
        express = state["options"]["variant"] == "express"
        note = ("Mix It Express: whoever builds the goal first wins." if express else
                f"The first to {self.to_win} cookies wins; the EXTRA COOKIE counts.")
        return Scores(lines=(Score("cookies", "Cookies", tuple(self.cookies(state, s)
                                                              for s in range(len(state["players"]))), note=note),))

    def card_name(self, card: str) -> str:
        c = self.cards[card]
        return f"{self.species[c['species']]['name']} {c['part']}{' ★' if c['star'] else ''}"

    def card_view(self, card: str | None) -> dict[str, Any] | None:
        if card is None:
            return None
        c = self.cards[card]
        return {"id": card, "species": c["species"], "part": c["part"], "star": c["star"]}

    def goal_view(self, goal: str | None) -> dict[str, Any] | None:
        if goal is None:
            return None
        g = self.goals[goal]
        return {"id": goal, **{p: g[p] for p in self.parts}}

    def accounted(self, state: State) -> dict[str, int]:
        """Where the 55 cards are: parts, goals and the EXTRA COOKIE card, by place."""
        return {
            "deck": len(state["deck"]),
            "hands": sum(len(h) for h in state["hands"]),
            "table": sum(len(m[p]) for m in state["monsters"] for p in self.parts),
            "goal_pile": len(state["goal_pile"]),
            "goals": sum(g is not None for g in state["goals"]),
            "cookies": sum(len(w) for w in state["won"]),
            "extra_cookie": 1,
        }

    def actions(self, state: State) -> list[Action]:
        """The table's actions: public (no hand, no goal in them)."""
        if state["claims"]:
            return [{"type": "confirm"}]
        turn = state["turn"]
        out = self._moves(state, turn)
        if state["options"]["variant"] == "express":   # the deck is face up
            out += [{"type": "place", "seat": turn, "monster": m, "card": state["deck"][-1]}
                    for m in range(self.monster_count)]
        return out

    def _moves(self, state: State, seat: int) -> list[Action]:
        locked = state["locked"]["card"] if state["locked"] else None
        return [{"type": "move", "seat": seat, "monster": m, "part": p}
                for m, monster in enumerate(state["monsters"]) for p in self.parts
                if monster[p] and monster[p][-1] != locked]

    def seat_actions(self, state: State, seat: int) -> list[Action]:
        """What ``seat`` may do from its phone now, its hand and goal included."""
        if self.outcome(state) is not None:
            return []
        out: list[Action] = []
        if state["showing"][seat] is not None and all(c["seat"] != seat for c in state["claims"]):
            out.append({"type": "claim", "seat": seat})
        if state["claims"] or state["turn"] != seat:
            return out
        express = state["options"]["variant"] == "express"
        hand = [state["deck"][-1]] if express else sorted(set(state["hands"][seat]))
        out += [{"type": "place", "seat": seat, "card": c, "monster": m}
                for c in hand for m in range(self.monster_count)]
        out += self._moves(state, seat)
        if not express and state["changed"][seat] < self.goal_changes and state["goal_pile"]:
            out.append({"type": "change_goal", "seat": seat})
        return out

    def private_view(self, state: State, seat: int) -> dict[str, Any]:
        """This player's hand and secret goal, and whether it shows on the table now."""
        seat = self.seat_of(state, {"seat": seat})
        showing = state["showing"][seat]
        return {"hand": [self.card_view(c) for c in state["hands"][seat]],
                "goal": self.goal_view(state["goals"][seat]),
                "showing": None if showing is None else {"monster": showing["monster"], "star": showing["star"]},
                "claimed": any(c["seat"] == seat for c in state["claims"])}

    def view(self, state: State, seat: int | None = None) -> dict[str, Any]:
        """The public table (a seat's secrets are in ``private_view`` only)."""
        names, outcome = state["players"], self.outcome(state)
        express = state["options"]["variant"] == "express"
        locked = state["locked"]
        claiming = {c["seat"] for c in state["claims"]}
        view = {
            "game": self.id, "variant": state["options"]["variant"],
            "parts": list(self.parts),
            "species": [{k: s[k] for k in ("id", "name", "letter", "shape", "hex")} for s in self.species.values()],
            "monsters": [{"number": m + 1,
                          "slots": {p: {"top": self.card_view(monster[p][-1] if monster[p] else None),
                                        "depth": len(monster[p])} for p in self.parts}}
                         for m, monster in enumerate(state["monsters"])],
            "locked": None if locked is None else {"card": self.card_view(locked["card"]), "monster": locked["monster"],
                                                    "part": locked["part"], "by": locked["by"]},
            "turn": state["turn"],
            "players": [{"seat": s, "name": name, "cookies": self.cookies(state, s),
                         "goal_cookies": len(state["won"][s]), "extra_cookie": state["extra"]["holder"] == s,
                         "changed_goal": state["changed"][s] >= self.goal_changes,
                         "hand": len(state["hands"][s]), "claiming": s in claiming}
                        for s, name in enumerate(names)],
            "deck": {"count": len(state["deck"]),
                     "top": self.card_view(state["deck"][-1]) if express and state["deck"] else None},
            "goal_pile": len(state["goal_pile"]),
            "extra_cookie": state["extra"]["holder"],
            "claims": [{"seat": c["seat"], "name": names[c["seat"]], "goal": self.goal_view(c["goal"]),
                        "monster": c["monster"], "star": c["star"]} for c in state["claims"]],
            "cookies_to_win": 1 if express else self.to_win,
            "refills": state["refills"],
            "outcome": None if outcome is None else outcome.to_json(names),
        }
        return view

    def prompt(self, state: State) -> str:
        names, outcome = state["players"], self.outcome(state)
        if outcome is not None:
            return outcome.message
        if state["claims"]:
            who = " and ".join(names[c["seat"]] for c in state["claims"])
            return f'{who}: "MONSTER!" Check the goal card, then confirm.'
        return f"{names[state['turn']]}'s turn: place, move or change goal."

    def outcome(self, state: State) -> Outcome | None:
        winners = state["winners"]
        if not winners:
            return None
        names = state["players"]
        scores = [self.cookies(state, s) for s in range(len(names))]
        who = " and ".join(names[w] for w in winners)
        if state["options"]["variant"] == "express":
            return Outcome(winners=tuple(winners), reason="built_goal", message=f"{who} built the goal first and won!",
                           ranking=Outcome.rank([1 if s in winners else 0 for s in range(len(names))]),
                           details={"cookies": scores})
        return Outcome(winners=tuple(winners), reason="three_cookies",
                       message=f"{who} won with {self.to_win} cookies!",
                       ranking=Outcome.rank(scores), details={"cookies": scores})
