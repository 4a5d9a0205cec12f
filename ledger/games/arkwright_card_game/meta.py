"""What the service needs to know about Arkwright: The Card Game without loading its engine."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from ledger.engine import TitleMeta, TitleOptions
from ledger.games.arkwright_card_game.components import load

EXPERT_VARIANTS = (
    "decade_restrictions",
    "choose_start",
    "no_starting_ships",
    "random_dev_supply",
    "starting_shares",
    "extra_production",
    "early_shipping",
)


class CardGameOptions(TitleOptions):
    """Expert variants (spec §1.4; each independent) and switches for the ambiguities (spec §8)."""

    decade_restrictions: bool = Field(
        False, description="Expert setup 3: development levels need their decade; some cards lift it."
    )
    choose_start: bool = Field(
        False,
        description="Expert setup 4: draft the two starting factories and choose the starting development.",
    )
    no_starting_ships: bool = Field(False, description="Expert setup 7: the shipping card starts in reserve.")
    random_dev_supply: bool = Field(
        False,
        description="Expert setup 10: a random supply of development cards from all 24 double-sided cards.",
    )
    starting_shares: bool = Field(
        False, description="Expert setup 11: buy shares at £10 each before the game."
    )
    extra_production: bool = Field(False, description="Expert action 6: Extra Production.")
    early_shipping: bool = Field(False, description="Expert action 7: Early Shipping.")
    expert: Literal["", "all"] = Field("", description='"all" turns every expert variant on.')
    build_market_per_factory: bool = Field(
        False,
        description="A-40: building moves demand and wages once per factory built (default: once per action).",
    )
    extra_production_decay: bool = Field(
        False, description="A-09: Extra Production also reduces the factory's distribution by one."
    )
    patron_capped_by_appeal: bool = Field(
        False,
        description="A-39: the Patron's extra good is still capped by the appeal (default: not capped).",
    )
    ship_limit_counts_ships: bool = Field(
        False,
        description="A-24: at most 9 ships used in the game, Customs Office or not (default: 9 shipping tokens).",
    )
    quality_cards: Literal["each_1_to_4", "two_low_one_high"] = Field(
        "each_1_to_4", description="A-38: value ranges of the three quality cards."
    )
    inventor_expert_anywhere: bool = Field(
        False,
        description="A-41: the Inventor's expert use (two developments) without the decade-restriction variant.",
    )

    @model_validator(mode="before")
    @classmethod
    def _expert_all(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("expert") == "all":
            return {**data, **dict.fromkeys(EXPERT_VARIANTS, True)}
        return data


META = TitleMeta(
    id="arkwright-card-game",
    name="Arkwright: The Card Game",
    min_players=load().min_players,
    max_players=load().max_players,
    description=(
        "Build factories, employ workers, automate, and set price and appeal of the active good over "
        "three decades of four rounds; sell against a shared demand, ship overseas, and turn money "
        "into shares: the highest share value times shares wins."
    ),
    options=CardGameOptions,
    rules_version="arkwright-card-game/1",
    engine_module="ledger.games.arkwright_card_game.rules",
    highlights=(
        "factory_upgraded",
        "development_card_taken",
        "card_rotated",
        "goods_stored",
        "goods_shipped",
        "emergency_fund_used",
        "player_eliminated",
    ),
)
