"""The log in words: what each of Water Frame's effects says, from its stored payload (the
words of the effects every title says alike are ``ledger.games.vocabulary``'s)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.games import vocabulary
from ledger.games.vocabulary import Words, good, spelt, tell
from ledger.games.water_frame.components import GOODS


def _goods_list(counts: Any) -> str:
    return ", ".join(f"{k} {x.lower()}" for k, x in zip(counts, GOODS, strict=True) if k) or "empty"


WORDS: dict[str, Words] = {
    **vocabulary.WORDS,
    "money_changed": vocabulary.money_changed("cash"),
    "deck_shuffled": lambda e, who: f"The {e['deck']} were shuffled.",
    "shares_changed": lambda e, who: (
        f"{who(e['seat'])} {'bought' if e['delta'] > 0 else 'sold'} {abs(e['delta'])} share(s) at £{e['price']} ({spelt(e['reason'])}); holds {e['held']}."
    ),
    "loans_changed": lambda e, who: (
        f"{who(e['seat'])} {'took' if e['delta'] > 0 else 'repaid'} {abs(e['delta'])} loan(s); {e['loans']} outstanding."
    ),
    "share_price_changed": lambda e, who: (
        f"{who(e['company'])}'s share value: space {e['space_to']} (£{e['value_to']}), {spelt(e['cause'])}."
    ),
    "factory_founded": lambda e, who: (
        f"{who(e['seat'])} founded a {good(e)} factory at £{e['price']} (appeal {e['appeal']})."
    ),
    "factory_built": lambda e, who: (
        f"{who(e['seat'])} built a level-{e['level']} {good(e)} factory for £{e['cost']} at price £{e['price']}."
    ),
    "factory_modernized": lambda e, who: (
        f"{who(e['seat'])} modernised the {good(e)} factory to level {e['level']} for £{e['cost']}."
    ),
    "factory_closed": lambda e, who: (
        f"{who(e['seat'])} closed the {good(e)} factory ({e['workers_fired']} workers fired)."
    ),
    "workers_hired": lambda e, who: (
        f"{who(e['seat'])} hired {e['count']} worker(s) into {good(e)} row {e['row']}."
    ),
    "warehouse_worker_hired": lambda e, who: f"{who(e['seat'])} hired a warehouse worker at {e['edge']}.",
    "warehouse_worker_moved": lambda e, who: (
        f"{who(e['seat'])} moved a warehouse worker from {e['from_edge']} to {e['to_edge']}."
    ),
    "warehouse_worker_released": lambda e, who: (
        f"{who(e['seat'])} released the warehouse worker at {e['edge']}."
    ),
    "workers_fired": lambda e, who: (
        f"{who(e['seat'])} fired {e['count']} worker(s) from the {good(e)} factory."
    ),
    "machine_placed": lambda e, who: f"{who(e['seat'])} placed a machine in {good(e)} row {e['row']}.",
    "quality_raised": lambda e, who: f"{who(e['seat'])} raised {good(e)} quality to +{e['level']}.",
    "distribution_raised": lambda e, who: (
        f"{who(e['seat'])} raised {good(e)} distribution to +{e['level']} (£{e['cost']})."
    ),
    "price_set": lambda e, who: (
        f"{who(e['seat'])} set the {good(e)} price to £{e['price']} (appeal {e['appeal']})."
    ),
    "marker_placed": lambda e, who: (
        f"{who(e['seat'])} {'re-used' if e['reuse'] else 'placed'} the {e['action'].lower().replace('_', ' ')} marker on the £{e['space']} space (paid £{e['cost']})."
    ),
    "turn_ended": lambda e, who: f"{who(e['seat'])} ended the turn.",
    "decade_started": lambda e, who: f"The {e['decade']}s began (development level {e['level']}).",
    "cycle_started": lambda e, who: f"Cycle {e['cycle']} of the {e['decade']}s: {good(e)} is active.",
    "economy_marker_revealed": lambda e, who: (
        f"Economy marker: the {good(e)} importer advances {e['advance']} (now {e['importer']}); {e['returned']} workers return to the job market."
    ),
    "sale_started": lambda e, who: (
        f"{good(e).capitalize()} demand: {e['demand']}; importer at {e['importer']}."
    ),
    "goods_sold": lambda e, who: (
        f"{who(e['seat'])} sold {e['from_production'] + e['from_stock']} {good(e)} at £{e['price']} (£{e['income']})."
    ),
    "importer_sold": lambda e, who: f"The importer sold {e['count']} {good(e)}.",
    "goods_stored": lambda e, who: (
        f"{who(e['seat'])} stored {e['stored']} {good(e)}" + (f", {e['lost']} lost." if e["lost"] else ".")
    ),
    "goods_discarded": lambda e, who: (
        f"{who(e['seat'])} returned {e['count']} stored {good(e)} to the supply to make room."
    ),
    "warehouse_arranged": lambda e, who: (
        f"{who(e['seat'])}'s warehouses: large {_goods_list(e['large'])}; small {_goods_list(e['small'])}."
    ),
    "wages_paid": lambda e, who: (
        f"{who(e['seat'])} paid £{e['amount']} for {e['workers']} workers at £{e['wage']} and {e['machines']} machines."
    ),
    "distribution_decayed": lambda e, who: (
        f"{who(e['seat'])}'s {good(e)} distribution fell to +{e['level']}"
        + (" and the price dropped by £1." if e["forced_price_drop"] else ".")
    ),
    "stored_goods_sold": lambda e, who: (
        f"{who(e['seat'])} sold {e['count']} stored {good(e)} for £{e['income']}."
    ),
    "markers_returned": lambda e, who: "Action markers returned to their owners.",
    "harbour_wages_paid": lambda e, who: (
        f"{who(e['seat'])} paid £{e['amount']} to {e['workers']} harbour workers."
    ),
    "event_revealed": lambda e, who: f"Event of the {e['decade']}s: {spelt(e['event']).title()}.",
    "start_player_changed": lambda e, who: f"{who(e['seat'])} is the start player.",
    "factory_obsolete": lambda e, who: (
        f"{who(e['seat'])}'s level-{e['level']} {good(e)} factory became obsolete: {e['workers']} workers"
        + (f", £{e['fee']} for {e['missing']} missing." if e["missing"] else ".")
    ),
    "player_eliminated": lambda e, who: f"{who(e['seat'])} has {e['loans']} loan(s) and loses.",
    "end_penalty": lambda e, who: f"{who(e['seat'])}: end penalty ({spelt(e['reason'])}).",
}


def describe(effect: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    return tell(WORDS, effect, names)
