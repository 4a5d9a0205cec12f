"""Arkwright: Water Frame in players' words: goods, markers, ships, tiles, events, phases,
options, and every decision as a player would say it at the table.

Tile effects follow the rulebooks' own summaries (R16 §II.1-§III.5; spec §6.12); where only
the player's book holds the full text, the summary is all there is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from api.web.table.base import Label, Table, When, Words

GOODS = ("FOOD", "CLOTHES", "CUTLERY", "LAMPS")
GOOD = {"FOOD": "food", "CLOTHES": "clothes", "CUTLERY": "cutlery", "LAMPS": "lamps"}
ACTION = {
    "FACTORY": "factory",
    "WORKERS": "workers",
    "MACHINERY": "machinery",
    "QUALITY": "quality",
    "DISTRIBUTION": "distribution",
    "STOCK_EXCHANGE": "stock exchange",
    "PRODUCTION": "production",
    "SHIP": "ship",
}
SHADE = {"OWN": "own", "LIGHT": "light grey", "DARK": "dark grey"}
ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV"}

PHASE = {
    "setup": "setting up",
    "first_start_player": "set-up: the start player",
    "first_foundation": "1760: first factories",
    "second_foundation": "1760: second factories",
    "start_shares": "1760: start-up capital",
    "start_special": "1760: first special marker",
    "predetermined_tile": "set-up: development tiles",
    "pay_factories": "paying for factories",
    "economy": "economy phase",
    "action": "action phase",
    "school": "production phase: the school",
    "sale": "production phase: the sale",
    "school_after_sale": "production phase: the school, after the sale",
    "patron": "production phase: patrons",
    "after_sale": "production phase: wages",
    "shipping": "production phase: shipment",
    "storage": "production phase: storage",
    "end_of_cycle": "end of the cycle",
    "charisma": "end of the cycle: charisma",
    "return_markers": "end of the decade: markers return",
    "harbour_wages": "event phase: harbour wages",
    "release": "event phase: releases",
    "event": "event phase",
    "broker": "event phase: broker",
    "start_player": "event phase: the next start player",
    "obsolescence": "obsolescence",
    "final_stock_exchange": "the final stock exchange",
    "scoring": "final scoring",
    "finished": "the game is over",
}

# (name, effect in words, what happens to it after use) — R16 §II.1-§III.5 as spec §6.12 sums them up
TILES: dict[str, tuple[str, str, str]] = {
    "ACCOUNTANT": (
        "Accountant",
        "Pay up to £2 less or more for any placement of an action marker; a ship may then sit on a "
        "cheaper space if what you pay still covers its capacity.",
        "kept",
    ),
    "ADMINISTRATOR": (
        "Administrator",
        "No £2 fee when you re-use a marker, and you may use the £2 space under Bureaucracy.",
        "kept",
    ),
    "AGENT_IN_THE_COLONIES": (
        "Agent in the colonies",
        "When you ship, one contract may be delivered with one good more or one fewer.",
        "kept",
    ),
    "BROKER": (
        "Broker",
        "Instead of a special marker, return it to buy 1 or 2 of your shares at half price; in every "
        "event phase you may sell stored goods and buy or sell shares.",
        "kept; returned when you buy at half price",
    ),
    "CHARISMA": (
        "Charisma",
        "Wins ties for the bonus steps of the share value; may be returned to choose the start player.",
        "kept; returned when it chooses the start player",
    ),
    "DEVELOPER": (
        "Developer",
        "£5 off each factory built or modernised in one factory action (once per factory).",
        "returned after use",
    ),
    "ENGINEER": (
        "Engineer",
        "Quality may reach +5 and +6, and in the quality action you choose how much to pay.",
        "kept",
    ),
    "ENGINEERING_WORKS": (
        "Engineering works",
        "£1 from the bank for every machine another player buys.",
        "kept",
    ),
    "EXTRA_SHIFTS": (
        "Extra shifts",
        "One more good: in a sale, at the first call after your production is sold, or in a production action.",
        "returned after use",
    ),
    "FOREMAN": (
        "Foreman",
        "Serves one of your factories: up to 4 of its workers cost £2 less each (at least £1).",
        "kept; may move to another factory",
    ),
    "INVENTOR": (
        "Inventor",
        "Modernise one level beyond the current one, or take a grey marker or a ship from the next row "
        "of the mat; after each use return it or pay £5.",
        "returned, or kept for £5",
    ),
    "OFFICE": ("Office", "£5 more for every ship transport.", "kept"),
    "PATENT": (
        "Patent",
        "Distribution action: £2 more budget (kept), or return it for two free +1 raises.",
        "kept, or returned for two raises",
    ),
    "PATRON_FOOD": (
        "Food patron",
        "After the sale of food, sell one more food at your price; it counts as sold.",
        "kept",
    ),
    "PATRON_CLOTHES": (
        "Clothes patron",
        "After the sale of clothes, sell one more at your price; it counts as sold.",
        "kept",
    ),
    "PATRON_CUTLERY": (
        "Cutlery patron",
        "After the sale of cutlery, sell one more at your price; it counts as sold.",
        "kept",
    ),
    "PATRON_LAMPS": (
        "Lamps patron",
        "After the sale of lamps, sell one more lamp at your price; it counts as sold.",
        "kept",
    ),
    "SCHOOL": (
        "School",
        "Workers replaced by machines may move to free slots; in a production phase your last occupied "
        "row may stay closed (no output, no costs).",
        "kept",
    ),
    "SMALL_WAREHOUSE": (
        "Small warehouse",
        "Stores up to 5 goods of any kind without workers, at the top of the price scale.",
        "kept",
    ),
    "WORKSHOP": (
        "Workshop",
        "Machinery action: £3 more budget for free; its factory's machines cost a flat £1.",
        "kept; may move to another factory",
    ),
}
TILE_COST = "Free to take as the special marker after a workers, machinery, stock exchange or ship action."

EVENTS: dict[str, tuple[str, str]] = {
    "END_OF_THE_GAME": ("End of the game", "The final stock exchange, then the final scoring."),
    "BUREAUCRACY": (
        "Bureaucracy",
        "From now on only players with the administrator may use the £2 space.",
    ),
    "NAVIGATION_ACTS": ("Navigation Acts", "Its effect is only in the player's book: none here."),
    "ECONOMIC_CRISIS": ("Economic crisis", "Its effect is only in the player's book: none here."),
    "HAMBURG_CREDIT_CRISIS": ("Hamburg credit crisis", "Its effect is only in the player's book: none here."),
    "OPIUM_WAR": ("Opium War", "Its effect is only in the player's book: none here."),
    "LOBBY": ("Lobby", "Its effect is only in the player's book: none here."),
    "WAR_ON_THE_CONTINENT": ("War on the Continent", "Its effect is only in the player's book: none here."),
    "WORLD_EXHIBITION": ("World Exhibition", "Its effect is only in the player's book: none here."),
}

# option -> (label, one sentence in players' words, rulebook section, {value: words})
OPTIONS: dict[str, tuple[str, str, str, dict[str, str]]] = {
    "edition": (
        "Rulebook edition",
        "Which rulebook the game follows: the 2016 Capstone edition or the 2014 Spielworxx edition.",
        "Rulebook 2016 and 2014, cover",
        {"2016": "2016 (Capstone)", "2014": "2014 (Spielworxx)"},
    ),
    "predetermined_setup": (
        "Predetermined set-up",
        "Start in 1770 with the factories, shares, events and tiles the rulebook prescribes, "
        "instead of the 1760 preparation round.",
        "Rulebook 2016, §4.1 (Predetermined Set Up)",
        {},
    ),
    "predetermined_events_shuffled": (
        "Shuffle the prescribed events",
        "With the predetermined set-up: Lobby, War on the Continent and World Exhibition go to "
        "1770, 1780 and 1800 at random.",
        "Rulebook 2016, §4.1 (Predetermined Set Up)",
        {},
    ),
    "patron_variant": (
        "Patrons on display",
        "For first games: the four patron tiles lie on the display from the start.",
        "Rulebook 2016, §4.1 III",
        {},
    ),
    "importer_top_up": (
        "The importer sells to the end",
        "In a sale the importer keeps selling down to the lowest appeal, even after every player "
        "has sold out (as the 2014 rulebooks say; the 2016 one leaves it out).",
        "Rulebook 2016, §III.1 (the sale)",
        {},
    ),
    "start_player": (
        "Who starts",
        "Whether the start player is drawn at random, or chosen by the game's creator (first seat) "
        "as the first decision of the game.",
        "Rulebook 2016 and 2014, §4.1 II",
        {
            "null": "as the edition says (2016: drawn; 2014: chosen)",
            "random": "drawn at random",
            "chosen": "chosen by the creator",
        },
    ),
    "school_timing": (
        "When the school closes a row",
        "Whether the school's owner closes his last row before the sale, or during it until a good "
        "of that row is sold (asked only when his next good would come from it, or at the end).",
        "Rulebook 2014, §III.1 (the school)",
        {
            "null": "as the edition says (2016: before; 2014: during)",
            "before_sale": "before the sale",
            "during_sale": "during the sale",
        },
    ),
    "emergency_digit_mode": (
        "Emergency sales on low spaces",
        "How far a share value below 10 falls for each share sold in an emergency.",
        "Rulebook 2016, §7.0 (emergency share sale)",
        {
            "leading": "by the space's own number (space 9: 9 spaces)",
            "tens": "by its tens digit (space 9: no spaces)",
        },
    ),
}


# decisions said the same way whatever their fields
SAID = {
    "skip_special_marker": "Take no special marker",
    "use_extra_shifts": "Return the extra shifts tile for one more good",
    "finish_main_action": "Finish the main action",
    "end_turn": "End your turn",
    "stop_selling": "Stop selling",
    "done": "Done",
}
# where goods come from when they are sold or shipped
SOURCES = {"surplus": "this production", "large": "the large warehouse", "small": "the small warehouse"}


def good(code: Any) -> str:
    return GOOD.get(str(code), str(code).lower())


def ship_name(ship: Any) -> str:
    """``SHIP-2A`` -> ``2-goods ship A``; ``SHIP-10`` -> ``10-goods ship``."""
    s = str(ship).removeprefix("SHIP-")
    digits = "".join(ch for ch in s if ch.isdigit())
    letter = s[len(digits) :]
    return f"{digits}-goods ship{' ' + letter if letter else ''}" if digits else s.lower()


def marker_name(marker: Any) -> str:
    """``OWN:QUALITY`` -> ``quality marker``; ``LIGHT:PRODUCTION`` -> ``light grey production
    marker``; ``SHIP:SHIP-6A`` -> ``6-goods ship A``."""
    shade, _, action = str(marker).partition(":")
    if shade == "SHIP":
        return ship_name(action)
    if shade == "OWN":
        return f"{ACTION.get(action, action.lower())} marker"
    return f"{SHADE.get(shade, shade.lower())} {ACTION.get(action, action.lower())} marker"


def tile_name(tile: Any) -> str:
    return TILES[str(tile)][0] if str(tile) in TILES else str(tile).replace("_", " ").capitalize()


def tile_tip(tile: Any) -> str:
    name, effect, kept = TILES.get(str(tile), (tile_name(tile), "", ""))
    return f"{name}: {effect} ({kept}). {TILE_COST}"


NO_EFFECT = "No event"
"""What an event marker the rulebooks do not name is called in its decade's row (it fits the
board's event slot): the marker has no effect, so there is no event that decade."""


