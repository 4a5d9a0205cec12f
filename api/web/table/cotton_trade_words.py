"""Cotton Trade 1800-1860 in players' words: regions, ship and contract cards, phases, coins,
payments, and every decision as a player would say it at the table.

Card ids (``S05``, ``C052``) are the engine's; a player reads "ship 5" and "contract 52" (the
board shows each card's numbers beside it). Stored events keep their codes (the draw labels,
``EGYPT contract deck``, are part of the recorded draws): they are said in words when shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from api.web.table.base import Label, Table, Words
from ledger.games.cotton_trade.common import C

REGION = {
    "EGYPT": "Egypt",
    "NORTH_AMERICA": "North America",
    "SOUTH_AMERICA_WI": "South America and the West Indies",
    "BRITISH_INDIA": "British India",
}
REGION_SHORT = {
    "EGYPT": "Egypt",
    "NORTH_AMERICA": "North America",
    "SOUTH_AMERICA_WI": "South America & W. Indies",
    "BRITISH_INDIA": "British India",
}
STAGE_CURRENCY = {"I": "pence", "II": "shillings", "III": "pounds"}
COIN = {"pence": "d", "shillings": "s", "pounds": "£"}

PHASE = {
    "setup": "setting up",
    "turn_order": "1. turn order",
    "draw": "2. drawing cards",
    "rent": "3. renting ships",
    "reveal": "4. revealing contracts",
    "sail": "5. sailing ships",
    "buy": "6. buying cotton",
    "sell": "7. selling cotton",
    "maintenance": "8. maintenance",
    "clear_up": "9. clearing up",
    "rescale": "end of the stage",
    "keep_new": "end of the stage: new ships",
    "rescale_ships": "end of the stage: ships",
    "rescale_money": "end of the stage: money",
    "bank_auctions": "end of the stage: the bank's shares",
    "payment": "selling a share to pay",
    "auction": "share auction",
    "end": "the end of the game",
    "finished": "the game is over",
}

SAID = {
    "pass_renting": "Rent no more ships this round",
    "decline_contract": "Buy no contract for this ship",
    "return_ship": "Sail the empty ship back to the United Kingdom",
    "return_all_ships": "Return every ship for its rental value",
    "reveal_top_ship": "Turn up the top ship card (1 passenger token)",
    "take_revealed_ship": "Rent the ship card turned up",
    "discard_revealed_ship": "Discard the ship card turned up",
    "reveal_top_contract": "Turn up the top contract of the region (2 reputation)",
    "take_revealed_contract": "Buy the contract turned up",
    "discard_revealed_contract": "Discard the contract turned up",
    "pass_bid": "Pass (passing is final)",
}

CARD = re.compile(r"\b(?:(ship card|contract card|ship|contract|card) )?([SC])(\d{2,3})\b")
PURPOSE = re.compile(r"\b(rent|contract):([SC]\d{2,3})\b")
SEAT_COMPANY = re.compile(r"\bseat (\d+)'s company\b")


def region(code: Any) -> str:
    return REGION.get(str(code), str(code).replace("_", " ").title())


def ship_card(card: Any) -> str:
    """``S05`` -> ``ship 5``; the good ol' ship by its name."""
    c = str(card)
    if c == "GOOD_OL":
        return "Good ol' Ship"
    return f"ship {int(c[1:])}" if c[:1] == "S" and c[1:].isdigit() else c


def contract_card(card: Any) -> str:
    c = str(card)
    return f"contract {int(c[1:])}" if c[:1] == "C" and c[1:].isdigit() else c


def possessive(name: str) -> str:
    """``Egypt's``; ``the West Indies'``."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def phase_name(phase: Any) -> str:
    return PHASE.get(str(phase), str(phase).replace("_", " "))


def money(amount: Any, currency: Any) -> str:
    """An amount in a stage's coins: ``7d``, ``3s``, ``£2``."""
    mark = COIN.get(str(currency), "")
    if isinstance(amount, int) and amount < 0:
        return "\u2212" + money(-amount, currency)  # the minus sign people write before money
    return f"£{amount}" if mark == "£" else f"{amount}{mark}"


