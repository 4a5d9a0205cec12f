"""Cotton Trade's frozen state (spec §2). Tuples everywhere, ints for money and counts."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ledger.engine import DrawRequest
from ledger.games.cotton_trade.components import Region
from ledger.games.cotton_trade.meta import CottonTradeOptions

UK = "UK"


class Phase(StrEnum):
    SETUP = "setup"
    TURN_ORDER = "turn_order"  # 1. Determine players turn order
    DRAW = "draw"  # 2. Draw cards
    RENT = "rent"  # 3. Rent ships
    REVEAL = "reveal"  # 4. Reveal contracts
    SAIL = "sail"  # 5. Sail ships
    BUY = "buy"  # 6. Buy cotton
    SELL = "sell"  # 7. Sell cotton
    MAINTENANCE = "maintenance"  # 8. Pay maintenance cost
    CLEAR_UP = "clear_up"  # 9. Clear up the board
    RESCALE = "rescale"  # End of the stage, steps 1-4
    KEEP_NEW = "keep_new"  # End of the stage, step 7 (the choice)
    RESCALE_SHIPS = "rescale_ships"  # steps 5-8
    RESCALE_MONEY = "rescale_money"  # steps 9-12
    END = "end"  # End of the game
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Ship:
    card: str
    capacity: int
    location: str  # UK or a Region value
    cargo: int = 0
    stayed: bool = False


@dataclass(frozen=True, slots=True)
class Player:
    seat: int
    coins: tuple[int, int, int]  # pence, shillings, pounds
    ships: tuple[Ship, ...]  # at most one per capacity, ordered by capacity
    shares: tuple[tuple[int, int], ...]  # (company seat, share number), sorted


@dataclass(frozen=True, slots=True)
class Slot:
    card: str
    face_up: bool


@dataclass(frozen=True, slots=True)
class Harbour:
    coins: int = 0
    passengers: int = 0
    vip: int = 0


@dataclass(frozen=True, slots=True)
class War:
    region: Region
    side: str  # "WAR" during the round it broke, then "PEACE"


@dataclass(frozen=True, slots=True)
class State:
    players_count: int
    options: CottonTradeOptions
    round: int
    phase: Phase
    turn_order: tuple[int, ...]
    track_space: tuple[int, ...]
    demand: int
    ship_deck: tuple[str, ...]
    ship_discard: tuple[str, ...]
    ship_row: tuple[str, ...]
    contract_deck: tuple[tuple[str, ...], ...]  # per region, REGIONS order
    contract_discard: tuple[tuple[str, ...], ...]
    contract_row: tuple[tuple[Slot, ...], ...]
    harbours: tuple[Harbour, ...]
    war: War | None
    tracks: tuple[tuple[tuple[int, int], ...], ...]  # per region: (seat, capacity), position 1 first
    supply_coins: int
    supply_passengers: int
    supply_vip: int
    supply_good_ol: int
    bank_shares: tuple[tuple[int, int], ...]
    players: tuple[Player, ...]
    rent_passed: tuple[int, ...] = ()
    cursor: int = 0  # turn-order index (rent, sail, keep_new) or ship position (buy, sell)
    cursor_region: int = 0  # region index (buy, sell)
    awaiting: tuple[int, ...] = ()
    draws: tuple[DrawRequest, ...] = ()
    kept: tuple[tuple[int, str], ...] = ()  # NEW-icon ships kept at the end of a stage (seat, card)

    @property
    def stage(self) -> int:
        """0, 1, 2 for stages I, II, III."""
        return min((self.round - 1) // 3, 2)