def event_name(event: Any) -> str:
    code = str(event)
    if code in EVENTS:
        return EVENTS[code][0]
    if any(ch.isdigit() for ch in code):  # a marker the component data leaves unnamed
        return NO_EFFECT
    return code.replace("_", " ").capitalize()


def event_tip(event: Any) -> str:
    code = str(event)
    if code in EVENTS:
        return f"{EVENTS[code][0]}: {EVENTS[code][1]}"
    return "No event this decade: its marker has no effect."


def edge_name(edge: Any) -> str:
    kind, _, what = str(edge).partition(":")
    return f"the {good(what)} column" if kind == "col" else f"row {what}"


def phase_name(phase: Any) -> str:
    return PHASE.get(str(phase), str(phase).replace("_", " "))


def economy_text(advance: int, workers: int) -> str:
    return f"importer +{advance}, {workers} worker{'s' if workers != 1 else ''} back"


def _per_good(values: Sequence[int]) -> str:
    held = [f"{n} {good(g)}" for g, n in zip(GOODS, values, strict=False) if n]
    return ", ".join(held) or "nothing"


class WaterFrameWords(Words):
    amount_fields = frozenset({"price", "count", "accountant", "engineer_payment", "rows"})
    code = re.compile(r"\b(?:col|row):[A-Z0-9]+\b|\b[A-Z][A-Z0-9]*(?:[_:-][A-Z0-9]+)*\b")

    def name(self, code: Any) -> str:
        c = str(code)
        if c in GOOD:
            return good(c)
        if c in ACTION:
            return ACTION[c]
        if c in SHADE:
            return c.lower()
        if c in TILES:
            return tile_name(c)
        if c.startswith("SHIP-"):
            return ship_name(c)
        if ":" in c:
            return edge_name(c) if c.startswith(("col:", "row:")) else marker_name(c)
        if c in PHASE:
            return phase_name(c)
        return super().name(code)

    def known(self, code: str) -> bool:
        return (
            code in GOOD
            or code in ACTION
            or code in SHADE
            or code in TILES
            or code.startswith(("SHIP-", "col:", "row:"))
            or super().known(code)
        )

    def amount(self, d: Mapping[str, Any], field: str) -> str:
        return {
            "price": "Price (£)",
            "count": {
                "hire_workers": "Workers",
                "fire_workers": "Workers",
                "repay_loans": "Loans",
                "sell_stored_goods": "Goods",
            }.get(str(d.get("type")), "Shares"),
            "accountant": "Accountant: £ more to pay (negative: less)",
            "engineer_payment": "Paid for quality (£)",
            "rows": "Rows producing",
        }.get(field, super().amount(d, field))

    def default_amount(self, d: Mapping[str, Any], field: str, values: Sequence[int]) -> int:
        if field == "rows":
            return max(values)
        return super().default_amount(d, field, values)

    def group(self, d: Mapping[str, Any]) -> str:
        t = str(d.get("type"))
        if t in ("buy_shares", "sell_shares", "repay_loans", "sell_stored_goods", "use_broker"):
            return "Stock exchange"
        if t in ("take_tile", "take_grey_marker", "take_ship", "reassign_tile", "skip_special_marker"):
            return "Special marker"
        if t in ("finish_main_action", "end_turn", "done", "stop_selling"):
            return "Go on"
        return "Decide"


