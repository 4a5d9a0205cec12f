"""Water Frame's own effects: resolved facts, past tense; everything in Water Frame is public.
The shared ones (money, shares, loans, share values, the start player, decades and cycles,
goods produced, the final scores) are ``ledger.games.vocabulary``'s, some with fields added here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ledger.engine import Effect
from ledger.games import vocabulary


@dataclass(frozen=True, slots=True, kw_only=True)
class FactoryFounded(Effect):
    kind: ClassVar[str] = "factory_founded"
    seat: int
    good: str
    price: int
    appeal: int
    workers: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FactoryBuilt(vocabulary.FactoryBuilt):
    level: int
    price: int
    cost: int
    workers: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FactoryModernized(Effect):
    kind: ClassVar[str] = "factory_modernized"
    seat: int
    good: str
    level: int
    cost: int
    obsolete_released: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FactoryClosed(Effect):
    kind: ClassVar[str] = "factory_closed"
    seat: int
    good: str
    level: int
    workers_fired: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkersHired(Effect):
    kind: ClassVar[str] = "workers_hired"
    seat: int
    good: str
    row: int
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WarehouseWorkerHired(Effect):
    kind: ClassVar[str] = "warehouse_worker_hired"
    seat: int
    edge: str


@dataclass(frozen=True, slots=True, kw_only=True)
class WarehouseWorkerMoved(Effect):
    kind: ClassVar[str] = "warehouse_worker_moved"
    seat: int
    from_edge: str
    to_edge: str
    goods_lost: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WarehouseWorkerReleased(Effect):
    kind: ClassVar[str] = "warehouse_worker_released"
    seat: int
    edge: str
    goods_lost: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkersFired(Effect):
    kind: ClassVar[str] = "workers_fired"
    seat: int
    good: str
    count: int
    machines_removed: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MachinePlaced(Effect):
    kind: ClassVar[str] = "machine_placed"
    seat: int
    good: str
    row: int


@dataclass(frozen=True, slots=True, kw_only=True)
class QualityRaised(Effect):
    kind: ClassVar[str] = "quality_raised"
    seat: int
    good: str
    level: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DistributionRaised(Effect):
    kind: ClassVar[str] = "distribution_raised"
    seat: int
    good: str
    level: int
    cost: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PriceSet(Effect):
    kind: ClassVar[str] = "price_set"
    seat: int
    good: str
    price: int
    appeal: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkerPlaced(Effect):
    kind: ClassVar[str] = "marker_placed"
    seat: int
    action: str
    space: int
    cost: int
    reuse: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEnded(Effect):
    kind: ClassVar[str] = "turn_ended"
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DecadeStarted(vocabulary.DecadeStarted):
    level: int


@dataclass(frozen=True, slots=True, kw_only=True)
class EconomyMarkerRevealed(Effect):
    kind: ClassVar[str] = "economy_marker_revealed"
    decade: int
    good: str
    advance: int
    workers: int
    importer: int
    returned: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SaleStarted(Effect):
    kind: ClassVar[str] = "sale_started"
    good: str
    demand: int
    importer: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GoodsSold(vocabulary.GoodsSold):
    from_production: int
    from_stock: int
    price: int
    income: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ImporterSold(Effect):
    kind: ClassVar[str] = "importer_sold"
    good: str
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GoodsStored(vocabulary.GoodsStored):
    stored: int
    lost: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GoodsDiscarded(Effect):
    """Stored goods returned to the supply without compensation to make room (D-34)."""

    kind: ClassVar[str] = "goods_discarded"
    seat: int
    good: str
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WarehouseArranged(Effect):
    """The warehouses after a storage choice (D-34), per good: food, clothes, cutlery, lamps."""

    kind: ClassVar[str] = "warehouse_arranged"
    seat: int
    large: tuple[int, ...]
    small: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class WagesPaid(Effect):
    kind: ClassVar[str] = "wages_paid"
    seat: int
    good: str
    workers: int
    machines: int
    wage: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DistributionDecayed(vocabulary.DistributionDecayed):
    level: int
    forced_price_drop: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredGoodsSold(Effect):
    kind: ClassVar[str] = "stored_goods_sold"
    seat: int
    good: str
    count: int
    income: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkersReturned(Effect):
    kind: ClassVar[str] = "markers_returned"
    decade: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HarbourWagesPaid(Effect):
    kind: ClassVar[str] = "harbour_wages_paid"
    seat: int
    workers: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class EventRevealed(Effect):
    kind: ClassVar[str] = "event_revealed"
    decade: int
    event: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FactoryObsolete(Effect):
    kind: ClassVar[str] = "factory_obsolete"
    seat: int
    good: str
    level: int
    workers: int
    missing: int
    fee: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerEliminated(vocabulary.PlayerEliminated):
    loans: int


@dataclass(frozen=True, slots=True, kw_only=True)
class EndPenalty(Effect):
    kind: ClassVar[str] = "end_penalty"
    seat: int
    reason: str
    spaces: int
    shares: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TileTaken(Effect):
    kind: ClassVar[str] = "tile_taken"
    seat: int
    tile: str
    assigned: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TileReturned(Effect):
    kind: ClassVar[str] = "tile_returned"
    seat: int
    tile: str
    goods_lost: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TileReassigned(Effect):
    kind: ClassVar[str] = "tile_reassigned"
    seat: int
    tile: str
    good: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GreyMarkerTaken(Effect):
    kind: ClassVar[str] = "grey_marker_taken"
    seat: int
    marker: str
    row: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShipTaken(Effect):
    kind: ClassVar[str] = "ship_taken"
    seat: int
    ship: str
    capacity: int
    crew_hired: int
    returned: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ShipReleased(Effect):
    kind: ClassVar[str] = "ship_released"
    seat: int
    ship: str
    crew_fired: int


@dataclass(frozen=True, slots=True, kw_only=True)
class InventorUsed(Effect):
    kind: ClassVar[str] = "inventor_used"
    seat: int
    use: str
    paid: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GoodsMadeByAction(Effect):
    kind: ClassVar[str] = "goods_made_by_action"
    seat: int
    good: str
    rows: int
    produced: int
    stored: int
    lost: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractPlaced(Effect):
    kind: ClassVar[str] = "contract_placed"
    seat: int
    good: str
    space: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractDelivered(Effect):
    kind: ClassVar[str] = "contract_delivered"
    seat: int
    good: str
    goods: int
    income: int
    ships_used: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractEscalated(Effect):
    kind: ClassVar[str] = "contract_escalated"
    seat: int
    good: str
    space: int
    penalty: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RowClosedBySchool(Effect):
    kind: ClassVar[str] = "row_closed_by_school"
    seat: int
    good: str
    row: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PatronSold(Effect):
    kind: ClassVar[str] = "patron_sold"
    seat: int
    good: str
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineeringWorksPaid(Effect):
    kind: ClassVar[str] = "engineering_works_paid"
    seat: int
    machines: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkerLaidOut(Effect):
    kind: ClassVar[str] = "mat_laid_out"
    rows: tuple[tuple[str, ...], ...]
    ships: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TilesDisplayed(Effect):
    kind: ClassVar[str] = "tiles_displayed"
    tiles: tuple[str, ...]
    rejected: tuple[str, ...]
