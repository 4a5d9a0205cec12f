"""Water Frame decisions (spec §3, §6): small steps, each what a player says at the table."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from ledger.engine import Decision, decision_adapter
from ledger.games import vocabulary
from ledger.games.water_frame.components import Tile

Good = Literal["FOOD", "CLOTHES", "CUTLERY", "LAMPS"]
Action = Literal[
    "FACTORY", "WORKERS", "MACHINERY", "QUALITY", "DISTRIBUTION", "STOCK_EXCHANGE", "PRODUCTION", "SHIP"
]
Shade = Literal["OWN", "LIGHT", "DARK"]
InventorUse = Literal["return", "pay"]
Warehouse = Literal["large", "small"]
Count = Annotated[int, Field(ge=0, le=99)]
PerGood = tuple[Count, Count, Count, Count]
Edge = Annotated[str, Field(pattern=r"^(col:(FOOD|CLOTHES|CUTLERY|LAMPS)|row:[1-5])$")]


class FoundFactory(Decision, type="found_factory"):
    """D-01/D-02: found a level-I factory and set its price (appeal at least 0)."""

    good: Good
    price: int = Field(ge=1, le=99)


class SellStartShares(Decision, type="sell_start_shares"):
    """D-03: sell own shares at £10 each for the start-up capital."""

    count: int = Field(ge=0, le=30)


class PlaceMarker(Decision, type="place_marker"):
    """D-10: place an action marker (own colour, grey, or a ship) on an empty space of your column."""

    action: Action
    space: int = Field(description="Administrative cost of the space: 2, 4, 6, 8 or 10")
    shade: Shade = Field("OWN", description="OWN colour, or a LIGHT / DARK grey marker you own")
    ship: str | None = Field(None, description="For the SHIP action: which of your ships")
    accountant: int = Field(0, ge=-2, le=2, description="Accountant: pay up to £2 less or more")
    engineer_payment: int | None = Field(
        None, ge=0, le=30, description="Engineer: the amount paid for quality"
    )


class ReuseMarker(Decision, type="reuse_marker"):
    """D-10 REUSE: use again a marker already on your column this decade (its cost plus £2)."""

    action: Action
    shade: Shade = "OWN"
    ship: str | None = None
    accountant: int = Field(0, ge=-2, le=2)
    engineer_payment: int | None = Field(None, ge=0, le=30)


class BuildFactory(Decision, type="build_factory"):
    good: Good
    level: int = Field(ge=1, le=4)
    price: int = Field(ge=1, le=99)
    developer: bool = Field(
        False, description="Use the developer: £5 off (the tile returns after the action)"
    )


class ModernizeFactory(Decision, type="modernize_factory"):
    """One level up, paid in full at the new level's cost."""

    good: Good
    developer: bool = False
    inventor: InventorUse | None = Field(
        None, description="Beyond the current level with the inventor: then return it or pay its fee"
    )


class CloseFactory(Decision, type="close_factory"):
    good: Good


class HireWorkers(Decision, type="hire_workers"):
    """Hire from the job market (reading order) into a production row."""

    good: Good
    row: int = Field(ge=1, le=4)
    count: int = Field(1, ge=1, le=12)


class HireWarehouseWorker(Decision, type="hire_warehouse_worker"):
    """Hire a worker onto an edge of the large warehouse: a column (5 of that good) or a row."""

    edge: Edge


class MoveWarehouseWorker(Decision, type="move_warehouse_worker"):
    from_edge: Edge
    to_edge: Edge


class FireWorkers(Decision, type="fire_workers"):
    """Fire workers of one factory, from the rightmost production rows first; row 1 stays complete."""

    good: Good
    count: int = Field(1, ge=1, le=12)


class PlaceMachine(Decision, type="place_machine"):
    """A machine replaces a worker on a flexible slot of the row; the worker is fired."""

    good: Good
    row: int = Field(ge=1, le=4)
    school_to_good: Good | None = Field(None, description="School: move the replaced worker to this factory")
    school_to_row: int | None = Field(None, ge=1, le=4)


class RaiseQuality(Decision, type="raise_quality"):
    good: Good


class RaiseDistribution(Decision, type="raise_distribution"):
    good: Good


class BuyShares(Decision, type="buy_shares"):
    count: int = Field(1, ge=1, le=30)


class SellShares(Decision, type="sell_shares"):
    count: int = Field(1, ge=1, le=30)


class RepayLoans(Decision, type="repay_loans"):
    count: int = Field(1, ge=1, le=99)


class SellStoredGoods(Decision, type="sell_stored_goods"):
    """Sell goods from the warehouse at the fixed prices (food £2 ... lamps £5)."""

    good: Good
    count: int = Field(1, ge=1, le=20)


class UsePatent(Decision, type="use_patent"):
    """Distribution: keep the patent for £2 beyond the marker's limit, or return it for two free +1 raises."""

    option: Literal["extra_budget", "free_raises"]


