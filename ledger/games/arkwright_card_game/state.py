"""Arkwright: The Card Game's frozen state (spec §2): tuples, ints, and nothing derived stored.

Goods are indices into ``GOODS`` (0 = FOOD ... 3 = LAMPS), development tracks indices into
``TRACKS``; a card or storehouse lying in the reserve has location ``RESERVE`` (-1).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ledger.engine import DrawRequest
from ledger.games.arkwright_card_game.components import RESERVE
from ledger.games.arkwright_card_game.meta import CardGameOptions


class Phase(StrEnum):
    SETUP = "setup"  # the draws, then the starting factories
    DRAFT_FIRST = "draft_first"  # expert: first factory, clockwise (ACG-D-03)
    DRAFT_SECOND = "draft_second"  # expert: second factory, counter-clockwise
    START_FOREMAN = "start_foreman"  # base: the starting Foreman is placed (ACG-D-02)
    START_DEVELOPMENT = "start_development"  # expert: a development each (ACG-D-04)
    START_SHARES = "start_shares"  # expert: starting shares (ACG-D-05)
    ROUND_START = "round_start"
    ACTION = "action"  # turns: step a, b, c
    PRODUCTION = "production"  # each producer's sale, storage and shipping (ACG-D-10)
    SHARE_VALUE = "share_value"  # share value increase (ACG-D-11), distribution decay
    END_OF_ROUND = "end_of_round"
    ENTREPRENEUR = "entrepreneur"  # ACG-D-12
    CHOOSE_START = "choose_start"  # ACG-D-13
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Worker:
    """A worker card at a factory: its position (1, 2), its decade side, machines on it."""

    position: int
    side: int
    machines: int = 0


@dataclass(frozen=True, slots=True)
class Factory:
    side: int  # decade side: 1 or 2
    spot: int  # factory token spot 1..4
    office_appeal: bool = False  # the office card shows its appeal side
    workers: tuple[Worker, ...] = ()


@dataclass(frozen=True, slots=True)
class Card:
    """A quality card (Q1-Q3, ENGINEER) or distribution card (D1, D2, PATENT) and where it lies."""

    id: str
    good: int = RESERVE
    value: int = 0
    appeal: bool = True  # quality: rotated to appeal (else price); distribution always adds appeal


@dataclass(frozen=True, slots=True)
class Storehouse:
    id: str  # S1, S2 (small), BIG
    good: int = RESERVE  # the factory it lies beside (and so the kind of goods it holds)
    goods: int = 0


@dataclass(frozen=True, slots=True)
class Held:
    """A development card a player holds: the instance (card id and face) and its state."""

    card: str  # "D05/A"
    good: int = RESERVE  # the Foreman's factory
    rotated: bool = False


@dataclass(frozen=True)  # wide: no slots, so replace() copies its dict in one go
class Player:
    seat: int
    money: int
    share_value: int
    shares: int
    ships: int  # available ships: 2, 1, or 0 (the shipping card in reserve)
    quality: tuple[Card, ...]
    distribution: tuple[Card, ...]
    storehouses: tuple[Storehouse, ...]
    levels: tuple[int, ...] = (0, 0, 0, 0, 0, 0)  # per development track: marker steps taken
    factories: tuple[Factory | None, ...] = (None, None, None, None)  # per good: open factory
    appeal: tuple[int | None, ...] = (None, None, None, None)  # per good: appeal marker
    loans: int = 0
    shipping_tokens: int = 0
    ships_used: int = 0  # ships used in the whole game
    cards: tuple[Held, ...] = ()
    engineer_token: bool = False  # flipped to "max. 6" for the rest of the game
    eliminated: bool = False


@dataclass(frozen=True)  # wide: no slots, so replace() copies its dict in one go
class Turn:
    """One player's turn in the action phase; gone when the turn ends."""

    seat: int
    step: str = "a"  # a (choose an action) | action | b | c | engineer (replacement, ACG-D-14)
    action: str = ""
    steps: int = 0  # small steps done in the action
    market_moved: bool = False  # demand and wages moved by this action
    machines: int = 0  # machines added by this action
    upgraded: tuple[int, ...] = ()
    start_totals: tuple[int, ...] = ()  # action 4: quality or distribution per factory when it began
    exchange: int = 0  # stock exchange: 1 shares bought, 2 loans taken, 3 ships regained
    produced: tuple[int, ...] = ()  # extra production: factories run by this action
    loose_good: int = RESERVE  # extra production: goods not yet stored
    loose: int = 0
    discarded: tuple[str, ...] = ()  # card types discarded this turn (not regained this turn)
    engineer_good: int = RESERVE
    engineer_budget: int = 0


@dataclass(frozen=True, slots=True)
class Production:
    """The production phase of the active good (spec §5.8)."""

    good: int
    order: tuple[int, ...]  # producers, clockwise from the start player
    cursor: int = 0
    stage: str = "sale"  # sale | leftovers
    produced: tuple[int, ...] = ()  # per seat
    extra_shift: tuple[bool, ...] = ()
    patron: tuple[bool, ...] = ()
    sold: tuple[int, ...] = ()  # home-market sales per seat (stored goods included)
    leftover: tuple[int, ...] = ()  # produced goods neither sold nor yet stored or shipped
    shipped: tuple[int, ...] = ()  # goods shipped per seat


@dataclass(frozen=True)  # wide: no slots, so replace() copies its dict in one go
class State:
    players_count: int
    options: CardGameOptions
    phase: Phase
    decade: int  # 1..3
    round: int  # 1..4: the active good is GOODS[round - 1]
    start_player: int
    wage: int  # wages marker position
    demand: tuple[int, ...]  # demand marker per good (on the appeal scale)
    players: tuple[Player, ...]
    neutral: tuple[int, ...] = ()  # 2 players: the neutral appeal markers
    supply: tuple[str, ...] = ()  # development cards on the table
    box: tuple[str, ...] = ()  # cards returned to the box after being seen (surplus, rejected)
    unseen: tuple[str, ...] = ()  # cards never drawn: the box's face-down part (secret)
    bank: int = 0  # money paid to the bank minus money paid by it
    cursor: int = 0  # position in the current order
    turn: Turn | None = None
    production: Production | None = None
    new_start: int | None = None  # chosen with the Entrepreneur at the end of the round
    awaiting: tuple[int, ...] = ()
    draws: tuple[DrawRequest, ...] = ()
    scores: tuple[int, ...] = ()

    @property
    def good(self) -> int:
        """The active good."""
        return self.round - 1
