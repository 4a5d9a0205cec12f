"""The log in words: what each of Arkwright: The Card Game's effects says, from its stored
payload (the words of the effects every title says alike are ``ledger.games.vocabulary``'s)."""

from __future__ import annotations

from ledger.games import vocabulary
from ledger.games.vocabulary import Words, counted, good, spelt, teller

ROMAN = {1: "I", 2: "II", 3: "III"}
ACTIONS = {
    "NONE": "no action",
    "BUILD": "to build or upgrade factories",
    "EMPLOY": "to employ workers",
    "AUTOMATE": "to automate",
    "QUALITY": "to add quality",
    "DISTRIBUTION": "to add distribution",
    "STOCK_EXCHANGE": "the stock exchange",
    "EXTRA_PRODUCTION": "extra production",
    "EARLY_SHIPPING": "early shipping",
}
TRACKS = {"DEV_CARDS": "development cards", "SHIP": "ships"}


def _card(card: str) -> str:
    """A development card as the log names it: ``PATRON_CLOTHES_FOOD`` -> ``Patron of clothes and food``."""
    if card.startswith("PATRON_"):
        first, second = card.removeprefix("PATRON_").lower().split("_")
        return f"Patron of {first} and {second}"
    return spelt(card).capitalize()


ORDINAL = {"1": "first", "2": "second", "3": "third"}


def _nth(code: str) -> str:
    return ORDINAL.get(code[1:], code[1:])


def _quality(card: str) -> str:
    return "the Engineer" if card == "ENGINEER" else f"the {_nth(card)} quality card"


def _distribution(card: str) -> str:
    return "the Patent" if card == "PATENT" else f"the {_nth(card)} distribution card"


def _storehouse(sh: str) -> str:
    return "the big storehouse" if sh == "BIG" else f"the {_nth(sh)} small storehouse"


WORDS: dict[str, Words] = {
    **vocabulary.WORDS,
    "money_changed": vocabulary.money_changed("money"),
    "development_supply_built": lambda e, who: (
        f"The development supply: {len(e['cards'])} cards ({e['flipped']} flipped, {e['rejected']} replaced)."
    ),
    "shares_changed": "{seat:who} {delta:+bought|lost} {delta:#abs shares} ({reason:spelt}); holds {held}.",
    "loans_changed": "{seat:who} took {delta:# loans} ({reason:spelt}).",
    "share_price_changed": "{company:who}'s share value: £{value_to} ({cause:spelt}).",
    "cycle_started": "Round {cycle} of the {decade}s: {good:lower} is the active good.",
    "decade_started": "The {decade}s began.",
    "start_player_changed": "{seat:who} is the start player ({reason}).",
    "action_chosen": lambda e, who: (
        f"{who(e['seat'])} chose {ACTIONS.get(e['action'], spelt(e['action'].lower()))}."
    ),
    "factory_built": lambda e, who: (
        f"{who(e['seat'])} opened a {good(e)} factory (decade {ROMAN.get(e['side'], e['side'])} side)."
    ),
    "factory_upgraded": "{seat:who} upgraded the {good:lower} factory.",
    "worker_card_added": "{seat:who} added worker card {position} to the {good:lower} factory.",
    "machine_added": "{seat:who} added a machine to {good:lower} worker card {position}.",
    "quality_card_set": lambda e, who: (
        f"{who(e['seat'])} put {_quality(e['card'])} "
        + (f"at {good(e)}, value {e['value']} on {e['mode'].lower()}." if e["good"] else "back in reserve.")
    ),
    "distribution_card_set": lambda e, who: (
        f"{who(e['seat'])} put {_distribution(e['card'])} "
        + (f"at {good(e)}, value {e['value']}." if e["good"] else "back in reserve.")
    ),
    "demand_moved": lambda e, who: f"{good(e).capitalize()} demand: {e['demand_from']} to {e['demand_to']}.",
    "wages_moved": "Wages: £{wage} per worker.",
    "appeal_marker_moved": lambda e, who: (
        f"{'The neutral company' if e['seat'] is None else who(e['seat'])}'s {good(e)} appeal marker: {e['appeal_to']}."
    ),
    "price_and_appeal_set": "{seat:who} set {good:lower} to price £{price}, appeal {appeal}.",
    "ships_changed": "{seat:who} has {ships:# ships} available.",
    "development_taken": lambda e, who: (
        f"{who(e['seat'])} developed {TRACKS.get(e['track'], spelt(e['track'].lower()))} to level {e['level']}."
    ),
    "development_card_taken": lambda e, who: f"{who(e['seat'])} took the {_card(e['card'])}.",
    "foreman_placed": "{seat:who} placed the Foreman beside the {good:lower} factory.",
    "development_card_discarded": lambda e, who: f"{who(e['seat'])} discarded the {_card(e['card'])}.",
    "card_rotated": lambda e, who: (
        f"{who(e['seat'])} {'used' if e['rotated'] else 'reactivated'} the {_card(e['card'])}."
    ),
    "goods_sold": lambda e, who: (
        f"{who(e['seat'])} sold {counted(e['from_production'] + e['from_storage'], good(e))} at £{e['price']} (£{e['income']})."
    ),
    "goods_stored": lambda e, who: (
        f"{who(e['seat'])} stored {counted(e['count'], good(e))} in {_storehouse(e['storehouse'])}."
    ),
    "goods_shipped": lambda e, who: f"{who(e['seat'])} shipped goods for £{e['income'] + e['contract']}.",
    "goods_wasted": "{seat:who} wasted {count:# {good:lower}}.",
    "production_costs_paid": "{seat:who} paid £{total} production costs for {good:lower}.",
    "emergency_fund_used": "{seat:who} used the emergency fund: {tokens:# tokens} for £{amount}.",
    "player_eliminated": "{seat:who} went bankrupt and is out of the game.",
    "distribution_decayed": "{seat:who}'s {good:lower} distribution fell to {distribution}.",
    "cards_reactivated": "Rotated development cards were reactivated.",
    "final_score": "{seat:who} scored £{score}.",
}


describe = teller(WORDS)
