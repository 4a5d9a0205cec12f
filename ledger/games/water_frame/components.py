"""Water Frame's component data, loaded once from components.json.

Every printed number lives in the JSON file with its provenance (STATED,
DERIVED, or UNKNOWN with an assumed default, spec §7); this module only
validates it into frozen tables and answers questions about them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args

GOODS = ("FOOD", "CLOTHES", "CUTLERY", "LAMPS")
FOOD, CLOTHES, CUTLERY, LAMPS = range(4)
OWN_ACTIONS = ("FACTORY", "WORKERS", "MACHINERY", "QUALITY", "DISTRIBUTION", "STOCK_EXCHANGE")


Tile = Literal[
    "ACCOUNTANT",
    "ADMINISTRATOR",
    "AGENT_IN_THE_COLONIES",
    "BROKER",
    "CHARISMA",
    "DEVELOPER",
    "ENGINEER",
    "ENGINEERING_WORKS",
    "EXTRA_SHIFTS",
    "FOREMAN",
    "INVENTOR",
    "OFFICE",
    "PATENT",
    "PATRON_FOOD",
    "PATRON_CLOTHES",
    "PATRON_CUTLERY",
    "PATRON_LAMPS",
    "SCHOOL",
    "SMALL_WAREHOUSE",
    "WORKSHOP",
]
TILE_TYPES: tuple[str, ...] = get_args(Tile)
PATRONS = ("PATRON_FOOD", "PATRON_CLOTHES", "PATRON_CUTLERY", "PATRON_LAMPS")
GREY_ACTIONS = ("MACHINERY", "QUALITY", "DISTRIBUTION", "PRODUCTION")


@dataclass(frozen=True)
class Ship:
    id: str
    capacity: int
    crew: int
    row: int


@dataclass(frozen=True)
class Components:
    share_values: tuple[int, ...]  # index space-1
    share_start: int
    share_min: int
    share_max: int
    buy_minimum: int
    buy_minimum_up_to: int
    factory_cost: tuple[tuple[int, ...], ...]  # [good][level-1]
    row_slots: tuple[tuple[tuple[int, int], ...], ...]  # [good][row] -> (worker_only, flexible)
    row_output: tuple[tuple[int, ...], ...]  # [level-1][row]
    admin_spaces: tuple[int, ...]
    reuse_fee: int
    machinery_thresholds: dict[str, tuple[int, ...]]
    quality_thresholds: dict[str, tuple[int, ...]]
    distribution_max: dict[str, int]
    production_rows: dict[str, int]
    jm_rows: int
    jm_numbered: tuple[bool, ...]
    jm_wage_of_row: tuple[int, ...]
    setup_workers: dict[int, tuple[int, int]]  # players -> (fired, box)
    workers_total: int
    economy_markers: tuple[tuple[int, int], ...]
    economy_three_workers: int
    importer_max: int
    level_of_decade: dict[int, int]
    obsolete_level_on_entering: dict[int, int]
    decades: tuple[int, ...]
    column_capacity: int
    warehouse_rows: int
    contract_track: tuple[int, ...]
    contract_track_2p: tuple[int, ...]
    fixed_goods_prices: tuple[int, ...]
    shares_per_company: int
    start_shares: int
    start_share_price: int
    max_start_sale: int
    loan: int
    loan_repay: int
    machine_cost: int
    price_min: int
    price_max: int
    quality_max: int
    distribution_levels: int
    event_end: str
    event_bureaucracy: str
    event_pool: tuple[str, ...]
    events_removed_2p: tuple[str, ...]
    events_predetermined: dict[int, str]
    predetermined: dict[
        int, tuple[tuple[tuple[tuple[int, int], ...], int], ...]
    ]  # players -> ((good, price)..., shares)
    events_pool_2014: tuple[str, ...]
    ships: tuple[Ship, ...]
    two_player_ship_capacity: int
    piers: int
    mat_copies: int
    mat_sets_removed: dict[int, int]
    mat_predetermined: dict[int, tuple[tuple[str, ...], ...]]  # players -> rows -> markers "LIGHT:MACHINERY"
    tile_copies: dict[str, dict[str, int]]  # edition -> type -> copies
    tiles_random: dict[int, int]
    tiles_random_patrons: dict[int, int]
    tiles_predetermined: dict[int, tuple[str, ...]]  # cumulative display by player count
    tiles_max: int
    small_warehouse: int
    inventor_fee: int
    office_bonus: int
    developer_discount: int
    quality_max_engineer: int

    # -- questions ----------------------------------------------------------

    @property
    def jm_cells(self) -> int:
        return self.jm_rows * len(GOODS)

    def share_value(self, space: int) -> int:
        return self.share_values[space - 1]

    def buy_price(self, space: int) -> int:
        value = self.share_value(space)
        return max(self.buy_minimum, value) if space <= self.buy_minimum_up_to else value

    def base_quality(self, good: int, level: int) -> int:
        return self.factory_cost[good][level - 1]

    def slots(self, good: int, row: int) -> int:
        only, flex = self.row_slots[good][row]
        return only + flex

    def wage_for(self, jm_empty: int) -> int:
        """[R16 III.3] the wage printed next to the row of the lowest empty space (A-30: top row if none)."""
        if jm_empty == 0:
            return self.jm_wage_of_row[0]
        return self.jm_wage_of_row[(jm_empty - 1) // len(GOODS)]

    def demand_for(self, jm_empty: int, good: int) -> int:
        """[R16 III.1] each numbered empty space in the active good's column."""
        return sum(1 for i in range(good, jm_empty, len(GOODS)) if self.jm_numbered[i])

    def ship(self, ship_id: str) -> Ship:
        return next(x for x in self.ships if x.id == ship_id)

    def economy_marker(self, marker_id: str) -> tuple[int, int]:
        digits = marker_id.split("-")[1]
        return int(digits[0]), int(digits[1])