def _inventor(use: Any) -> str:
    return {"return": " with the inventor (then return it)", "pay": " with the inventor (then pay £5)"}.get(
        str(use), ""
    )


def _agent(agent: Any) -> str:
    if agent == 1:
        return ", one good more (agent in the colonies)"
    if agent == -1:
        return ", one good fewer (agent in the colonies)"
    return ""


def _marker(d: Mapping[str, Any], table: Table) -> str:
    """Placing a marker (or re-using one): which, where, and what the tiles change in its cost."""
    t = d.get("type")
    marker = (
        ship_name(d["ship"]) if d.get("ship") else marker_name(f"{d.get('shade', 'OWN')}:{d.get('action')}")
    )
    where = f"on the £{d['space']} space" if t == "place_marker" else "again (its cost plus the fee)"
    verb = "Place your" if t == "place_marker" else "Re-use your"
    extra = ""
    if d.get("accountant"):
        extra += f", paying £{abs(d['accountant'])} {'more' if d['accountant'] > 0 else 'less'}"
    if d.get("engineer_payment") is not None:
        extra += f", paying £{d['engineer_payment']} for quality"
    return f"{verb} {marker} {where}{extra}"


def _marker_by_accountant(d: Mapping[str, Any], table: Table) -> str:
    return _marker({**d, "accountant": 0}, table) + ", the accountant changing the cost if you like"


