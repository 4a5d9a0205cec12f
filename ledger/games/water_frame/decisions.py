"""Water Frame decisions (spec §3, §6): small steps, each what a player says at the table."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from ledger.engine import Decision
from ledger.games import vocabulary

Good = Literal["FOOD", "CLOTHES", "CUTLERY", "LAMPS"]
Action = Literal[
    "FACTORY", "WORKERS", "MACHINERY", "QUALITY", "DISTRIBUTION", "STOCK_EXCHANGE", "PRODUCTION", "SHIP"
]
Shade = Literal["OWN", "LIGHT", "DARK"]
Tile = Literal[
    "ACCOUNTANT",
    "ADMINISTRATOR",
    "AGENT_IN_THE_COLONIES",
    "BROKER",
    "CHARISMA",
    "DEVELOPER",
    "ENGINEER",
    "ENGINEERING_WORKS",
    "EXTRA_SHIFTS",
    "FOREMAN",
    "INVENTOR",
    "OFFICE",
    "PATENT",
    "PATRON_FOOD",
    "PATRON_CLOTHES",
    "PATRON_CUTLERY",
    "PATRON_LAMPS",
    "SCHOOL",
    "SMALL_WAREHOUSE",
    "WORKSHOP",
]
InventorUse = Literal["return", "pay"]
Warehouse = Literal["large", "small"]
Count = Annotated[int, Field(ge=0, le=99)]
PerGood = tuple[Count, Count, Count, Count]
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
    """D-10: place an action marker (own colour, grey, or a ship) on an empty space of your column."""

    type: Literal["place_marker"] = "place_marker"
    action: Action
    space: int = Field(description="Administrative cost of the space: 2, 4, 6, 8 or 10")
    shade: Shade = Field("OWN", description="OWN colour, or a LIGHT / DARK grey marker you own")
    ship: str | None = Field(None, description="For the SHIP action: which of your ships")
    accountant: int = Field(0, ge=-2, le=2, description="Accountant: pay up to £2 less or more")
    engineer_payment: int | None = Field(
        None, ge=0, le=30, description="Engineer: the amount paid for quality"
    )


class ReuseMarker(Decision):
    """D-10 REUSE: use again a marker already on your column this decade (its cost plus £2)."""

    type: Literal["reuse_marker"] = "reuse_marker"
    action: Action
    shade: Shade = "OWN"
    ship: str | None = None
    accountant: int = Field(0, ge=-2, le=2)
    engineer_payment: int | None = Field(None, ge=0, le=30)


class BuildFactory(Decision):
    type: Literal["build_factory"] = "build_factory"
    good: Good
    level: int = Field(ge=1, le=4)
    price: int = Field(ge=1, le=99)
    developer: bool = Field(
        False, description="Use the developer: £5 off (the tile returns after the action)"
    )


class ModernizeFactory(Decision):
    """One level up, paid in full at the new level's cost."""

    type: Literal["modernize_factory"] = "modernize_factory"
    good: Good
    developer: bool = False
    inventor: InventorUse | None = Field(
        None, description="Beyond the current level with the inventor: then return it or pay its fee"
    )


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
    school_to_good: Good | None = Field(None, description="School: move the replaced worker to this factory")
    school_to_row: int | None = Field(None, ge=1, le=4)


class UsePatent(Decision):
    """Distribution: keep the patent for £2 beyond the marker's limit, or return it for two free +1 raises."""

    type: Literal["use_patent"] = "use_patent"
    option: Literal["extra_budget", "free_raises"]


class ProduceGoods(Decision):
    """PRODUCTION (grey marker): rows 1..rows of one factory produce into your warehouses."""

    type: Literal["produce_goods"] = "produce_goods"
    good: Good
    rows: int = Field(ge=1, le=4)
    extra_shift: bool = Field(False, description="Return the extra shifts tile for one more good")


class DeliverContract(Decision):
    """SHIP: deliver one whole contract from your warehouses with the ship on the chart."""

    type: Literal["deliver_contract"] = "deliver_contract"
    good: Good
    agent: int = Field(0, ge=-1, le=1, description="Agent in the colonies: one good more or less")


class PlaceContract(Decision):
    """Stock exchange: place a contract marker, or move one to a higher space."""

    type: Literal["place_contract"] = "place_contract"
    good: Good
    space: int = Field(description="A contract space: 2, 4, 6, 8, 10 (2 players: 2, 4)")


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


class TakeTile(Decision):
    """Take a special marker: a development tile from the display."""

    type: Literal["take_tile"] = "take_tile"
    tile: Tile
    give_back: Tile | None = Field(None, description="With four tiles already: the tile returned")
    assign: Good | None = Field(
        None, description="Foreman and workshop (required for them): the factory of yours it serves"
    )


