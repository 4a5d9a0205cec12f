"""Cotton Trade decisions (spec §3), each a small step a player says at the table."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from ledger.engine import Decision
from ledger.games.cotton_trade.components import Region


class RentShip(Decision):
    """CT-D-01: rent the ship card from the ship card row."""

    type: Literal["rent_ship"] = "rent_ship"
    card: str = Field(description="Ship card id in the ship card row")


class PassRenting(Decision):
    """CT-D-01 PASS: skip the rest of the rent phase."""

    type: Literal["pass_renting"] = "pass_renting"


class SailShip(Decision):
    """CT-D-04: move one of your ships from the United Kingdom to a cotton region."""

    type: Literal["sail_ship"] = "sail_ship"
    capacity: int = Field(ge=1, le=4, description="Capacity of your ship in the United Kingdom")
    region: Region
    overtake: bool = Field(False, description="A fast ship slides back the last ship and takes its spot")


class BuyContract(Decision):
    """CT-D-05: the ship whose turn it is buys one contract from its region's row."""

    type: Literal["buy_contract"] = "buy_contract"
    card: str = Field(description="Contract card id in the region's contract row")


class DeclineContract(Decision):
    """CT-D-05 NONE: buying cotton is not mandatory."""

    type: Literal["decline_contract"] = "decline_contract"


class ReturnShip(Decision):
    """CT-D-06: the empty ship sails back to the United Kingdom."""

    type: Literal["return_ship"] = "return_ship"


class StayInRegion(Decision):
    """CT-D-06: the empty ship opts to stay for the next harvest."""

    type: Literal["stay_in_region"] = "stay_in_region"


class KeepNewShip(Decision):
    """CT-D-09: keep a NEW-icon ship as a Good ol' Ship instead of the refund."""

    type: Literal["keep_new_ship"] = "keep_new_ship"
    card: str


class ReturnAllShips(Decision):
    """CT-D-09 NONE: give every ship back for its rental fee."""

    type: Literal["return_all_ships"] = "return_all_ships"


CottonTradeDecision = Annotated[
    RentShip
    | PassRenting
    | SailShip
    | BuyContract
    | DeclineContract
    | ReturnShip
    | StayInRegion
    | KeepNewShip
    | ReturnAllShips,
    Field(discriminator="type"),
]

DECISION_ADAPTER: TypeAdapter[CottonTradeDecision] = TypeAdapter(CottonTradeDecision)
