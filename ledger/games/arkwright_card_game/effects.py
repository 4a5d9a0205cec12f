"""Arkwright: The Card Game's own effects: resolved facts, past tense. Everything placed is
public. The shared ones (money, shares, loans, share values, the start player, decades and
rounds, goods, the final scores) are ``ledger.games.vocabulary``'s, some with fields added here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ledger.engine import Effect
from ledger.games import vocabulary


@dataclass(frozen=True, slots=True, kw_only=True)
class DevelopmentSupplyBuilt(Effect):
    kind: ClassVar[str] = "development_supply_built"
    cards: tuple[str, ...]  # types on the table
    flipped: int  # cards turned to their other face (expert supply)
    rejected: int  # cards drawn and returned to the box
    boxed: int  # cards in the box


@dataclass(frozen=True, slots=True, kw_only=True)
class LoansChanged(vocabulary.LoansChanged):
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionChosen(Effect):
    kind: ClassVar[str] = "action_chosen"
    seat: int
    action: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FactoryBuilt(vocabulary.FactoryBuilt):
    side: int
    reason: str  # setup | draft | build


@dataclass(frozen=True, slots=True, kw_only=True)
class FactoryUpgraded(Effect):
    kind: ClassVar[str] = "factory_upgraded"
    seat: int
    good: str
    side: int
    worker_sides: tuple[int, ...]
    inventor: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerCardAdded(Effect):
    kind: ClassVar[str] = "worker_card_added"
    seat: int
    good: str
    position: int
    side: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MachineAdded(Effect):
    kind: ClassVar[str] = "machine_added"
    seat: int
    good: str
    position: int
    machines: int  # on that card now


@dataclass(frozen=True, slots=True, kw_only=True)
class QualityCardSet(Effect):
    kind: ClassVar[str] = "quality_card_set"
    seat: int
    card: str
    good: str | None
    value: int
    mode: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DistributionCardSet(Effect):
    kind: ClassVar[str] = "distribution_card_set"
    seat: int
    card: str
    good: str | None
    value: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DemandMoved(Effect):
    kind: ClassVar[str] = "demand_moved"
    good: str
    demand_from: int
    demand_to: int
    cause: str


@dataclass(frozen=True, slots=True, kw_only=True)
class WagesMoved(Effect):
    kind: ClassVar[str] = "wages_moved"
    position: int
    wage: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AppealMarkerMoved(Effect):
    kind: ClassVar[str] = "appeal_marker_moved"
    seat: int | None  # None: the neutral player (2 players)
    good: str
    appeal_from: int | None
    appeal_to: int
    arrows: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PriceAndAppealSet(Effect):
    kind: ClassVar[str] = "price_and_appeal_set"
    seat: int
    good: str
    spot: int
    office: str
    price: int
    appeal: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShipsChanged(Effect):
    kind: ClassVar[str] = "ships_changed"
    seat: int
    ships: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DevelopmentTaken(Effect):
    kind: ClassVar[str] = "development_taken"
    seat: int
    track: str
    level: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DevelopmentCardTaken(Effect):
    kind: ClassVar[str] = "development_card_taken"
    seat: int
    card: str
    instance: str
    good: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ForemanPlaced(Effect):
    kind: ClassVar[str] = "foreman_placed"
    seat: int
    good: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DevelopmentCardDiscarded(Effect):
    kind: ClassVar[str] = "development_card_discarded"
    seat: int
    card: str
    reason: str
    value_lost: int  # quality or distribution lost with it, or goods wasted


@dataclass(frozen=True, slots=True, kw_only=True)
class CardRotated(Effect):
    kind: ClassVar[str] = "card_rotated"
    seat: int
    card: str
    rotated: bool
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GoodsProduced(vocabulary.GoodsProduced):
    extra: bool  # by the Extra Production action


@dataclass(frozen=True, slots=True, kw_only=True)
class GoodsSold(vocabulary.GoodsSold):
    allowed: int
    from_production: int
    from_storage: int
    price: int
    income: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GoodsStored(vocabulary.GoodsStored):
    storehouse: str
    count: int
    wasted: int  # goods of another kind lost when the storehouse was taken away


@dataclass(frozen=True, slots=True, kw_only=True)
class GoodsShipped(Effect):
    kind: ClassVar[str] = "goods_shipped"
    seat: int
    goods: tuple[tuple[str, int], ...]
    income: int
    contract: int
    tokens: int  # shipping tokens added


@dataclass(frozen=True, slots=True, kw_only=True)
class GoodsWasted(Effect):
    kind: ClassVar[str] = "goods_wasted"
    seat: int
    good: str
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ProductionCostsPaid(Effect):
    kind: ClassVar[str] = "production_costs_paid"
    seat: int
    good: str
    wages: int
    maintenance: int
    fixed: int
    total: int


@dataclass(frozen=True, slots=True, kw_only=True)
class EmergencyFundUsed(Effect):
    kind: ClassVar[str] = "emergency_fund_used"
    seat: int
    tokens: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerEliminated(vocabulary.PlayerEliminated):
    shortfall: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DistributionDecayed(vocabulary.DistributionDecayed):
    distribution: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsReactivated(Effect):
    kind: ClassVar[str] = "cards_reactivated"
    cards: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FinalScore(Effect):
    kind: ClassVar[str] = "final_score"
    seat: int
    stored_goods: int
    shares_bought: int
    shares_lost: int
    value_lost: int
    score: int