def _ship_contract(d: Mapping[str, Any], table: Table) -> str:
    parts = [f"{d['from_' + k]} from {name}" for k, name in SOURCES.items() if d.get("from_" + k)]
    sources = f" ({', '.join(parts)})" if parts else ""
    return f"Ship the contract now{sources}{_agent(d.get('agent', 0))}"


def _store_goods(d: Mapping[str, Any], table: Table) -> str:
    small = f"; small warehouse: {_per_good(d['small'])}" if any(d.get("small") or ()) else ""
    return f"Keep in the large warehouse: {_per_good(d['large'])}{small}"


def _start_player(d: Mapping[str, Any], table: Table) -> str:
    when = "the game" if table.view.get("phase") == "first_start_player" else "the next decade"
    return f"{table.who(d['seat'])} starts {when}"


# the codes of a decision as its words say them: {good:good}, {edge:edge} ...
FORMATS: dict[str, Callable[[Any], str]] = {
    "good": good,
    "edge": edge_name,
    "ship": ship_name,
    "marker": marker_name,
    "tile": lambda tile: tile_name(tile).lower(),
    "roman": lambda n: str(ROMAN.get(n, n)),
    "rows": lambda rows: f"rows 1 to {rows}" if rows > 1 else "row 1",
    "source": lambda source: SOURCES.get(source, source),
    "developer": lambda developer: " with the developer (£5 off)" if developer else "",
    "inventor": _inventor,
    "agent": _agent,
}
BUILDING = "Build a level-{level:roman} {good:good} factory{developer:developer}"
# every decision as a player says it
LABELS: dict[str, Label] = {
    **SAID,
    "found_factory": "Found your {good:good} factory at £{price}",
    "sell_start_shares": "Sell {count} start-up shares at £10 each",
    "place_marker": _marker,
    "reuse_marker": _marker,
    "build_factory": BUILDING + ", priced £{price}",
    "modernize_factory": "Modernise the {good:good} factory{developer:developer}{inventor:inventor}",
    "close_factory": "Close the {good:good} factory",
    "hire_workers": "Hire {count:# workers} into {good:good} row {row}",
    "fire_workers": "Fire {count:# workers} of the {good:good} factory",
    "hire_warehouse_worker": "Hire a warehouse worker for {edge:edge}",
    "move_warehouse_worker": "Move the warehouse worker from {from_edge:edge} to {to_edge:edge}",
    "release_warehouse_worker": "Release the warehouse worker of {edge:edge}",
    "place_machine": (
        "Place a machine in {good:good} row {row}"
        "{school_to_good:?; the worker moves to {school_to_good:good} row {school_to_row}}"
    ),
    "raise_quality": "Raise the quality of the {good:good} factory",
    "raise_distribution": "Raise the distribution of the {good:good} factory",
    "adjust_price": "Set the price of {good:good} to £{price}",
    "use_patent": lambda d, table: (
        "Keep the patent: £2 more to spend"
        if d.get("option") == "extra_budget"
        else "Return the patent for two free raises"
    ),
    "produce_goods": "Produce {good:good} with {rows:rows}{extra_shift:?, with one extra shift}",
    "deliver_contract": "Deliver the {good:good} contract{agent:agent}",
    "place_contract": "Put your {good:good} contract on the {space} space",
    "buy_shares": "Buy {count:# shares}",
    "sell_shares": "Sell {count:# shares}",
    "repay_loans": "Repay {count:# loans}",
    "sell_stored_goods": "Sell {count} stored {good:good}",
    "take_tile": (
        "Take the {tile:tile} tile{assign:? for your {assign:good} factory}"
        "{give_back:?, giving back the {give_back:tile}}"
    ),
    "take_grey_marker": "Take the {marker:marker} from row {row:roman}{inventor:inventor}",
    "take_ship": "Take the {ship:ship}{give_back:?, giving back the {give_back:ship}}{inventor:inventor}",
    "use_broker": "Return the broker and buy {count:# shares} at half price",
    "reassign_tile": "Move the {tile:tile} to your {good:good} factory",
    "close_last_row": When("close", "Close your last occupied row (school)", "Keep every row producing"),
    "patron_sale": When("source", "Sell one more to your patron, from {source:source}", "No patron sale"),
    "ship_contract": When("fulfil", _ship_contract, "Do not ship now: the contract escalates"),
    "store_goods": _store_goods,
    "release_ship": "Release the {ship:ship} with its crew",
    "use_charisma": When("seat", "Return the charisma tile: {seat:who} starts", "Keep the charisma tile"),
    "choose_start_player": _start_player,
    "sell_from_warehouse": lambda d, table: f"Sell one from the {d.get('warehouse', 'large')} warehouse",
}
# the element choosing a number among decisions alike (by type:field, or type)
TEMPLATES: dict[str, Label] = {
    "found_factory": "Found your {good:good} factory",
    "build_factory": BUILDING,
    "adjust_price": "Set the price of {good:good}",
    "place_marker:accountant": _marker_by_accountant,
    "reuse_marker:accountant": _marker_by_accountant,
    "sell_start_shares:count": "Sell start-up shares at £10 each",
    "hire_workers:count": "Hire workers into {good:good} row {row}",
    "fire_workers:count": "Fire workers of the {good:good} factory",
    "buy_shares:count": "Buy shares",
    "sell_shares:count": "Sell shares",
    "repay_loans:count": "Repay loans",
    "sell_stored_goods:count": "Sell stored {good:good}",
    "use_broker:count": "Return the broker and buy shares at half price",
    "produce_goods": "Produce {good:good}{extra_shift:?, with one extra shift}",
}


WORDS = WaterFrameWords(labels=LABELS, templates=TEMPLATES, formats=FORMATS)
