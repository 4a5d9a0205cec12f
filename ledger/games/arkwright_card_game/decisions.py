"""Arkwright: The Card Game decisions (spec §3): small steps, each what a player says at the table."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from ledger.engine import Decision
from ledger.games import vocabulary

Good = Literal["FOOD", "CLOTHES", "CUTLERY", "LAMPS"]
Track = Literal["QUALITY", "DISTRIBUTION", "DEV_CARDS", "MACHINERY", "SHIP", "STOCK_EXCHANGE"]
Action = Literal[
    "BUILD",  # 1 build and/or upgrade factories
    "EMPLOY",  # 2 employ workers
    "AUTOMATE",  # 3 automate production
    "QUALITY",  # 4 add quality ...
    "DISTRIBUTION",  # 4 ... or distribution
    "STOCK_EXCHANGE",  # 5
    "EXTRA_PRODUCTION",  # 6 (expert)
    "EARLY_SHIPPING",  # 7 (expert)
]
CardType = Literal[
    "ENTREPRENEUR",
    "CUSTOMS_OFFICE",
    "EXTRA_SHIFT",
    "WORKSHOP",
    "FOREMAN",
    "BROKER",
    "PATRON_CLOTHES_FOOD",
    "PATRON_CUTLERY_FOOD",
    "PATRON_LAMPS_CUTLERY",
    "PATRON_CUTLERY_CLOTHES",
    "PATRON_LAMPS_FOOD",
    "PATRON_LAMPS_CLOTHES",
    "INVENTOR",
    "DEVELOPER",
    "CONTRACT",
    "PATENT",
    "ENGINEER",
    "BIG_STOREHOUSE",
]
QualityCardId = Literal["Q1", "Q2", "Q3", "ENGINEER"]
DistributionCardId = Literal["D1", "D2", "PATENT"]
StorehouseId = Literal["S1", "S2", "BIG"]
Mode = Literal["PRICE", "APPEAL"]


# --- setup -------------------------------------------------------------------------


class ChooseStartingFactory(Decision):
    """ACG-D-03 (expert): take a starting factory from your reserve."""

    type: Literal["choose_starting_factory"] = "choose_starting_factory"
    good: Good


class PlaceForeman(Decision):
    """ACG-D-02: place your starting Foreman beside one of your factories."""

    type: Literal["place_foreman"] = "place_foreman"
    good: Good


class BuyStartingShares(Decision):
    """ACG-D-05 (expert): buy shares at £10 each from your £50."""

    type: Literal["buy_starting_shares"] = "buy_starting_shares"
    count: int = Field(ge=0, le=99)


# --- step a: one action -------------------------------------------------------------


class ChooseAction(Decision):
    """Step a: the action of this turn; its small steps follow, then finish_action."""

    type: Literal["choose_action"] = "choose_action"
    action: Action


class SkipAction(Decision):
    """Step a: take no action this turn (A-37)."""

    type: Literal["skip_action"] = "skip_action"


class BuildFactory(Decision):
    """Action 1: open a factory from your reserve (its office card on the price side)."""

    type: Literal["build_factory"] = "build_factory"
    good: Good


class UpgradeFactory(Decision):
    """Action 1: flip a factory to decade II and its worker cards as the decade allows."""

    type: Literal["upgrade_factory"] = "upgrade_factory"
    good: Good


class UpgradeWithInventor(Decision):
    """Action 1: discard the Inventor to upgrade up to 2 different factories one decade, any decade."""

    type: Literal["upgrade_with_inventor"] = "upgrade_with_inventor"
    goods: tuple[Good, ...] = Field(min_length=1, max_length=4)


class HireWorker(Decision):
    """Action 2: add the factory's next worker card (position 1, then 2)."""

    type: Literal["hire_worker"] = "hire_worker"
    good: Good


class AddMachine(Decision):
    """Action 3: replace one worker of a worker card with a machine (machine token, then rotation)."""

    type: Literal["add_machine"] = "add_machine"
    good: Good
    position: int = Field(ge=1, le=9)


class SetQualityCard(Decision):
    """Action 4 (quality): put a quality card at a factory with a value and side, or back in reserve."""

    type: Literal["set_quality_card"] = "set_quality_card"
    card: QualityCardId
    good: Good | None = Field(None, description="None: back to the reserve")
    value: int = Field(0, ge=0, le=9)
    mode: Mode = "APPEAL"


class SetDistributionCard(Decision):
    """Action 4 (distribution): put a distribution card at a factory with a value, or back in reserve."""

    type: Literal["set_distribution_card"] = "set_distribution_card"
    card: DistributionCardId
    good: Good | None = None
    value: int = Field(0, ge=0, le=9)


class BuyShares(Decision):
    """Action 5, step 1: buy shares, some at the stock exchange discount (once per turn)."""

    type: Literal["buy_shares"] = "buy_shares"
    discounted: int = Field(0, ge=0, le=9)
    full: int = Field(0, ge=0, le=999)


class TakeLoans(Decision):
    """Action 5, step 2: bank loans at the current share value each."""

    type: Literal["take_loans"] = "take_loans"
    count: int = Field(ge=1, le=9)


class RegainShips(Decision):
    """Action 5, step 3: the shipping card back with 2 ships."""

    type: Literal["regain_ships"] = "regain_ships"


class ProduceExtra(Decision):
    """Action 6 (expert): a factory produces with 0, 1 or 2 of its worker cards, into storehouses."""

    type: Literal["produce_extra"] = "produce_extra"
    good: Good
    worker_cards: int = Field(ge=0, le=9)
    extra_shift: bool = Field(False, description="Discard the Extra Shift: one more good")


