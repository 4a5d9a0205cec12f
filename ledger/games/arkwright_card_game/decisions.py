"""Arkwright: The Card Game decisions (spec §3): small steps, each what a player says at the table."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, TypeAdapter

from ledger.engine import Decision, decision_adapter
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


class ChooseStartingFactory(Decision, type="choose_starting_factory"):
    """ACG-D-03 (expert): take a starting factory from your reserve."""

    good: Good


class PlaceForeman(Decision, type="place_foreman"):
    """ACG-D-02: place your starting Foreman beside one of your factories."""

    good: Good


class BuyStartingShares(Decision, type="buy_starting_shares"):
    """ACG-D-05 (expert): buy shares at £10 each from your £50."""

    count: int = Field(ge=0, le=99)


class ChooseAction(Decision, type="choose_action"):
    """Step a: the action of this turn; its small steps follow, then finish_action."""

    action: Action


class SkipAction(Decision, type="skip_action"):
    """Step a: take no action this turn (A-37)."""


class BuildFactory(Decision, type="build_factory"):
    """Action 1: open a factory from your reserve (its office card on the price side)."""

    good: Good


class UpgradeFactory(Decision, type="upgrade_factory"):
    """Action 1: flip a factory to decade II and its worker cards as the decade allows."""

    good: Good


class UpgradeWithInventor(Decision, type="upgrade_with_inventor"):
    """Action 1: discard the Inventor to upgrade up to 2 different factories one decade, any decade."""

    goods: tuple[Good, ...] = Field(min_length=1, max_length=4)


class HireWorker(Decision, type="hire_worker"):
    """Action 2: add the factory's next worker card (position 1, then 2)."""

    good: Good


class AddMachine(Decision, type="add_machine"):
    """Action 3: replace one worker of a worker card with a machine (machine token, then rotation)."""

    good: Good
    position: int = Field(ge=1, le=9)


class SetQualityCard(Decision, type="set_quality_card"):
    """Action 4 (quality): put a quality card at a factory with a value and side, or back in reserve."""

    card: QualityCardId
    good: Good | None = Field(None, description="None: back to the reserve")
    value: int = Field(0, ge=0, le=9)
    mode: Mode = "APPEAL"


class SetDistributionCard(Decision, type="set_distribution_card"):
    """Action 4 (distribution): put a distribution card at a factory with a value, or back in reserve."""

    card: DistributionCardId
    good: Good | None = None
    value: int = Field(0, ge=0, le=9)


class BuyShares(Decision, type="buy_shares"):
    """Action 5, step 1: buy shares, some at the stock exchange discount (once per turn)."""

    discounted: int = Field(0, ge=0, le=9)
    full: int = Field(0, ge=0, le=999)


class TakeLoans(Decision, type="take_loans"):
    """Action 5, step 2: bank loans at the current share value each."""

    count: int = Field(ge=1, le=9)


class RegainShips(Decision, type="regain_ships"):
    """Action 5, step 3: the shipping card back with 2 ships."""


class ProduceExtra(Decision, type="produce_extra"):
    """Action 6 (expert): a factory produces with 0, 1 or 2 of its worker cards, into storehouses."""

    good: Good
    worker_cards: int = Field(ge=0, le=9)
    extra_shift: bool = Field(False, description="Discard the Extra Shift: one more good")


class StoreGoods(Decision, type="store_goods"):
    """Put goods of the factory now producing into a storehouse (from reserve, at that factory, or
    taken from another factory: its goods are wasted)."""

    storehouse: StorehouseId
    count: int = Field(ge=1, le=9)


class ShipStoredGoods(Decision, type="ship_stored_goods"):
    """Action 7 (expert): one ship with goods from one or several storehouses."""

    loads: tuple[tuple[StorehouseId, int], ...] = Field(min_length=1, max_length=9)
    customs_office: bool = False


class FinishAction(Decision, type="finish_action"):
    pass


class UseDeveloper(Decision, type="use_developer"):
    """ACG-D-09: during your turn, rotate the Developer to reactivate another rotated card."""

    card: CardType


class SetPriceAndAppeal(Decision, type="set_price_and_appeal"):
    """Step b: factory token spot, office side and quality sides of the active good's factory."""

    spot: int = Field(ge=1, le=9)
    office: Mode = "PRICE"
    appeal_cards: tuple[QualityCardId, ...] = Field((), description="Quality cards turned to appeal")


class TakeDevelopment(Decision, type="take_development"):
    """Step c: move a development marker on your player board one step."""

    track: Track


class TakeDevelopmentCard(Decision, type="take_development_card"):
    """Step c: take a development card from the general supply."""

    card: CardType
    foreman_good: Good | None = Field(None, description="The Foreman's factory")


class DiscardDevelopmentCard(Decision, type="discard_development_card"):
    """Step c: return a card to the supply to make room for a new one."""

    card: CardType


class UseBroker(Decision, type="use_broker"):
    """Step c instead of a development: discard the Broker, buy up to 2 shares at half value."""

    count: int = Field(ge=0, le=9)


class UseInventor(Decision, type="use_inventor"):
    """Step c instead of a development (expert): discard the Inventor, 2 different developments."""

    tracks: tuple[Track, Track]


class SkipDevelopment(Decision, type="skip_development"):
    pass


class PlaceReplacementQuality(Decision, type="place_replacement_quality"):
    """ACG-D-14: a reserve quality card in place of the discarded Engineer, up to its value."""

    card: QualityCardId
    value: int = Field(ge=1, le=9)
    mode: Mode = "APPEAL"


class FinishReplacement(Decision, type="finish_replacement"):
    pass


class UseExtraShift(Decision, type="use_extra_shift"):
    """ACG-D-10: discard the Extra Shift: one more good."""


class UsePatron(Decision, type="use_patron"):
    """ACG-D-10: rotate a Patron of the active good: one more good may be sold at home."""

    card: CardType


class SellGoods(Decision, type="sell_goods"):
    """ACG-D-10: the home-market sale: all it allows from production, plus stored goods."""

    from_storage: int = Field(0, ge=0, le=9)


class ShipGoods(Decision, type="ship_goods"):
    """ACG-D-10: one ship with leftover goods (production first, then this factory's storehouses)."""

    from_production: int = Field(0, ge=0, le=9)
    from_storage: int = Field(0, ge=0, le=9)
    customs_office: bool = False


class FinishProduction(Decision, type="finish_production"):
    """Done: the goods left are wasted and the production costs are paid."""


class BreakTieWithEntrepreneur(Decision, type="break_tie_with_entrepreneur"):
    """ACG-D-11: rotate the Entrepreneur to win the tie for the highest appeal."""

    use: bool


class DiscardEntrepreneur(Decision, type="discard_entrepreneur"):
    """ACG-D-12: discard the Entrepreneur to name the next start player (None: keep it)."""

    start_player: int | None = Field(None, ge=0, le=3)


class ChooseStartPlayer(vocabulary.ChooseStartPlayer):
    """ACG-D-13: the owner of the least valuable shares names the next decade's start player."""


DECISION_ADAPTER: TypeAdapter[Any] = decision_adapter(__name__)
