"""What the service needs to know about Water Frame without loading its engine."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ledger.engine import TitleMeta, TitleOptions


def _edition_switch(description: str) -> Any:
    """A switch that came after games had been recorded without it: unset (None, left out of the
    stored options) it plays as those games did (the start player drawn, the school before the
    sale). A new game created through the API takes its edition's default (``EDITION_DEFAULTS``)."""
    return Field(None, exclude_if=lambda v: v is None, description=description)


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
    start_player: Literal["random", "chosen"] | None = _edition_switch(
        "Whether the start player is drawn at random or chosen by the game's creator (the first "
        "seat) as the game's first decision; unset, a new game follows its edition (2016 drawn, "
        "2014 chosen)."
    )
    school_timing: Literal["before_sale", "during_sale"] | None = _edition_switch(
        "Whether the school's owner closes his last row before the sale or during it, until a "
        "good of that row is sold; unset, a new game follows its edition (2016 before, 2014 "
        "during)."
    )

    @property
    def chosen_start_player(self) -> bool:
        """The table names the start player (the 2014 reading); unset: drawn, as recorded."""
        return self.start_player == "chosen"

    @property
    def school_during_sale(self) -> bool:
        """The school closes a row during the sale (the 2014 reading); unset: before it."""
        return self.school_timing == "during_sale"

    @classmethod
    def for_new_game(cls, options: dict[str, Any]) -> dict[str, Any]:
        """A new game's options with the switches left unset given their edition's default."""
        edition = options.get("edition", "2016")
        defaults = EDITION_DEFAULTS.get(edition, {}) if isinstance(edition, str) else {}
        return {**options, **{k: v for k, v in defaults.items() if options.get(k) is None}}


EDITION_DEFAULTS: dict[str, dict[str, str]] = {
    "2016": {"start_player": "random", "school_timing": "before_sale"},
    "2014": {"start_player": "chosen", "school_timing": "during_sale"},
}
"""The start player and the school's timing as each rulebook edition has them (spec §2.1, A-13):
the 2014 rulebooks let the players determine the start player "in a manner that suits them" and
the school's owner close the row "at any time" until a good of it is sold."""


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
    rules_version="water-frame/4",
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
