"""Arkwright: The Card Game's own effects: resolved facts, past tense. Everything placed is
public. The shared ones (money, shares, loans, share values, the start player, decades and
rounds, goods, the final scores) are ``ledger.games.vocabulary``'s, some with fields added here."""

from __future__ import annotations

from ledger.engine import Effect, effect
from ledger.games import vocabulary


@effect("development_supply_built")
class DevelopmentSupplyBuilt(Effect):
    cards: tuple[str, ...]  # types on the table
    flipped: int  # cards turned to their other face (expert supply)
    rejected: int  # cards drawn and returned to the box
    boxed: int  # cards in the box


@effect()
class LoansChanged(vocabulary.LoansChanged):
    reason: str


@effect("action_chosen")
class ActionChosen(Effect):
    seat: int
    action: str


@effect()
class FactoryBuilt(vocabulary.FactoryBuilt):
    side: int
    reason: str  # setup | draft | build


@effect("factory_upgraded")
class FactoryUpgraded(Effect):
    seat: int
    good: str
    side: int
    worker_sides: tuple[int, ...]
    inventor: bool


@effect("worker_card_added")
class WorkerCardAdded(Effect):
    seat: int
    good: str
    position: int
    side: int


@effect("machine_added")
class MachineAdded(Effect):
    seat: int
    good: str
    position: int
    machines: int  # on that card now


@effect("quality_card_set")
class QualityCardSet(Effect):
    seat: int
    card: str
    good: str | None
    value: int
    mode: str


@effect("distribution_card_set")
class DistributionCardSet(Effect):
    seat: int
    card: str
    good: str | None
    value: int


@effect("demand_moved")
class DemandMoved(Effect):
    good: str
    demand_from: int
    demand_to: int
    cause: str


@effect("wages_moved")
class WagesMoved(Effect):
    position: int
    wage: int


@effect("appeal_marker_moved")
class AppealMarkerMoved(Effect):
    seat: int | None  # None: the neutral player (2 players)
    good: str
    appeal_from: int | None
    appeal_to: int
    arrows: int


@effect("price_and_appeal_set")
class PriceAndAppealSet(Effect):
    seat: int
    good: str
    spot: int
    office: str
    price: int
    appeal: int


@effect("ships_changed")
class ShipsChanged(Effect):
    seat: int
    ships: int
    reason: str


@effect("development_taken")
class DevelopmentTaken(Effect):
    seat: int
    track: str
    level: int
    reason: str


@effect("development_card_taken")
class DevelopmentCardTaken(Effect):
    seat: int
    card: str
    instance: str
    good: str | None


@effect("foreman_placed")
class ForemanPlaced(Effect):
    seat: int
    good: str


@effect("development_card_discarded")
class DevelopmentCardDiscarded(Effect):
    seat: int
    card: str
    reason: str
    value_lost: int  # quality or distribution lost with it, or goods wasted


@effect("card_rotated")
class CardRotated(Effect):
    seat: int
    card: str
    rotated: bool
    reason: str


@effect()
class GoodsProduced(vocabulary.GoodsProduced):
    extra: bool  # by the Extra Production action


@effect()
class GoodsSold(vocabulary.GoodsSold):
    allowed: int
    from_production: int
    from_storage: int
    price: int
    income: int


@effect()
class GoodsStored(vocabulary.GoodsStored):
    storehouse: str
    count: int
    wasted: int  # goods of another kind lost when the storehouse was taken away


@effect("goods_shipped")
class GoodsShipped(Effect):
    seat: int
    goods: tuple[tuple[str, int], ...]
    income: int
    contract: int
    tokens: int  # shipping tokens added


@effect("goods_wasted")
class GoodsWasted(Effect):
    seat: int
    good: str
    count: int


@effect("production_costs_paid")
class ProductionCostsPaid(Effect):
    seat: int
    good: str
    wages: int
    maintenance: int
    fixed: int
    total: int


@effect("emergency_fund_used")
class EmergencyFundUsed(Effect):
    seat: int
    tokens: int
    amount: int


@effect()
class PlayerEliminated(vocabulary.PlayerEliminated):
    shortfall: int


@effect()
class DistributionDecayed(vocabulary.DistributionDecayed):
    distribution: int


@effect("cards_reactivated")
class CardsReactivated(Effect):
    cards: int


@effect("final_score")
class FinalScore(Effect):
    seat: int
    stored_goods: int
    shares_bought: int
    shares_lost: int
    value_lost: int
    score: int
