"""What the service needs to know about Cotton Trade without loading its engine."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ledger.engine import TitleMeta, TitleOptions


class CottonTradeOptions(TitleOptions):
    """Rule modules (spec §1.4) and resolution flags of the ambiguities (spec §8)."""

    shares_trade: bool = Field(
        False,
        description="Advanced rules: sold shares are auctioned among players; bank shares at stage ends.",
    )
    reputation: bool = Field(False, description="Advanced rules: company reputation and its seven uses.")
    unrest_scope: Literal["GLOBAL_SUM", "PER_REGION"] = Field(
        "GLOBAL_SUM", description="A-01: war when the summed unrest of all contracts reaches the threshold."
    )
    share_sale_for_voluntary_purchases: Literal["ALLOWED", "FORBIDDEN"] = Field(
        "ALLOWED", description="A-04: may shares be sold to pay for a rented ship or a contract."
    )
    adv_change: Literal["CASCADE", "LITERAL"] = Field(
        "CASCADE", description="A-34 (shares trade): older coins change upward between stages and at the end."
    )
    final_tiebreak: Literal["LEXICOGRAPHIC", "TOTAL_VALUE"] = Field(
        "LEXICOGRAPHIC", description="A-11: ties on pounds broken by shillings then pence."
    )


# the uses of reputation (the module "Reputation"); spending it on each is a highlight of the log
REPUTATION_USES = (
    "reveal_top_ship",
    "peek_contract",
    "create_passenger",
    "create_vip",
    "enter_war",
    "reveal_top_contract",
    "stay_despite_war",
)

META = TitleMeta(
    id="cotton-trade",
    name="Cotton Trade 1800-1860",
    min_players=2,
    max_players=6,
    description=(
        "Rent ships, buy cotton contracts in four regions and sell on a shrinking "
        "demand row over nine rounds in three currencies."
    ),
    options=CottonTradeOptions,
    rules_version="cotton-trade/3",
    engine_module="ledger.games.cotton_trade.rules",
    highlights=(
        "war_broke",
        "share_sold",
        "share_auctioned",
        "bid_made",
        *(f"reputation_spent:{use}" for use in REPUTATION_USES),
    ),
)
