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
    war_entry: bool = Field(
        False, description="Reputation: pay 3 regional reputation to enter a region at war"
    )
    created: tuple[Literal["REGULAR", "VIP"], ...] = Field(
        (), description="Reputation: passengers created for 2 (VIP: 3) passenger tokens, in free cabins"
    )


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
    despite_war: bool = Field(
        False, description="Reputation: pay 1 regional reputation to stay despite a war"
    )


class RevealTopShip(Decision):
    """Reputation use 1: discard a passenger token to turn up the top ship card."""

    type: Literal["reveal_top_ship"] = "reveal_top_ship"


class TakeRevealedShip(Decision):
    """Rent the ship card just turned up."""

    type: Literal["take_revealed_ship"] = "take_revealed_ship"


class DiscardRevealedShip(Decision):
    type: Literal["discard_revealed_ship"] = "discard_revealed_ship"


class PeekContract(Decision):
    """Reputation use 4: pay 1 regional reputation to look at a face-down contract."""

    type: Literal["peek_contract"] = "peek_contract"
    region: Region
    slot: int = Field(ge=1, le=8, description="Position in the region's contract row, 1 first")


class RevealTopContract(Decision):
    """Reputation use 6: pay 2 regional reputation to turn up the top contract of the region's deck."""

    type: Literal["reveal_top_contract"] = "reveal_top_contract"


class TakeRevealedContract(Decision):
    type: Literal["take_revealed_contract"] = "take_revealed_contract"


class DiscardRevealedContract(Decision):
    type: Literal["discard_revealed_contract"] = "discard_revealed_contract"


class ChooseShareToSell(Decision):
    """CT-D-07 (shares trade): the share to auction: your lowest-numbered own share, or any other."""

    type: Literal["choose_share_to_sell"] = "choose_share_to_sell"
    company: int = Field(ge=0, le=5)
    number: int = Field(ge=1, le=4)


class Bid(Decision):
    """CT-D-08: a bid paid with exactly these coins; worth more than the standing bid."""

    type: Literal["bid"] = "bid"
    pounds: int = Field(0, ge=0, le=999)
    shillings: int = Field(0, ge=0, le=999)
    pence: int = Field(0, ge=0, le=999)


class PassBid(Decision):
    """CT-D-08: pass; passing is final."""

    type: Literal["pass_bid"] = "pass_bid"


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
    | ReturnAllShips
    | RevealTopShip
    | TakeRevealedShip
    | DiscardRevealedShip
    | PeekContract
    | RevealTopContract
    | TakeRevealedContract
    | DiscardRevealedContract
    | ChooseShareToSell
    | Bid
    | PassBid,
    Field(discriminator="type"),
]

DECISION_ADAPTER: TypeAdapter[CottonTradeDecision] = TypeAdapter(CottonTradeDecision)