def coins_text(coins: Mapping[str, int]) -> str:
    parts = [money(coins.get(c, 0), c) for c in ("pounds", "shillings", "pence") if coins.get(c)]
    return " ".join(parts) or "no coins"


def with_capacity(sh: Mapping[str, Any]) -> Mapping[str, Any]:
    """A ship card face up, with the capacity printed on it (the view gives the rest)."""
    return sh if "capacity" in sh else {**sh, "capacity": C.ship(str(sh["card"])).capacity}


def ship_text(sh: Mapping[str, Any], currency: str = "") -> str:
    """A ship card's numbers in words (a card in the row, or one a player holds)."""
    sh = with_capacity(sh)
    bits = [f"carries {sh['capacity']} cotton"]
    if sh.get("cabins"):
        bits.append(f"{sh['cabins']} cabin{'s' if sh['cabins'] != 1 else ''} for passengers")
    if sh.get("fast"):
        bits.append("fast (may overtake)")
    if sh.get("new"):
        bits.append("new (may be kept as a Good ol' Ship at the stage's end)")
    rent, upkeep = sh.get("value", 0), sh.get("maintenance", 0)
    bits.append(
        f"rent {money(rent, currency) if currency else rent}, maintenance {money(upkeep, currency) if currency else upkeep}"
    )
    return ", ".join(bits)


def contract_text(c: Mapping[str, Any], currency: str = "") -> str:
    if c.get("drought"):
        return "drought: no cotton this harvest"
    bits = [f"{c['cotton']} cotton for {money(c['price'], currency) if currency else c['price']}"]
    if c.get("unrest"):
        bits.append(f"unrest {c['unrest']}")
    bonus = [
        f"{c[k]} {w}{'s' if c[k] != 1 else ''}"
        for k, w in (("coins", "bonus coin"), ("passengers", "passenger"), ("vip", "VIP passenger"))
        if c.get(k)
    ]
    if bonus:
        bits.append("brings " + ", ".join(bonus))
    return ", ".join(bits)


def purpose_text(purpose: Any) -> str:
    what, _, card = str(purpose).partition(":")
    if what == "rent":
        return f"renting {ship_card(card)}"
    if what == "contract":
        return f"buying {contract_card(card)}"
    return str(purpose).replace("_", " ")


class CottonTradeWords(Words):
    amount_fields = frozenset({"pence"})
    code = re.compile(r"\b[A-Z][A-Z0-9]*(?:[_:-][A-Za-z0-9]+)*\b")

    def name(self, code: Any) -> str:
        c = str(code)
        if c in REGION:
            return REGION[c]
        if c == "UK":
            return "the United Kingdom"
        if c == "GOOD_OL":
            return ship_card(c)
        if c in ("WAR", "PEACE"):
            return c.lower()
        if c == "NEW-icon":
            return "new"
        if c in PHASE:
            return phase_name(c)
        card = CARD.fullmatch(c)
        if card:
            return _card(card)
        return super().name(code)

    def known(self, code: str) -> bool:
        return code in REGION or code in ("GOOD_OL", "WAR", "PEACE", "NEW-icon") or super().known(code)

    def text(self, sentence: str) -> str:
        sentence = PURPOSE.sub(lambda m: purpose_text(m.group(0)), sentence)
        sentence = CARD.sub(_card, sentence)
        return super().text(sentence)

    def prompt(self, prompt: str, names: Mapping[int, str]) -> str:
        """The engine's prompt (what the awaited seats are asked) in words, with names."""
        if prompt.startswith("draw: "):
            return f"the {self.text(prompt[6:])} is shuffled next"
        prompt = SEAT_COMPANY.sub(lambda m: f"{names.get(int(m.group(1)), 'a player')}'s company", prompt)
        prompt = prompt.replace("keep a NEW-icon ship as", "keep a new ship as")
        return self.text(prompt)

    def amount(self, d: Mapping[str, Any], field: str) -> str:
        if field == "pence":
            return "Pence"
        return super().amount(d, field)

    def default_amount(self, d: Mapping[str, Any], field: str, values: Sequence[int]) -> int:
        return min(values)

    def group(self, d: Mapping[str, Any]) -> str:
        t = str(d.get("type"))
        if t in ("bid", "pass_bid", "choose_share_to_sell"):
            return "Shares"
        if t in ("return_ship", "stay_in_region", "decline_contract", "buy_contract"):
            return "This ship"
        return "Decide"


