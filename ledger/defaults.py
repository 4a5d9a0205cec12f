"""The decision made for a seat that cannot make its own (a clock ran out, a forfeit).

A title may define ``default_decision(state, seat, mode)`` on its engine; otherwise
the safe choice is taken generically: a passing decision where the title has one
(pass, decline, skip, finish, return, discard), else the title's scripted bot,
else the first legal decision. ``mode`` is "default" or "skip" (pass if at all
possible).
"""

from __future__ import annotations

from typing import Any

from ledger import registry
from ledger.engine import Decision

PASSIVE = ("pass", "decline", "skip", "finish", "return", "discard", "none")


def passive(legal: tuple[Decision, ...]) -> Decision | None:
    for word in PASSIVE:
        for d in legal:
            if word in str(getattr(d, "type", "")):
                return d
    return None


def default_decision(title: str, state: Any, seat: int, mode: str = "default") -> Decision:
    eng = registry.engine(title)
    legal = eng.legal_decisions(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has no legal decision")
    own = getattr(eng, "default_decision", None)
    if own is not None and mode == "default":
        return own(state, seat)  # type: ignore[no-any-return]
    choice = passive(legal)
    if choice is not None:
        return choice
    if own is not None:
        return own(state, seat)  # type: ignore[no-any-return]
    bot = registry.bot(title)
    return bot(state, seat) if bot is not None else legal[0]
