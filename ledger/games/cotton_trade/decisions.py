"""Cotton Trade decisions (spec §3), each a small step a player says at the table."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, TypeAdapter

from ledger.engine import Decision, decision_adapter
from ledger.games.cotton_trade.components import Region


class RentShip(Decision, type="rent_ship"):
    """CT-D-01: rent the ship card from the ship card row."""

    card: str = Field(description="Ship card id in the ship card row")


class PassRenting(Decision, type="pass_renting"):
    """CT-D-01 PASS: skip the rest of the rent phase."""


class SailShip(Decision, type="sail_ship"):
    """CT-D-04: move one of your ships from the United Kingdom to a cotton region."""

    capacity: int = Field(ge=1, le=4, description="Capacity of your ship in the United Kingdom")
    region: Region
    overtake: bool = Field(False, description="A fast ship slides back the last ship and takes its spot")
    war_entry: bool = Field(
        False, description="Reputation: pay 3 regional reputation to enter a region at war"
    )
    created: tuple[Literal["REGULAR", "VIP"], ...] = Field(
        (), description="Reputation: passengers created for 2 (VIP: 3) passenger tokens, in free cabins"
    )


class BuyContract(Decision, type="buy_contract"):
    """CT-D-05: the ship whose turn it is buys one contract from its region's row."""

    card: str = Field(description="Contract card id in the region's contract row")


class DeclineContract(Decision, type="decline_contract"):
    """CT-D-05 NONE: buying cotton is not mandatory."""


class ReturnShip(Decision, type="return_ship"):
    """CT-D-06: the empty ship sails back to the United Kingdom."""


class StayInRegion(Decision, type="stay_in_region"):
    """CT-D-06: the empty ship opts to stay for the next harvest."""

    despite_war: bool = Field(
        False, description="Reputation: pay 1 regional reputation to stay despite a war"
    )


class KeepNewShip(Decision, type="keep_new_ship"):
    """CT-D-09: keep a NEW-icon ship as a Good ol' Ship instead of the refund."""

    card: str


class ReturnAllShips(Decision, type="return_all_ships"):
    """CT-D-09 NONE: give every ship back for its rental fee."""


class RevealTopShip(Decision, type="reveal_top_ship"):
    """Reputation use 1: discard a passenger token to turn up the top ship card."""


class TakeRevealedShip(Decision, type="take_revealed_ship"):
    """Rent the ship card just turned up."""


class DiscardRevealedShip(Decision, type="discard_revealed_ship"):
    pass


class PeekContract(Decision, type="peek_contract"):
    """Reputation use 4: pay 1 regional reputation to look at a face-down contract."""

    region: Region
    slot: int = Field(ge=1, le=8, description="Position in the region's contract row, 1 first")


class RevealTopContract(Decision, type="reveal_top_contract"):
    """Reputation use 6: pay 2 regional reputation to turn up the top contract of the region's deck."""


class TakeRevealedContract(Decision, type="take_revealed_contract"):
    pass


class DiscardRevealedContract(Decision, type="discard_revealed_contract"):
    pass


class ChooseShareToSell(Decision, type="choose_share_to_sell"):
    """CT-D-07 (shares trade): the share to auction: your lowest-numbered own share, or any other."""

    company: int = Field(ge=0, le=5)
    number: int = Field(ge=1, le=4)


class Bid(Decision, type="bid"):
    """CT-D-08: a bid paid with exactly these coins; worth more than the standing bid."""

    pounds: int = Field(0, ge=0, le=999)
    shillings: int = Field(0, ge=0, le=999)
    pence: int = Field(0, ge=0, le=999)


class PassBid(Decision, type="pass_bid"):
    """CT-D-08: pass; passing is final."""


DECISION_ADAPTER: TypeAdapter[Any] = decision_adapter(__name__)
