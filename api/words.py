"""Numbers in words for people, one way everywhere: a count agrees with its noun ("1 game",
"2 games"), money carries its sign the way people write it ("\u2212£5 2s 1d": a minus sign, not a hyphen), and who decided a
seat's moves reads as a phrase ("42 own moves, 3 by standing orders")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MINUS = "\u2212"
"""The minus sign people write before money (not the hyphen)."""

IRREGULAR = {"person": "people", "penny": "pence", "match": "matches", "by": "by"}


def plural(n: Any, noun: str, many: str | None = None) -> str:
    """``n`` and ``noun`` in the right number: ``plural(1, "game")`` -> ``1 game``,
    ``plural(2, "game")`` -> ``2 games``; ``many`` names an irregular plural. The last word of
    ``noun`` takes the number ("1 finished game", "3 finished games")."""
    count = int(n or 0)
    if count == 1:
        return f"{count} {noun}"
    if many is None:
        *before, last = noun.split(" ")
        many = " ".join(
            [*before, IRREGULAR.get(last, last + ("es" if last.endswith(("s", "x", "ch", "sh")) else "s"))]
        )
    return f"{count} {many}"


def pounds(amount: Any) -> str:
    """Pounds with their sign where people write it: ``£5``, and a minus sign before a debt's."""
    value = int(amount)
    return f"{MINUS}£{-value}" if value < 0 else f"£{value}"


_NEGATIVE_POUNDS = re.compile(r"£-(\d)")


def signed(text: Any) -> str:
    """A line with money in it, each debt written as people do: ``£-5 2s 1d`` gets the minus sign before its pound sign
    (the standings' summaries keep their recorded form; this is how they are shown)."""
    return _NEGATIVE_POUNDS.sub(MINUS + r"£\1", str(text))


COIN = {"pence": "d", "shillings": "s"}


def money(amount: Any, currency: Any = "pounds") -> str:
    """An amount in its coins, signed as people write it (a minus sign before a debt): ``£8``, ``7d``, ``3s``
    (Cotton Trade counts in pence, then shillings, then pounds); none: a dash."""
    if amount is None or isinstance(amount, bool) or not isinstance(amount, int | float):
        return "\u2013" if amount is None else str(amount)
    value = int(amount)
    sign = MINUS if value < 0 else ""
    mark = COIN.get(str(currency or "pounds"))
    return f"{sign}{abs(value)}{mark}" if mark else f"{sign}£{abs(value)}"


def decisions(made: Mapping[str, Any] | None) -> str:
    """Who made a seat's decisions, in words: ``42 own moves``, then the standing orders' (and
    their replies') and the stand-in's only when there are some."""
    made = made or {}
    own = int(made.get("person") or 0)
    orders = int(made.get("order") or 0) + int(made.get("reply") or 0)
    bot = int(made.get("bot") or 0)
    parts = [plural(own, "own move")]
    if orders:
        parts.append(f"{plural(orders, 'move')} by standing orders")
    if bot:
        parts.append(f"{plural(bot, 'move')} by the stand-in")
    return ", ".join(parts)
