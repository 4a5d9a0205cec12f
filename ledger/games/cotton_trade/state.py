"""Cotton Trade's frozen state (spec §2). Tuples everywhere, ints for money and counts."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, ClassVar

from pydantic import PlainSerializer, PlainValidator

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
    BANK_AUCTIONS = "bank_auctions"  # step 13 (shares trade): the bank's shares auctioned
    PAYMENT = "payment"  # shares trade: a shortfall covered by selling shares at auction
    AUCTION = "auction"  # shares trade: players bid in turn order
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
    reputation: tuple[int, int, int, int] = (0, 0, 0, 0)  # per region (reputation module)
    uk_reputation: int = 0  # passenger tokens held (reputation module)
    separate_income: int = 0  # end-game buy-back income kept apart (shares trade)


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
class ShipRental:
    """3. Rent ships: the rental fee of a ship card (a voluntary purchase)."""

    card: str
    reason: ClassVar[str] = "ship_rental"  # the word of the money paid
    mandatory: ClassVar[bool] = False

    def __str__(self) -> str:
        return f"rent:{self.card}"


@dataclass(frozen=True, slots=True)
class ContractPurchase:
    """6. Buy cotton: the price of a contract for the ship whose turn it is (voluntary)."""

    card: str
    reason: ClassVar[str] = "contract"
    mandatory: ClassVar[bool] = False

    def __str__(self) -> str:
        return f"contract:{self.card}"


@dataclass(frozen=True, slots=True)
class Maintenance:
    """8. Pay maintenance cost: every ship's maintenance (mandatory)."""

    reason: ClassVar[str] = "maintenance"
    mandatory: ClassVar[bool] = True

    def __str__(self) -> str:
        return "maintenance"


def purpose_of(text: str) -> ShipRental | ContractPurchase | Maintenance:
    """A purpose from the words it is recorded in: ``rent:<card>``, ``contract:<card>``, ``maintenance``."""
    what, _, card = text.partition(":")
    if what == "rent":
        return ShipRental(card)
    if what == "contract":
        return ContractPurchase(card)
    if text == "maintenance":
        return Maintenance()
    raise ValueError(f"not a purpose: {text!r}")


Purpose = Annotated[
    ShipRental | ContractPurchase | Maintenance,
    PlainSerializer(str, return_type=str),
    PlainValidator(
        lambda v: v if isinstance(v, ShipRental | ContractPurchase | Maintenance) else purpose_of(v)
    ),
]
"""What a payment buys; recorded (state, effects, prompts) in its words, ``rent:S05``."""


@dataclass(frozen=True, slots=True)
class Payment:
    """A cost being covered by selling shares at auction (shares trade, spec §5.12)."""

    seat: int
    amount: int
    mandatory: bool
    purpose: Purpose
    resume: Phase  # where play continues once the cost is settled


@dataclass(frozen=True, slots=True)
class Auction:
    """One share auction (spec §5.13): bids in pence-equivalents, paid with exact coins."""

    company: int
    number: int
    seller: int  # a seat, or -1 for the bank
    floor: int  # pence-equivalents the first bid must exceed
    base: int  # the bank's price in coins of ``currency`` when nobody bids (a player's sale)
    currency: int  # 0 pence, 1 shillings, 2 pounds
    bidders: tuple[int, ...]  # still bidding, in turn order
    turn: int = 0  # index into bidders of the next to act
    high_bidder: int = -1
    high_bid: tuple[int, int, int] = (0, 0, 0)  # pence, shillings, pounds


@dataclass(frozen=True)  # wide: no slots, so replace() copies its dict in one go
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
    payment: Payment | None = None
    auction: Auction | None = None
    bank_queue: tuple[tuple[int, int], ...] = ()  # shares the bank still auctions at a stage's end
    revealed: str = ""  # reputation: the ship or contract card turned up, waiting to be taken or discarded
    peeks: tuple[tuple[int, str], ...] = ()  # reputation: (seat, face-down contract the seat has seen)
    bank: int = 0  # pence-equivalents the bank has taken in, net (money conservation: players + bank = 0)

    @property
    def stage(self) -> int:
        """0, 1, 2 for stages I, II, III."""
        return min((self.round - 1) // 3, 2)
