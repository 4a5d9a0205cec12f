"""Water Frame's frozen state (spec §2): tuples, ints, and nothing derived stored."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ledger.engine import DrawRequest
from ledger.games.water_frame.meta import WaterFrameOptions


class Phase(StrEnum):
    SETUP = "setup"
    FIRST_START_PLAYER = "first_start_player"  # start_player="chosen": seat 0 names the start player
    FOUNDATION_1 = "first_foundation"  # 1760, turn order
    FOUNDATION_2 = "second_foundation"  # 1760, reverse order
    START_SHARES = "start_shares"  # 1760, reverse order
    START_SPECIAL = "start_special"  # 1760, right after the same player's share sale (D-04)
    PREDETERMINED_TILE = "predetermined_tile"  # predetermined set-up: a tile from the box, reverse order
    PAY_FACTORIES = "pay_factories"
    ECONOMY = "economy"
    ACTION = "action"
    SCHOOL = "school"  # D-30, before the sale
    SALE = "sale"  # production phase: the sale to the English market (pauses for D-31; D-30 during_sale)
    SCHOOL_AFTER_SALE = "school_after_sale"  # D-30 during_sale: the row none of whose goods were sold
    PATRON = "patron"  # D-32
    AFTER_SALE = "after_sale"  # revenue, share value increase, wages, decay
    SHIPPING = "shipping"  # D-33, then escalation
    STORAGE = "storage"
    END_OF_CYCLE = "end_of_cycle"
    CHARISMA = "charisma"  # D-20 / D-43
    RETURN_MARKERS = "return_markers"
    HARBOUR_WAGES = "harbour_wages"
    RELEASE = "release"  # D-40, turn order
    EVENT = "event"
    BROKER = "broker"  # D-41
    START_PLAYER = "start_player"  # D-44
    OBSOLESCENCE = "obsolescence"
    FINAL_STOCK_EXCHANGE = "final_stock_exchange"  # D-42, turn order
    SCORING = "scoring"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Row:
    workers: int = 0
    machines: int = 0


@dataclass(frozen=True, slots=True)
class Factory:
    level: int
    price: int
    rows: tuple[Row, Row, Row, Row]
    quality: int = 0  # quality marker, 0..4
    distribution: int = 0  # 0..4
    obsolete_workers: int = 0  # beside the factory marker (obsolescence)
    obsolete: bool = False
    marker_worker: bool = False  # 1810: a row-1 worker stands on the factory marker


@dataclass(frozen=True)  # wide: no slots, so replace() copies its dict in one go
class Player:
    seat: int
    cash: int
    shares: int  # own shares held
    bank_shares: int  # shares of this company held by the bank
    loans: int
    share_space: int
    factories: tuple[Factory | None, Factory | None, Factory | None, Factory | None]
    admin: tuple[str | None, ...]  # one entry per administration space (£2..£10): the marker on it
    wh_cols: tuple[bool, bool, bool, bool] = (False, False, False, False)
    wh_rows: tuple[bool, ...] = (False, False, False, False, False)
    stock: tuple[int, int, int, int] = (0, 0, 0, 0)  # large warehouse, per good
    small_stock: tuple[int, int, int, int] = (0, 0, 0, 0)  # small warehouse tile, on the price scales
    start_goods: tuple[int, ...] = ()  # 1760: the goods founded
    grey: tuple[str, ...] = ()  # advanced action markers owned: "LIGHT:MACHINERY", "DARK:PRODUCTION" ...
    tiles: tuple[str, ...] = ()  # development tiles owned (at most 4, no two alike)
    assigned: tuple[tuple[str, int], ...] = ()  # (FOREMAN or WORKSHOP, good of the factory it serves)
    ships: tuple[str, ...] = ()  # at most two, one per pier
    contracts: tuple[int, int, int, int] = (0, 0, 0, 0)  # contract space per good (0: none)


@dataclass(frozen=True)  # wide: no slots, so replace() copies its dict in one go
class Turn:
    """One player's turn in the action phase (spec TurnScratch); gone when the turn ends."""

    seat: int
    marker: str  # "OWN:FACTORY", "LIGHT:MACHINERY", "SHIP:SHIP-4A" ...
    action: str
    shade: str  # OWN, LIGHT, DARK (SHIP for a ship)
    space: int  # index into the administration spaces
    paid: int  # base administrative cost paid (the reuse fee excluded)
    budget: int
    stage: str = "main"  # main | additional
    spent: int = 0  # budget used by raises / machines (threshold reached)
    steps: int = 0  # quality steps or machines bought
    main_costs: int = 0
    built: tuple[int, ...] = ()
    closed: tuple[tuple[int, int], ...] = ()
    affected: tuple[int, ...] = ()  # factories whose price the additional action may adjust
    adjusted: tuple[int, ...] = ()
    hired_rows: tuple[tuple[int, int], ...] = ()
    fired_rows: tuple[tuple[int, int], ...] = ()
    developer_on: tuple[int, ...] = ()  # factories the developer discounted (returned at the action's end)
    free_raises: int = 0  # patent returned: free +1 distribution raises left
    capacity: int = 0  # ship action: capacity of the ship used
    shipped: int = 0  # ship action: goods delivered so far
    took_special: bool = False
    agent_used: bool = False
    # production action with a storage conflict (D-34, [R16 §II.2.8]): (good, rows used, goods made)
    # awaiting the player's StoreGoods; None otherwise
    storing: tuple[int, int, int] | None = None


