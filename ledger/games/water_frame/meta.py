"""What the service needs to know about Water Frame without loading its engine."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ledger.engine import TitleMeta, TitleOptions


class WaterFrameOptions(TitleOptions):
    """Variant modules (spec §2.1) and resolution switches of the ambiguities (spec §9.2)."""

    edition: Literal["2016", "2014"] = Field(
        "2016", description="Rulebook edition; 2016 (Capstone) is the primary source."
    )
    predetermined_setup: bool = Field(
        False, description="The 'Predetermined Set Up' of the rulebook (fixed factories, shares, events)."
    )
    predetermined_events_shuffled: bool = Field(
        False,
        description="With the predetermined setup: Lobby, War on the Continent and World Exhibition placed at random.",
    )
    patron_variant: bool = Field(
        False, description="First games: the four patrons lie on the display from the start."
    )
    importer_top_up: bool = Field(
        True, description="A-03: the importer keeps selling down to level 1 (R14/D14)."
    )
    emergency_digit_mode: Literal["leading", "tens"] = Field(
        "leading", description="A-11: spaces lost per emergency-sold share on single-digit spaces."
    )


META = TitleMeta(
    id="water-frame",
    name="Arkwright: Water Frame",
    min_players=2,
    max_players=4,
    description=(
        "Build and modernise factories, hire workers and buy machines, set prices and appeal, "
        "and sell against English demand over five decades; the most valuable company wins."
    ),
    options=WaterFrameOptions,
    rules_version="water-frame/3",
    engine_module="ledger.games.water_frame.rules",
    highlights=(
        "tile_taken",
        "grey_marker_taken",
        "ship_taken",
        "contract_placed",
        "contract_delivered",
        "goods_made_by_action",
    ),
)
