"""Arkwright: The Card Game's component data, loaded once from components.json.

Every printed number lives in the JSON file with its provenance (S stated, D derived,
U unknown with an assumed default and its ACG-U id; spec §6); this module only
validates it into frozen tables and answers questions about them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

TRACKS = ("QUALITY", "DISTRIBUTION", "DEV_CARDS", "MACHINERY", "SHIP", "STOCK_EXCHANGE")
QUALITY, DISTRIBUTION, DEV_CARDS, MACHINERY, SHIP, STOCK_EXCHANGE = range(6)
RESERVE = -1  # location of a card or storehouse that lies in the player's reserve

_PROVENANCE = {"S", "D", "U"}
_UNKNOWN_ID = re.compile(r"^ACG-U-\d\d(/\d\d)*$")


@dataclass(frozen=True)
class Side:
    """One decade side of a factory card (spec §6.2)."""

    spots: tuple[tuple[int, int], ...]  # (price, appeal) for token spots 1..4
    goods: int
    fixed_cost: int
    ship_price: int


@dataclass(frozen=True)
class WorkerCard:
    """A worker card of one position (spec §6.3): workers, and goods per printed decade side."""

    workers: int
    sides: dict[int, int]  # decade side -> goods icons

    def side_for(self, decade: int) -> int:
        """The printed side for a decade: the decade itself, or the previous one printed ([S] Employ)."""
        return max(d for d in self.sides if d <= decade)


@dataclass(frozen=True)
class CardType:
    name: str
    number: int
    rotates: bool  # carries the rotate icon: usable once per decade
    lifts: int | None  # expert: the development track whose decade restriction it lifts
    to: str  # front | factory | reserve
    goods: tuple[int, ...] = ()  # a patron's goods


@dataclass(frozen=True)
class DevCard:
    id: str
    faces: tuple[str, str]
    players: int | None  # icon of the basic face; None: expert only


@dataclass(frozen=True)
class Components:
    goods: tuple[str, ...]
    decades: tuple[int, ...]
    rounds: int
    min_players: int
    max_players: int
    start_money: int
    start_share_value: int
    start_shares: int
    start_ships: int
    starting_share_price: int
    start_spot: int
    start_appeal: int
    start_factories_count: int
    factories_per_player: int
    factory_tokens: int
    appeal_markers: int
    shipping_tokens: int
    loan_tokens: int
    worker_cards_per_position: int
    office_cards: int
    quality_cards: int
    distribution_cards: int
    small_storehouses: int
    machine_tokens: int
    ships_max: int
    workers_per_factory: int  # worker cards
    distribution_cap: int
    quality_cap: int
    quality_cap_engineer: int
    small_capacity: int
    big_capacity: int
    loans_max: int
    ships_in_game: int
    maintenance: int
    factories: tuple[tuple[Side, ...], ...]  # [good][side-1]
    worker_cards: dict[int, WorkerCard]  # position -> card
    office: tuple[tuple[int, int], ...]  # [good] -> (price side, appeal side)
    quality_ranges: dict[str, tuple[tuple[int, int], ...]]
    engineer_range: tuple[int, int]
    distribution_range: tuple[int, int]
    patent_range: tuple[int, int]
    levels_max: int
    track_values: tuple[tuple[int, ...], ...]  # [track][level]
    track_min_decade: tuple[tuple[int, ...], ...]  # [track][level]: decade index 1..3
    wage_start: int
    wage_values: tuple[int, ...]
    appeal_min: int
    appeal_max: int
    demand_min: int
    demand_max: int
    demand_start: dict[int, tuple[int, ...]]
    arrows_up: dict[int, tuple[frozenset[int], ...]]
    arrows_down: dict[int, tuple[frozenset[int], ...]]
    neutral_start: tuple[int, ...]
    neutral_step: int
    share_min: int
    share_max: int
    shares_max: int | None
    gain_min_sold: int
    gain: int
    gain_top: int
    half_divisor: int
    discount_shares: tuple[int, ...]
    ship_penalty: int
    store_price: int
    contract_bonus: int
    foreman_discount: int
    foreman_workers: int
    developer_discount: int
    workshop_machines: int
    broker_shares: int
    inventor_factories: int
    inventor_developments: int
    patron_extra: int
    extra_shift_goods: int
    customs_tokens: int
    card_types: dict[str, CardType]
    dev_cards: tuple[DevCard, ...]
    faces: dict[str, tuple[str, str]]  # card id -> (face A type, face B type)
    expert_first: tuple[str, ...]
    expert_entrepreneurs: int
    expert_per_player: int
    expert_max_offset: int
    start_factories: dict[int, tuple[tuple[int, ...], ...]]
    start_developments: dict[int, tuple[str, ...]]

    # -- questions ----------------------------------------------------------

    @property
    def decades_count(self) -> int:
        return len(self.decades)

    def side(self, good: int, side: int) -> Side:
        return self.factories[good][side - 1]

    def sides_count(self, good: int) -> int:
        return len(self.factories[good])

    def wage(self, pos: int) -> int:
        return self.wage_values[pos]

    def track_value(self, track: int, level: int) -> int:
        return self.track_values[track][level]

    def card_type(self, instance: str) -> str:
        """The type showing on a card instance ``"D05/B"``."""
        card_id, face = instance.split("/")
        return self.faces[card_id][0 if face == "A" else 1]

    def half(self, value: int) -> int:
        """Half the value, rounded up (emergency fund, stock exchange discount, broker)."""
        return -(-value // self.half_divisor)

    def base_supply(self, players: int) -> tuple[str, ...]:
        """The base game's supply: every card whose basic-face icon is at most the player count."""
        return tuple(f"{c.id}/A" for c in self.dev_cards if c.players is not None and c.players <= players)