@dataclass(frozen=True)  # wide: no slots, so replace() copies its dict in one go
class Sale:
    """One production phase's sale to the English market (spec §5.5.1)."""

    good: int
    tokens: int
    level: int
    group: int = 0  # index of the tie group being called at this level
    member: int = 0  # next member of that group to ask
    takers: tuple[int, ...] = ()  # members of the current group who take a token (-1: the importer)
    produced: tuple[int, ...] = ()
    sold_prod: tuple[int, ...] = ()
    sold_stock: tuple[int, ...] = ()
    stopped: tuple[bool, ...] = ()
    importer_sold: int = 0
    closed_row: tuple[int, ...] = ()  # school: the row closed per seat (-1: none), its goods not produced
    extra: tuple[int, ...] = ()  # extra-shifts goods added per seat
    extra_window: tuple[bool, ...] = ()  # the first call after own production is sold has happened
    stock_source: tuple[str, ...] = ()  # per seat, the warehouse of a pending voluntary sale
    patron: tuple[int, ...] = ()  # patron goods sold per seat (counted as sold)
    patron_from_surplus: tuple[int, ...] = ()
    shipped_from_surplus: tuple[int, ...] = ()


@dataclass(frozen=True)  # wide: no slots, so replace() copies its dict in one go
class State:
    players_count: int
    options: WaterFrameOptions
    decade: int  # 1760 .. 1810
    cycle: int  # 0..3 while a cycle runs (the active good), -1 otherwise
    phase: Phase
    start_player: int
    jm_empty: int
    fired: int
    boxed: int
    importers: tuple[int, int, int, int]
    economy: tuple[str, ...]  # 5 decades x 4 goods, face down until their cycle (index (decade_i * 4 + good))
    events: tuple[str, ...]  # 1770..1810, face down until their event phase
    players: tuple[Player, ...]
    bank: int = 0  # money paid to the bank minus money paid by it
    mat: tuple[tuple[str, ...], ...] = ((), (), (), ())  # advanced markers lying on rows I-IV
    mat_ships: tuple[tuple[str, ...], ...] = ((), (), (), ())  # ships lying on rows I-IV
    display: tuple[str, ...] = ()  # development tiles on display (public)
    box_markers: tuple[str, ...] = ()  # advanced markers left in the box unseen
    economy_revealed: int = 0  # economy markers revealed so far (in timetable order)
    events_revealed: int = 0
    bureaucracy: bool = False
    goods_done: tuple[int, ...] = ()  # goods whose production phase happened this decade
    cursor: int = 0  # position in the current order (turns, sequential decisions)
    turn: Turn | None = None
    sale: Sale | None = None
    awaiting: tuple[int, ...] = ()
    draws: tuple[DrawRequest, ...] = ()
    eliminated: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()

    @property
    def decade_index(self) -> int:
        return (self.decade - 1770) // 10
