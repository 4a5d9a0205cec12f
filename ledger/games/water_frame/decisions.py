"""Water Frame decisions (spec §3, §6): small steps, each what a player says at the table."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from ledger.engine import Decision

Good = Literal["FOOD", "CLOTHES", "CUTLERY", "LAMPS"]
Action = Literal["FACTORY", "WORKERS", "MACHINERY", "QUALITY", "DISTRIBUTION", "STOCK_EXCHANGE"]
Edge = Annotated[str, Field(pattern=r"^(col:(FOOD|CLOTHES|CUTLERY|LAMPS)|row:[1-5])$")]


# --- 1760 -------------------------------------------------------------------


class FoundFactory(Decision):
    """D-01/D-02: found a level-I factory and set its price (appeal at least 0)."""

    type: Literal["found_factory"] = "found_factory"
    good: Good
    price: int = Field(ge=1, le=99)


class SellStartShares(Decision):
    """D-03: sell own shares at £10 each for the start-up capital."""

    type: Literal["sell_start_shares"] = "sell_start_shares"
    count: int = Field(ge=0, le=30)


# --- the action phase --------------------------------------------------------


class PlaceMarker(Decision):
    """D-10: place an action marker on an empty space of your administration column."""

    type: Literal["place_marker"] = "place_marker"
    action: Action
    space: int = Field(description="Administrative cost of the space: 2, 4, 6, 8 or 10")


class ReuseMarker(Decision):
    """D-10 REUSE: use again a marker already on your column this decade (its cost plus £2)."""

    type: Literal["reuse_marker"] = "reuse_marker"
    action: Action


class BuildFactory(Decision):
    type: Literal["build_factory"] = "build_factory"
    good: Good
    level: int = Field(ge=1, le=4)
    price: int = Field(ge=1, le=99)


class ModernizeFactory(Decision):
    """One level up, paid in full at the new level's cost."""

    type: Literal["modernize_factory"] = "modernize_factory"
    good: Good


class CloseFactory(Decision):
    type: Literal["close_factory"] = "close_factory"
    good: Good


class HireWorkers(Decision):
    """Hire from the job market (reading order) into a production row."""

    type: Literal["hire_workers"] = "hire_workers"
    good: Good
    row: int = Field(ge=1, le=4)
    count: int = Field(1, ge=1, le=12)


class HireWarehouseWorker(Decision):
    """Hire a worker onto an edge of the large warehouse: a column (5 of that good) or a row."""

    type: Literal["hire_warehouse_worker"] = "hire_warehouse_worker"
    edge: Edge


class MoveWarehouseWorker(Decision):
    type: Literal["move_warehouse_worker"] = "move_warehouse_worker"
    from_edge: Edge
    to_edge: Edge


class FireWorkers(Decision):
    """Fire workers of one factory, from the rightmost production rows first; row 1 stays complete."""

    type: Literal["fire_workers"] = "fire_workers"
    good: Good
    count: int = Field(1, ge=1, le=12)


class PlaceMachine(Decision):
    """A machine replaces a worker on a flexible slot of the row; the worker is fired."""

    type: Literal["place_machine"] = "place_machine"
    good: Good
    row: int = Field(ge=1, le=4)


class RaiseQuality(Decision):
    type: Literal["raise_quality"] = "raise_quality"
    good: Good


class RaiseDistribution(Decision):
    type: Literal["raise_distribution"] = "raise_distribution"
    good: Good


class BuyShares(Decision):
    type: Literal["buy_shares"] = "buy_shares"
    count: int = Field(1, ge=1, le=30)


class SellShares(Decision):
    type: Literal["sell_shares"] = "sell_shares"
    count: int = Field(1, ge=1, le=30)


class RepayLoans(Decision):
    type: Literal["repay_loans"] = "repay_loans"
    count: int = Field(1, ge=1, le=99)


class SellStoredGoods(Decision):
    """Sell goods from the warehouse at the fixed prices (food £2 ... lamps £5)."""

    type: Literal["sell_stored_goods"] = "sell_stored_goods"
    good: Good
    count: int = Field(1, ge=1, le=20)


class AdjustPrice(Decision):
    """Additional action: a new price for a factory the main action affected (or paid £1 for)."""

    type: Literal["adjust_price"] = "adjust_price"
    good: Good
    price: int = Field(ge=1, le=99)


class FinishMainAction(Decision):
    """Done with the main action: its costs are paid and the additional action may follow."""

    type: Literal["finish_main_action"] = "finish_main_action"


class EndTurn(Decision):
    type: Literal["end_turn"] = "end_turn"


# --- production, end of round, end of game ------------------------------------


class SellFromWarehouse(Decision):
    """D-31: at this call, sell a stored good of the active kind from the large warehouse."""

    type: Literal["sell_from_warehouse"] = "sell_from_warehouse"


class StopSelling(Decision):
    """D-31: stop selling in this production phase."""

    type: Literal["stop_selling"] = "stop_selling"


class ReleaseWarehouseWorker(Decision):
    """D-40: release a warehouse worker to the fired space (after the event-phase wages)."""

    type: Literal["release_warehouse_worker"] = "release_warehouse_worker"
    edge: Edge


class Done(Decision):
    """Finish a sequence of optional steps (releases, the final stock exchange)."""

    type: Literal["done"] = "done"


class ChooseStartPlayer(Decision):
    """D-44: the owner of the least valuable portfolio names the next start player."""

    type: Literal["choose_start_player"] = "choose_start_player"
    seat: int = Field(ge=0, le=3)


WaterFrameDecision = Annotated[
    FoundFactory
    | SellStartShares
    | PlaceMarker
    | ReuseMarker
    | BuildFactory
    | ModernizeFactory
    | CloseFactory
    | HireWorkers
    | HireWarehouseWorker
    | MoveWarehouseWorker
    | FireWorkers
    | PlaceMachine
    | RaiseQuality
    | RaiseDistribution
    | BuyShares
    | SellShares
    | RepayLoans
    | SellStoredGoods
    | AdjustPrice
    | FinishMainAction
    | EndTurn
    | SellFromWarehouse
    | StopSelling
    | ReleaseWarehouseWorker
    | Done
    | ChooseStartPlayer,
    Field(discriminator="type"),
]

DECISION_ADAPTER: TypeAdapter[WaterFrameDecision] = TypeAdapter(WaterFrameDecision)
