"""The log in words: what each of Water Frame's effects says, from its stored payload (the
words of the effects every title says alike are ``ledger.games.vocabulary``'s)."""

from __future__ import annotations

from typing import Any

from ledger.games import vocabulary
from ledger.games.vocabulary import Words, counted, good, spelt, teller
from ledger.games.water_frame.components import GOODS


def _goods_list(counts: Any) -> str:
    return ", ".join(f"{k} {x.lower()}" for k, x in zip(counts, GOODS, strict=True) if k) or "empty"


WORDS: dict[str, Words] = {
    **vocabulary.WORDS,
    "money_changed": vocabulary.money_changed("cash"),
    "deck_shuffled": "The {deck} were shuffled.",
    "shares_changed": "{seat:who} {delta:+bought|sold} {delta:#abs shares} at £{price} ({reason:spelt}); holds {held}.",
    "loans_changed": "{seat:who} {delta:+took|repaid} {delta:#abs loans}; {loans} outstanding.",
    "share_price_changed": "{company:who}'s share value: space {space_to} (£{value_to}), {cause:spelt}.",
    "factory_founded": "{seat:who} founded a {good:lower} factory at £{price} (appeal {appeal}).",
    "factory_built": "{seat:who} built a level-{level} {good:lower} factory for £{cost} at price £{price}.",
    "factory_modernized": "{seat:who} modernised the {good:lower} factory to level {level} for £{cost}.",
    "factory_closed": "{seat:who} closed the {good:lower} factory ({workers_fired:# workers} fired).",
    "workers_hired": "{seat:who} hired {count:# workers} into {good:lower} row {row}.",
    "warehouse_worker_hired": "{seat:who} hired a warehouse worker at {edge}.",
    "warehouse_worker_moved": "{seat:who} moved a warehouse worker from {from_edge} to {to_edge}.",
    "warehouse_worker_released": "{seat:who} released the warehouse worker at {edge}.",
    "workers_fired": "{seat:who} fired {count:# workers} from the {good:lower} factory.",
    "machine_placed": "{seat:who} placed a machine in {good:lower} row {row}.",
    "quality_raised": "{seat:who} raised {good:lower} quality to +{level}.",
    "distribution_raised": "{seat:who} raised {good:lower} distribution to +{level} (£{cost}).",
    "price_set": "{seat:who} set the {good:lower} price to £{price} (appeal {appeal}).",
    "marker_placed": lambda e, who: (
        f"{who(e['seat'])} {'re-used' if e['reuse'] else 'placed'} the {e['action'].lower().replace('_', ' ')} marker on the £{e['space']} space (paid £{e['cost']})."
    ),
    "turn_ended": "{seat:who} ended the turn.",
    "decade_started": "The {decade}s began (development level {level}).",
    "cycle_started": "Cycle {cycle} of the {decade}s: {good:lower} is active.",
    "economy_marker_revealed": lambda e, who: (
        f"Economy marker: the {good(e)} importer advances {e['advance']} (now {e['importer']}); "
        f"{counted(e['returned'], 'workers')} {'returns' if e['returned'] == 1 else 'return'} to the job market."
    ),
    "sale_started": lambda e, who: (
        f"{good(e).capitalize()} demand: {e['demand']}; importer at {e['importer']}."
    ),
    "goods_sold": lambda e, who: (
        f"{who(e['seat'])} sold {counted(e['from_production'] + e['from_stock'], good(e))} at £{e['price']} (£{e['income']})."
    ),
    "importer_sold": "The importer sold {count:# {good:lower}}.",
    "goods_stored": "{seat:who} stored {stored:# {good:lower}}{lost:?, {lost} lost}.",
    "goods_discarded": "{seat:who} returned {count:# stored {good:lower}} to the supply to make room.",
    "warehouse_arranged": lambda e, who: (
        f"{who(e['seat'])}'s warehouses: large {_goods_list(e['large'])}; small {_goods_list(e['small'])}."
    ),
    "wages_paid": "{seat:who} paid £{amount} for {workers:# workers} at £{wage} and {machines:# machines}.",
    "distribution_decayed": (
        "{seat:who}'s {good:lower} distribution fell to +{level}{forced_price_drop:? and the price dropped by £1}."
    ),
    "stored_goods_sold": "{seat:who} sold {count:# stored {good:lower}} for £{income}.",
    "markers_returned": "Action markers returned to their owners.",
    "harbour_wages_paid": "{seat:who} paid £{amount} to {workers:# harbour workers}.",
    "event_revealed": lambda e, who: f"Event of the {e['decade']}s: {spelt(e['event']).title()}.",
    "start_player_changed": "{seat:who} is the start player.",
    "factory_obsolete": (
        "{seat:who}'s level-{level} {good:lower} factory became obsolete: {workers:# workers}"
        "{missing:?, £{fee} for {missing} missing}."
    ),
    "player_eliminated": "{seat:who} has {loans:# loans} and loses.",
    "end_penalty": "{seat:who}: end penalty ({reason:spelt}).",
}


describe = teller(WORDS)
