"""Arkwright: The Card Game in players' words: goods, development cards and tracks, quality,
distribution and storehouse cards, actions, phases, and every decision as a player would say
it at the table.

Card effects follow the rulebook's card texts as the specification sums them up (spec §6.12,
the card table); the numbers come from the title's data file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from api.web.table.base import Table, Words
from ledger.games.arkwright_card_game.components import TRACKS, load

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


def plural(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


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

    def label(self, d: Mapping[str, Any], table: Table) -> str:
        t = str(d.get("type"))
        if t in SAID:
            return SAID[t]
        g = good(d.get("good"))
        if t == "choose_starting_factory":
            return f"Take the {g} factory to start with"
        if t == "place_foreman":
            return f"Place the Foreman beside your {g} factory"
        if t == "buy_starting_shares":
            return f"Buy {plural(d['count'], 'starting share')} at £10 each"
        if t == "choose_action":
            return f"Action: {action_name(d['action'])}"
        if t == "build_factory":
            return f"Open your {g} factory"
        if t == "upgrade_factory":
            return f"Upgrade your {g} factory to the next decade"
        if t == "upgrade_with_inventor":
            return f"Discard the Inventor to upgrade {' and '.join(good(x) for x in d['goods'])}"
        if t == "hire_worker":
            return f"Add the next worker card to the {g} factory"
        if t == "add_machine":
            return f"Add a machine to worker card {d['position']} of the {g} factory"
        if t == "set_quality_card":
            if d.get("good") is None:
                return f"Put {quality_card(d['card'])} back in your reserve"
            return f"Put {quality_card(d['card'])} at {g}, value {d['value']} on its {MODE[d['mode']]} side"
        if t == "set_distribution_card":
            if d.get("good") is None:
                return f"Put {distribution_card(d['card'])} back in your reserve"
            return f"Put {distribution_card(d['card'])} at {g}, value {d['value']}"
        if t == "buy_shares":
            return _shares(int(d.get("discounted", 0)), int(d.get("full", 0)))
        if t == "take_loans":
            return f"Take {plural(d['count'], 'loan')}"
        if t == "produce_extra":
            shift = ", discarding the Extra shift for one more good" if d.get("extra_shift") else ""
            return f"Extra production of {g} with {plural(d['worker_cards'], 'worker card')}{shift}"
        if t == "store_goods":
            return f"Store {plural(d['count'], 'good')} in {storehouse(d['storehouse'])}"
        if t == "ship_stored_goods":
            loads = ", ".join(f"{n} from {storehouse(sh)}" for sh, n in d["loads"])
            return f"Ship stored goods ({loads}){_customs(d)}"
        if t == "use_developer":
            return f"Rotate the Developer to reactivate the {card_name(d['card'])}"
        if t == "set_price_and_appeal":
            turned = d.get("appeal_cards") or []
            cards = f", {' and '.join(quality_card(c) for c in turned)} on appeal" if turned else ""
            return f"Factory token on spot {d['spot']}, office card on {MODE[d['office']]}{cards}"
        if t == "take_development":
            return f"Develop {track_name(d['track'])}"
        if t == "take_development_card":
            where = f", beside your {good(d['foreman_good'])} factory" if d.get("foreman_good") else ""
            return f"Take the {card_name(d['card'])}{where}"
        if t == "discard_development_card":
            return f"Return the {card_name(d['card'])} to the supply"
        if t == "use_broker":
            return f"Discard the Broker and buy {plural(d['count'], 'share')} at half value"
        if t == "use_inventor":
            return f"Discard the Inventor: develop {' and '.join(track_name(x) for x in d['tracks'])}"
        if t == "place_replacement_quality":
            return f"Put {quality_card(d['card'])} in the Engineer's place, value {d['value']} on {MODE[d['mode']]}"
        if t == "use_patron":
            return f"Rotate the {card_name(d['card'])}: sell one more"
        if t == "sell_goods":
            stored = d.get("from_storage", 0)
            return "Sell at home" + (f", {plural(stored, 'stored good')} too" if stored else "")
        if t == "ship_goods":
            parts = [
                f"{d[k]} from {w}"
                for k, w in (("from_production", "production"), ("from_storage", "storage"))
                if d.get(k)
            ]
            return f"Ship one ship: {', '.join(parts) or 'nothing'}{_customs(d)}"
        if t == "break_tie_with_entrepreneur":
            return "Rotate the Entrepreneur to win the tie" if d.get("use") else "Let the tie stand"
        if t == "discard_entrepreneur":
            if d.get("start_player") is None:
                return "Keep the Entrepreneur"
            return f"Discard the Entrepreneur: {table.who(d['start_player'])} starts"
        if t == "choose_start_player":
            return f"{table.who(d['seat'])} starts the next decade"
        return super().label(d, table)

    def template_label(self, d: Mapping[str, Any], field: str, table: Table) -> str:
        t = str(d.get("type"))
        if t == "set_quality_card":
            return f"Put {quality_card(d['card'])} at {good(d['good'])} on its {MODE[d['mode']]} side"
        if t == "set_distribution_card":
            return f"Put {distribution_card(d['card'])} at {good(d['good'])}"
        if t == "place_replacement_quality":
            return f"Put {quality_card(d['card'])} in the Engineer's place on {MODE[d['mode']]}"
        if t == "buy_shares" and field == "full":
            n = int(d.get("discounted", 0))
            return f"Buy shares{f', {n} at the discount,' if n else ''} at full value"
        if t == "buy_shares":
            return f"Buy shares at the discount{', and ' + str(d['full']) + ' at full value' if d.get('full') else ''}"
        if t == "sell_goods":
            return "Sell at home, with stored goods"
        if t == "ship_goods":
            rest = f", {d['from_production']} from production" if d.get("from_production") else ""
            return f"Ship one ship with stored goods{rest}{_customs(d)}"
        words = {
            "buy_starting_shares": "Buy starting shares at £10 each",
            "take_loans": "Take loans",
            "store_goods": f"Store goods in {storehouse(d.get('storehouse'))}",
            "use_broker": "Discard the Broker and buy shares at half value",
        }
        return words.get(t) or self.label(d, table)

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


def _shares(discounted: int, full: int) -> str:
    parts = [f"{discounted} at the discount"] if discounted else []
    parts += [f"{full} at full value"] if full else []
    return f"Buy {plural(discounted + full, 'share')}" + (f" ({', '.join(parts)})" if parts else "")


def _customs(d: Mapping[str, Any]) -> str:
    return ", rotating the Customs office (one token fewer)" if d.get("customs_office") else ""


WORDS = CardGameWords()
