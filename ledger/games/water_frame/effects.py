"""Water Frame's own effects: resolved facts, past tense; everything in Water Frame is public.
The shared ones (money, shares, loans, share values, the start player, decades and cycles,
goods produced, the final scores) are ``ledger.games.vocabulary``'s, some with fields added here."""

from __future__ import annotations

from ledger.engine import Effect, effect
from ledger.games import vocabulary


@effect("factory_founded")
class FactoryFounded(Effect):
    seat: int
    good: str
    price: int
    appeal: int
    workers: int


@effect()
class FactoryBuilt(vocabulary.FactoryBuilt):
    level: int
    price: int
    cost: int
    workers: int


@effect("factory_modernized")
class FactoryModernized(Effect):
    seat: int
    good: str
    level: int
    cost: int
    obsolete_released: int


@effect("factory_closed")
class FactoryClosed(Effect):
    seat: int
    good: str
    level: int
    workers_fired: int


@effect("workers_hired")
class WorkersHired(Effect):
    seat: int
    good: str
    row: int
    count: int


@effect("warehouse_worker_hired")
class WarehouseWorkerHired(Effect):
    seat: int
    edge: str


@effect("warehouse_worker_moved")
class WarehouseWorkerMoved(Effect):
    seat: int
    from_edge: str
    to_edge: str
    goods_lost: int


@effect("warehouse_worker_released")
class WarehouseWorkerReleased(Effect):
    seat: int
    edge: str
    goods_lost: int


@effect("workers_fired")
class WorkersFired(Effect):
    seat: int
    good: str
    count: int
    machines_removed: int


@effect("machine_placed")
class MachinePlaced(Effect):
    seat: int
    good: str
    row: int


@effect("quality_raised")
class QualityRaised(Effect):
    seat: int
    good: str
    level: int


@effect("distribution_raised")
class DistributionRaised(Effect):
    seat: int
    good: str
    level: int
    cost: int


@effect("price_set")
class PriceSet(Effect):
    seat: int
    good: str
    price: int
    appeal: int


@effect("marker_placed")
class MarkerPlaced(Effect):
    seat: int
    action: str
    space: int
    cost: int
    reuse: bool


@effect("turn_ended")
class TurnEnded(Effect):
    seat: int


@effect()
class DecadeStarted(vocabulary.DecadeStarted):
    level: int


@effect("economy_marker_revealed")
class EconomyMarkerRevealed(Effect):
    decade: int
    good: str
    advance: int
    workers: int
    importer: int
    returned: int


@effect("sale_started")
class SaleStarted(Effect):
    good: str
    demand: int
    importer: int


@effect()
class GoodsSold(vocabulary.GoodsSold):
    from_production: int
    from_stock: int
    price: int
    income: int


@effect("importer_sold")
class ImporterSold(Effect):
    good: str
    count: int


@effect()
class GoodsStored(vocabulary.GoodsStored):
    stored: int
    lost: int


@effect("goods_discarded")
class GoodsDiscarded(Effect):
    """Stored goods returned to the supply without compensation to make room (D-34)."""

    seat: int
    good: str
    count: int


@effect("warehouse_arranged")
class WarehouseArranged(Effect):
    """The warehouses after a storage choice (D-34), per good: food, clothes, cutlery, lamps."""

    seat: int
    large: tuple[int, ...]
    small: tuple[int, ...]


@effect("wages_paid")
class WagesPaid(Effect):
    seat: int
    good: str
    workers: int
    machines: int
    wage: int
    amount: int


@effect()
class DistributionDecayed(vocabulary.DistributionDecayed):
    level: int
    forced_price_drop: bool


@effect("stored_goods_sold")
class StoredGoodsSold(Effect):
    seat: int
    good: str
    count: int
    income: int


@effect("markers_returned")
class MarkersReturned(Effect):
    decade: int


@effect("harbour_wages_paid")
class HarbourWagesPaid(Effect):
    seat: int
    workers: int
    amount: int


@effect("event_revealed")
class EventRevealed(Effect):
    decade: int
    event: str


@effect("factory_obsolete")
class FactoryObsolete(Effect):
    seat: int
    good: str
    level: int
    workers: int
    missing: int
    fee: int


@effect()
class PlayerEliminated(vocabulary.PlayerEliminated):
    loans: int


@effect("end_penalty")
class EndPenalty(Effect):
    seat: int
    reason: str
    spaces: int
    shares: int


@effect("tile_taken")
class TileTaken(Effect):
    seat: int
    tile: str
    assigned: str | None


@effect("tile_returned")
class TileReturned(Effect):
    seat: int
    tile: str
    goods_lost: int


@effect("tile_reassigned")
class TileReassigned(Effect):
    seat: int
    tile: str
    good: str


@effect("grey_marker_taken")
class GreyMarkerTaken(Effect):
    seat: int
    marker: str
    row: int


@effect("ship_taken")
class ShipTaken(Effect):
    seat: int
    ship: str
    capacity: int
    crew_hired: int
    returned: str | None


@effect("ship_released")
class ShipReleased(Effect):
    seat: int
    ship: str
    crew_fired: int


@effect("inventor_used")
class InventorUsed(Effect):
    seat: int
    use: str
    paid: int


@effect("goods_made_by_action")
class GoodsMadeByAction(Effect):
    seat: int
    good: str
    rows: int
    produced: int
    stored: int
    lost: int


@effect("contract_placed")
class ContractPlaced(Effect):
    seat: int
    good: str
    space: int


@effect("contract_delivered")
class ContractDelivered(Effect):
    seat: int
    good: str
    goods: int
    income: int
    ships_used: int


@effect("contract_escalated")
class ContractEscalated(Effect):
    seat: int
    good: str
    space: int
    penalty: int


@effect("row_closed_by_school")
class RowClosedBySchool(Effect):
    seat: int
    good: str
    row: int


@effect("patron_sold")
class PatronSold(Effect):
    seat: int
    good: str
    source: str


@effect("engineering_works_paid")
class EngineeringWorksPaid(Effect):
    seat: int
    machines: int


@effect("mat_laid_out")
class MarkerLaidOut(Effect):
    rows: tuple[tuple[str, ...], ...]
    ships: tuple[tuple[str, ...], ...]


@effect("tiles_displayed")
class TilesDisplayed(Effect):
    tiles: tuple[str, ...]
    rejected: tuple[str, ...]
