"""Cotton Trade effects: resolved facts, past tense, each with its visibility."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ledger.engine import Effect


@dataclass(frozen=True, slots=True, kw_only=True)
class FirstPlayerDrawn(Effect):
    kind: ClassVar[str] = "first_player_drawn"
    seat: int
    turn_order: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckShuffled(Effect):
    kind: ClassVar[str] = "deck_shuffled"
    deck: str
    cards: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MoneyChanged(Effect):
    kind: ClassVar[str] = "money_changed"
    seat: int
    amount: int
    currency: str
    balance: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnOrderDetermined(Effect):
    kind: ClassVar[str] = "turn_order_determined"
    turn_order: tuple[int, ...]
    wealth: tuple[int, ...]  # by seat


@dataclass(frozen=True, slots=True, kw_only=True)
class SharePriceChanged(Effect):
    kind: ClassVar[str] = "share_price_changed"
    company: int
    space_from: int | None
    space_to: int
    value_from: int | None
    value_to: int
    currency: str
    cause: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ShipCardsDrawn(Effect):
    kind: ClassVar[str] = "ship_cards_drawn"
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractCardsDrawn(Effect):
    kind: ClassVar[str] = "contract_cards_drawn"
    region: str
    cards: tuple[str | None, ...]  # None: placed face down


@dataclass(frozen=True, slots=True, kw_only=True)
class ShipRented(Effect):
    kind: ClassVar[str] = "ship_rented"
    seat: int
    card: str
    capacity: int
    fee: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RentingPassed(Effect):
    kind: ClassVar[str] = "renting_passed"
    seat: int
    automatic: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractRevealed(Effect):
    kind: ClassVar[str] = "contract_revealed"
    region: str
    card: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HarbourTokensPlaced(Effect):
    kind: ClassVar[str] = "harbour_tokens_placed"
    region: str
    coins: int
    passengers: int
    vip: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WarBroke(Effect):
    kind: ClassVar[str] = "war_broke"
    region: str
    unrest: int
    threshold: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShipSailed(Effect):
    kind: ClassVar[str] = "ship_sailed"
    seat: int
    capacity: int
    region: str
    position: int
    overtook: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class BonusCoinsTaken(Effect):
    kind: ClassVar[str] = "bonus_coins_taken"
    seat: int
    region: str
    coins: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PassengersCarried(Effect):
    kind: ClassVar[str] = "passengers_carried"
    seat: int
    region: str
    vip: int
    regular: int
    income: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractBought(Effect):
    kind: ClassVar[str] = "contract_bought"
    seat: int
    capacity: int
    region: str
    card: str
    cost: int
    cargo: int
    discarded: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractDeclined(Effect):
    kind: ClassVar[str] = "contract_declined"
    seat: int
    capacity: int
    region: str
    automatic: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ShipReturned(Effect):
    kind: ClassVar[str] = "ship_returned"
    seat: int
    capacity: int
    region: str
    forced_by_war: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class CottonSold(Effect):
    kind: ClassVar[str] = "cotton_sold"
    seat: int
    tokens: int
    income: int
    demand_after: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShipStayed(Effect):
    kind: ClassVar[str] = "ship_stayed"
    seat: int
    capacity: int
    region: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MaintenancePaid(Effect):
    kind: ClassVar[str] = "maintenance_paid"
    seat: int
    amount: int
    waived: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShareSold(Effect):
    kind: ClassVar[str] = "share_sold"
    seat: int
    company: int
    number: int
    price: int
    currency: str
    buyer: str
    forced: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class BoardCleared(Effect):
    kind: ClassVar[str] = "board_cleared"
    ship_cards: int
    contract_cards: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WarEnded(Effect):
    kind: ClassVar[str] = "war_ended"
    region: str
    coins: int
    passengers: int
    vip: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DemandReduced(Effect):
    kind: ClassVar[str] = "demand_reduced"
    before: int
    after: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StageEnded(Effect):
    kind: ClassVar[str] = "stage_ended"
    stage: str


@dataclass(frozen=True, slots=True, kw_only=True)
class NewShipKept(Effect):
    kind: ClassVar[str] = "new_ship_kept"
    seat: int
    card: str
    location: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ShipRefunded(Effect):
    kind: ClassVar[str] = "ship_refunded"
    seat: int
    card: str
    value: int
    currency: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DemandReset(Effect):
    kind: ClassVar[str] = "demand_reset"
    tokens: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CurrencyExchanged(Effect):
    kind: ClassVar[str] = "currency_exchanged"
    seat: int
    before: tuple[int, int, int]
    after: tuple[int, int, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class ShareBoughtBack(Effect):
    kind: ClassVar[str] = "share_bought_back"
    seat: int
    number: int
    price: int
    seller: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundStarted(Effect):
    kind: ClassVar[str] = "round_started"
    round: int
    stage: str
