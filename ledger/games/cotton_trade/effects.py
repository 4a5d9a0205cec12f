"""Cotton Trade's own effects: resolved facts, past tense, each with its visibility (the shared
ones, a deck shuffled or a share value moved, are ``ledger.games.vocabulary``'s)."""

from __future__ import annotations

from typing import ClassVar

from ledger.engine import Effect, effect
from ledger.games import vocabulary


@effect("first_player_drawn")
class FirstPlayerDrawn(Effect):
    seat: int
    turn_order: tuple[int, ...]


@effect()
class MoneyChanged(vocabulary.MoneyChanged):
    """Coins of one currency (the stage's, or an older one's at a rescaling)."""

    currency: str
    recorded_order: ClassVar[tuple[str, ...]] = ("seat", "amount", "currency", "balance", "reason")


@effect("turn_order_determined")
class TurnOrderDetermined(Effect):
    turn_order: tuple[int, ...]
    wealth: tuple[int, ...]  # by seat


@effect("ship_cards_drawn")
class ShipCardsDrawn(Effect):
    cards: tuple[str, ...]


@effect("contract_cards_drawn")
class ContractCardsDrawn(Effect):
    region: str
    cards: tuple[str | None, ...]  # None: placed face down


@effect("ship_rented")
class ShipRented(Effect):
    seat: int
    card: str
    capacity: int
    fee: int


@effect("renting_passed")
class RentingPassed(Effect):
    seat: int
    automatic: bool


@effect("contract_revealed")
class ContractRevealed(Effect):
    region: str
    card: str


@effect("harbour_tokens_placed")
class HarbourTokensPlaced(Effect):
    region: str
    coins: int
    passengers: int
    vip: int


@effect("war_broke")
class WarBroke(Effect):
    region: str
    unrest: int
    threshold: int


@effect("ship_sailed")
class ShipSailed(Effect):
    seat: int
    capacity: int
    region: str
    position: int
    overtook: bool
    war_entry: bool = False  # reputation use 5


@effect("bonus_coins_taken")
class BonusCoinsTaken(Effect):
    seat: int
    region: str
    coins: int


@effect("passengers_carried")
class PassengersCarried(Effect):
    seat: int
    region: str
    vip: int
    regular: int
    income: int


@effect("contract_bought")
class ContractBought(Effect):
    seat: int
    capacity: int
    region: str
    card: str
    cost: int
    cargo: int
    discarded: int


@effect("contract_declined")
class ContractDeclined(Effect):
    seat: int
    capacity: int
    region: str
    automatic: bool


@effect("ship_returned")
class ShipReturned(Effect):
    seat: int
    capacity: int
    region: str
    forced_by_war: bool


@effect("cotton_sold")
class CottonSold(Effect):
    seat: int
    tokens: int
    income: int
    demand_after: int


@effect("ship_stayed")
class ShipStayed(Effect):
    seat: int
    capacity: int
    region: str
    despite_war: bool = False  # reputation use 7


@effect("maintenance_paid")
class MaintenancePaid(Effect):
    seat: int
    amount: int
    waived: int


@effect("share_sold")
class ShareSold(Effect):
    seat: int
    company: int
    number: int
    price: int
    currency: str
    buyer: str
    forced: bool


@effect("board_cleared")
class BoardCleared(Effect):
    ship_cards: int
    contract_cards: int


@effect("war_ended")
class WarEnded(Effect):
    region: str
    coins: int
    passengers: int
    vip: int


@effect("demand_reduced")
class DemandReduced(Effect):
    before: int
    after: int


@effect("stage_ended")
class StageEnded(Effect):
    stage: str


@effect("new_ship_kept")
class NewShipKept(Effect):
    seat: int
    card: str
    location: str


@effect("ship_refunded")
class ShipRefunded(Effect):
    seat: int
    card: str
    value: int
    currency: str


@effect("demand_reset")
class DemandReset(Effect):
    tokens: int


@effect("currency_exchanged")
class CurrencyExchanged(Effect):
    seat: int
    before: tuple[int, int, int]
    after: tuple[int, int, int]


@effect("share_bought_back")
class ShareBoughtBack(Effect):
    seat: int
    number: int
    price: int
    seller: str  # "bank" or "player"
    holder: int = -1  # the selling seat when a player held the share (shares trade)


@effect("round_started")
class RoundStarted(Effect):
    round: int
    stage: str


# --- advanced game: shares trade -----------------------------------------------


@effect("payment_started")
class PaymentStarted(Effect):
    """A cost the payer cannot cover with money: shares are auctioned until it is."""

    seat: int
    amount: int
    currency: str
    purpose: str
    mandatory: bool


@effect("purchase_cancelled")
class PurchaseCancelled(Effect):
    """A voluntary purchase the auctions did not cover is called off (the shares stay sold)."""

    seat: int
    purpose: str
    short: int


@effect("share_auction_opened")
class ShareAuctionOpened(Effect):
    seller: int  # -1: the bank
    company: int
    number: int
    start: int  # in coins of ``currency``
    currency: str
    floor: int  # pence-equivalents a first bid must exceed
    bidders: tuple[int, ...]


@effect("bid_made")
class BidMade(Effect):
    seat: int
    coins: tuple[int, int, int]  # pence, shillings, pounds
    value: int  # pence-equivalents


@effect("bid_passed")
class BidPassed(Effect):
    seat: int
    automatic: bool  # the seat's coins could not beat the standing bid


@effect("share_auctioned")
class ShareAuctioned(Effect):
    company: int
    number: int
    seller: int  # -1: the bank
    buyer: int  # -1: the bank (a player's share with no bid) or nobody (a bank share with no bid)
    coins: tuple[int, int, int]
    value: int


@effect("coins_changed")
class CoinsChanged(Effect):
    """Coins moved as they are, without change (an auction's winning bid)."""

    seat: int
    coins: tuple[int, int, int]  # the change, pence, shillings, pounds
    balance: tuple[int, int, int]
    reason: str


# --- advanced game: reputation -------------------------------------------------


@effect("reputation_gained")
class ReputationGained(Effect):
    seat: int
    region: str  # a region, or "UK" (passenger tokens held)
    level: int
    reason: str


@effect("reputation_spent")
class ReputationSpent(Effect):
    seat: int
    region: str
    cost: int
    level: int
    use: str


@effect("top_ship_revealed")
class TopShipRevealed(Effect):
    seat: int
    card: str


@effect("revealed_card_discarded")
class RevealedCardDiscarded(Effect):
    seat: int
    card: str
    region: str | None  # None: a ship card


@effect("contract_peeked")
class ContractPeeked(Effect):
    """Seen by the peeking seat only (``visible_to``)."""

    seat: int
    region: str
    slot: int
    card: str


@effect("top_contract_revealed")
class TopContractRevealed(Effect):
    seat: int
    region: str
    card: str


@effect("passengers_created")
class PassengersCreated(Effect):
    seat: int
    region: str
    regular: int
    vip: int
    income: int