def _check_provenance(node: Any, where: str = "") -> None:
    """Every value node names its provenance; every UNKNOWN names its ACG-U id."""
    if isinstance(node, dict):
        if "value" in node:
            prov = node.get("provenance")
            if prov not in _PROVENANCE:
                raise ValueError(f"{where}: provenance must be one of S, D, U")
            if prov == "U" and not _UNKNOWN_ID.match(str(node.get("id", ""))):
                raise ValueError(f"{where}: an UNKNOWN value needs its ACG-U id")
        for key, value in node.items():
            _check_provenance(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _check_provenance(value, f"{where}[{i}]")


def _unwrap(node: Any) -> Any:
    """The bare values: provenance nodes replaced by their values, recursively."""
    if isinstance(node, dict):
        if "value" in node and "provenance" in node:
            return _unwrap(node["value"])
        return {k: _unwrap(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_unwrap(v) for v in node]
    return node


_PER_PLAYER = (
    "factory_tokens",
    "appeal_markers",
    "shipping_tokens",
    "loan_tokens",
    "worker_cards_per_position",
    "office_cards",
    "quality_cards",
    "distribution_cards",
    "small_storehouses",
    "machine_tokens",
    "ships_max",
)
"""The fields read by their own names from the file's ``per_player`` counts."""

_CARD_EFFECTS = (
    "foreman_discount",
    "foreman_workers",
    "developer_discount",
    "workshop_machines",
    "broker_shares",
    "inventor_factories",
    "inventor_developments",
    "patron_extra",
    "extra_shift_goods",
)
"""The fields read by their own names from the file's ``card_effects`` numbers."""


def _range(pair: list[int]) -> tuple[int, int]:
    return (pair[0], pair[1])


@cache
def load(path: str | None = None) -> Components:
    raw = json.loads(Path(path or Path(__file__).with_name("components.json")).read_text())
    _check_provenance(raw)
    v = _unwrap(raw)
    cards = tuple(
        DevCard(id=c["id"], faces=(c["faces"][0], c["faces"][1]), players=c["players"])
        for c in v["development_cards"]
    )
    goods = tuple(v["goods"])
    tracks = v["development_tracks"]
    if tuple(tracks["names"]) != TRACKS:
        raise ValueError("the six development tracks, in board order")
    st, pp, lim, mk, sh, ce = (
        v["start"],
        v["per_player"],
        v["limits"],
        v["market"],
        v["shares"],
        v["card_effects"],
    )
    comp = Components(
        goods=goods,
        decades=tuple(v["decades"]),
        rounds=v["rounds_per_decade"],
        min_players=v["players"]["min"],
        max_players=v["players"]["max"],
        start_money=st["money"],
        start_share_value=st["share_value"],
        start_shares=st["shares"],
        start_ships=st["ships"],
        starting_share_price=st["starting_share_price"],
        start_spot=st["factory_token_spot"],
        start_appeal=st["appeal_marker"],
        start_factories_count=st["factories"],
        factories_per_player=pp["factories"],
        **{name: pp[name] for name in _PER_PLAYER},
        workers_per_factory=lim["worker_cards_per_factory"],
        distribution_cap=lim["distribution_per_factory"],
        quality_cap=lim["quality_per_factory"],
        quality_cap_engineer=lim["quality_per_factory_engineer"],
        small_capacity=lim["small_storehouse_capacity"],
        big_capacity=lim["big_storehouse_capacity"],
        loans_max=lim["loans_max"],
        ships_in_game=lim["ships_in_game"],
        maintenance=v["costs"]["maintenance_per_machine"],
        factories=tuple(
            tuple(
                Side(
                    spots=tuple((p, a) for p, a in side["spots"]),
                    goods=side["goods"],
                    fixed_cost=side["fixed_cost"],
                    ship_price=side["ship_price"],
                )
                for _, side in sorted(v["factories"][g].items())
            )
            for g in goods
        ),
        worker_cards={
            int(pos): WorkerCard(workers=c["workers"], sides={int(k): n for k, n in c["sides"].items()})
            for pos, c in v["worker_cards"].items()
        },
        office=tuple(
            (v["office"]["by_good"][g]["price"], v["office"]["by_good"][g]["appeal"]) for g in goods
        ),
        quality_ranges={k: tuple(_range(r) for r in rs) for k, rs in v["card_values"]["quality"].items()},
        engineer_range=_range(v["card_values"]["engineer"]),
        distribution_range=_range(v["card_values"]["distribution"]),
        patent_range=_range(v["card_values"]["patent"]),
        levels_max=tracks["levels_max"],
        track_values=tuple(tuple(tracks["values"][t]) for t in TRACKS),
        track_min_decade=tuple(tuple(tracks["min_decade"][t]) for t in TRACKS),
        wage_start=v["wages"]["start"],
        wage_values=tuple(v["wages"]["values"]),
        appeal_min=mk["appeal_min"],
        appeal_max=mk["appeal_max"],
        demand_min=mk["demand_min"],
        demand_max=mk["demand_max"],
        demand_start={int(n): tuple(d) for n, d in mk["demand_start"].items()},
        arrows_up={int(n): tuple(frozenset(a[g]) for g in goods) for n, a in mk["arrows_up"].items()},
        arrows_down={int(n): tuple(frozenset(a[g]) for g in goods) for n, a in mk["arrows_down"].items()},
        neutral_start=tuple(mk["neutral_start"]),
        neutral_step=mk["neutral_step"],
        share_min=sh["value_min"],
        share_max=sh["value_max"],
        shares_max=sh["count_max"],
        gain_min_sold=sh["gain_min_sold"],
        gain=sh["gain"],
        gain_top=sh["gain_top_appeal"],
        half_divisor=sh["half_divisor"],
        discount_shares=tuple(sh["discount_shares"]),
        ship_penalty=v["final"]["ship_penalty_per_token"],
        store_price=v["final"]["store_price"],
        contract_bonus=v["contract_bonus_per_good"],
        **{name: ce[name] for name in _CARD_EFFECTS},
        customs_tokens=ce["customs_office_tokens"],
        card_types={
            name: CardType(
                name=name,
                number=t["number"],
                rotates=t["rotates"],
                lifts=TRACKS.index(t["lifts"]) if t["lifts"] else None,
                to=t["to"],
                goods=tuple(goods.index(g) for g in t.get("goods", ())),
            )
            for name, t in v["card_types"].items()
        },
        dev_cards=cards,
        faces={card.id: card.faces for card in cards},
        expert_first=tuple(v["expert_supply"]["first"]),
        expert_entrepreneurs=v["expert_supply"]["entrepreneurs"],
        expert_per_player=v["expert_supply"]["per_player"],
        expert_max_offset=v["expert_supply"]["max_per_type_offset"],
        start_factories={
            int(n): tuple(tuple(goods.index(g) for g in seat) for seat in seats)
            for n, seats in v["starting_factories"].items()
        },
        start_developments={
            int(n): tuple(seats) for n, seats in v["starting_developments"]["by_players"].items()
        },
    )
    _check(comp)
    return comp


def _check(c: Components) -> None:
    n_goods = len(c.goods)
    if len(c.factories) != n_goods or len(c.office) != n_goods:
        raise ValueError("one factory card and one office card per good")
    for good, sides in enumerate(c.factories):
        for side in sides:
            sums = {p + a for p, a in side.spots}
            if len(sums) != 1:
                raise ValueError(f"{c.goods[good]}: moving the factory token keeps the price+appeal sum")
            if side.spots[c.start_spot - 1][1] != c.start_appeal:
                raise ValueError("the starting spot has the starting appeal")
    if sorted(c.worker_cards) != list(range(1, c.workers_per_factory + 1)):
        raise ValueError("one worker card per position")
    if len(c.wage_values) < 1 or any(b < a for a, b in zip(c.wage_values, c.wage_values[1:], strict=False)):
        raise ValueError("wages never fall along the track")
    for values in c.track_values:
        if len(values) != c.levels_max + 1:
            raise ValueError("one value per development level")
    for ranges in c.quality_ranges.values():
        if len(ranges) != c.quality_cards:
            raise ValueError("one value range per quality card")
    for card in c.dev_cards:
        for face in card.faces:
            if face not in c.card_types:
                raise ValueError(f"{card.id}: unknown card type {face}")
    for n in range(c.min_players, c.max_players + 1):
        if len(c.start_factories[n]) != n or len(c.start_developments[n]) != n:
            raise ValueError("starting factories and developments for every seat")
        if any(len(set(f)) != c.start_factories_count for f in c.start_factories[n]):
            raise ValueError("two different starting factories per seat")
        if len(c.demand_start[n]) != n_goods:
            raise ValueError("a demand start for every good")
