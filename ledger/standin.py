"""The stand-in: the strong bot playing a seat whose player is away.

A seat gets the stand-in when its clock runs out under ``on_expiry: "bot"`` (and a sandbox fork's
bot seats are played the same way). It decides from the seat's view only (``ledger.bots.strong``
reads a position through the title's ``determinise``), with a small fixed search measured in
engine steps and no wall-clock limit, so a stand-in's decision is reproducible: its search is
seeded from the game's seed and the event's version. Its decisions are recorded as the seat's
with ``by: "bot"``, and the player takes the seat back with any decision of theirs or
``POST /games/{id}/return``.
"""

from __future__ import annotations

from typing import Any

from ledger.bots import strong
from ledger.canonical import derive_key
from ledger.engine import Decision

BUDGET_MS = 20.0  # the stand-in's search, in milliseconds of this machine (engine steps)


def search_seed(seed: bytes, version: int, seat: int) -> int:
    """The search's seed for the decision recorded as event ``version``: derived from the game's
    secret seed, so nobody can replay the stand-in's search before the game ends."""
    return int.from_bytes(derive_key(seed, f"stand-in:{version}:{seat}")[:8], "big")


def stand_in_decision(title: str, state: Any, seat: int, seed: bytes, version: int) -> Decision:
    return strong.choose(
        title, state, seat, seed=search_seed(seed, version, seat), budget_ms=BUDGET_MS, wall_clock=False
    )
