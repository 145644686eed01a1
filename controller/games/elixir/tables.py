"""Elixir's printed tables, read once from data.toml and checked (a broken file fails loudly)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ingredient:
    id: str
    name: str
    group: str          # "herb", "special" or "gem": the rack it goes on and the shop selling it
    price: int
    value: int          # a gemstone's brewing value (0 for the others)
    letter: str


@dataclass(frozen=True)
class Brew:
    id: str
    name: str
    rounds: int         # how long its red chip runs; 0 = cannot be drunk
    elixir: bool
    effect: str


@dataclass(frozen=True)
class Unknown:
    id: str
    name: str
    kind: str           # "attack", "hire" or "offer"
    hits: tuple[int, ...]
    price: int
    pays: int
    count: int
    text: str


def pair_key(herb: str, special: str) -> str:
    """The formula card of a herb and a special product: "mandrake+bat_wing"."""
    return f"{herb}+{special}"


class Tables:
    """Every number and card of the game, by id, from one data dict."""

    def __init__(self, data: dict[str, Any]):
        where = "the Elixir data.toml"
        try:
            self.min_players = int(data["players"]["min"])
            self.max_players = int(data["players"]["max"])
            gold = data["gold"]
            self.start_gold = int(gold["start"])
            self.income = int(gold["income"])
            self.antidote_income = int(gold["antidote_income"])
            self.healer_fee = int(gold["healer_fee"])
            self.gold_in_game = {int(k): int(v) for k, v in gold["in_game"].items()}
            self.copies = {int(k): int(v) for k, v in data["copies"].items()}
            self.range = int(data["moving"]["range"])
            self.super_soda_range = int(data["moving"]["super_soda_range"])
            self.sides = int(data["die"]["sides"])
            b = data["brewing"]
            self.fail_at_most = int(b["fail_at_most"])
            self.doubtful_at_most = int(b["doubtful_at_most"])
            self.lucky_bonus = int(b["lucky_bonus"])
            self.places = {p["id"]: dict(p) for p in data["places"]}
            self.groups = {g["id"]: dict(g) for g in data["groups"]}
            self.ingredients = {i["id"]: Ingredient(i["id"], i["name"], i["group"], int(i["price"]),
                                                    int(i.get("value", 0)), i["letter"])
                                for i in data["ingredients"]}
            self.brews = {x["id"]: Brew(x["id"], x["name"], int(x["rounds"]), bool(x.get("elixir", False)),
                                        x["effect"]) for x in data["brews"]}
            self.unknowns = {u["id"]: Unknown(u["id"], u["name"], u["kind"], tuple(int(h) for h in u.get("hits", ())),
                                              int(u.get("price", 0)), int(u.get("pays", 0)),
                                              int(u.get("count", 0)), u["text"])
                             for u in data["unknowns"]}
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{where}: missing or malformed entry {exc}") from None
        for ing in self.ingredients.values():
            if ing.group not in self.groups:
                raise ValueError(f"{where}: ingredient {ing.id} has group {ing.group!r}; "
                                 f"allowed: {', '.join(self.groups)}")
        for u in self.unknowns.values():
            if u.kind not in ("attack", "hire", "offer"):
                raise ValueError(f"{where}: Unknown {u.id} has kind {u.kind!r}; allowed: attack, hire, offer")
        self.herbs = [i.id for i in self.ingredients.values() if i.group == "herb"]
        self.specials = [i.id for i in self.ingredients.values() if i.group == "special"]
        self.gems = [i.id for i in self.ingredients.values() if i.group == "gem"]
        self.pairs = [pair_key(h, s) for h in self.herbs for s in self.specials]
        if len(self.pairs) != len(self.brews):
            raise ValueError(f"{where}: {len(self.pairs)} formula cards (herb × special pairs) "
                             f"but {len(self.brews)} brews: there must be one brew per formula card")
        self.elixir_parts = [b.id for b in self.brews.values() if b.elixir]
        for n in range(self.min_players, self.max_players + 1):
            if n not in self.gold_in_game or n not in self.copies:
                raise ValueError(f"{where}: [gold] in_game and [copies] need an entry for {n} players")

    def shop_of(self, ingredient: str) -> str:
        """The place selling ``ingredient`` (and where it returns to)."""
        return str(self.groups[self.ingredients[ingredient].group]["shop"])
