"""Cotton Trade effects: resolved facts, past tense, each with its visibility."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ledger.engine import Effect

_fx = dataclass(frozen=True, slots=True, kw_only=True)


@_fx
class FirstPlayerDrawn(Effect):
    kind: ClassVar[str] = "first_player_drawn"
    seat: int
    turn_order: tuple[int, ...]


@_fx
class DeckShuffled(Effect):
    kind: ClassVar[str] = "deck_shuffled"
    deck: str
    cards: int


@_fx
class MoneyChanged(Effect):
    kind: ClassVar[str] = "money_changed"
    seat: int
    amount: int
    currency: str
    balance: int
    reason: str


@_fx
class TurnOrderDetermined(Effect):
    kind: ClassVar[str] = "turn_order_determined"
    turn_order: tuple[int, ...]
    wealth: tuple[int, ...]  # by seat


@_fx
class SharePriceChanged(Effect):
    kind: ClassVar[str] = "share_price_changed"
    company: int
    space_from: int | None
    space_to: int
    value_from: int | None
    value_to: int
    currency: str
    cause: str


@_fx
class ShipCardsDrawn(Effect):
    kind: ClassVar[str] = "ship_cards_drawn"
    cards: tuple[str, ...]


@_fx
class ContractCardsDrawn(Effect):
    kind: ClassVar[str] = "contract_cards_drawn"
    region: str
    cards: tuple[str | None, ...]  # None: placed face down


@_fx
class ShipRented(Effect):
    kind: ClassVar[str] = "ship_rented"
    seat: int
    card: str
    capacity: int
    fee: int


@_fx
class RentingPassed(Effect):
    kind: ClassVar[str] = "renting_passed"
    seat: int
    automatic: bool


@_fx
class ContractRevealed(Effect):
    kind: ClassVar[str] = "contract_revealed"
    region: str
    card: str


@_fx
class HarbourTokensPlaced(Effect):
    kind: ClassVar[str] = "harbour_tokens_placed"
    region: str
    coins: int
    passengers: int
    vip: int


@_fx
class WarBroke(Effect):
    kind: ClassVar[str] = "war_broke"
    region: str
    unrest: int
    threshold: int


@_fx
class ShipSailed(Effect):
    kind: ClassVar[str] = "ship_sailed"
    seat: int
    capacity: int
    region: str
    position: int
    overtook: bool


@_fx
class BonusCoinsTaken(Effect):
    kind: ClassVar[str] = "bonus_coins_taken"
    seat: int
    region: str
    coins: int


@_fx
class PassengersCarried(Effect):
    kind: ClassVar[str] = "passengers_carried"
    seat: int
    region: str
    vip: int
    regular: int
    income: int


@_fx
class ContractBought(Effect):
    kind: ClassVar[str] = "contract_bought"
    seat: int
    capacity: int
    region: str
    card: str
    cost: int
    cargo: int
    discarded: int


@_fx
class ContractDeclined(Effect):
    kind: ClassVar[str] = "contract_declined"
    seat: int
    capacity: int
    region: str
    automatic: bool


@_fx
class ShipReturned(Effect):
    kind: ClassVar[str] = "ship_returned"
    seat: int
    capacity: int
    region: str
    forced_by_war: bool


@_fx
class CottonSold(Effect):
    kind: ClassVar[str] = "cotton_sold"
    seat: int
    tokens: int
    income: int
    demand_after: int


@_fx
class ShipStayed(Effect):
    kind: ClassVar[str] = "ship_stayed"
    seat: int
    capacity: int
    region: str


@_fx
class MaintenancePaid(Effect):
    kind: ClassVar[str] = "maintenance_paid"
    seat: int
    amount: int
    waived: int


@_fx
class ShareSold(Effect):
    kind: ClassVar[str] = "share_sold"
    seat: int
    company: int
    number: int
    price: int
    currency: str
    buyer: str
    forced: bool


@_fx
class BoardCleared(Effect):
    kind: ClassVar[str] = "board_cleared"
    ship_cards: int
    contract_cards: int


@_fx
class WarEnded(Effect):
    kind: ClassVar[str] = "war_ended"
    region: str
    coins: int
    passengers: int
    vip: int


@_fx
class DemandReduced(Effect):
    kind: ClassVar[str] = "demand_reduced"
    before: int
    after: int


@_fx
class StageEnded(Effect):
    kind: ClassVar[str] = "stage_ended"
    stage: str


@_fx
class NewShipKept(Effect):
    kind: ClassVar[str] = "new_ship_kept"
    seat: int
    card: str
    location: str


@_fx
class ShipRefunded(Effect):
    kind: ClassVar[str] = "ship_refunded"
    seat: int
    card: str
    value: int
    currency: str


@_fx
class DemandReset(Effect):
    kind: ClassVar[str] = "demand_reset"
    tokens: int


@_fx
class CurrencyExchanged(Effect):
    kind: ClassVar[str] = "currency_exchanged"
    seat: int
    before: tuple[int, int, int]
    after: tuple[int, int, int]


@_fx
class ShareBoughtBack(Effect):
    kind: ClassVar[str] = "share_bought_back"
    seat: int
    number: int
    price: int
    seller: str


@_fx
class RoundStarted(Effect):
    kind: ClassVar[str] = "round_started"
    round: int
    stage: str
