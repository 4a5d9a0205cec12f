"""The log in words: what each of Water Frame's effects says, from its stored payload (the
words of the effects every title says alike are ``ledger.games.vocabulary``'s)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.games import vocabulary
from ledger.games.vocabulary import Words, counted, good, spelt, teller
from ledger.games.water_frame.components import GOODS


def _tile(code: Any) -> str:
    """A development tile as the log names it: ``PATRON_FOOD`` -> ``the patron of food``."""
    name = str(code)
    if name.startswith("PATRON_"):
        return f"the patron of {name.removeprefix('PATRON_').lower()}"
    return f"the {spelt(name).lower()}"


def _ship(code: Any) -> str:
    """A ship as the log names it: ``SHIP-4A`` -> ``the 4-goods ship A``."""
    capacity = str(code).removeprefix("SHIP-")
    digits = "".join(ch for ch in capacity if ch.isdigit())
    letter = capacity[len(digits) :]
    return f"the {digits}-goods ship{' ' + letter if letter else ''}" if digits else f"the ship {code}"


def _grey(marker: Any) -> str:
    """A grey action marker: ``LIGHT:MACHINERY`` -> ``the light grey machinery marker``."""
    shade, _, action = str(marker).partition(":")
    return f"the {shade.lower()} grey {spelt(action).lower()} marker"


def _event(e: Mapping[str, Any], who: Any) -> str:
    """An event marker turned up; one the component data leaves unnamed (``EVENT_X7``) has no
    effect (WF U-29/U-30): there is no event this decade."""
    code = str(e["event"])
    if any(ch.isdigit() for ch in code):
        return f"No event this decade (the {e['decade']}s)."
    return f"Event of the {e['decade']}s: {spelt(code).title()}."


SOURCE = {"surplus": "this production", "large": "the large warehouse", "small": "the small warehouse"}


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
    "event_revealed": _event,
    "start_player_changed": "{seat:who} is the start player.",
    "factory_obsolete": (
        "{seat:who}'s level-{level} {good:lower} factory became obsolete: {workers:# workers}"
        "{missing:?, £{fee} for {missing} missing}."
    ),
    "player_eliminated": "{seat:who} has {loans:# loans} and loses.",
    "end_penalty": "{seat:who}: end penalty ({reason:spelt}).",
    "tile_taken": lambda e, who: (
        f"{who(e['seat'])} took {_tile(e['tile'])}"
        + (f" for the {str(e['assigned']).lower()} factory" if e.get("assigned") else "")
        + "."
    ),
    "tile_returned": lambda e, who: (
        f"{who(e['seat'])} returned {_tile(e['tile'])}"
        + (f" ({e['goods_lost']} stored goods lost)" if e["goods_lost"] else "")
        + "."
    ),
    "tile_reassigned": lambda e, who: f"{who(e['seat'])} moved {_tile(e['tile'])} to the {good(e)} factory.",
    "grey_marker_taken": lambda e, who: f"{who(e['seat'])} took {_grey(e['marker'])} from row {e['row']}.",
    "ship_taken": lambda e, who: (
        f"{who(e['seat'])} took {_ship(e['ship'])} (capacity {e['capacity']}"
        + (f", {counted(e['crew_hired'], 'crew')} hired" if e["crew_hired"] else "")
        + ")"
        + (f" and gave back {_ship(e['returned'])}" if e.get("returned") else "")
        + "."
    ),
    "ship_released": lambda e, who: (
        f"{who(e['seat'])} released {_ship(e['ship'])}"
        + (f" and its crew of {e['crew_fired']}" if e["crew_fired"] else "")
        + "."
    ),
    "inventor_used": lambda e, who: (
        f"{who(e['seat'])} paid £{e['paid']} for the inventor."
        if e["use"] == "pay"
        else f"{who(e['seat'])} returned the inventor for this action."
    ),
    "goods_made_by_action": lambda e, who: (
        f"{who(e['seat'])} produced {counted(e['produced'], good(e))} with "
        + (f"rows 1 to {e['rows']}" if e["rows"] > 1 else "row 1")
        + f" ({e['stored']} stored"
        + (f", {e['lost']} lost" if e["lost"] else "")
        + ")."
    ),
    "contract_placed": "{seat:who} placed a {good:lower} contract on space {space}.",
    "contract_delivered": lambda e, who: (
        f"{who(e['seat'])} delivered the {good(e)} contract: {counted(e['goods'], good(e))} "
        f"for £{e['income']} ({counted(e['ships_used'], 'ships')})."
    ),
    "contract_escalated": lambda e, who: (
        f"{who(e['seat'])}'s {good(e)} contract moved up to space {e['space']}."
        if not e["penalty"]
        else f"{who(e['seat'])}'s {good(e)} contract failed at space {e['space']}: "
        f"the share value falls {e['penalty']} spaces."
    ),
    "row_closed_by_school": "{seat:who} closed {good:lower} row {row} with the school.",
    "patron_sold": lambda e, who: (
        f"{who(e['seat'])} sold 1 {good(e)} to the patron from {SOURCE.get(e['source'], spelt(e['source']))}."
    ),
    "engineering_works_paid": (
        "{seat:who}'s engineering works earned £{machines} ({machines:# machines} bought)."
    ),
    "mat_laid_out": lambda e, who: (
        "The special markers mat was laid out: "
        + f"{counted(sum(len(r) for r in e['rows']), 'grey markers')}, "
        + f"{counted(sum(len(r) for r in e['ships']), 'ships')}."
    ),
    "tiles_displayed": lambda e, who: (
        f"The display shows {counted(len(e['tiles']), 'development tiles')}"
        + (f" ({len(e['rejected'])} redrawn)" if e["rejected"] else "")
        + "."
    ),
}


describe = teller(WORDS)