_SHORT = {"M": "MACHINERY", "Q": "QUALITY", "D": "DISTRIBUTION", "P": "PRODUCTION"}


def _mat_id(short: str) -> str:
    """'LM' -> 'LIGHT:MACHINERY', 'DP' -> 'DARK:PRODUCTION'."""
    return f"{'LIGHT' if short[0] == 'L' else 'DARK'}:{_SHORT[short[1]]}"


def _cumulative_display(raw: dict[str, Any]) -> dict[int, tuple[str, ...]]:
    two = tuple(raw["2"])
    three = two + tuple(raw["3"])
    return {2: two, 3: three, 4: three + tuple(raw["4"])}


def _v(node: Any) -> Any:
    return node["value"] if isinstance(node, dict) and "value" in node else node


@cache
def load(path: str | None = None) -> Components:
    raw = json.loads(Path(path or Path(__file__).with_name("components.json")).read_text())
    st = raw["share_track"]
    mt = raw["marker_thresholds"]
    fin = raw["finance"]
    hb = raw["harbour"]
    ev = raw["events"]
    jm = raw["job_market"]
    comp = Components(
        share_values=tuple(st["values"]),
        share_start=st["start_space"],
        share_min=st["min_space"],
        share_max=st["max_space"],
        buy_minimum=st["buy_minimum"]["value"],
        buy_minimum_up_to=st["buy_minimum"]["up_to_space"],
        factory_cost=tuple(tuple(_v(x) for x in raw["factory_cost"][g]) for g in GOODS),
        row_slots=tuple(tuple((a, b) for a, b in raw["row_slots"][g]) for g in GOODS),
        row_output=tuple(tuple(level) for level in raw["row_output"]["levels"]),
        admin_spaces=tuple(_v(raw["admin"]["spaces"])),
        reuse_fee=_v(raw["admin"]["reuse_fee"]),
        machinery_thresholds={k: tuple(_v(v)) for k, v in mt["MACHINERY"].items()},
        quality_thresholds={k: tuple(_v(v)) for k, v in mt["QUALITY"].items()},
        distribution_max={k: _v(v) for k, v in mt["DISTRIBUTION_MAX"].items()},
        production_rows={k: _v(v) for k, v in mt["PRODUCTION_ROWS"].items()},
        jm_rows=jm["rows"],
        jm_numbered=tuple(jm["numbered"]),
        jm_wage_of_row=tuple(jm["wage_of_row"]),
        setup_workers={int(n): (v["fired"], v["box"]) for n, v in raw["setup_workers"]["by_players"].items()},
        workers_total=_v(raw["workers_total"]),
        economy_markers=tuple((a, w) for a, w in raw["economy_markers"]["per_good"]),
        economy_three_workers=raw["economy_markers"]["three_workers_value"],
        importer_max=_v(raw["importer"]["max"]),
        level_of_decade={int(k): v for k, v in raw["level_of_decade"]["by_decade"].items()},
        obsolete_level_on_entering={
            int(k): v for k, v in raw["obsolete_level_on_entering"]["by_decade"].items()
        },
        decades=tuple(_v(raw["decades"])),
        column_capacity=_v(hb["large_columns_capacity"]),
        warehouse_rows=_v(hb["rows"]),
        contract_track=tuple(_v(hb["contract_track"])),
        contract_track_2p=tuple(_v(hb["contract_track_2p"])),
        fixed_goods_prices=tuple(_v(hb["fixed_goods_prices"])),
        shares_per_company=_v(fin["shares_per_company"]),
        start_shares=_v(fin["start_shares"]),
        start_share_price=_v(fin["start_share_price"]),
        max_start_sale=_v(fin["max_start_sale"]),
        loan=_v(fin["loan"]),
        loan_repay=_v(fin["loan_repay"]),
        machine_cost=_v(fin["machine_cost"]),
        price_min=_v(raw["prices"]["min"]),
        price_max=_v(raw["prices"]["max"]),
        quality_max=_v(raw["markers"]["quality_max"]),
        distribution_levels=_v(raw["markers"]["distribution_max"]),
        event_end=ev["end"],
        event_bureaucracy=ev["bureaucracy"],
        event_pool=tuple(ev["pool_2016"]),
        events_removed_2p=tuple(ev["removed_2p"]),
        events_predetermined={int(k): v for k, v in ev["predetermined"].items()},
        events_pool_2014=tuple(ev["pool_2014"]),
        ships=tuple(Ship(**x) for x in raw["ships"]["list"]),
        two_player_ship_capacity=raw["ships"]["two_player_capacity"],
        piers=raw["ships"]["piers"],
        mat_copies=raw["special_mat"]["copies_per_shade"],
        mat_sets_removed={int(k): v for k, v in raw["special_mat"]["sets_removed"].items()},
        mat_predetermined={
            int(n): tuple(tuple(_mat_id(x) for x in row) for row in rows)
            for n, rows in raw["special_mat"]["predetermined"].items()
        },
        tile_copies={"2016": dict(raw["tiles"]["copies_2016"]), "2014": dict(raw["tiles"]["copies_2014"])},
        tiles_random={int(k): v for k, v in raw["tiles"]["random_display"].items()},
        tiles_random_patrons={int(k): v for k, v in raw["tiles"]["random_display_patron_variant"].items()},
        tiles_predetermined=_cumulative_display(raw["tiles"]["predetermined_display"]),
        tiles_max=raw["tiles"]["max_per_player"],
        small_warehouse=_v(hb["small_warehouse"]),
        inventor_fee=_v(fin["inventor_fee"]),
        office_bonus=_v(fin["office_bonus"]),
        developer_discount=_v(fin["developer_discount"]),
        quality_max_engineer=_v(raw["markers"]["quality_max_engineer"]),
        predetermined={
            int(n): tuple(
                (tuple((GOODS.index(g), price) for g, price in seat["factories"]), seat["shares"])
                for seat in seats
            )
            for n, seats in raw["predetermined_setup"]["by_players"].items()
        },
    )
    _check(comp)
    return comp


def _check(c: Components) -> None:
    if len(c.jm_numbered) != c.jm_cells or len(c.jm_wage_of_row) != c.jm_rows:
        raise ValueError("job market: one numbered flag per cell and one wage per row")
    if c.jm_cells > c.workers_total:
        raise ValueError("the job market holds at most all workers")
    if len(c.share_values) != c.share_max - c.share_min + 1:
        raise ValueError("one share value per space")
    if any(b < a for a, b in zip(c.share_values, c.share_values[1:], strict=False)):
        raise ValueError("share values never fall along the track")
    for good in range(len(GOODS)):
        if any(c.factory_cost[good][i] >= c.factory_cost[good][i + 1] for i in range(3)):
            raise ValueError("higher levels cost more")
