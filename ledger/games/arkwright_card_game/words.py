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
    "loans_changed": "{seat:who} took {delta} loan(s) ({reason:spelt}).",
    "share_price_changed": "{company:who}'s share value: £{value_to} ({cause:spelt}).",
    "cycle_started": "Round {cycle} of the {decade}s: {good:lower} is the active good.",
    "decade_started": "The {decade}s began.",
    "start_player_changed": "{seat:who} is the start player ({reason}).",
    "action_chosen": lambda e, who: (
        f"{who(e['seat'])} chose {'no action' if e['action'] == 'NONE' else e['action'].lower().replace('_', ' ')}."
    ),
    "factory_built": "{seat:who} opened a {good:lower} factory (decade {side} side).",
    "factory_upgraded": "{seat:who} upgraded the {good:lower} factory.",
    "worker_card_added": "{seat:who} added worker card {position} to the {good:lower} factory.",
    "machine_added": "{seat:who} added a machine to {good:lower} worker card {position}.",
    "quality_card_set": lambda e, who: (
        f"{who(e['seat'])} put quality card {e['card']} "
        + (f"at {good(e)}, value {e['value']} on {e['mode'].lower()}." if e["good"] else "back in reserve.")
    ),
    "distribution_card_set": lambda e, who: (
        f"{who(e['seat'])} put distribution card {e['card']} "
        + (f"at {good(e)}, value {e['value']}." if e["good"] else "back in reserve.")
    ),
    "demand_moved": lambda e, who: f"{good(e).capitalize()} demand: {e['demand_from']} to {e['demand_to']}.",
    "wages_moved": "Wages: £{wage} per worker.",
    "appeal_marker_moved": "{seat:who}'s {good:lower} appeal marker: {appeal_to}.",
    "price_and_appeal_set": "{seat:who} set {good:lower} to price £{price}, appeal {appeal}.",
    "ships_changed": "{seat:who} has {ships} ship(s) available.",
    "development_taken": lambda e, who: (
        f"{who(e['seat'])} developed {e['track'].lower().replace('_', ' ')} to level {e['level']}."
    ),
    "development_card_taken": lambda e, who: f"{who(e['seat'])} took the {spelt(e['card']).title()}.",
    "foreman_placed": "{seat:who} placed the Foreman beside the {good:lower} factory.",
    "development_card_discarded": lambda e, who: (
        f"{who(e['seat'])} discarded the {spelt(e['card']).title()}."
    ),
    "card_rotated": lambda e, who: (
        f"{who(e['seat'])} {'used' if e['rotated'] else 'reactivated'} the {spelt(e['card']).title()}."
    ),
    "goods_sold": lambda e, who: (
        f"{who(e['seat'])} sold {e['from_production'] + e['from_storage']} {good(e)} at £{e['price']} (£{e['income']})."
    ),
    "goods_stored": "{seat:who} stored {count} {good:lower} in {storehouse}.",
    "goods_shipped": lambda e, who: f"{who(e['seat'])} shipped goods for £{e['income'] + e['contract']}.",
    "goods_wasted": "{seat:who} wasted {count} {good:lower}.",
    "production_costs_paid": "{seat:who} paid £{total} production costs for {good:lower}.",
    "emergency_fund_used": "{seat:who} used the emergency fund: {tokens} token(s) for £{amount}.",
    "player_eliminated": "{seat:who} went bankrupt and is out of the game.",
    "distribution_decayed": "{seat:who}'s {good:lower} distribution fell to {distribution}.",
    "cards_reactivated": lambda e, who: "Rotated development cards were reactivated.",
    "final_score": "{seat:who} scored £{score}.",
}


def describe(effect: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    return tell(WORDS, effect, names)
