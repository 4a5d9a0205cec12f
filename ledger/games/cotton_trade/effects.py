"""Cotton Trade's own effects: resolved facts, past tense, each with its visibility (the shared
ones, a deck shuffled or a share value moved, are ``ledger.games.vocabulary``'s)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ledger.engine import Effect
from ledger.games import vocabulary


@dataclass(frozen=True, slots=True, kw_only=True)
class FirstPlayerDrawn(Effect):
    kind: ClassVar[str] = "first_player_drawn"
    seat: int
    turn_order: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MoneyChanged(vocabulary.MoneyChanged):
    """Coins of one currency (the stage's, or an older one's at a rescaling)."""

    currency: str
    recorded_order: ClassVar[tuple[str, ...]] = ("seat", "amount", "currency", "balance", "reason")


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnOrderDetermined(Effect):
    kind: ClassVar[str] = "turn_order_determined"
    turn_order: tuple[int, ...]
    wealth: tuple[int, ...]  # by seat


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
    war_entry: bool = False  # reputation use 5


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
    despite_war: bool = False  # reputation use 7


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
    seller: str  # "bank" or "player"
    holder: int = -1  # the selling seat when a player held the share (shares trade)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundStarted(Effect):
    kind: ClassVar[str] = "round_started"
    round: int
    stage: str


# --- advanced game: shares trade -----------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PaymentStarted(Effect):
    """A cost the payer cannot cover with money: shares are auctioned until it is."""

    kind: ClassVar[str] = "payment_started"
    seat: int
    amount: int
    currency: str
    purpose: str
    mandatory: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PurchaseCancelled(Effect):
    """A voluntary purchase the auctions did not cover is called off (the shares stay sold)."""

    kind: ClassVar[str] = "purchase_cancelled"
    seat: int
    purpose: str
    short: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShareAuctionOpened(Effect):
    kind: ClassVar[str] = "share_auction_opened"
    seller: int  # -1: the bank
    company: int
    number: int
    start: int  # in coins of ``currency``
    currency: str
    floor: int  # pence-equivalents a first bid must exceed
    bidders: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class BidMade(Effect):
    kind: ClassVar[str] = "bid_made"
    seat: int
    coins: tuple[int, int, int]  # pence, shillings, pounds
    value: int  # pence-equivalents


@dataclass(frozen=True, slots=True, kw_only=True)
class BidPassed(Effect):
    kind: ClassVar[str] = "bid_passed"
    seat: int
    automatic: bool  # the seat's coins could not beat the standing bid


@dataclass(frozen=True, slots=True, kw_only=True)
class ShareAuctioned(Effect):
    kind: ClassVar[str] = "share_auctioned"
    company: int
    number: int
    seller: int  # -1: the bank
    buyer: int  # -1: the bank (a player's share with no bid) or nobody (a bank share with no bid)
    coins: tuple[int, int, int]
    value: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CoinsChanged(Effect):
    """Coins moved as they are, without change (an auction's winning bid)."""

    kind: ClassVar[str] = "coins_changed"
    seat: int
    coins: tuple[int, int, int]  # the change, pence, shillings, pounds
    balance: tuple[int, int, int]
    reason: str


# --- advanced game: reputation -------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ReputationGained(Effect):
    kind: ClassVar[str] = "reputation_gained"
    seat: int
    region: str  # a region, or "UK" (passenger tokens held)
    level: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReputationSpent(Effect):
    kind: ClassVar[str] = "reputation_spent"
    seat: int
    region: str
    cost: int
    level: int
    use: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TopShipRevealed(Effect):
    kind: ClassVar[str] = "top_ship_revealed"
    seat: int
    card: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RevealedCardDiscarded(Effect):
    kind: ClassVar[str] = "revealed_card_discarded"
    seat: int
    card: str
    region: str | None  # None: a ship card


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractPeeked(Effect):
    """Seen by the peeking seat only (``visible_to``)."""

    kind: ClassVar[str] = "contract_peeked"
    seat: int
    region: str
    slot: int
    card: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TopContractRevealed(Effect):
    kind: ClassVar[str] = "top_contract_revealed"
    seat: int
    region: str
    card: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PassengersCreated(Effect):
    kind: ClassVar[str] = "passengers_created"
    seat: int
    region: str
    regular: int
    vip: int
    income: int
