"""What the service needs to know about Cotton Trade without loading its engine."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ledger.engine import TitleMeta, TitleOptions


class CottonTradeOptions(TitleOptions):
    """Rule modules (spec §1.4) and resolution flags of the ambiguities (spec §8)."""

    shares_trade: bool = Field(
        False, description="Advanced rules: shares are auctioned among players (not yet playable)."
    )
    reputation: bool = Field(False, description="Advanced rules: company reputation (not yet playable).")
    unrest_scope: Literal["GLOBAL_SUM", "PER_REGION"] = Field(
        "GLOBAL_SUM", description="A-01: war when the summed unrest of all contracts reaches the threshold."
    )
    share_sale_for_voluntary_purchases: Literal["ALLOWED", "FORBIDDEN"] = Field(
        "ALLOWED", description="A-04: may shares be sold to pay for a rented ship or a contract."
    )
    final_tiebreak: Literal["LEXICOGRAPHIC", "TOTAL_VALUE"] = Field(
        "LEXICOGRAPHIC", description="A-11: ties on pounds broken by shillings then pence."
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
    rules_version="cotton-trade/1",
    engine_module="ledger.games.cotton_trade.rules",
)