class ProduceGoods(Decision, type="produce_goods"):
    """PRODUCTION (grey marker): rows 1..rows of one factory produce into your warehouses."""

    good: Good
    rows: int = Field(ge=1, le=4)
    extra_shift: bool = Field(False, description="Return the extra shifts tile for one more good")


class DeliverContract(Decision, type="deliver_contract"):
    """SHIP: deliver one whole contract from your warehouses with the ship on the chart."""

    good: Good
    agent: int = Field(0, ge=-1, le=1, description="Agent in the colonies: one good more or less")


class PlaceContract(Decision, type="place_contract"):
    """Stock exchange: place a contract marker, or move one to a higher space."""

    good: Good
    space: int = Field(description="A contract space: 2, 4, 6, 8, 10 (2 players: 2, 4)")


class TakeTile(Decision, type="take_tile"):
    """Take a special marker: a development tile from the display."""

    tile: Tile
    give_back: Tile | None = Field(None, description="With four tiles already: the tile returned")
    assign: Good | None = Field(
        None, description="Foreman and workshop (required for them): the factory of yours it serves"
    )


class TakeGreyMarker(Decision, type="take_grey_marker"):
    """Take a special marker: an advanced action marker from the special markers mat."""

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


class TakeShip(Decision, type="take_ship"):
    """Take a special marker: a ship (its crew is hired at once)."""

    ship: str
    give_back: str | None = Field(None, description="With two ships: the (smaller) ship returned")
    inventor: InventorUse | None = None


class UseBroker(Decision, type="use_broker"):
    """Instead of a special marker: return the broker and buy 1 or 2 shares at half price."""

    count: int = Field(ge=1, le=2)


class ReassignTile(Decision, type="reassign_tile"):
    """Instead of a special marker: move the foreman or the workshop to another factory."""

    tile: Literal["FOREMAN", "WORKSHOP"]
    good: Good


class SkipSpecialMarker(Decision, type="skip_special_marker"):
    pass


class UseExtraShifts(Decision, type="use_extra_shifts"):
    """D-31: at the first call after your production is sold, return the tile for one more good."""


class CloseLastRow(Decision, type="close_last_row"):
    """D-30 school: the last occupied row of your active factory produces and costs nothing."""

    close: bool


class PatronSale(Decision, type="patron_sale"):
    """D-32: after the sale, sell one more good to your patron at your price."""

    source: Literal["surplus", "large", "small"] | None = Field(None, description="None: no patron sale")


class ShipContract(Decision, type="ship_contract"):
    """D-33: ship the active good's contract now (both ships' capacity), or not.

    The goods come from this production's unsold surplus and the two warehouses. Without
    ``from_*`` the surplus goes first, then the large warehouse, then the small one; naming any
    source names them all (a source left out gives none) and they must add up to the goods
    shipped."""

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


class StoreGoods(Decision, type="store_goods"):
    """D-34: a storage conflict (the production phase's surplus, or a production action's output,
    does not all fit): the final contents of both warehouses, per good (food, clothes, cutlery,
    lamps). New goods come only from that surplus or output; stored goods may be discarded (no
    compensation) or moved between the warehouses; whatever is not kept goes back to the supply."""

    large: PerGood = Field(description="The large warehouse afterwards: food, clothes, cutlery, lamps")
    small: PerGood = Field(
        (0, 0, 0, 0), description="The small warehouse tile afterwards: food, clothes, cutlery, lamps"
    )


class ReleaseShip(Decision, type="release_ship"):
    """D-40: return a ship with its whole crew (the workers to the fired space)."""

    ship: str


class UseCharisma(Decision, type="use_charisma"):
    """D-20/D-43: return the charisma tile to name the start player (seat None: keep it)."""

    seat: int | None = Field(None, ge=0, le=3)


class AdjustPrice(Decision, type="adjust_price"):
    """Additional action: a new price for a factory the main action affected (or paid £1 for)."""

    good: Good
    price: int = Field(ge=1, le=99)


class FinishMainAction(Decision, type="finish_main_action"):
    """Done with the main action: its costs are paid and the additional action may follow."""


class EndTurn(Decision, type="end_turn"):
    pass


class SellFromWarehouse(Decision, type="sell_from_warehouse"):
    """D-31: at this call, sell a stored good of the active kind from a warehouse."""

    warehouse: Warehouse = "large"


class StopSelling(Decision, type="stop_selling"):
    """D-31: stop selling in this production phase."""


class ReleaseWarehouseWorker(Decision, type="release_warehouse_worker"):
    """D-40: release a warehouse worker to the fired space (after the event-phase wages)."""

    edge: Edge


class Done(Decision, type="done"):
    """Finish a sequence of optional steps (releases, the final stock exchange)."""


class ChooseStartPlayer(vocabulary.ChooseStartPlayer):
    """D-44: the owner of the least valuable portfolio names the next start player."""


DECISION_ADAPTER: TypeAdapter[Any] = decision_adapter(__name__)
