"""The log in words: what each of Arkwright: The Card Game's effects says, from its stored
payload (the words of the effects every title says alike are ``ledger.games.vocabulary``'s)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.games import vocabulary
from ledger.games.vocabulary import Words, good, spelt, tell

WORDS: dict[str, Words] = {
    **vocabulary.WORDS,
    "money_changed": vocabulary.money_changed("money"),
    "development_supply_built": lambda e, who: (
        f"The development supply: {len(e['cards'])} cards ({e['flipped']} flipped, {e['rejected']} replaced)."
    ),
    "shares_changed": lambda e, who: (
        f"{who(e['seat'])} {'bought' if e['delta'] > 0 else 'lost'} {abs(e['delta'])} share(s) "
        f"({spelt(e['reason'])}); holds {e['held']}."
    ),
    "loans_changed": lambda e, who: f"{who(e['seat'])} took {e['delta']} loan(s) ({spelt(e['reason'])}).",
    "share_price_changed": lambda e, who: (
        f"{who(e['company'])}'s share value: £{e['value_to']} ({spelt(e['cause'])})."
    ),
    "cycle_started": lambda e, who: (
        f"Round {e['cycle']} of the {e['decade']}s: {good(e)} is the active good."
    ),
    "decade_started": lambda e, who: f"The {e['decade']}s began.",
    "start_player_changed": lambda e, who: f"{who(e['seat'])} is the start player ({e['reason']}).",
    "action_chosen": lambda e, who: (
        f"{who(e['seat'])} chose {'no action' if e['action'] == 'NONE' else e['action'].lower().replace('_', ' ')}."
    ),
    "factory_built": lambda e, who: f"{who(e['seat'])} opened a {good(e)} factory (decade {e['side']} side).",
    "factory_upgraded": lambda e, who: f"{who(e['seat'])} upgraded the {good(e)} factory.",
    "worker_card_added": lambda e, who: (
        f"{who(e['seat'])} added worker card {e['position']} to the {good(e)} factory."
    ),
    "machine_added": lambda e, who: (
        f"{who(e['seat'])} added a machine to {good(e)} worker card {e['position']}."
    ),
    "quality_card_set": lambda e, who: (
        f"{who(e['seat'])} put quality card {e['card']} "
        + (f"at {good(e)}, value {e['value']} on {e['mode'].lower()}." if e["good"] else "back in reserve.")
    ),
    "distribution_card_set": lambda e, who: (
        f"{who(e['seat'])} put distribution card {e['card']} "
        + (f"at {good(e)}, value {e['value']}." if e["good"] else "back in reserve.")
    ),
    "demand_moved": lambda e, who: f"{good(e).capitalize()} demand: {e['demand_from']} to {e['demand_to']}.",
    "wages_moved": lambda e, who: f"Wages: £{e['wage']} per worker.",
    "appeal_marker_moved": lambda e, who: f"{who(e['seat'])}'s {good(e)} appeal marker: {e['appeal_to']}.",
    "price_and_appeal_set": lambda e, who: (
        f"{who(e['seat'])} set {good(e)} to price £{e['price']}, appeal {e['appeal']}."
    ),
    "ships_changed": lambda e, who: f"{who(e['seat'])} has {e['ships']} ship(s) available.",
    "development_taken": lambda e, who: (
        f"{who(e['seat'])} developed {e['track'].lower().replace('_', ' ')} to level {e['level']}."
    ),
    "development_card_taken": lambda e, who: f"{who(e['seat'])} took the {spelt(e['card']).title()}.",
    "foreman_placed": lambda e, who: f"{who(e['seat'])} placed the Foreman beside the {good(e)} factory.",
    "development_card_discarded": lambda e, who: (
        f"{who(e['seat'])} discarded the {spelt(e['card']).title()}."
    ),
    "card_rotated": lambda e, who: (
        f"{who(e['seat'])} {'used' if e['rotated'] else 'reactivated'} the {spelt(e['card']).title()}."
    ),
    "goods_sold": lambda e, who: (
        f"{who(e['seat'])} sold {e['from_production'] + e['from_storage']} {good(e)} at £{e['price']} (£{e['income']})."
    ),
    "goods_stored": lambda e, who: f"{who(e['seat'])} stored {e['count']} {good(e)} in {e['storehouse']}.",
    "goods_shipped": lambda e, who: f"{who(e['seat'])} shipped goods for £{e['income'] + e['contract']}.",
    "goods_wasted": lambda e, who: f"{who(e['seat'])} wasted {e['count']} {good(e)}.",
    "production_costs_paid": lambda e, who: (
        f"{who(e['seat'])} paid £{e['total']} production costs for {good(e)}."
    ),
    "emergency_fund_used": lambda e, who: (
        f"{who(e['seat'])} used the emergency fund: {e['tokens']} token(s) for £{e['amount']}."
    ),
    "player_eliminated": lambda e, who: f"{who(e['seat'])} went bankrupt and is out of the game.",
    "distribution_decayed": lambda e, who: (
        f"{who(e['seat'])}'s {good(e)} distribution fell to {e['distribution']}."
    ),
    "cards_reactivated": lambda e, who: "Rotated development cards were reactivated.",
    "final_score": lambda e, who: f"{who(e['seat'])} scored £{e['score']}.",
}


def describe(effect: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    return tell(WORDS, effect, names)