class TakeGreyMarker(Decision):
    """Take a special marker: an advanced action marker from the special markers mat."""

    type: Literal["take_grey_marker"] = "take_grey_marker"
    marker: Literal[
        "LIGHT:MACHINERY",
        "LIGHT:QUALITY",
        "LIGHT:DISTRIBUTION",
        "LIGHT:PRODUCTION",
        "DARK:MACHINERY",
        "DARK:QUALITY",
        "DARK:DISTRIBUTION",
        "DARK:PRODUCTION",
    ]
    row: int = Field(ge=1, le=4)
    inventor: InventorUse | None = Field(None, description="From the next row with the inventor")


class TakeShip(Decision):
    """Take a special marker: a ship (its crew is hired at once)."""

    type: Literal["take_ship"] = "take_ship"
    ship: str
    give_back: str | None = Field(None, description="With two ships: the (smaller) ship returned")
    inventor: InventorUse | None = None


class UseBroker(Decision):
    """Instead of a special marker: return the broker and buy 1 or 2 shares at half price."""

    type: Literal["use_broker"] = "use_broker"
    count: int = Field(ge=1, le=2)


class ReassignTile(Decision):
    """Instead of a special marker: move the foreman or the workshop to another factory."""

    type: Literal["reassign_tile"] = "reassign_tile"
    tile: Literal["FOREMAN", "WORKSHOP"]
    good: Good


class SkipSpecialMarker(Decision):
    type: Literal["skip_special_marker"] = "skip_special_marker"


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
    """D-31: at this call, sell a stored good of the active kind from a warehouse."""

    type: Literal["sell_from_warehouse"] = "sell_from_warehouse"
    warehouse: Warehouse = "large"


class UseExtraShifts(Decision):
    """D-31: at the first call after your production is sold, return the tile for one more good."""

    type: Literal["use_extra_shifts"] = "use_extra_shifts"


class CloseLastRow(Decision):
    """D-30 school: the last occupied row of your active factory produces and costs nothing."""

    type: Literal["close_last_row"] = "close_last_row"
    close: bool


class PatronSale(Decision):
    """D-32: after the sale, sell one more good to your patron at your price."""

    type: Literal["patron_sale"] = "patron_sale"
    source: Literal["surplus", "large", "small"] | None = Field(None, description="None: no patron sale")


class ShipContract(Decision):
    """D-33: ship the active good's contract now (both ships' capacity), or not.

    The goods come from this production's unsold surplus and the two warehouses. Without
    ``from_*`` the surplus goes first, then the large warehouse, then the small one; naming any
    source names them all (a source left out gives none) and they must add up to the goods
    shipped."""

    type: Literal["ship_contract"] = "ship_contract"
    fulfil: bool
    agent: int = Field(0, ge=-1, le=1)
    from_surplus: int | None = Field(
        None, ge=0, le=12, description="Goods of the active kind from this production's unsold surplus"
    )
    from_large: int | None = Field(None, ge=0, le=12, description="Goods from the large warehouse")
    from_small: int | None = Field(None, ge=0, le=12, description="Goods from the small warehouse")

    def sources(self) -> tuple[int, int, int] | None:
        """(surplus, large, small) as chosen, or None for the default order."""
        chosen = (self.from_surplus, self.from_large, self.from_small)
        if all(x is None for x in chosen):
            return None
        return (self.from_surplus or 0, self.from_large or 0, self.from_small or 0)


class StoreGoods(Decision):
    """D-34: a storage conflict (the production phase's surplus, or a production action's output,
    does not all fit): the final contents of both warehouses, per good (food, clothes, cutlery,
    lamps). New goods come only from that surplus or output; stored goods may be discarded (no
    compensation) or moved between the warehouses; whatever is not kept goes back to the supply."""

    type: Literal["store_goods"] = "store_goods"
    large: PerGood = Field(description="The large warehouse afterwards: food, clothes, cutlery, lamps")
    small: PerGood = Field(
        (0, 0, 0, 0), description="The small warehouse tile afterwards: food, clothes, cutlery, lamps"
    )


class ReleaseShip(Decision):
    """D-40: return a ship with its whole crew (the workers to the fired space)."""

    type: Literal["release_ship"] = "release_ship"
    ship: str


class UseCharisma(Decision):
    """D-20/D-43: return the charisma tile to name the start player (seat None: keep it)."""

    type: Literal["use_charisma"] = "use_charisma"
    seat: int | None = Field(None, ge=0, le=3)


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


class ChooseStartPlayer(vocabulary.ChooseStartPlayer):
    """D-44: the owner of the least valuable portfolio names the next start player."""


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
    | UsePatent
    | ProduceGoods
    | DeliverContract
    | PlaceContract
    | TakeTile
    | TakeGreyMarker
    | TakeShip
    | UseBroker
    | ReassignTile
    | SkipSpecialMarker
    | UseExtraShifts
    | CloseLastRow
    | PatronSale
    | ShipContract
    | StoreGoods
    | ReleaseShip
    | UseCharisma
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