class StoreGoods(Decision):
    """Put goods of the factory now producing into a storehouse (from reserve, at that factory, or
    taken from another factory: its goods are wasted)."""

    type: Literal["store_goods"] = "store_goods"
    storehouse: StorehouseId
    count: int = Field(ge=1, le=9)


class ShipStoredGoods(Decision):
    """Action 7 (expert): one ship with goods from one or several storehouses."""

    type: Literal["ship_stored_goods"] = "ship_stored_goods"
    loads: tuple[tuple[StorehouseId, int], ...] = Field(min_length=1, max_length=9)
    customs_office: bool = False


class FinishAction(Decision):
    type: Literal["finish_action"] = "finish_action"


class UseDeveloper(Decision):
    """ACG-D-09: during your turn, rotate the Developer to reactivate another rotated card."""

    type: Literal["use_developer"] = "use_developer"
    card: CardType


# --- step b ---------------------------------------------------------------------------


class SetPriceAndAppeal(Decision):
    """Step b: factory token spot, office side and quality sides of the active good's factory."""

    type: Literal["set_price_and_appeal"] = "set_price_and_appeal"
    spot: int = Field(ge=1, le=9)
    office: Mode = "PRICE"
    appeal_cards: tuple[QualityCardId, ...] = Field((), description="Quality cards turned to appeal")


# --- step c ---------------------------------------------------------------------------


class TakeDevelopment(Decision):
    """Step c: move a development marker on your player board one step."""

    type: Literal["take_development"] = "take_development"
    track: Track


class TakeDevelopmentCard(Decision):
    """Step c: take a development card from the general supply."""

    type: Literal["take_development_card"] = "take_development_card"
    card: CardType
    foreman_good: Good | None = Field(None, description="The Foreman's factory")


class DiscardDevelopmentCard(Decision):
    """Step c: return a card to the supply to make room for a new one."""

    type: Literal["discard_development_card"] = "discard_development_card"
    card: CardType


class UseBroker(Decision):
    """Step c instead of a development: discard the Broker, buy up to 2 shares at half value."""

    type: Literal["use_broker"] = "use_broker"
    count: int = Field(ge=0, le=9)


class UseInventor(Decision):
    """Step c instead of a development (expert): discard the Inventor, 2 different developments."""

    type: Literal["use_inventor"] = "use_inventor"
    tracks: tuple[Track, Track]


class SkipDevelopment(Decision):
    type: Literal["skip_development"] = "skip_development"


class PlaceReplacementQuality(Decision):
    """ACG-D-14: a reserve quality card in place of the discarded Engineer, up to its value."""

    type: Literal["place_replacement_quality"] = "place_replacement_quality"
    card: QualityCardId
    value: int = Field(ge=1, le=9)
    mode: Mode = "APPEAL"


class FinishReplacement(Decision):
    type: Literal["finish_replacement"] = "finish_replacement"


# --- production phase -------------------------------------------------------------------


class UseExtraShift(Decision):
    """ACG-D-10: discard the Extra Shift: one more good."""

    type: Literal["use_extra_shift"] = "use_extra_shift"


class UsePatron(Decision):
    """ACG-D-10: rotate a Patron of the active good: one more good may be sold at home."""

    type: Literal["use_patron"] = "use_patron"
    card: CardType


class SellGoods(Decision):
    """ACG-D-10: the home-market sale: all it allows from production, plus stored goods."""

    type: Literal["sell_goods"] = "sell_goods"
    from_storage: int = Field(0, ge=0, le=9)


class ShipGoods(Decision):
    """ACG-D-10: one ship with leftover goods (production first, then this factory's storehouses)."""

    type: Literal["ship_goods"] = "ship_goods"
    from_production: int = Field(0, ge=0, le=9)
    from_storage: int = Field(0, ge=0, le=9)
    customs_office: bool = False


class FinishProduction(Decision):
    """Done: the goods left are wasted and the production costs are paid."""

    type: Literal["finish_production"] = "finish_production"


class BreakTieWithEntrepreneur(Decision):
    """ACG-D-11: rotate the Entrepreneur to win the tie for the highest appeal."""

    type: Literal["break_tie_with_entrepreneur"] = "break_tie_with_entrepreneur"
    use: bool


# --- end of round ---------------------------------------------------------------------


class DiscardEntrepreneur(Decision):
    """ACG-D-12: discard the Entrepreneur to name the next start player (None: keep it)."""

    type: Literal["discard_entrepreneur"] = "discard_entrepreneur"
    start_player: int | None = Field(None, ge=0, le=3)


class ChooseStartPlayer(vocabulary.ChooseStartPlayer):
    """ACG-D-13: the owner of the least valuable shares names the next decade's start player."""


CardGameDecision = Annotated[
    ChooseStartingFactory
    | PlaceForeman
    | BuyStartingShares
    | ChooseAction
    | SkipAction
    | BuildFactory
    | UpgradeFactory
    | UpgradeWithInventor
    | HireWorker
    | AddMachine
    | SetQualityCard
    | SetDistributionCard
    | BuyShares
    | TakeLoans
    | RegainShips
    | ProduceExtra
    | StoreGoods
    | ShipStoredGoods
    | FinishAction
    | UseDeveloper
    | SetPriceAndAppeal
    | TakeDevelopment
    | TakeDevelopmentCard
    | DiscardDevelopmentCard
    | UseBroker
    | UseInventor
    | SkipDevelopment
    | PlaceReplacementQuality
    | FinishReplacement
    | UseExtraShift
    | UsePatron
    | SellGoods
    | ShipGoods
    | FinishProduction
    | BreakTieWithEntrepreneur
    | DiscardEntrepreneur
    | ChooseStartPlayer,
    Field(discriminator="type"),
]

DECISION_ADAPTER: TypeAdapter[CardGameDecision] = TypeAdapter(CardGameDecision)
