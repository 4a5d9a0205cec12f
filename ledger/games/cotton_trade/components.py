"""Cotton Trade's component data, loaded once from components.json.

Every number lives in the JSON file with its provenance ([S] stated, [D] derived,
[U] assumed default for a value only the printed component holds); this module
only validates it into frozen tables.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path

from pydantic import TypeAdapter


class Region(StrEnum):
    EGYPT = "EGYPT"
    NORTH_AMERICA = "NORTH_AMERICA"
    SOUTH_AMERICA_WI = "SOUTH_AMERICA_WI"
    BRITISH_INDIA = "BRITISH_INDIA"


REGIONS: tuple[Region, ...] = tuple(Region)
CURRENCIES = ("pence", "shillings", "pounds")
STAGE_NAMES = ("I", "II", "III")


@dataclass(frozen=True, slots=True)
class ShipCard:
    id: str
    capacity: int
    cabins: int
    fast: bool
    new: bool
    value: int
    maintenance: int


@dataclass(frozen=True, slots=True)
class ContractCard:
    id: str
    stage: str
    region: Region
    price: int
    cotton: int
    unrest: int
    coins: int
    passengers: int
    vip: int
    drought: bool


@dataclass(frozen=True, slots=True)
class TrackSpace:
    space: int
    max_wealth: int | None
    share_value: tuple[int, int, int]


@dataclass(frozen=True)
class Components:
    rounds: int
    starting_pence: int
    ship_cards_extra: int
    demand_initial_base: int
    demand_removed_per_player: int
    guaranteed_price: int
    bonus_first: int
    bonus_other: int
    oversized_discount: int
    shares_per_company: int
    forced_sale_price: tuple[int, int]
    exchange_rate: int
    coin_tokens: int
    passenger_tokens: int
    vip_tokens: int
    good_ol_cards: int
    reputation_max: int
    reputation_start: dict[str, int]  # region value or "UK" -> starting level
    reputation_cost: dict[str, int]  # use -> levels (UK uses: passenger tokens)
    created_vip_regions: frozenset[Region]
    closed_in_stage_one: frozenset[Region]
    face_up_rule: dict[Region, str]
    contract_draw: dict[int, dict[Region, int]]
    war_threshold: dict[int, int]
    demand_row: tuple[int, ...]
    track: tuple[TrackSpace, ...]
    ticket: dict[Region, int]
    vip_ticket: dict[Region, int]
    ships: dict[str, ShipCard]
    good_ol: ShipCard
    contracts: dict[str, ContractCard]

    def face_up_count(self, region: Region, drawn: int) -> int:
        rule = self.face_up_rule[region]
        return {"all": drawn, "ceil_half": (drawn + 1) // 2, "floor_half": drawn // 2, "none": 0}[rule]

    def stage_deck(self, stage: int, region: Region) -> tuple[str, ...]:
        name = STAGE_NAMES[stage]
        return tuple(sorted(c.id for c in self.contracts.values() if c.stage == name and c.region == region))

    def space_of(self, wealth: int) -> int:
        for t in self.track:
            if t.max_wealth is None or wealth <= t.max_wealth:
                return t.space
        return self.track[-1].space

    def share_value(self, stage: int, space: int) -> int:
        return self.track[space - 1].share_value[stage]

    def ship(self, card: str) -> ShipCard:
        return self.good_ol if card == self.good_ol.id else self.ships[card]


# The plain numbers among the components, each the constant of its name in the data file (a few
# spelt out in full there: _CONSTANT_KEY).
_NUMBERS = (
    "rounds",
    "starting_pence",
    "ship_cards_extra",
    "demand_initial_base",
    "demand_removed_per_player",
    "guaranteed_price",
    "bonus_first",
    "bonus_other",
    "oversized_discount",
    "shares_per_company",
    "exchange_rate",
    "coin_tokens",
    "passenger_tokens",
    "vip_tokens",
    "good_ol_cards",
    "reputation_max",
)
_CONSTANT_KEY = {
    "ship_cards_extra": "ship_cards_per_player_extra",
    "bonus_first": "bonus_first_position",
    "bonus_other": "bonus_other_position",
    "coin_tokens": "coin_tokens_per_currency",
    "good_ol_cards": "good_ol_ship_cards",
}


def _value(d: dict, key: str):  # type: ignore[no-untyped-def]
    return d["constants"][_CONSTANT_KEY.get(key, key)]["value"]


@cache
def load(path: str | None = None) -> Components:
    raw = json.loads(Path(path or Path(__file__).with_name("components.json")).read_text())
    ships = TypeAdapter(list[ShipCard]).validate_python(raw["ship_cards"]["cards"])
    contracts = TypeAdapter(list[ContractCard]).validate_python(raw["contract_cards"]["cards"])
    track = TypeAdapter(tuple[TrackSpace, ...]).validate_python(raw["turn_order_track"]["spaces"])
    comp = Components(
        **{name: _value(raw, name) for name in _NUMBERS},
        forced_sale_price=tuple(_value(raw, "forced_sale_price")),  # type: ignore[arg-type]
        reputation_start=dict(raw["reputation"]["start"]),
        reputation_cost=dict(raw["reputation"]["costs"]),
        created_vip_regions=frozenset(Region(r) for r in raw["reputation"]["created_vip_regions"]),
        closed_in_stage_one=frozenset(Region(r) for r in raw["regions"]["closed_in_stage_I"]),
        face_up_rule={Region(k): v for k, v in raw["regions"]["face_up_rule"].items()},
        contract_draw={
            int(n): {Region(r): c for r, c in per.items()}
            for n, per in raw["contract_draw"]["by_players"].items()
        },
        war_threshold={int(n): t for n, t in raw["war_threshold"]["by_players"].items()},
        demand_row=tuple(raw["demand_row"]["squares"]),
        track=track,
        ticket={Region(k): v for k, v in raw["tickets"]["regular"].items()},
        vip_ticket={Region(k): v for k, v in raw["tickets"]["vip"].items()},
        ships={s.id: s for s in ships},
        good_ol=TypeAdapter(ShipCard).validate_python(raw["good_ol_ship"]["card"]),
        contracts={c.id: c for c in contracts},
    )
    _check(comp)
    return comp


def _check(c: Components) -> None:
    """Stated component counts (rulebook 'Components'): a data file must respect them."""
    if len(c.ships) != 24:
        raise ValueError("Cotton Trade has 24 ship cards")
    if len(c.contracts) != 103:
        raise ValueError("Cotton Trade has 103 contract cards")
    if sorted({s.capacity for s in c.ships.values()}) != [1, 2, 3, 4]:
        raise ValueError("ship capacities are 1 to 4")
    if any(r != sorted(r, reverse=True) for r in [list(c.demand_row)]):
        raise ValueError("the demand row's values never rise from left to right")
    if min(c.demand_row) < c.guaranteed_price:
        raise ValueError("no demand square is worth less than the guaranteed price")