def _card(m: re.Match[str]) -> str:
    """A card id, with the word before it ("ship S05", "card C052"), as the card's name."""
    kind, letter, digits = m.group(1) or "card", m.group(2), m.group(3)
    if kind != "card" and kind.startswith("ship") != (letter == "S"):
        return m.group(0)
    return ship_card(letter + digits) if letter == "S" else contract_card(letter + digits)


def _bid_coins(d: Mapping[str, Any]) -> str:
    return coins_text({c: int(d.get(c, 0)) for c in ("pence", "shillings", "pounds")})


def _ship_tail(card: str, table: Table) -> str:
    for sh in table.view.get("ship_row", []):
        if sh.get("card") == card:
            return f" ({ship_text(sh, str(table.view.get('currency', '')))})"
    return ""


def _contract_tail(card: str, table: Table) -> str:
    for r in table.view.get("regions", []):
        for c in r.get("contracts", []):
            if c.get("card") == card:
                return f" ({contract_text(c, str(table.view.get('currency', '')))})"
    return ""


def _sail(d: Mapping[str, Any], table: Table) -> str:
    extra = ""
    if d.get("overtake"):
        extra += ", overtaking the last ship"
    if d.get("war_entry"):
        extra += ", into the war (3 reputation)"
    created = list(d.get("created") or [])
    if created:
        vip = created.count("VIP")
        made = [
            f"{n} {w}{'s' if n != 1 else ''}"
            for n, w in ((len(created) - vip, "passenger"), (vip, "VIP passenger"))
            if n
        ]
        extra += ", creating " + " and ".join(made)
    return f"Sail your {d['capacity']}-cotton ship to {region(d['region'])}{extra}"


def _bid_template(d: Mapping[str, Any], table: Table) -> str:
    higher = [money(d[c], c) for c in ("pounds", "shillings") if d.get(c)]
    return "Bid " + (" ".join(higher) + " and pence" if higher else "in pence")


# the codes of a decision as its words say them: {card:ship}, {region:region} ...
FORMATS: dict[str, Callable[[Any], str]] = {
    "ship": ship_card,
    "region": region,
    "region's": lambda code: possessive(region(code)),
}
# every decision as a player says it
LABELS: dict[str, Label] = {
    **SAID,
    "rent_ship": lambda d, t: f"Rent {ship_card(d['card'])}" + _ship_tail(d["card"], t),
    "sail_ship": _sail,
    "buy_contract": lambda d, t: f"Buy {contract_card(d['card'])}" + _contract_tail(d["card"], t),
    "stay_in_region": (
        "Keep the empty ship in the region for the next harvest{despite_war:? despite the war (1 reputation)}"
    ),
    "keep_new_ship": "Keep {card:ship} as a Good ol' Ship, returning the others",
    "peek_contract": (
        "Look at the face-down contract in place {slot} of {region:region's} row (1 reputation)"
    ),
    "choose_share_to_sell": "Auction share {number} of {company:who}'s company",
    "bid": lambda d, t: f"Bid {_bid_coins(d)}",
}
# the element choosing a number among decisions alike
TEMPLATES: dict[str, Label] = {"bid:pence": _bid_template}


WORDS = CottonTradeWords(labels=LABELS, templates=TEMPLATES, formats=FORMATS)
