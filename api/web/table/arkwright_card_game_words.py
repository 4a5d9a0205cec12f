"""Arkwright: The Card Game in players' words: goods, development cards and tracks, quality,
distribution and storehouse cards, actions, phases, and every decision as a player would say
it at the table.

Card effects follow the rulebook's card texts as the specification sums them up (spec §6.12,
the card table); the numbers come from the title's data file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from api.web.table.base import Label, Table, When, Words
from ledger.games.arkwright_card_game.components import TRACKS, load
from ledger.games.vocabulary import counted

C = load()
GOODS = C.goods
GOOD = {"FOOD": "food", "CLOTHES": "clothes", "CUTLERY": "cutlery", "LAMPS": "lamps"}
ROMAN = {1: "I", 2: "II", 3: "III"}

# (name, what it does) — the card texts as spec §6.12 sums them up
CARDS: dict[str, tuple[str, str]] = {
    "ENTREPRENEUR": (
        "Entrepreneur",
        "Rotate it to win a tie for the highest appeal in a production (once a decade); at the end "
        "of any round, discard it to name the next start player.",
    ),
    "CUSTOMS_OFFICE": (
        "Customs office",
        "When you use a ship, rotate it: one shipping token fewer (once a decade).",
    ),
    "EXTRA_SHIFT": ("Extra shift", "Discard it when a factory of yours produces: one more good."),
    "WORKSHOP": (
        "Workshop",
        f"Machine upkeep: up to {C.workshop_machines} machines of each factory cost nothing.",
    ),
    "FOREMAN": (
        "Foreman",
        f"Lies beside one factory: its wages are £{C.foreman_discount} less per worker, for up to "
        f"{C.foreman_workers} workers.",
    ),
    "BROKER": (
        "Broker",
        f"Instead of a development, discard it to buy up to {C.broker_shares} shares at half their value.",
    ),
    "INVENTOR": (
        "Inventor",
        "In a build action, discard it to upgrade up to 2 different factories one decade, whatever "
        "the decade.",
    ),
    "DEVELOPER": (
        "Developer",
        f"Each factory's fixed cost is £{C.developer_discount} less; once a decade, in your turn, rotate "
        "it to reactivate another rotated card.",
    ),
    "CONTRACT": ("Contract", f"£{C.contract_bonus} more for each good you ship."),
    "PATENT": ("Patent", "An extra distribution card (value 1 to 4)."),
    "ENGINEER": (
        "Engineer",
        "An extra quality card (value up to 6); from now on quality may reach 6 in all your factories.",
    ),
    "BIG_STOREHOUSE": ("Big storehouse", "An extra storehouse holding up to 4 goods of one kind."),
}
TRACK = {
    "QUALITY": ("quality", "quality added per action"),
    "DISTRIBUTION": ("distribution", "distribution added per action"),
    "DEV_CARDS": ("development cards", "development cards you may hold"),
    "MACHINERY": ("machinery", "machines added per action"),
    "SHIP": ("ships", "goods each ship carries"),
    "STOCK_EXCHANGE": ("stock exchange", "shares bought at a discount per turn"),
}
ACTION = {
    "BUILD": "build or upgrade factories",
    "EMPLOY": "employ workers",
    "AUTOMATE": "automate (add machines)",
    "QUALITY": "add quality",
    "DISTRIBUTION": "add distribution",
    "STOCK_EXCHANGE": "go to the stock exchange",
    "EXTRA_PRODUCTION": "extra production",
    "EARLY_SHIPPING": "early shipping",
    "NONE": "no action",
}
PHASE = {
    "setup": "setting up",
    "draft_first": "set-up: the first factories",
    "draft_second": "set-up: the second factories",
    "start_foreman": "set-up: the Foreman",
    "start_development": "set-up: the first development",
    "start_shares": "set-up: starting shares",
    "round_start": "the round begins",
    "action": "turns",
    "production": "production",
    "share_value": "share values rise",
    "end_of_round": "end of the round",
    "entrepreneur": "end of the round: the Entrepreneur",
    "choose_start": "end of the decade: the next start player",
    "finished": "the game is over",
}
STEP = {
    "a": "step a: the action",
    "action": "step a: the action",
    "b": "step b: price and appeal",
    "c": "step c: a development",
    "engineer": "replacing the Engineer",
    "done": "done",
}
MODE = {"PRICE": "price", "APPEAL": "appeal"}
PRODUCTION_STAGE = {
    "produce": "producing",
    "sale": "selling at home",
    "leftovers": "storing or shipping the rest",
    "tie": "the tie for the highest appeal",
}


def good(code: Any) -> str:
    return GOOD.get(str(code), str(code).lower())


def card_name(card: Any) -> str:
    """``PATRON_CLOTHES_FOOD`` -> ``Patron of clothes and food``; ``BIG_STOREHOUSE`` -> ``Big storehouse``."""
    c = str(card)
    if c.startswith("PATRON_"):
        first, second = c.removeprefix("PATRON_").split("_")
        return f"Patron of {good(first)} and {good(second)}"
    return CARDS[c][0] if c in CARDS else c.replace("_", " ").capitalize()


def card_tip(card: Any) -> str:
    c = str(card)
    if c.startswith("PATRON_"):
        first, second = (good(g) for g in c.removeprefix("PATRON_").split("_"))
        effect = (
            f"When you sell {first} or {second} at home, rotate it: {C.patron_extra} more good may be "
            "sold (once a decade)."
        )
    else:
        effect = CARDS.get(c, (card_name(c), ""))[1]
    lifts = C.card_types[c].lifts if c in C.card_types else None
    extra = (
        f" Lifts the decade restriction of {track_name(TRACKS[lifts])} (expert)." if lifts is not None else ""
    )
    return f"{card_name(c)}: {effect}{extra}"


def track_name(track: Any) -> str:
    return TRACK.get(str(track), (str(track).lower(), ""))[0]


def track_tip(track: str, level: int) -> str:
    name, what = TRACK.get(track, (track.lower(), ""))
    i = TRACKS.index(track) if track in TRACKS else 0
    steps = ", ".join(str(v) for v in C.track_values[i])
    return f"Development of {name}: level {level} of {C.levels_max}; {what}: {steps} by level."


ORDINAL = {"1": "first", "2": "second", "3": "third"}


def quality_card(card: Any) -> str:
    """``Q2`` -> ``the second quality card``; ``ENGINEER`` -> ``the Engineer`` (a menu of them
    then reads "First quality card ...", "Engineer ...": the card first, not its number)."""
    c = str(card)
    if c == "ENGINEER":
        return "the Engineer"
    return f"the {ORDINAL.get(c[1:], c[1:])} quality card" if c.startswith("Q") else c.lower()


def distribution_card(card: Any) -> str:
    c = str(card)
    if c == "PATENT":
        return "the Patent"
    return f"the {ORDINAL.get(c[1:], c[1:])} distribution card" if c.startswith("D") else c.lower()


def storehouse(sh: Any) -> str:
    """``S1`` -> ``the first small storehouse``; ``BIG`` -> ``the big storehouse``."""
    c = str(sh)
    if c == "BIG":
        return "the big storehouse"
    return f"the {ORDINAL.get(c[1:], c[1:])} small storehouse" if c.startswith("S") else c.lower()


def phase_name(phase: Any) -> str:
    return PHASE.get(str(phase), str(phase).replace("_", " "))


def action_name(action: Any) -> str:
    return ACTION.get(str(action), str(action).replace("_", " ").lower())


# decisions said the same way whatever their fields
SAID = {
    "skip_action": "Take no action this turn",
    "finish_action": "Finish the action",
    "regain_ships": "Take the shipping card back (2 ships)",
    "skip_development": "Take no development",
    "finish_replacement": "Place no more quality cards",
    "use_extra_shift": "Discard the Extra shift: one more good",
    "finish_production": "Finish: waste the goods left and pay the costs",
}
CODES = {
    **{g: good(g) for g in GOODS},
    **{c: card_name(c) for c in (*CARDS, *(t for t in C.card_types if t.startswith("PATRON_")))},
    **{t: track_name(t) for t in TRACKS},
    **{f"Q{i}": quality_card(f"Q{i}") for i in (1, 2, 3)},
    **{f"D{i}": distribution_card(f"D{i}") for i in (1, 2)},
    **{f"S{i}": storehouse(f"S{i}") for i in (1, 2)},
    "BIG": storehouse("BIG"),
    "PRICE": "price",
    "APPEAL": "appeal",
}


class CardGameWords(Words):
    amount_fields = frozenset({"count", "value", "full", "from_storage"})
    code = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\b")

    def name(self, code: Any) -> str:
        c = str(code)
        if c in CODES:
            return CODES[c]
        if c in ACTION:
            return action_name(c)
        if c in PHASE:
            return phase_name(c)
        return super().name(code)

    def known(self, code: str) -> bool:
        return code in CODES or code in ACTION or super().known(code)

    def amount(self, d: Mapping[str, Any], field: str) -> str:
        t = str(d.get("type"))
        if field == "value":
            return "Value"
        if field == "from_storage":
            return "Stored goods"
        if t == "take_loans":
            return "Loans"
        if t == "store_goods":
            return "Goods"
        return "Shares"

    def group(self, d: Mapping[str, Any]) -> str:
        t = str(d.get("type"))
        if t in ("choose_action", "skip_action"):
            return "Step a: choose an action"
        if t in ("buy_shares", "take_loans", "regain_ships", "use_broker", "buy_starting_shares"):
            return "Stock exchange"
        if t in (
            "take_development",
            "take_development_card",
            "discard_development_card",
            "skip_development",
            "use_inventor",
        ):
            return "Step c: a development"
        if t in ("finish_action", "finish_replacement", "finish_production"):
            return "Go on"
        return "Decide"


def _shares(d: Mapping[str, Any], table: Table) -> str:
    discounted, full = int(d.get("discounted", 0)), int(d.get("full", 0))
    parts = [f"{discounted} at the discount"] if discounted else []
    parts += [f"{full} at full value"] if full else []
    return f"Buy {counted(discounted + full, 'shares')}" + (f" ({', '.join(parts)})" if parts else "")


def _customs(on: Any) -> str:
    return ", rotating the Customs office (one token fewer)" if on else ""


def _ship_goods(d: Mapping[str, Any], table: Table) -> str:
    parts = [
        f"{d[k]} from {w}"
        for k, w in (("from_production", "production"), ("from_storage", "storage"))
        if d.get(k)
    ]
    return f"Ship one ship: {', '.join(parts) or 'nothing'}{_customs(d.get('customs_office'))}"


# the codes of a decision as its words say them: {good:good}, {card:quality} ...
FORMATS: dict[str, Callable[[Any], str]] = {
    "good": good,
    "goods": lambda goods: " and ".join(good(g) for g in goods),
    "action": action_name,
    "card": card_name,
    "track": track_name,
    "tracks": lambda tracks: " and ".join(track_name(t) for t in tracks),
    "quality": quality_card,
    "qualities": lambda cards: " and ".join(quality_card(c) for c in cards or ()),
    "distribution": distribution_card,
    "storehouse": storehouse,
    "loads": lambda loads: ", ".join(f"{n} from {storehouse(sh)}" for sh, n in loads),
    "mode": lambda mode: MODE.get(str(mode), str(mode)),
    "customs": _customs,
}
CUSTOMS = "{customs_office:customs}"
# every decision as a player says it
LABELS: dict[str, Label] = {
    **SAID,
    "choose_starting_factory": "Take the {good:good} factory to start with",
    "place_foreman": "Place the Foreman beside your {good:good} factory",
    "buy_starting_shares": "Buy {count:# starting shares} at £10 each",
    "choose_action": "Action: {action:action}",
    "build_factory": "Open your {good:good} factory",
    "upgrade_factory": "Upgrade your {good:good} factory to the next decade",
    "upgrade_with_inventor": "Discard the Inventor to upgrade {goods:goods}",
    "hire_worker": "Add the next worker card to the {good:good} factory",
    "add_machine": "Add a machine to worker card {position} of the {good:good} factory",
    "set_quality_card": When(
        "good",
        "Put {card:quality} at {good:good}, value {value} on its {mode:mode} side",
        "Put {card:quality} back in your reserve",
    ),
    "set_distribution_card": When(
        "good",
        "Put {card:distribution} at {good:good}, value {value}",
        "Put {card:distribution} back in your reserve",
    ),
    "buy_shares": _shares,
    "take_loans": "Take {count:# loans}",
    "produce_extra": (
        "Extra production of {good:good} with {worker_cards:# worker cards}"
        "{extra_shift:?, discarding the Extra shift for one more good}"
    ),
    "store_goods": "Store {count:# goods} in {storehouse:storehouse}",
    "ship_stored_goods": "Ship stored goods ({loads:loads})" + CUSTOMS,
    "use_developer": "Rotate the Developer to reactivate the {card:card}",
    "set_price_and_appeal": (
        "Factory token on spot {spot}, office card on {office:mode}"
        "{appeal_cards:?, {appeal_cards:qualities} on appeal}"
    ),
    "take_development": "Develop {track:track}",
    "take_development_card": "Take the {card:card}{foreman_good:?, beside your {foreman_good:good} factory}",
    "discard_development_card": "Return the {card:card} to the supply",
    "use_broker": "Discard the Broker and buy {count:# shares} at half value",
    "use_inventor": "Discard the Inventor: develop {tracks:tracks}",
    "place_replacement_quality": "Put {card:quality} in the Engineer's place, value {value} on {mode:mode}",
    "use_patron": "Rotate the {card:card}: sell one more",
    "sell_goods": "Sell at home{from_storage:?, {from_storage:# stored goods} too}",
    "ship_goods": _ship_goods,
    "break_tie_with_entrepreneur": When("use", "Rotate the Entrepreneur to win the tie", "Let the tie stand"),
    "discard_entrepreneur": When(
        "start_player", "Discard the Entrepreneur: {start_player:who} starts", "Keep the Entrepreneur"
    ),
    "choose_start_player": "{seat:who} starts the next decade",
}
# the element choosing a number among decisions alike (by type:field, or type)
TEMPLATES: dict[str, Label] = {
    "set_quality_card": "Put {card:quality} at {good:good} on its {mode:mode} side",
    "set_distribution_card": "Put {card:distribution} at {good:good}",
    "place_replacement_quality": "Put {card:quality} in the Engineer's place on {mode:mode}",
    "buy_shares:full": "Buy shares{discounted:?, {discounted} at the discount,} at full value",
    "buy_shares": "Buy shares at the discount{full:?, and {full} at full value}",
    "sell_goods": "Sell at home, with stored goods",
    "ship_goods": "Ship one ship with stored goods{from_production:?, {from_production} from production}"
    + CUSTOMS,
    "buy_starting_shares": "Buy starting shares at £10 each",
    "take_loans": "Take loans",
    "store_goods": "Store goods in {storehouse:storehouse}",
    "use_broker": "Discard the Broker and buy shares at half value",
}


WORDS = CardGameWords(labels=LABELS, templates=TEMPLATES, formats=FORMATS)
